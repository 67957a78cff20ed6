//! Building arith ops from Rust, for passes: one function per op family.
//!
//! Built ops carry the same attributes parsed ones do (`overflowFlags`/`fastmath` set to `none`
//! where MLIR has a default), so a built op and its parsed twin compare equal under CSE and
//! print the same generic form.

use crate::attrs::{
    fastmath_attr, overflow_attr, predicate_attr, CmpFPredicate, CmpIPredicate, FastMathFlags,
    OverflowFlags, FASTMATH, OVERFLOW_FLAGS, PREDICATE,
};
use crate::ops::{self, ArithOp, ArithOps};
use crate::syntax::{default_flag_attr, set_attr};
use crate::types::bool_like;
use dlc_ir::{
    AttrKind, Attribute, Context, DenseValue, InsertPoint, Location, Op, OpSpec, OpView, Printer,
    Type, TypeKind, Value,
};

/// Binary ops: two operands and a result of one type (`addi`, `mulf`, `maxsi`, ...); the
/// definitions in [`crate::ops`] implement it.
pub trait BinaryOp: OpView {}

/// Casts: one operand, one result of another type (`extsi`, `index_cast`, ...); the definitions
/// in [`crate::ops`] implement it.
pub trait CastOp: OpView {}

/// A spec for arith op `T` with MLIR's default flag attribute, if the op has one.
pub(crate) fn spec_with_defaults<T: ArithOp>(ctx: &mut Context, loc: Location) -> OpSpec {
    let mut spec = OpSpec::new(ctx, T::NAME, loc);
    if let Some((key, value)) = default_flag_attr(ctx, T::FLAGS) {
        set_attr(ctx, &mut spec.attrs, key, value);
    }
    spec
}

/// Builds arith op `name` (`"arith.remf"`) on `operands` with one result of type `ty`, with
/// MLIR's default flag attribute: the escape hatch for ops without a typed builder here.
pub fn build_op(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    operands: &[Value],
    ty: Type,
    loc: Location,
) -> Op {
    let spec = OpSpec::new(ctx, name, loc)
        .operands(operands)
        .results(&[ty]);
    build_with_defaults(ctx, at, spec)
}

/// Builds `spec` and gives the op MLIR's default flag attribute, if its kind has one.
fn build_with_defaults(ctx: &mut Context, at: InsertPoint, spec: OpSpec) -> Op {
    let op = ctx.build(at, spec);
    let flags = ArithOps::of(ctx, op).map(ArithOps::flags);
    if let Some((key, value)) = flags.and_then(|f| default_flag_attr(ctx, f)) {
        ctx.set_attr(op, key, value);
    }
    op
}

/// The spec of `arith.constant` holding `value` as a result of type `ty`.
pub fn constant_spec(ctx: &mut Context, value: Attribute, ty: Type, loc: Location) -> OpSpec {
    OpSpec::new(ctx, ops::ConstantOp::NAME, loc)
        .attr(ctx, "value", value)
        .results(&[ty])
}

/// Builds `arith.constant` holding `value` (whose type should be `ty`) at `at`.
pub fn build_constant(
    ctx: &mut Context,
    at: InsertPoint,
    value: Attribute,
    ty: Type,
    loc: Location,
) -> Op {
    let spec = constant_spec(ctx, value, ty, loc);
    ctx.build(at, spec)
}

/// Builds `arith.constant <value> : index`.
pub fn build_index_constant(ctx: &mut Context, at: InsertPoint, value: i64, loc: Location) -> Op {
    let attr = ctx.integer_attr(value as i128, Type::INDEX);
    build_constant(ctx, at, attr, Type::INDEX, loc)
}

/// The constant `value` of type `ty`: an integer or float attribute for a scalar type, a splat
/// `dense<...>` for a statically shaped vector or tensor. `None` when `ty` cannot hold it
/// (dynamic shapes, an integer value for a float type or the reverse, other types).
pub fn splat_attr(ctx: &mut Context, ty: Type, value: DenseValue) -> Option<Attribute> {
    let elem = ctx.element_type(ty);
    let fits = matches!(
        (ctx.type_kind(elem), value),
        (
            TypeKind::Integer { .. } | TypeKind::Index,
            DenseValue::Int(_)
        ) | (TypeKind::Float(_), DenseValue::Float(_))
    );
    if !fits {
        return None;
    }
    match ctx.written_shape(ty) {
        None => Some(match value {
            DenseValue::Int(x) => ctx.integer_attr(x, ty),
            DenseValue::Float(x) => ctx.float_attr(x, ty),
        }),
        Some(shape) if shape.iter().all(|d| *d >= 0) => {
            let value = match (ctx.type_kind(elem), value) {
                (TypeKind::Integer { width: 1 }, DenseValue::Int(x)) => DenseValue::Int(x & 1),
                (TypeKind::Integer { width }, DenseValue::Int(x)) => {
                    DenseValue::Int(dlc_ir::attributes::sign_extend(x, *width))
                }
                (TypeKind::Float(k), DenseValue::Float(x)) => DenseValue::Float(k.round(x)),
                _ => value,
            };
            Some(ctx.dense_attr(ty, &[value]))
        }
        Some(_) => None,
    }
}

/// Builds the binary op `T` (`build_binary::<AddIOp>(...)`); the result has `lhs`'s type.
pub fn build_binary<T: BinaryOp>(
    ctx: &mut Context,
    at: InsertPoint,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Op {
    let ty = ctx.value_type(lhs);
    let spec = OpSpec::new(ctx, T::NAME, loc)
        .operands(&[lhs, rhs])
        .results(&[ty]);
    build_with_defaults(ctx, at, spec)
}

/// Builds `arith.negf`.
pub fn build_negf(ctx: &mut Context, at: InsertPoint, operand: Value, loc: Location) -> Op {
    let ty = ctx.value_type(operand);
    let spec = spec_with_defaults::<ops::NegFOp>(ctx, loc)
        .operands(&[operand])
        .results(&[ty]);
    ctx.build(at, spec)
}

fn build_cmp<T: ArithOp>(
    ctx: &mut Context,
    at: InsertPoint,
    predicate: i64,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Op {
    let operand_ty = ctx.value_type(lhs);
    let ty = bool_like(ctx, operand_ty);
    let pred = predicate_attr(ctx, predicate);
    let spec = spec_with_defaults::<T>(ctx, loc)
        .attr(ctx, PREDICATE, pred)
        .operands(&[lhs, rhs])
        .results(&[ty]);
    ctx.build(at, spec)
}

/// Builds `arith.cmpi`; the result is `i1`, or `i1` elements in the operands' shape.
pub fn build_cmpi(
    ctx: &mut Context,
    at: InsertPoint,
    predicate: CmpIPredicate,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Op {
    build_cmp::<ops::CmpIOp>(ctx, at, predicate as i64, lhs, rhs, loc)
}

/// Builds `arith.cmpf`; the result is `i1`, or `i1` elements in the operands' shape.
pub fn build_cmpf(
    ctx: &mut Context,
    at: InsertPoint,
    predicate: CmpFPredicate,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Op {
    build_cmp::<ops::CmpFOp>(ctx, at, predicate as i64, lhs, rhs, loc)
}

/// Builds `arith.select`; the result has `true_value`'s type.
pub fn build_select(
    ctx: &mut Context,
    at: InsertPoint,
    condition: Value,
    true_value: Value,
    false_value: Value,
    loc: Location,
) -> Op {
    let ty = ctx.value_type(true_value);
    let spec = OpSpec::new(ctx, ops::SelectOp::NAME, loc)
        .operands(&[condition, true_value, false_value])
        .results(&[ty]);
    ctx.build(at, spec)
}

/// Builds the cast `T` (`build_cast::<ExtSIOp>(...)`) of `input` to type `to`.
pub fn build_cast<T: CastOp>(
    ctx: &mut Context,
    at: InsertPoint,
    input: Value,
    to: Type,
    loc: Location,
) -> Op {
    let spec = OpSpec::new(ctx, T::NAME, loc)
        .operands(&[input])
        .results(&[to]);
    build_with_defaults(ctx, at, spec)
}

/// Sets the overflow flags of `addi`, `subi`, `muli`, `shli` or `trunci`.
pub fn set_overflow_flags(ctx: &mut Context, op: Op, flags: OverflowFlags) {
    let attr = overflow_attr(ctx, flags);
    ctx.set_attr(op, OVERFLOW_FLAGS, attr);
}

/// Sets the fast-math flags of a float op.
pub fn set_fastmath_flags(ctx: &mut Context, op: Op, flags: FastMathFlags) {
    let attr = fastmath_attr(ctx, flags);
    ctx.set_attr(op, FASTMATH, attr);
}

/// The value of `v` when an integer (or `index`, or `i1`) `arith.constant` defines it.
pub fn constant_int(ctx: &Context, v: Value) -> Option<i128> {
    let constant = ctx.view::<ops::ConstantOp>(ctx.defining_op(v)?)?;
    constant.value(ctx).and_then(|a| ctx.attr_as_int(a))
}

/// The name mlir-opt gives the result of `arith.constant` (`%c42_i32`, `%c7`, `%true`, `%cst`),
/// before it uniques repeats with `_N` suffixes; `None` if `op` is not a constant.
pub fn constant_result_name(ctx: &Context, op: Op) -> Option<String> {
    let value = ctx.view::<ops::ConstantOp>(op)?.value(ctx)?;
    Some(match ctx.attr_kind(value) {
        AttrKind::Integer { value, ty } if *ty == Type::I1 => {
            (if *value != 0 { "true" } else { "false" }).to_string()
        }
        AttrKind::Integer { value, ty } if *ty == Type::INDEX => format!("c{value}"),
        AttrKind::Integer { value, ty } => {
            format!("c{value}_{}", Printer::new(ctx).type_to_string(*ty))
        }
        // Constants are signless, so the value reads signed.
        AttrKind::WideInteger { bits, ty } => format!(
            "c{}_{}",
            dlc_ir::wide_int::to_decimal(bits, false),
            Printer::new(ctx).type_to_string(*ty)
        ),
        _ => "cst".to_string(),
    })
}
