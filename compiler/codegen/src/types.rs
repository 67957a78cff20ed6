//! dlc types as LLVM types.
//!
//! `index` is `i64` (or whatever `long-to-int` turned the arithmetic into: that is explicit
//! `arith` casts, not a different `index`). Buffers never become an LLVM type of their own: a
//! buffer is a pointer plus its dims (see `function.rs`), and its elements are stored with
//! [`storage_type`] — `i1` as one byte, since LLVM's `i1` has no addressable layout of its own.

use crate::error::CgResult;
use dlc_ir::{Context, FloatKind, Type, TypeKind};
use inkwell::context::Context as LlvmContext;
use inkwell::types::{BasicTypeEnum, IntType};

/// The LLVM type of a dlc scalar or vector value.
pub(crate) fn value_type<'ctx>(
    llvm: &'ctx LlvmContext,
    ctx: &Context,
    ty: Type,
) -> CgResult<BasicTypeEnum<'ctx>> {
    Ok(match ctx.type_kind(ty) {
        TypeKind::Index => llvm.i64_type().into(),
        TypeKind::Integer { width } => int_type(llvm, *width)?.into(),
        TypeKind::Float(kind) => float_type(llvm, *kind),
        TypeKind::Vector { shape, element } => {
            let [lanes] = shape[..] else {
                return Err("only 1-D vectors can be code-generated".into());
            };
            let lanes = u32::try_from(lanes).map_err(|_| "vector width out of range")?;
            match value_type(llvm, ctx, *element)? {
                BasicTypeEnum::IntType(t) => t.vec_type(lanes).into(),
                BasicTypeEnum::FloatType(t) => t.vec_type(lanes).into(),
                _ => return Err("vector of an unsupported element type".into()),
            }
        }
        _ => return Err("this type has no LLVM value representation".into()),
    })
}

/// The LLVM type buffer elements of type `elem` are stored as.
pub(crate) fn storage_type<'ctx>(
    llvm: &'ctx LlvmContext,
    ctx: &Context,
    elem: Type,
) -> CgResult<BasicTypeEnum<'ctx>> {
    match ctx.type_kind(elem) {
        TypeKind::Integer { width: 1 } => Ok(llvm.i8_type().into()),
        _ => value_type(llvm, ctx, elem),
    }
}

/// The integer type of `bits` bits.
pub(crate) fn int_type(llvm: &LlvmContext, bits: u32) -> CgResult<IntType<'_>> {
    let bits = std::num::NonZeroU32::new(bits).ok_or("zero-width integer")?;
    Ok(llvm.custom_width_int_type(bits)?)
}

fn float_type(llvm: &LlvmContext, kind: FloatKind) -> BasicTypeEnum<'_> {
    match kind {
        FloatKind::F16 => llvm.f16_type().into(),
        FloatKind::BF16 => llvm.bf16_type().into(),
        FloatKind::F32 => llvm.f32_type().into(),
        FloatKind::F64 => llvm.f64_type().into(),
    }
}
