//! `dlc-onnx`: ONNX models into dlc's graph dialect.
//!
//! ```no_run
//! # use dlc_onnx::{import_file, ImportOptions};
//! let mut ctx = dlc_ir::Context::new();
//! dlc_dialects::register_all_dialects(&mut ctx);
//! let imported = import_file(&mut ctx, "model.onnx".as_ref(), &ImportOptions::default())?;
//! println!("{}", dlc_ir::print_op(&ctx, imported.module, Default::default()));
//! # Ok::<(), dlc_onnx::ImportError>(())
//! ```
//!
//! The protobuf messages are declared by hand ([`proto`]) and decoded with prost; no `protoc`
//! and no LLVM. [`importer`] walks the graph and [`ops`] holds one handler per operator;
//! [`tensor`] turns `TensorProto`s (inline or external data) into dense attributes. Docs:
//! docs/onnx.md.

pub mod importer;
pub mod ops;
pub mod proto;
pub mod shape_values;
pub mod tensor;

pub use importer::{import_model, ImportError, ImportOptions, Imported};

use dlc_ir::Context;
use dlc_tensor::Literal;
use prost::Message;
use std::path::Path;

/// Decodes a serialized `ModelProto`. Tensors' `raw_data` share the buffer rather than copy
/// it (a `Vec<u8>` or `bytes::Bytes` is taken as it is). A broken framing is reported with the
/// byte offset of the top-level field where it breaks.
pub fn decode_model(bytes: impl Into<bytes::Bytes>) -> Result<proto::ModelProto, ImportError> {
    let bytes = bytes.into();
    proto::ModelProto::decode(bytes.clone()).map_err(|e| {
        let at = match framing_error(&bytes) {
            Some(offset) => {
                format!(" (the field at byte offset {offset} is malformed or truncated)")
            }
            None => String::new(),
        };
        ImportError::Decode {
            message: format!("{e}{at}"),
        }
    })
}

/// Reads and imports the model at `path` (external data is read relative to its directory).
pub fn import_file(
    ctx: &mut Context,
    path: &Path,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::Model {
        message: format!("cannot read '{}': {e}", path.display()),
    })?;
    let model = decode_model(bytes)?;
    import_model(ctx, &model, path.parent(), options)
}

/// Reads a serialized `TensorProto` (`.pb`, as the ONNX test data sets store tensors).
pub fn read_tensor_pb(path: &Path) -> Result<Literal, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let t = proto::TensorProto::decode(bytes.as_slice())
        .map_err(|e| format!("'{}' is not a TensorProto: {e}", path.display()))?;
    let mut ctx = Context::new();
    let attr = tensor::tensor_attr(&mut ctx, &t, path.parent())
        .map_err(|e| format!("'{}': {e}", path.display()))?;
    Literal::from_dense_attr(&ctx, attr).map_err(|e| format!("'{}': {e}", path.display()))
}

/// Parses a `--dim` argument, `NAME=SIZE`.
pub fn parse_dim_arg(s: &str) -> Result<(String, i64), String> {
    let (name, size) = s.split_once('=').ok_or("expected NAME=SIZE")?;
    let size = size
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0)
        .ok_or_else(|| format!("'{size}' is not a size"))?;
    Ok((name.to_string(), size))
}

/// Parses an `--input-shape` argument, `NAME=1x3x48x192` (`NAME=` alone: a scalar).
pub fn parse_shape_arg(s: &str) -> Result<(String, Vec<i64>), String> {
    let (name, shape) = s.split_once('=').ok_or("expected NAME=SHAPE")?;
    if shape.is_empty() {
        return Ok((name.to_string(), Vec::new()));
    }
    let dims = shape
        .split('x')
        .map(|d| d.parse::<i64>().ok().filter(|n| *n >= 0))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("'{shape}' is not a shape like 1x3x48x192"))?;
    Ok((name.to_string(), dims))
}

/// The offset of the first top-level protobuf field whose framing is broken (a bad key or
/// wire type, a length past the end, a truncated varint), if there is one.
fn framing_error(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let key = varint(bytes, &mut at)?;
        let ok = match key & 7 {
            0 => varint(bytes, &mut at).is_some(),
            1 => skip(bytes, &mut at, 8),
            2 => varint(bytes, &mut at)
                .and_then(|n| usize::try_from(n).ok())
                .is_some_and(|n| skip(bytes, &mut at, n)),
            5 => skip(bytes, &mut at, 4),
            _ => false,
        };
        if !ok || key >> 3 == 0 {
            return Some(start);
        }
    }
    None
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn skip(bytes: &[u8], at: &mut usize, n: usize) -> bool {
    match at.checked_add(n) {
        Some(end) if end <= bytes.len() => {
            *at = end;
            true
        }
        _ => false,
    }
}
