//! Verifier rules of the arith ops, with mlir-opt's messages.
//!
//! The core verifier has already checked operand/result counts and the same-type trait of the
//! binary ops; what is left is what MLIR's ODS constraints and `verify()` methods check, in
//! MLIR's order: attributes, operand types, result types, shape rules, then op-specific rules
//! (cast compatibility, predicate ranges, constant types). A `truncf` rounding mode that names
//! no mode is reported first, as mlir-opt reports it while parsing.

use crate::attrs::{
    self, fastmath_flags_of, overflow_flags_of, rounding_mode_of, FASTMATH, OVERFLOW_FLAGS,
    ROUNDING_MODE,
};
use crate::ops::{ArithOp, CastKind, Family, Flags};
use crate::types::{bit_width, Container, TypeClass};
use dlc_ir::{op_error, AttrKind, Context, Diagnostic, Op, Printer, Type, TypeKind};

/// Verifies arith op `T` (the `verify` hook of every arith `OpDef`).
pub(crate) fn verify<T: ArithOp>(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    if T::FAMILY == Family::Cast(CastKind::TruncF) {
        verify_rounding_mode(ctx, op)?;
    }
    verify_flags(ctx, op, T::FLAGS)?;
    match T::FAMILY {
        Family::Constant => verify_constant(ctx, op),
        Family::IntBinary => verify_elementwise(ctx, op, TypeClass::SignlessIntegerLike),
        Family::FloatBinary | Family::FloatUnary => {
            verify_elementwise(ctx, op, TypeClass::FloatLike)
        }
        Family::AddExtended => verify_extended(ctx, op, TypeClass::BoolLike, "{lhs, rhs, sum}"),
        Family::MulExtended => verify_extended(
            ctx,
            op,
            TypeClass::SignlessIntegerLike,
            "{lhs, rhs, low, high}",
        ),
        Family::CmpI => verify_cmp(ctx, op, TypeClass::SignlessIntegerLike, 9),
        Family::CmpF => verify_cmp(ctx, op, TypeClass::FloatLike, 15),
        Family::Select => verify_select(ctx, op),
        Family::Cast(kind) => verify_cast(ctx, op, kind),
    }
}

fn type_str(ctx: &Context, ty: Type) -> String {
    Printer::new(ctx).type_to_string(ty)
}

/// "operand #i must be <class>, but got '<type>'".
fn check_operand(ctx: &Context, op: Op, i: usize, class: TypeClass) -> Result<(), Diagnostic> {
    let ty = ctx.value_type(ctx.operand(op, i));
    if class.contains(ctx, ty) {
        return Ok(());
    }
    Err(op_error(
        ctx,
        op,
        format!(
            "operand #{i} must be {}, but got '{}'",
            class.description(),
            type_str(ctx, ty)
        ),
    ))
}

/// "result #0 must be <class>, but got '<type>'".
fn check_result(ctx: &Context, op: Op, class: TypeClass) -> Result<(), Diagnostic> {
    check_result_n(ctx, op, 0, class)
}

/// "result #i must be <class>, but got '<type>'".
fn check_result_n(ctx: &Context, op: Op, i: usize, class: TypeClass) -> Result<(), Diagnostic> {
    let ty = ctx.value_type(ctx.result(op, i));
    if class.contains(ctx, ty) {
        return Ok(());
    }
    Err(op_error(
        ctx,
        op,
        format!(
            "result #{i} must be {}, but got '{}'",
            class.description(),
            type_str(ctx, ty)
        ),
    ))
}

fn verify_flags(ctx: &Context, op: Op, flags: Flags) -> Result<(), Diagnostic> {
    let (name, ok, what) = match flags {
        Flags::None => return Ok(()),
        Flags::Overflow => {
            let attr = ctx.attr(op, OVERFLOW_FLAGS);
            let ok = attr.is_none_or(|a| overflow_flags_of(ctx, a).is_some());
            (OVERFLOW_FLAGS, ok, "Integer overflow arith flags")
        }
        Flags::FastMath | Flags::OptionalFastMath => {
            let attr = ctx.attr(op, FASTMATH);
            let ok = attr.is_none_or(|a| fastmath_flags_of(ctx, a).is_some());
            (FASTMATH, ok, "Floating point fast math flags")
        }
    };
    if ok {
        return Ok(());
    }
    Err(op_error(
        ctx,
        op,
        format!("attribute '{name}' failed to satisfy constraint: {what}"),
    ))
}

/// A `roundingmode` must number a mode. The custom parser already rejects a bad one, so this
/// catches the generic form, with the message mlir-opt gives when it converts the properties.
fn verify_rounding_mode(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(attr) = ctx.attr(op, ROUNDING_MODE) else {
        return Ok(());
    };
    if rounding_mode_of(ctx, attr).is_some() {
        return Ok(());
    }
    let printer = Printer::new(ctx);
    let inherent = ctx.op_def(op).map_or(&[][..], |d| d.inherent_attrs);
    let properties: Vec<String> = ctx
        .attrs(op)
        .iter()
        .filter(|a| inherent.contains(&ctx.ident_str(a.name)))
        .map(|a| {
            format!(
                "{} = {}",
                ctx.ident_str(a.name),
                printer.attr_to_string(a.value)
            )
        })
        .collect();
    Err(Diagnostic::error(
        ctx.op_loc(op),
        format!(
            "invalid properties {{{}}} for op {}: Invalid attribute `{ROUNDING_MODE}` in property conversion: {}",
            properties.join(", "),
            ctx.op_name(op),
            printer.attr_to_string(attr)
        ),
    ))
}

fn verify_constant(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(value) = ctx.attr(op, "value") else {
        return Err(op_error(ctx, op, "requires attribute 'value'"));
    };
    let result_ty = ctx.value_type(ctx.result(op, 0));
    let same_type = || {
        op_error(
            ctx,
            op,
            "failed to verify that all of {value, result} have same type",
        )
    };
    let not_constant = || {
        op_error(
            ctx,
            op,
            "value must be an integer, float, or elements attribute",
        )
    };
    // As in MLIR, the types are compared first: a string's is `none` or the one written.
    let value_ty = ctx.attr_type(value).ok_or_else(not_constant)?;
    if value_ty != result_ty {
        return Err(same_type());
    }
    if matches!(
        ctx.attr_kind(value),
        AttrKind::String(_) | AttrKind::TypedString { .. } | AttrKind::Opaque { .. }
    ) {
        return Err(not_constant());
    }
    if matches!(ctx.type_kind(result_ty), TypeKind::SignedInteger { .. }) {
        return Err(op_error(ctx, op, "integer return type must be signless"));
    }
    let splat = match ctx.attr_kind(value) {
        AttrKind::DenseElements(d) => d.splat,
        _ => true,
    };
    if ctx.scalable_dims(result_ty).is_some() && !splat {
        return Err(op_error(
            ctx,
            op,
            // MLIR's wording, spelling included.
            "intializing scalable vectors with elements attribute is not supported unless it's a vector splat",
        ));
    }
    Ok(())
}

/// Binary ops and `negf`: every operand and the result in `class` (the core already checked
/// that they all have one type).
fn verify_elementwise(ctx: &Context, op: Op, class: TypeClass) -> Result<(), Diagnostic> {
    for i in 0..ctx.operands(op).len() {
        check_operand(ctx, op, i, class)?;
    }
    check_result(ctx, op, class)
}

/// The extended-precision ops: signless-integer-like operands and first result, the second
/// result in `second`, every value but an `addui_extended` overflow of one type (`same` names
/// them), and MLIR's `Elementwise` shape rules.
fn verify_extended(ctx: &Context, op: Op, second: TypeClass, same: &str) -> Result<(), Diagnostic> {
    check_operand(ctx, op, 0, TypeClass::SignlessIntegerLike)?;
    check_operand(ctx, op, 1, TypeClass::SignlessIntegerLike)?;
    check_result_n(ctx, op, 0, TypeClass::SignlessIntegerLike)?;
    check_result_n(ctx, op, 1, second)?;
    let ty = ctx.value_type(ctx.operand(op, 0));
    let mut typed = vec![
        ctx.value_type(ctx.operand(op, 1)),
        ctx.value_type(ctx.result(op, 0)),
    ];
    if second == TypeClass::SignlessIntegerLike {
        typed.push(ctx.value_type(ctx.result(op, 1)));
    }
    if typed.iter().any(|t| *t != ty) {
        return Err(op_error(
            ctx,
            op,
            format!("failed to verify that all of {same} have same type"),
        ));
    }
    let overflow = Container::of(ctx, ctx.value_type(ctx.result(op, 1)));
    let operands = Container::of(ctx, ty);
    if operands.shape().is_some() && overflow.shape().is_none() {
        return Err(op_error(
            ctx,
            op,
            "if an operand is non-scalar, then all results must be non-scalar",
        ));
    }
    if operands.shape().is_none() && overflow.shape().is_some() {
        return Err(op_error(
            ctx,
            op,
            "if a result is non-scalar, then at least one operand must be non-scalar",
        ));
    }
    if operands != overflow {
        return Err(op_error(
            ctx,
            op,
            "all non-scalar operands/results must have the same shape and base type",
        ));
    }
    Ok(())
}

fn verify_cmp(ctx: &Context, op: Op, class: TypeClass, max: i64) -> Result<(), Diagnostic> {
    if ctx.attr(op, attrs::PREDICATE).is_none() {
        return Err(op_error(ctx, op, "requires attribute 'predicate'"));
    }
    let in_range = attrs::predicate_number(ctx, op).is_some_and(|n| (0..=max).contains(&n));
    if !in_range {
        let cases: Vec<String> = (0..=max).map(|n| n.to_string()).collect();
        return Err(op_error(
            ctx,
            op,
            format!(
                "attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: {}",
                cases.join(", ")
            ),
        ));
    }
    check_operand(ctx, op, 0, class)?;
    check_operand(ctx, op, 1, class)?;
    check_result(ctx, op, TypeClass::BoolLike)?;
    let lhs = ctx.value_type(ctx.operand(op, 0));
    if lhs != ctx.value_type(ctx.operand(op, 1)) {
        return Err(op_error(
            ctx,
            op,
            "requires all operands to have the same type",
        ));
    }
    let result = ctx.value_type(ctx.result(op, 0));
    if Container::of(ctx, result) != Container::of(ctx, lhs) {
        return Err(op_error(
            ctx,
            op,
            "failed to verify that result type has i1 element type and same shape as operands",
        ));
    }
    Ok(())
}

fn verify_select(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    check_operand(ctx, op, 0, TypeClass::BoolLike)?;
    let cond = ctx.value_type(ctx.operand(op, 0));
    let result = ctx.value_type(ctx.result(op, 0));
    if ctx.value_type(ctx.operand(op, 1)) != result || ctx.value_type(ctx.operand(op, 2)) != result
    {
        return Err(op_error(
            ctx,
            op,
            "failed to verify that all of {true_value, false_value, result} have same type",
        ));
    }
    if cond == Type::I1 {
        return Ok(());
    }
    let (c, r) = (Container::of(ctx, cond), Container::of(ctx, result));
    if r.shape().is_none() || c.shape() != r.shape() {
        return Err(op_error(
            ctx,
            op,
            "failed to verify that condition is signless i1 or has matching shape",
        ));
    }
    if c != r {
        return Err(op_error(
            ctx,
            op,
            "all non-scalar operands/results must have the same shape and base type",
        ));
    }
    Ok(())
}

fn verify_cast(ctx: &Context, op: Op, kind: CastKind) -> Result<(), Diagnostic> {
    use TypeClass::*;
    let (from_class, to_class) = match kind {
        CastKind::IndexCast => (IndexCastable, IndexCastable),
        CastKind::ExtSI | CastKind::ExtUI | CastKind::TruncI => {
            (FixedWidthIntegerLike, FixedWidthIntegerLike)
        }
        CastKind::IntToFP => (FixedWidthIntegerLike, FloatLike),
        CastKind::FPToInt => (FloatLike, FixedWidthIntegerLike),
        CastKind::ExtF | CastKind::TruncF => (FloatLike, FloatLike),
        CastKind::Bitcast => (IntOrFloatLike, IntOrFloatLike),
    };
    check_operand(ctx, op, 0, from_class)?;
    check_result(ctx, op, to_class)?;
    let from = ctx.value_type(ctx.operand(op, 0));
    let to = ctx.value_type(ctx.result(op, 0));
    let (cf, ct) = (Container::of(ctx, from), Container::of(ctx, to));
    if cf.tensor_dims() != ct.tensor_dims() {
        return Err(op_error(
            ctx,
            op,
            "failed to verify that input and output have the same tensor dimensions",
        ));
    }
    if !cf.compatible_shape(ct) {
        return Err(op_error(
            ctx,
            op,
            "requires the same shape for all operands and results",
        ));
    }
    if !cast_compatible(ctx, kind, ctx.element_type(from), ctx.element_type(to)) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand type '{}' and result type '{}' are cast incompatible",
                type_str(ctx, from),
                type_str(ctx, to)
            ),
        ));
    }
    Ok(())
}

/// MLIR's `areCastCompatible` on element types that already passed the class checks.
fn cast_compatible(ctx: &Context, kind: CastKind, from: Type, to: Type) -> bool {
    let widths = (bit_width(ctx, from), bit_width(ctx, to));
    match kind {
        CastKind::IndexCast => (from == Type::INDEX) != (to == Type::INDEX),
        CastKind::ExtSI | CastKind::ExtUI | CastKind::ExtF => {
            matches!(widths, (Some(a), Some(b)) if b > a)
        }
        CastKind::TruncI | CastKind::TruncF => matches!(widths, (Some(a), Some(b)) if b < a),
        CastKind::Bitcast => matches!(widths, (Some(a), Some(b)) if a == b),
        CastKind::IntToFP | CastKind::FPToInt => true,
    }
}
