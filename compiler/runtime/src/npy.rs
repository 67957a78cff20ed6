//! NumPy `.npy` files (format versions 1 and 2): how tensors get in and out of tools and tests.
//!
//! Only what dlc tensors can hold is supported: little-endian `<f2 <f4 <f8 |b1 |i1 <i4 <i8`
//! (`=` and, for one-byte types, `<`/`|` are accepted as byte orders). Arrays are read in C
//! order or in Fortran order (what NumPy writes for a transposed array), which is copied to C
//! order on load; they are always written in C order. `index` tensors are written as `<i8` (and
//! read back as `i64`); `bf16` has no NumPy dtype and cannot be written. Anything else —
//! big-endian data, a truncated file — is an error naming the file, never a panic.

use crate::error::RuntimeError;
use crate::tensor::{byte_size, dtype_name, elem_bytes, Tensor};
use dlc_loop::interp::DType;
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";

/// Reads a `.npy` file.
pub fn read_npy(path: &Path) -> Result<Tensor, RuntimeError> {
    let err = |message: String| RuntimeError::Npy {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    decode_npy(&bytes).map_err(err)
}

/// Writes `tensor` as a version 1 `.npy` file (version 2 if the header needs it).
pub fn write_npy(path: &Path, tensor: &Tensor) -> Result<(), RuntimeError> {
    let err = |message: String| RuntimeError::Npy {
        path: path.to_path_buf(),
        message,
    };
    let bytes = encode_npy(tensor).map_err(err)?;
    std::fs::write(path, bytes).map_err(|e| err(e.to_string()))
}

/// The `.npy` bytes of `tensor`.
pub fn encode_npy(tensor: &Tensor) -> Result<Vec<u8>, String> {
    let descr = match tensor.dtype() {
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I1 => "|b1",
        DType::I8 => "|i1",
        DType::I32 => "<i4",
        DType::I64 | DType::Index => "<i8",
        DType::BF16 => return Err("bf16 tensors have no .npy dtype".into()),
    };
    let shape = match tensor.shape() {
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
    // header is padded with spaces and ends in '\n' so the data starts 64-byte aligned.
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
    let mut out = Vec::with_capacity(total + tensor.bytes().len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(tensor.bytes());
    Ok(out)
}

/// Decodes `.npy` bytes.
pub fn decode_npy(bytes: &[u8]) -> Result<Tensor, String> {
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err("not a .npy file (bad magic)".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 => {
            let raw = bytes.get(8..12).ok_or("truncated .npy header")?;
            let len = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
            (len as usize, 12)
        }
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    let header = bytes
        .get(start..start + header_len)
        .ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text")?;
    let header = Header::parse(header)?;
    let dtype = parse_descr(&header.descr)?;
    let data = &bytes[start + header_len..];
    let need = byte_size(&header.shape, dtype).map_err(|e| e.to_string())?;
    if data.len() != need {
        return Err(format!(
            "a {} array of shape {:?} takes {need} data bytes, the file has {}",
            dtype_name(dtype),
            header.shape,
            data.len()
        ));
    }
    if header.fortran_order {
        let c_order = fortran_to_c_order(data, &header.shape, elem_bytes(dtype));
        return Tensor::from_bytes(dtype, &header.shape, &c_order).map_err(|e| e.to_string());
    }
    Tensor::from_bytes(dtype, &header.shape, data).map_err(|e| e.to_string())
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
fn parse_descr(descr: &str) -> Result<DType, String> {
    let (order, ty) = descr.split_at(descr.len().min(1));
    let one_byte = matches!(ty, "b1" | "i1");
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
        "i4" => Some(DType::I32),
        "i8" => Some(DType::I64),
        _ => None,
    };
    match dtype {
        Some(d) if order_ok => Ok(d),
        _ => Err(format!(
            "unsupported dtype '{descr}' (supported: <f2 <f4 <f8 |b1 |i1 <i4 <i8)"
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
