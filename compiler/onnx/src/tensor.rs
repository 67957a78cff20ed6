//! ONNX tensors and element types in dlc terms: `TensorProto` → `dense<...>` attribute, with
//! the payload kept as packed little-endian bytes (never decimal text), external data read from
//! files beside the model.
//!
//! ONNX stores a tensor's elements in one of several fields: `raw_data` (little-endian bytes,
//! what exporters write for weights), or a typed repeated field (`float_data`, `int32_data` —
//! which also holds int8, bool and the bits of float16/bfloat16 —, `int64_data`,
//! `double_data`), or in a file named by `external_data` when `data_location` is `EXTERNAL`.
//! All of them become the byte layout of dlc's dense attributes, which is the same as
//! `raw_data`'s for every dtype dlc has.

use crate::proto::{DataLocation, DataType, TensorProto};
use dlc_ir::attributes::DenseElements;
use dlc_ir::{AttrKind, Attribute, Context, Type};
use std::path::{Component, Path};

/// The dlc element type of ONNX `data_type`, or what is wrong with it.
pub fn element_type(data_type: i32) -> Result<Type, String> {
    let dt =
        DataType::try_from(data_type).map_err(|_| format!("unknown ONNX data type {data_type}"))?;
    Ok(match dt {
        DataType::Float => Type::F32,
        DataType::Double => Type::F64,
        DataType::Float16 => Type::F16,
        DataType::Bfloat16 => Type::BF16,
        DataType::Bool => Type::I1,
        DataType::Int8 => Type::I8,
        DataType::Int16 => Type::I16,
        DataType::Int32 => Type::I32,
        DataType::Int64 => Type::I64,
        DataType::Uint8 => Type::UI8,
        DataType::Uint16 => Type::UI16,
        DataType::Uint32 => Type::UI32,
        DataType::Uint64 => Type::UI64,
        other => {
            return Err(format!(
                "data type {} is not supported (dlc has float, double, float16, bfloat16, bool, \
                 int8, int16, int32, int64, uint8, uint16, uint32, uint64)",
                dtype_name(other)
            ))
        }
    })
}

/// The ONNX spelling of a data type (`FLOAT`, `UINT8`, ...).
fn dtype_name(dt: DataType) -> String {
    format!("{dt:?}").to_ascii_uppercase()
}

/// The width in bytes of one element of `ty` (one of dlc's element types).
fn element_bytes(ty: Type) -> usize {
    match ty {
        Type::I1 | Type::I8 | Type::UI8 => 1,
        Type::F16 | Type::BF16 | Type::I16 | Type::UI16 => 2,
        Type::F32 | Type::I32 | Type::UI32 => 4,
        _ => 8,
    }
}

/// The number of elements of `dims`, or an error for negative or overflowing dims.
pub fn element_count(dims: &[i64]) -> Result<usize, String> {
    dims.iter().try_fold(1usize, |n, d| {
        usize::try_from(*d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .ok_or_else(|| format!("tensor dims {dims:?} are negative or too large"))
    })
}

/// Decodes `t` into a dense attribute of type `tensor<dims x elem>`. `base` is the directory
/// external data is relative to (`None`: external data is an error).
pub fn tensor_attr(
    ctx: &mut Context,
    t: &TensorProto,
    base: Option<&Path>,
) -> Result<Attribute, String> {
    let elem = element_type(t.data_type)?;
    let count = element_count(&t.dims)?;
    let width = element_bytes(elem);
    let bytes = count
        .checked_mul(width)
        .filter(|b| *b <= isize::MAX as usize)
        .ok_or_else(|| format!("tensor of {count} elements is too large"))?;
    let data = if t.data_location == DataLocation::External as i32 {
        external_bytes(t, base)?
    } else if !t.raw_data.is_empty() || count == 0 {
        t.raw_data.to_vec()
    } else {
        typed_bytes(t, elem, count)?
    };
    if data.len() != bytes {
        return Err(format!(
            "tensor '{}' holds {} bytes, its dims {:?} need {bytes}",
            t.name,
            data.len(),
            t.dims
        ));
    }
    let data = if elem == Type::I1 {
        // ONNX bools are one byte each; dlc's dense i1 elements are canonically 0 or 1.
        data.into_iter().map(|b| u8::from(b != 0)).collect()
    } else {
        data
    };
    let ty = ctx.tensor_type(&t.dims, elem);
    Ok(ctx.intern_attr(AttrKind::DenseElements(DenseElements {
        ty,
        splat: false,
        data: data.into(),
    })))
}

/// The bytes of a tensor stored in a typed repeated field.
fn typed_bytes(t: &TensorProto, elem: Type, count: usize) -> Result<Vec<u8>, String> {
    // The field must hold `count` elements before anything is allocated for them: a tensor's
    // dims alone may claim far more than the file holds.
    let held = match elem {
        Type::F32 => t.float_data.len(),
        Type::F64 => t.double_data.len(),
        Type::I64 => t.int64_data.len(),
        Type::UI32 | Type::UI64 => t.uint64_data.len(),
        _ => t.int32_data.len(),
    };
    if held != count {
        return Err(format!(
            "tensor '{}' has {held} elements, its dims {:?} need {count}",
            t.name, t.dims
        ));
    }
    let mut out = Vec::with_capacity(count * element_bytes(elem));
    match elem {
        Type::F32 => out.extend(t.float_data.iter().flat_map(|v| v.to_le_bytes())),
        Type::F64 => out.extend(t.double_data.iter().flat_map(|v| v.to_le_bytes())),
        Type::I64 => out.extend(t.int64_data.iter().flat_map(|v| v.to_le_bytes())),
        Type::I32 => out.extend(t.int32_data.iter().flat_map(|v| v.to_le_bytes())),
        Type::UI64 => out.extend(t.uint64_data.iter().flat_map(|v| v.to_le_bytes())),
        Type::UI32 => out.extend(t.uint64_data.iter().flat_map(|v| (*v as u32).to_le_bytes())),
        // int32_data holds one element per entry: the value (int8, int16, uint8, uint16, bool)
        // or the bit pattern (float16, bfloat16) in its low bits.
        Type::I8 | Type::UI8 | Type::I1 => out.extend(t.int32_data.iter().map(|v| *v as u8)),
        _ => out.extend(t.int32_data.iter().flat_map(|v| (*v as u16).to_le_bytes())),
    }
    Ok(out)
}

/// Reads the bytes of an external tensor: `location` relative to `base`, from `offset`,
/// `length` bytes (or to the end of the file).
fn external_bytes(t: &TensorProto, base: Option<&Path>) -> Result<Vec<u8>, String> {
    let field = |key: &str| {
        t.external_data
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.value.as_str())
    };
    let location =
        field("location").ok_or_else(|| format!("external tensor '{}' has no location", t.name))?;
    let number = |key: &str| -> Result<Option<u64>, String> {
        field(key)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| format!("external tensor '{}': bad {key} '{v}'", t.name))
            })
            .transpose()
    };
    let offset = number("offset")?.unwrap_or(0);
    let length = number("length")?;
    let relative = Path::new(location);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "external tensor '{}': location '{location}' must be a path inside the model's directory",
            t.name
        ));
    }
    let base = base.ok_or_else(|| {
        format!(
            "external tensor '{}' (in '{location}'): the model was not read from a file, so there is no directory to find it in",
            t.name
        )
    })?;
    let path = base.join(relative);
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "external tensor '{}': cannot read '{}': {e}",
            t.name,
            path.display()
        )
    })?;
    let start = usize::try_from(offset).ok().filter(|o| *o <= bytes.len());
    let end = match (start, length) {
        (Some(s), Some(n)) => usize::try_from(n).ok().and_then(|n| s.checked_add(n)),
        (Some(_), None) => Some(bytes.len()),
        _ => None,
    };
    match (start, end) {
        (Some(s), Some(e)) if e <= bytes.len() => Ok(bytes[s..e].to_vec()),
        _ => Err(format!(
            "external tensor '{}': offset {offset} and length {length:?} are outside '{}' ({} bytes)",
            t.name,
            path.display(),
            bytes.len()
        )),
    }
}
