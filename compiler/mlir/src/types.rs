//! dlc types as upstream MLIR types.
//!
//! Scalars and vectors are the same builtin types in both worlds. A `!loop.buffer` becomes a
//! `memref` of the same shape and element type with the identity (row-major) layout: `global`
//! and `local` buffers in the default memory space, `shared` ones in
//! `#gpu.address_space<workgroup>`. `i1` buffers stay `memref<..xi1>`: LLVM stores an `i1` in
//! one byte holding 0 or 1, the same bytes the dlc runtime keeps for booleans.

use crate::error::ExResult;
use dlc_ir::{Context, FloatKind, Type, TypeKind};
use dlc_loop::{buffer_parts, MemorySpace};
use melior::ir::attribute::Attribute as MAttribute;
use melior::ir::r#type::{FunctionType, IntegerType, MemRefType};
use melior::ir::Type as MType;
use melior::Context as MContext;

/// The MLIR type of a dlc type.
pub(crate) fn mlir_type<'c>(ctx: &Context, mlir: &'c MContext, ty: Type) -> ExResult<MType<'c>> {
    if let Some((dims, elem, space)) = buffer_parts(ctx, ty) {
        return memref_type(ctx, mlir, &dims, elem, space);
    }
    Ok(match ctx.type_kind(ty) {
        TypeKind::Integer { width } => IntegerType::new(mlir, *width).into(),
        TypeKind::Index => MType::index(mlir),
        TypeKind::Float(FloatKind::F16) => MType::float16(mlir),
        TypeKind::Float(FloatKind::BF16) => MType::bfloat16(mlir),
        TypeKind::Float(FloatKind::F32) => MType::float32(mlir),
        TypeKind::Float(FloatKind::F64) => MType::float64(mlir),
        TypeKind::None => MType::none(mlir),
        TypeKind::Vector { shape, element } => {
            let dims = shape
                .iter()
                .map(|&d| u64::try_from(d).map_err(|_| "a vector with a dynamic dim"))
                .collect::<Result<Vec<_>, _>>()?;
            MType::vector(&dims, mlir_type(ctx, mlir, *element)?)
        }
        TypeKind::Function { inputs, results } => {
            let inputs = mlir_types(ctx, mlir, inputs)?;
            let results = mlir_types(ctx, mlir, results)?;
            FunctionType::new(mlir, &inputs, &results).into()
        }
        _ => {
            let text = dlc_ir::Printer::new(ctx).type_to_string(ty);
            return Err(format!("type '{text}' has no MLIR counterpart in loop kernels").into());
        }
    })
}

/// The MLIR types of a list of dlc types.
pub(crate) fn mlir_types<'c>(
    ctx: &Context,
    mlir: &'c MContext,
    types: &[Type],
) -> ExResult<Vec<MType<'c>>> {
    types.iter().map(|&t| mlir_type(ctx, mlir, t)).collect()
}

/// `memref<dims x elem>` in the memory space that holds `space` buffers.
pub(crate) fn memref_type<'c>(
    ctx: &Context,
    mlir: &'c MContext,
    dims: &[i64],
    elem: Type,
    space: MemorySpace,
) -> ExResult<MType<'c>> {
    let elem = mlir_type(ctx, mlir, elem)?;
    let space = match space {
        MemorySpace::Shared => Some(workgroup_space(mlir)?),
        MemorySpace::Global | MemorySpace::Local => None,
    };
    // dlc's `DYNAMIC` is `i64::MIN`, MLIR's `ShapedType::kDynamic`: dims pass through as they are.
    Ok(MemRefType::new(elem, dims, None, space).into())
}

/// `#gpu.address_space<workgroup>`.
pub(crate) fn workgroup_space(mlir: &MContext) -> ExResult<MAttribute<'_>> {
    MAttribute::parse(mlir, "#gpu.address_space<workgroup>")
        .ok_or_else(|| "the gpu dialect is not loaded in the MLIR context".into())
}
