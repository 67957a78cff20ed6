//! The `.npy` format (versions 1, 2 and 3 read; 1, or 2 when the header needs it, written):
//! how tensors move between numpy and dlc's tools, tests and interpreters.
//!
//! Data is little-endian: `<f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8` (`=` is taken as little-endian, and
//! one-byte types accept any byte order). Arrays are read in C order or in Fortran order (what
//! numpy writes for a transposed array), which is reordered to C order on load; they are always
//! written in C order. numpy has no bfloat16 and no index type: a `bf16` tensor is written as
//! `<f4` (exactly: every bf16 value is an f32) and an `index` tensor as `<i8`;
//! [`Literal::read_npy_as`] reads them back. Anything else — big-endian data, a truncated file —
//! is an error, never a panic.
//!
//! [`decode`] and [`encode`] work on the little-endian bytes of the elements, so the runtime
//! fills its aligned buffers without going through [`Literal`]'s element classes.

use crate::{num_elements, DType, Literal};
use dlc_ir::FloatKind;
use std::borrow::Cow;
use std::io;
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";

/// An array decoded from `.npy` bytes: its dtype (never `bf16` or `index`), shape, and
/// elements as little-endian bytes in C order.
#[derive(Clone, PartialEq, Debug)]
pub struct Array<'a> {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Cow<'a, [u8]>,
}

/// Decodes the bytes of a `.npy` file.
pub fn decode(bytes: &[u8]) -> Result<Array<'_>, String> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err("not a .npy file (bad magic)".into());
    }
    let (header_len, start): (usize, usize) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 => {
            let raw = bytes.get(8..12).ok_or("truncated .npy header")?;
            let len = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
            (len as usize, 12)
        }
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    let header = start
        .checked_add(header_len)
        .and_then(|end| bytes.get(start..end))
        .ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text")?;
    let header = Header::parse(header)?;
    let dtype = parse_descr(&header.descr)?;
    let data = &bytes[start + header_len..];
    let need = num_elements(&header.shape)
        .checked_mul(dtype.size_bytes())
        .filter(|&n| n < isize::MAX as usize)
        .ok_or_else(|| format!("a .npy array of shape {:?} is too large", header.shape))?;
    if data.len() != need {
        return Err(format!(
            "a {dtype} array of shape {:?} takes {need} data bytes, the file has {}",
            header.shape,
            data.len()
        ));
    }
    let data = if header.fortran_order {
        Cow::Owned(fortran_to_c_order(data, &header.shape, dtype.size_bytes()))
    } else {
        Cow::Borrowed(data)
    };
    Ok(Array {
        dtype,
        shape: header.shape,
        data,
    })
}

/// The bytes of a `.npy` file holding an array of `dtype` and `shape` whose elements are `data`
/// (little-endian, C order). `bf16` is written as `<f4`, `index` as `<i8`.
pub fn encode(dtype: DType, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let (descr, widened);
    let data = match dtype {
        DType::F16 => {
            descr = "<f2";
            data
        }
        DType::BF16 => {
            descr = "<f4";
            widened = data
                .chunks_exact(2)
                .flat_map(|c| {
                    let bits = u64::from(u16::from_le_bytes([c[0], c[1]]));
                    (FloatKind::BF16.from_bits(bits) as f32).to_le_bytes()
                })
                .collect::<Vec<u8>>();
            &widened[..]
        }
        DType::F32 => {
            descr = "<f4";
            data
        }
        DType::F64 => {
            descr = "<f8";
            data
        }
        _ => {
            descr = descr_of(dtype);
            data
        }
    };
    let shape = match shape {
        [d] => format!("({d},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Version 1 has a 2-byte length (10-byte preamble), version 2 a 4-byte one (12 bytes); the
    // header is padded with spaces and ends in '\n' so the data starts 64-byte aligned, as numpy
    // writes it.
    let (version, preamble) = if header.len() + 11 + 64 < usize::from(u16::MAX) {
        (1u8, 10)
    } else {
        (2u8, 12)
    };
    let total = (preamble + header.len() + 1).next_multiple_of(64);
    header.extend(std::iter::repeat_n(
        ' ',
        total - preamble - header.len() - 1,
    ));
    header.push('\n');
    let mut out = Vec::with_capacity(total + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

impl Literal {
    /// Reads a `.npy` file.
    pub fn read_npy(path: impl AsRef<Path>) -> io::Result<Literal> {
        Literal::from_npy_bytes(&std::fs::read(path)?)
    }

    /// Reads a `.npy` file as a tensor of `dtype`: the file's dtype must be `dtype`, except that
    /// a `bf16` tensor is read from `<f4` data (rounded to bf16) and an `index` one from `<i8`.
    pub fn read_npy_as(path: impl AsRef<Path>, dtype: DType) -> io::Result<Literal> {
        let t = Literal::read_npy(path)?;
        match (t.dtype(), dtype) {
            (have, want) if have == want => Ok(t),
            (DType::F32, DType::BF16) | (DType::I64, DType::Index) => Ok(t.cast(dtype)),
            (have, want) => Err(invalid(format!("file holds {have}, expected {want}"))),
        }
    }

    /// Writes a `.npy` file.
    pub fn write_npy(&self, path: impl AsRef<Path>) -> io::Result<()> {
        std::fs::write(path, self.to_npy_bytes())
    }

    /// Parses the bytes of a `.npy` file.
    pub fn from_npy_bytes(bytes: &[u8]) -> io::Result<Literal> {
        let array = decode(bytes).map_err(invalid)?;
        Literal::from_le_bytes(array.dtype, &array.shape, &array.data).map_err(invalid)
    }

    /// The bytes of a `.npy` file holding this tensor.
    pub fn to_npy_bytes(&self) -> Vec<u8> {
        encode(self.dtype(), self.shape(), &self.to_le_bytes())
    }
}

/// The elements of `data` (`element` bytes each, Fortran order: the first index varies
/// fastest) of an array of `shape`, in C order (the last index varies fastest).
fn fortran_to_c_order(data: &[u8], shape: &[usize], element: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    // Fortran strides, in elements: 1, d0, d0·d1, ...
    let strides: Vec<usize> = shape
        .iter()
        .scan(1usize, |stride, &d| {
            let s = *stride;
            *stride *= d;
            Some(s)
        })
        .collect();
    let mut index = vec![0usize; shape.len()];
    let count: usize = shape.iter().product();
    for _ in 0..count {
        let at: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.extend_from_slice(&data[at * element..(at + 1) * element]);
        // The next C-order index: the last dim counts fastest.
        for (i, &d) in index.iter_mut().zip(shape).rev() {
            *i += 1;
            if *i < d {
                break;
            }
            *i = 0;
        }
    }
    out
}

/// The dtype of a NumPy type string.
/// The numpy type string of an integer or boolean dtype (`index` is `<i8`).
fn descr_of(dtype: DType) -> &'static str {
    match dtype {
        DType::I1 => "|b1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        _ => "<i8",
    }
}

/// The numpy type strings dlc reads, for messages.
const SUPPORTED: &str = "<f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8";

fn parse_descr(descr: &str) -> Result<DType, String> {
    let (order, ty) = descr.split_at(descr.len().min(1));
    let one_byte = matches!(ty, "b1" | "i1" | "u1");
    let order_ok = match order {
        "<" | "=" => true,
        "|" => one_byte,
        ">" => one_byte,
        _ => false,
    };
    let dtype = match ty {
        "f2" => Some(DType::F16),
        "f4" => Some(DType::F32),
        "f8" => Some(DType::F64),
        "b1" => Some(DType::I1),
        "i1" => Some(DType::I8),
        "i2" => Some(DType::I16),
        "i4" => Some(DType::I32),
        "i8" => Some(DType::I64),
        "u1" => Some(DType::U8),
        "u2" => Some(DType::U16),
        "u4" => Some(DType::U32),
        "u8" => Some(DType::U64),
        _ => None,
    };
    match dtype {
        Some(d) if order_ok => Ok(d),
        _ => Err(format!(
            "unsupported dtype '{descr}' (supported: {SUPPORTED})"
        )),
    }
}

/// The three keys of a `.npy` header dictionary.
struct Header {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

impl Header {
    /// Parses the Python dict literal `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
    fn parse(text: &str) -> Result<Header, String> {
        let bad = || format!("malformed .npy header: {}", text.trim_end());
        let body = text
            .trim()
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .ok_or_else(bad)?;
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        let mut rest = body.trim_start();
        while !rest.is_empty() {
            let (key, after) = quoted(rest).ok_or_else(bad)?;
            let after = after
                .trim_start()
                .strip_prefix(':')
                .ok_or_else(bad)?
                .trim_start();
            let after = match key {
                "descr" => {
                    let (v, a) = quoted(after).ok_or_else(bad)?;
                    descr = Some(v.to_string());
                    a
                }
                "fortran_order" => {
                    let (v, a) = if let Some(a) = after.strip_prefix("True") {
                        (true, a)
                    } else if let Some(a) = after.strip_prefix("False") {
                        (false, a)
                    } else {
                        return Err(bad());
                    };
                    fortran = Some(v);
                    a
                }
                "shape" => {
                    let inner = after.strip_prefix('(').ok_or_else(bad)?;
                    let close = inner.find(')').ok_or_else(bad)?;
                    let dims = inner[..close]
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| s.trim_end_matches('L').parse::<usize>())
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|_| bad())?;
                    shape = Some(dims);
                    &inner[close + 1..]
                }
                _ => return Err(bad()),
            };
            let after = after.trim_start();
            rest = after.strip_prefix(',').unwrap_or(after).trim_start();
            if !after.starts_with(',') && !rest.is_empty() {
                return Err(bad());
            }
        }
        match (descr, fortran, shape) {
            (Some(descr), Some(fortran_order), Some(shape)) => Ok(Header {
                descr,
                fortran_order,
                shape,
            }),
            _ => Err(bad()),
        }
    }
}

/// A leading `'...'` (or `"..."`) string and what follows it.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let q = s.chars().next().filter(|&c| c == '\'' || c == '"')?;
    let end = s[1..].find(q)? + 1;
    Some((&s[1..end], &s[end + 1..]))
}
