//! `.npy` files (format version 1.0; 2.0 and 3.0 are read too): how test inputs and expected
//! outputs move between numpy and the interpreter.
//!
//! Data is little-endian in C order. The dtypes are `<f2` (f16), `<f4` (f32), `<f8` (f64), `|b1`
//! (i1), `|i1` (i8), `<i4` (i32) and `<i8` (i64). numpy has no bfloat16, so a `bf16` tensor is
//! written as `<f4` (exactly: every bf16 value is an f32) and read back with
//! [`Tensor::read_npy_as`]`(path, DType::BF16)`, which rounds the f32 values to bf16.

use super::tensor::{DType, Elements, Tensor};
use dlc_ir::FloatKind;
use std::io;
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

/// The npy `descr` of a dtype as written (bf16 is stored as f32).
fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "<f2",
        DType::BF16 | DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::I1 => "|b1",
        DType::I8 => "|i1",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
    }
}

/// The dtype of an npy `descr`; `=` (native) is taken as little-endian.
fn dtype_of_descr(descr: &str) -> Option<DType> {
    let (order, code) = descr.split_at(descr.len().min(1));
    if !matches!(order, "<" | "|" | "=") {
        return None;
    }
    match code {
        "f2" => Some(DType::F16),
        "f4" => Some(DType::F32),
        "f8" => Some(DType::F64),
        "b1" => Some(DType::I1),
        "i1" => Some(DType::I8),
        "i4" => Some(DType::I32),
        "i8" => Some(DType::I64),
        _ => None,
    }
}

impl Tensor {
    /// Reads a `.npy` file.
    pub fn read_npy(path: impl AsRef<Path>) -> io::Result<Tensor> {
        Tensor::from_npy_bytes(&std::fs::read(path)?)
    }

    /// Reads a `.npy` file as a tensor of `dtype`: the file's dtype must be `dtype`, except that
    /// a `bf16` tensor is read from `<f4` data, rounded to bf16.
    pub fn read_npy_as(path: impl AsRef<Path>, dtype: DType) -> io::Result<Tensor> {
        let t = Tensor::read_npy(path)?;
        match (t.dtype(), dtype) {
            (have, want) if have == want => Ok(t),
            (DType::F32, DType::BF16) => Ok(t.cast(DType::BF16)),
            (have, want) => Err(invalid(format!("file holds {have}, expected {want}"))),
        }
    }

    /// Writes a `.npy` file (version 1.0).
    pub fn write_npy(&self, path: impl AsRef<Path>) -> io::Result<()> {
        std::fs::write(path, self.to_npy_bytes())
    }

    /// Parses the bytes of a `.npy` file.
    pub fn from_npy_bytes(bytes: &[u8]) -> io::Result<Tensor> {
        if bytes.len() < 10 || &bytes[..6] != MAGIC {
            return Err(invalid("not an npy file (bad magic)"));
        }
        let (header_len, header_start) = match bytes[6] {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
            2 | 3 if bytes.len() >= 12 => (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            ),
            v => return Err(invalid(format!("unsupported npy version {v}"))),
        };
        let header = bytes
            .get(header_start..header_start + header_len)
            .ok_or_else(|| invalid("truncated npy header"))?;
        let header = std::str::from_utf8(header).map_err(|_| invalid("npy header is not text"))?;
        let descr = header_value(header, "descr")?;
        let descr = descr.trim_matches(|c| c == '\'' || c == '"');
        let dtype = dtype_of_descr(descr)
            .ok_or_else(|| invalid(format!("unsupported npy dtype '{descr}'")))?;
        if header_value(header, "fortran_order")? != "False" {
            return Err(invalid("Fortran-order npy data is not supported"));
        }
        let shape = parse_shape(header_value(header, "shape")?)?;
        let data = &bytes[header_start + header_len..];
        let width = match dtype {
            DType::F16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
            _ => 1,
        };
        let count = shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .filter(|n| n.checked_mul(width).is_some())
            .ok_or_else(|| invalid(format!("npy shape {shape:?} is too large")))?;
        if data.len() < count * width {
            return Err(invalid(format!(
                "npy data holds {} bytes, {} needed for shape {shape:?}",
                data.len(),
                count * width
            )));
        }
        let chunks = data.chunks_exact(width).take(count);
        let word = |c: &[u8]| {
            let mut raw = [0u8; 8];
            raw[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(raw)
        };
        let elements = match dtype {
            DType::F16 => {
                Elements::Float(chunks.map(|c| FloatKind::F16.from_bits(word(c))).collect())
            }
            DType::F32 | DType::BF16 => {
                Elements::Float(chunks.map(|c| FloatKind::F32.from_bits(word(c))).collect())
            }
            DType::F64 => Elements::Float(chunks.map(|c| f64::from_bits(word(c))).collect()),
            DType::I1 => Elements::Bool(chunks.map(|c| c[0] != 0).collect()),
            DType::I8 => Elements::Int(chunks.map(|c| c[0] as i8 as i64).collect()),
            DType::I32 => Elements::Int(chunks.map(|c| word(c) as u32 as i32 as i64).collect()),
            DType::I64 => Elements::Int(chunks.map(|c| word(c) as i64).collect()),
        };
        Tensor::new(dtype, shape, elements).map_err(invalid)
    }

    /// The bytes of a `.npy` file (version 1.0) holding this tensor.
    pub fn to_npy_bytes(&self) -> Vec<u8> {
        let shape = match self.shape() {
            [n] => format!("({n},)"),
            dims => {
                let list: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
                format!("({})", list.join(", "))
            }
        };
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
            descr(self.dtype())
        );
        // Pad with spaces and end with a newline so the data starts 64-byte aligned, as numpy
        // writes it.
        let unpadded = MAGIC.len() + 4 + header.len() + 1;
        header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
        header.push('\n');
        let mut out = MAGIC.to_vec();
        out.extend([1, 0]);
        out.extend((header.len() as u16).to_le_bytes());
        out.extend(header.as_bytes());
        for i in 0..self.len() {
            let v = self.get(i);
            match self.dtype() {
                DType::F16 => out.extend((FloatKind::F16.to_bits(v.as_f64()) as u16).to_le_bytes()),
                DType::BF16 | DType::F32 => out.extend((v.as_f64() as f32).to_le_bytes()),
                DType::F64 => out.extend(v.as_f64().to_le_bytes()),
                DType::I1 => out.push(v.as_bool() as u8),
                DType::I8 => out.push(v.as_i64() as i8 as u8),
                DType::I32 => out.extend((v.as_i64() as i32).to_le_bytes()),
                DType::I64 => out.extend(v.as_i64().to_le_bytes()),
            }
        }
        out
    }
}

/// The raw text of `key`'s value in an npy header dict (`{'descr': '<f4', 'shape': (2, 3), }`).
fn header_value<'h>(header: &'h str, key: &str) -> io::Result<&'h str> {
    let missing = || invalid(format!("npy header has no '{key}'"));
    let at = header
        .find(&format!("'{key}'"))
        .or_else(|| header.find(&format!("\"{key}\"")))
        .ok_or_else(missing)?;
    let rest = header[at + key.len() + 2..].trim_start();
    let rest = rest.strip_prefix(':').ok_or_else(missing)?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')').map(|i| i + 1)
    } else {
        rest.find([',', '}'])
    };
    Ok(rest[..end.ok_or_else(missing)?].trim())
}

/// `(2, 3)`, `(4,)` or `()`.
fn parse_shape(text: &str) -> io::Result<Vec<usize>> {
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| invalid(format!("bad npy shape '{text}'")))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            d.trim_end_matches('L')
                .parse::<usize>()
                .map_err(|_| invalid(format!("bad npy dimension '{d}'")))
        })
        .collect()
}
