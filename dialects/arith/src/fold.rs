//! Folders of the arith ops: constant evaluation and algebraic identities.
//!
//! Constants are evaluated with MLIR's semantics (APInt/APFloat): integers wrap modulo 2^width,
//! `index` is 64 bits, and anything MLIR leaves unfolded stays unfolded: division by zero, signed
//! `MIN / -1`, shifts by the width or more, `fptosi` out of range, inexact `truncf` (whatever its rounding mode: exact conversions agree in
//! every mode). Integers
//! wider than 128 bits are never evaluated. Scalars, splats and whole dense vectors/tensors are
//! folded elementwise; a result whose elements are all equal becomes a splat, as MLIR stores it.
//!
//! Identities (`x + 0`, `x * 1`, `x - x`, `select %c, %x, %x`, ...) fold to an existing value, or
//! to a new constant when the result is one (`x - x` is `0`); the new constant is then built by
//! the dialect's `materialize_constant`. Some folders change their op instead and say so with an
//! empty result list (MLIR's in-place fold): `cmpi` with a constant on the left swaps its
//! operands and mirrors its predicate, and a cast of a cast of the same kind (`extsi(extsi(x))`,
//! `trunci(trunci(x))`, `trunci(ext(x))` and `truncf(extf(x))` with `x` still wider) reads the
//! inner input directly.
//! The extended ops fold to two results.
//!
//! Floats are computed in `f64` and rounded to the result type. For `+ - * /` that is exact
//! rounding (f64 has more than twice the precision of f32, f16 and bf16); conversions to f16/bf16
//! that would round twice are only folded when exact.

use crate::attrs::{
    fastmath_flags, overflow_flags, predicate_attr, CmpFPredicate, CmpIPredicate, FastMathFlags,
    OverflowFlags, PREDICATE,
};
use crate::ops::{
    AddIOp, AndIOp, BitcastOp, CmpFOp, CmpIOp, ExtFOp, ExtSIOp, ExtUIOp, MulIOp, NegFOp, SubIOp,
    TruncFOp, TruncIOp, XOrIOp,
};
use crate::{int_to_float, magnitude_to_float, FloatBinary};
use dlc_ir::attributes::dense_element_bytes;
use dlc_ir::attributes::sign_extend;
use dlc_ir::{fold_to_value as to_value, Folded};
use dlc_ir::{
    AttrKind, Attribute, Context, DenseValue, FloatKind, FoldResult, Op, OpView, Type, TypeKind,
    Value, DYNAMIC,
};
use smallvec::{smallvec, SmallVec};

fn to_const(attr: Option<Attribute>) -> Folded {
    attr.map(|a| smallvec![FoldResult::Constant(a)])
}

// ---------------------------------------------------------------------------------------------
// Element values.

/// The element type of a folded value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Elem {
    /// `iN` (N ≤ 128) or `index` (64).
    Int(u32),
    Float(FloatKind),
}

fn elem_of(ctx: &Context, ty: Type) -> Option<Elem> {
    match ctx.type_kind(ctx.element_type(ty)) {
        TypeKind::Integer { width } if (1..=128).contains(width) => Some(Elem::Int(*width)),
        TypeKind::Index => Some(Elem::Int(64)),
        TypeKind::Float(k) => Some(Elem::Float(*k)),
        _ => None,
    }
}

fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// The value of `v` read as a signed `w`-bit integer (`i1` true is -1).
fn signed(v: i128, w: u32) -> i128 {
    sign_extend(v, w)
}

/// The value of `v` read as an unsigned `w`-bit integer.
pub(crate) fn unsigned(v: i128, w: u32) -> u128 {
    (v as u128) & mask(w)
}

fn min_signed(w: u32) -> i128 {
    if w >= 128 {
        i128::MIN
    } else {
        -(1i128 << (w - 1))
    }
}

fn max_signed(w: u32) -> i128 {
    if w >= 128 {
        i128::MAX
    } else {
        (1i128 << (w - 1)) - 1
    }
}

/// `v` in the canonical form attributes store: sign-extended integers (`i1` as 0/1), floats
/// rounded to their format.
fn normalize(v: DenseValue, elem: Elem) -> Option<DenseValue> {
    match (v, elem) {
        (DenseValue::Int(x), Elem::Int(1)) => Some(DenseValue::Int(x & 1)),
        (DenseValue::Int(x), Elem::Int(w)) => Some(DenseValue::Int(sign_extend(x, w))),
        (DenseValue::Float(x), Elem::Float(k)) => Some(DenseValue::Float(k.round(x))),
        _ => None,
    }
}

fn same_bits(a: DenseValue, b: DenseValue) -> bool {
    match (a, b) {
        (DenseValue::Int(x), DenseValue::Int(y)) => x == y,
        (DenseValue::Float(x), DenseValue::Float(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

/// The elements of a constant operand: one value for a scalar or a splat, else every element.
fn decode(ctx: &Context, attr: Attribute, ty: Type) -> Option<Vec<DenseValue>> {
    if ctx.attr_type(attr) != Some(ty) {
        return None;
    }
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => Some(vec![DenseValue::Int(*value)]),
        AttrKind::Float { bits, .. } => Some(vec![DenseValue::Float(f64::from_bits(*bits))]),
        AttrKind::DenseElements(d) => {
            let width = dense_element_bytes(ctx.type_kind(ctx.element_type(ty)))?;
            let needed = if d.splat { 1 } else { static_count(ctx, ty)? };
            if d.stored_len(width) < needed || width == 0 {
                return None;
            }
            Some((0..needed).map(|i| ctx.dense_element(d, i)).collect())
        }
        _ => None,
    }
}

/// The number of elements of a statically shaped type (1 for scalars); `None` for dynamic
/// shapes, scalable vectors (a multiple of the hardware's vector length) and counts that do not
/// fit a `usize`.
fn static_count(ctx: &Context, ty: Type) -> Option<usize> {
    if ctx.scalable_dims(ty).is_some() {
        return None;
    }
    ctx.written_shape(ty).map_or(Some(1), |shape| {
        shape.iter().try_fold(1usize, |count, d| {
            // `DYNAMIC` is negative, so it fails the conversion too.
            count.checked_mul(usize::try_from(*d).ok()?)
        })
    })
}

/// Applies `f` elementwise; one-value inputs (scalars, splats) are broadcast.
fn map_elements(
    inputs: &[Vec<DenseValue>],
    mut f: impl FnMut(&[DenseValue]) -> Option<DenseValue>,
) -> Option<Vec<DenseValue>> {
    let len = inputs.iter().map(Vec::len).max()?;
    if inputs.iter().any(|v| v.len() != 1 && v.len() != len) {
        return None;
    }
    let mut args: SmallVec<[DenseValue; 3]> = SmallVec::new();
    (0..len)
        .map(|i| {
            args.clear();
            args.extend(inputs.iter().map(|v| v[if v.len() == 1 { 0 } else { i }]));
            f(&args)
        })
        .collect()
}

/// Builds a constant of type `ty` from elementwise results (a splat when all are equal).
fn build(ctx: &mut Context, ty: Type, values: Vec<DenseValue>) -> Option<Attribute> {
    let elem = elem_of(ctx, ty)?;
    let mut values: Vec<DenseValue> = values
        .into_iter()
        .map(|v| normalize(v, elem))
        .collect::<Option<_>>()?;
    let first = *values.first()?;
    if ctx.written_shape(ty).is_none() {
        return match (values.len(), first) {
            (1, DenseValue::Int(x)) => Some(ctx.integer_attr(x, ty)),
            (1, DenseValue::Float(x)) => Some(ctx.float_attr(x, ty)),
            _ => None,
        };
    }
    if ctx.written_shape(ty).is_some_and(|s| s.contains(&DYNAMIC)) {
        // Dense constants have static shapes.
        return None;
    }
    if values.iter().all(|v| same_bits(*v, first)) {
        values.truncate(1);
    } else if values.len() != static_count(ctx, ty)? {
        return None;
    }
    Some(ctx.dense_attr(ty, &values))
}

/// The constant `v` of type `ty` (scalar, or a splat for static shapes).
fn splat(ctx: &mut Context, ty: Type, v: DenseValue) -> Option<Attribute> {
    build(ctx, ty, vec![v])
}

/// Evaluates `f` over the constant operands of `op` (all must be constant), giving a constant of
/// `op`'s result type.
fn fold_constants(
    ctx: &mut Context,
    op: Op,
    consts: &[Option<Attribute>],
    f: impl FnMut(&[DenseValue]) -> Option<DenseValue>,
) -> Option<Attribute> {
    let operands = ctx.operands(op);
    if consts.len() != operands.len() || ctx.num_results(op) != 1 {
        return None;
    }
    let mut inputs = Vec::with_capacity(consts.len());
    for (c, v) in consts.iter().zip(operands) {
        inputs.push(decode(ctx, (*c)?, ctx.value_type(*v))?);
    }
    let values = map_elements(&inputs, f)?;
    let ty = ctx.value_type(ctx.result(op, 0));
    build(ctx, ty, values)
}

/// The one value every element of a constant holds, if there is one.
fn uniform(ctx: &Context, attr: Option<Attribute>) -> Option<DenseValue> {
    let attr = attr?;
    let ty = ctx.attr_type(attr)?;
    let values = decode(ctx, attr, ty)?;
    let first = *values.first()?;
    values.iter().all(|v| same_bits(*v, first)).then_some(first)
}

/// The signed integer every element of a constant holds (0 for an `i0` constant).
fn uniform_int(ctx: &Context, attr: Option<Attribute>) -> Option<i128> {
    let ty = ctx.attr_type(attr?)?;
    if is_zero_width(ctx, ty) {
        return Some(0);
    }
    let w = match elem_of(ctx, ty)? {
        Elem::Int(w) => w,
        Elem::Float(_) => return None,
    };
    match uniform(ctx, attr)? {
        DenseValue::Int(x) => Some(signed(x, w)),
        DenseValue::Float(_) => None,
    }
}

/// True if `v` (a signed `w`-bit value) is 1 as APInt's `isOne` sees it: `true` counts for `i1`.
fn is_one(v: i128, w: u32) -> bool {
    v == 1 || (w == 1 && v == -1)
}

/// The float every element of a constant holds.
fn uniform_float(ctx: &Context, attr: Option<Attribute>) -> Option<f64> {
    match uniform(ctx, attr)? {
        DenseValue::Float(x) => Some(x),
        DenseValue::Int(_) => None,
    }
}

/// True for `i0`, the integer type whose one value is 0. [`elem_of`] leaves it out, so the
/// folds that MLIR does on it are written out: [`zero_width`].
fn is_zero_width(ctx: &Context, ty: Type) -> bool {
    matches!(ctx.type_kind(ty), TypeKind::Integer { width: 0 })
}

/// The fold of an integer op on constant operands where an operand or result is `i0`: every
/// result is 0 (only scalar integers; `None` otherwise).
fn zero_width(ctx: &mut Context, op: Op, consts: &[Option<Attribute>]) -> Folded {
    let operands = ctx.operands(op);
    if consts.len() != operands.len() || consts.iter().any(Option::is_none) {
        return None;
    }
    let mut types: SmallVec<[Type; 4]> = operands.iter().map(|v| ctx.value_type(*v)).collect();
    let results = types.len();
    types.extend(ctx.results(op).map(|r| ctx.value_type(r)));
    let scalar_ints = types
        .iter()
        .all(|t| matches!(ctx.type_kind(*t), TypeKind::Integer { .. }));
    if !scalar_ints || !types.iter().any(|t| is_zero_width(ctx, *t)) {
        return None;
    }
    Some(
        types[results..]
            .iter()
            .map(|t| FoldResult::Constant(ctx.integer_attr(0, *t)))
            .collect(),
    )
}

fn result_type(ctx: &Context, op: Op) -> Option<Type> {
    (ctx.num_results(op) == 1).then(|| ctx.value_type(ctx.result(op, 0)))
}

fn int_width(ctx: &Context, op: Op) -> Option<u32> {
    match elem_of(ctx, result_type(ctx, op)?)? {
        Elem::Int(w) => Some(w),
        Elem::Float(_) => None,
    }
}

/// The two operands of a binary op and their constants.
fn binary(ctx: &Context, op: Op, consts: &[Option<Attribute>]) -> Option<(Value, Value)> {
    match (ctx.operands(op), consts.len()) {
        ([a, b], 2) if ctx.num_results(op) == 1 => Some((*a, *b)),
        _ => None,
    }
}

/// The op defining `v`, if it is a `T`.
pub(crate) fn defined_by<T: OpView>(ctx: &Context, v: Value) -> Option<Op> {
    ctx.defining_op(v).filter(|d| ctx.view::<T>(*d).is_some())
}

// ---------------------------------------------------------------------------------------------
// Integer binary ops.

/// Constant-folds an integer binary op with `f(lhs, rhs, width)` on signed values; `f` returns
/// `None` where MLIR does not fold.
fn int_binary(
    ctx: &mut Context,
    op: Op,
    consts: &[Option<Attribute>],
    f: impl Fn(i128, i128, u32) -> Option<i128>,
) -> Option<Attribute> {
    let w = int_width(ctx, op)?;
    fold_constants(ctx, op, consts, |v| match v {
        [DenseValue::Int(a), DenseValue::Int(b)] => {
            f(signed(*a, w), signed(*b, w), w).map(DenseValue::Int)
        }
        _ => None,
    })
}

/// The constant zero of the result type of `op`.
fn zero(ctx: &mut Context, op: Op) -> Option<Attribute> {
    let ty = result_type(ctx, op)?;
    splat(ctx, ty, DenseValue::Int(0))
}

pub(crate) fn addi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    // MLIR's order: identities on the right-hand constant before evaluation, so a fold that
    // can reuse an operand does (`addi %c7, %c0` is `%c7`, not a new `7`).
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, _| Some(a.wrapping_add(b))) {
        return to_const(Some(r));
    }
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    if uniform_int(ctx, c[0]) == Some(0) {
        return to_value(rhs);
    }
    // (a - b) + b → a, b + (a - b) → a.
    for (x, y) in [(lhs, rhs), (rhs, lhs)] {
        if let Some(sub) = defined_by::<SubIOp>(ctx, x) {
            if ctx.operand(sub, 1) == y {
                return to_value(ctx.operand(sub, 0));
            }
        }
    }
    None
}

pub(crate) fn subi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if lhs == rhs {
        return to_const(zero(ctx, op));
    }
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, _| Some(a.wrapping_sub(b))) {
        return to_const(Some(r));
    }
    if lhs == rhs {
        return to_const(zero(ctx, op));
    }
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    // (a + b) - b → a, (a + b) - a → b.
    if let Some(add) = defined_by::<AddIOp>(ctx, lhs) {
        let (a, b) = (ctx.operand(add, 0), ctx.operand(add, 1));
        if b == rhs {
            return to_value(a);
        }
        if a == rhs {
            return to_value(b);
        }
    }
    None
}

pub(crate) fn muli(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    let w = int_width(ctx, op)?;
    match uniform_int(ctx, c[1]) {
        Some(0) => return to_value(rhs),
        Some(v) if is_one(v, w) => return to_value(lhs),
        _ => {}
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, _| Some(a.wrapping_mul(b))) {
        return to_const(Some(r));
    }
    for (x, y, cy) in [(lhs, rhs, c[1]), (rhs, lhs, c[0])] {
        match uniform_int(ctx, cy) {
            Some(0) => return to_value(y),
            Some(v) if is_one(v, w) => return to_value(x),
            _ => {}
        }
    }
    None
}

/// Signed division of `w`-bit values rounding toward zero; `None` for a zero divisor (UB) and
/// for `MIN / -1` (overflow), which MLIR leaves unfolded.
fn signed_div(a: i128, b: i128, w: u32) -> Option<i128> {
    if b == 0 || (b == -1 && a == min_signed(w)) {
        return None;
    }
    a.checked_div(b)
}

/// `(a * b) / b → a` and `(a * b) / a → b` when the multiplication carries `flag` (`nsw` for
/// signed, `nuw` for unsigned division), so the product did not wrap.
fn div_of_mul(ctx: &Context, lhs: Value, rhs: Value, flag: OverflowFlags) -> Option<Value> {
    let mul = defined_by::<MulIOp>(ctx, lhs)?;
    if !overflow_flags(ctx, mul).contains(flag) {
        return None;
    }
    let (a, b) = (ctx.operand(mul, 0), ctx.operand(mul, 1));
    if a == rhs {
        Some(b)
    } else if b == rhs {
        Some(a)
    } else {
        None
    }
}

pub(crate) fn divsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    let w = int_width(ctx, op)?;
    // x / 1 → x; for i1 that is x / true, where true / true (MIN / -1) is poison anyway.
    if uniform_int(ctx, c[1]).is_some_and(|v| is_one(v, w)) {
        return to_value(lhs);
    }
    if let Some(v) = div_of_mul(ctx, lhs, rhs, OverflowFlags::NSW) {
        return to_value(v);
    }
    to_const(int_binary(ctx, op, c, signed_div))
}

pub(crate) fn divui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    let w = int_width(ctx, op)?;
    if uniform_int(ctx, c[1]).is_some_and(|v| is_one(v, w)) {
        return to_value(lhs);
    }
    if let Some(v) = div_of_mul(ctx, lhs, rhs, OverflowFlags::NUW) {
        return to_value(v);
    }
    to_const(int_binary(ctx, op, c, |a, b, w| {
        let (a, b) = (unsigned(a, w), unsigned(b, w));
        a.checked_div(b).map(|q| q as i128)
    }))
}

pub(crate) fn remsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    binary(ctx, op, c)?;
    if let Some(r) = int_binary(ctx, op, c, |a, b, _| {
        // MIN % -1 is 0 (APInt::srem); only a zero divisor stays unfolded.
        (b != 0).then(|| a.wrapping_rem(b))
    }) {
        return to_const(Some(r));
    }
    if matches!(uniform_int(ctx, c[1]), Some(1 | -1)) {
        return to_const(zero(ctx, op));
    }
    None
}

pub(crate) fn remui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    binary(ctx, op, c)?;
    if let Some(r) = int_binary(ctx, op, c, |a, b, w| {
        let (a, b) = (unsigned(a, w), unsigned(b, w));
        a.checked_rem(b).map(|q| q as i128)
    }) {
        return to_const(Some(r));
    }
    let w = int_width(ctx, op)?;
    if uniform_int(ctx, c[1]).is_some_and(|v| is_one(v, w)) {
        return to_const(zero(ctx, op));
    }
    None
}

pub(crate) fn andi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    match uniform_int(ctx, c[1]) {
        Some(0) => return to_value(rhs),
        Some(-1) => return to_value(lhs),
        _ => {}
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, _| Some(a & b)) {
        return to_const(Some(r));
    }
    if lhs == rhs {
        return to_value(lhs);
    }
    for (x, y, cy) in [(lhs, rhs, c[1]), (rhs, lhs, c[0])] {
        match uniform_int(ctx, cy) {
            Some(0) => return to_value(y),
            Some(-1) => return to_value(x),
            _ => {}
        }
    }
    // x & ~x → 0.
    for (x, y) in [(lhs, rhs), (rhs, lhs)] {
        if not_of(ctx, y).is_some_and(|(inner, _)| inner == x) {
            return to_const(zero(ctx, op));
        }
    }
    // a & (a & b) → a & b, in any operand order.
    for (x, y) in [(lhs, rhs), (rhs, lhs)] {
        if let Some(prev) = defined_by::<AndIOp>(ctx, x) {
            if ctx.operands(prev).contains(&y) {
                return to_value(x);
            }
        }
    }
    None
}

/// `(x, ones)` if `v` is `xori x, ones` with `ones` a constant of all ones (`~x`).
fn not_of(ctx: &Context, v: Value) -> Option<(Value, Value)> {
    let xor = defined_by::<XOrIOp>(ctx, v)?;
    let &[x, ones] = ctx.operands(xor) else {
        return None;
    };
    (uniform_int(ctx, ctx.constant_value(ones)) == Some(-1)).then_some((x, ones))
}

pub(crate) fn ori(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, _| Some(a | b)) {
        return to_const(Some(r));
    }
    if lhs == rhs {
        return to_value(lhs);
    }
    for (x, y, cy) in [(lhs, rhs, c[1]), (rhs, lhs, c[0])] {
        match uniform_int(ctx, cy) {
            Some(0) => return to_value(x),
            Some(-1) => return to_value(y),
            _ => {}
        }
    }
    // x | ~x → all ones (the constant the `not` uses).
    for (x, y) in [(lhs, rhs), (rhs, lhs)] {
        if let Some((inner, ones)) = not_of(ctx, y) {
            if inner == x {
                return to_value(ones);
            }
        }
    }
    None
}

pub(crate) fn xori(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, _| Some(a ^ b)) {
        return to_const(Some(r));
    }
    if lhs == rhs {
        return to_const(zero(ctx, op));
    }
    for (x, cy) in [(lhs, c[1]), (rhs, c[0])] {
        if uniform_int(ctx, cy) == Some(0) {
            return to_value(x);
        }
    }
    // (a ^ b) ^ b → a, in any operand order.
    for (x, y) in [(lhs, rhs), (rhs, lhs)] {
        if let Some(inner) = defined_by::<XOrIOp>(ctx, x) {
            let (a, b) = (ctx.operand(inner, 0), ctx.operand(inner, 1));
            if b == y {
                return to_value(a);
            }
            if a == y {
                return to_value(b);
            }
        }
    }
    None
}

/// Shifts: amounts of the bit width or more give poison, which MLIR does not fold.
fn shift(
    ctx: &mut Context,
    op: Op,
    c: &[Option<Attribute>],
    f: fn(i128, u32, u32) -> i128,
) -> Folded {
    let (lhs, _) = binary(ctx, op, c)?;
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, w| {
        let amount = unsigned(b, w);
        (amount < w as u128).then(|| f(a, amount as u32, w))
    }) {
        return to_const(Some(r));
    }
    if uniform_int(ctx, c[1]) == Some(0) {
        return to_value(lhs);
    }
    None
}

pub(crate) fn shli(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    shift(ctx, op, c, |a, s, _| ((a as u128) << s) as i128)
}

pub(crate) fn shrsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    shift(ctx, op, c, |a, s, _| a >> s)
}

pub(crate) fn shrui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    shift(ctx, op, c, |a, s, w| (unsigned(a, w) >> s) as i128)
}

/// `maxsi`/`minsi`/`maxui`/`minui`: `extreme` is the value that absorbs (the largest for
/// max), `neutral` the one that vanishes (the smallest for max), in the signed or unsigned order.
fn min_max(
    ctx: &mut Context,
    op: Op,
    c: &[Option<Attribute>],
    is_max: bool,
    is_signed: bool,
) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if lhs == rhs {
        return to_value(lhs);
    }
    let w = int_width(ctx, op)?;
    // The smallest and largest values as sign-extended bit patterns (unsigned: 0 and all ones).
    let (smallest, largest) = if is_signed {
        (min_signed(w), max_signed(w))
    } else {
        (0, -1)
    };
    let (extreme, neutral) = if is_max {
        (largest, smallest)
    } else {
        (smallest, largest)
    };
    match uniform_int(ctx, c[1]) {
        Some(v) if v == extreme => return to_value(rhs),
        Some(v) if v == neutral => return to_value(lhs),
        _ => {}
    }
    if let Some(r) = int_binary(ctx, op, c, |a, b, w| {
        let a_first = if is_signed {
            a >= b
        } else {
            unsigned(a, w) >= unsigned(b, w)
        };
        Some(if a_first == is_max { a } else { b })
    }) {
        return to_const(Some(r));
    }
    for (x, y, cy) in [(lhs, rhs, c[1]), (rhs, lhs, c[0])] {
        match uniform_int(ctx, cy) {
            Some(v) if v == extreme => return to_value(y),
            Some(v) if v == neutral => return to_value(x),
            _ => {}
        }
    }
    None
}

pub(crate) fn maxsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    min_max(ctx, op, c, true, true)
}

pub(crate) fn minsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    min_max(ctx, op, c, false, true)
}

pub(crate) fn maxui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    min_max(ctx, op, c, true, false)
}

pub(crate) fn minui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    min_max(ctx, op, c, false, false)
}

/// `a / b` rounded toward positive infinity (`arith.ceildivsi`); `None` for a zero divisor
/// and a quotient beyond `i128`.
pub fn ceil_div_signed(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    let r = a % b;
    Some(if r != 0 && (r < 0) == (b < 0) {
        q + 1
    } else {
        q
    })
}

/// `a / b` rounded toward negative infinity (`arith.floordivsi`); `None` for a zero divisor
/// and a quotient beyond `i128`.
pub fn floor_div_signed(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    let r = a % b;
    Some(if r != 0 && (r < 0) != (b < 0) {
        q - 1
    } else {
        q
    })
}

/// The divisions rounding up or down: `x / 1` is `x` (for `i1`, `x / true`), then constants
/// fold where `eval` gives a value; MLIR leaves a zero divisor and overflow unfolded.
fn rounding_div(
    ctx: &mut Context,
    op: Op,
    c: &[Option<Attribute>],
    eval: fn(i128, i128, u32) -> Option<i128>,
) -> Folded {
    let (lhs, _) = binary(ctx, op, c)?;
    let w = int_width(ctx, op)?;
    if uniform_int(ctx, c[1]).is_some_and(|v| is_one(v, w)) {
        return to_value(lhs);
    }
    to_const(int_binary(ctx, op, c, eval))
}

pub(crate) fn ceildivsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    rounding_div(ctx, op, c, |a, b, w| {
        // MLIR negates negative operands before dividing and gives up when that overflows:
        // a non-zero dividend with either operand the signed minimum stays unfolded.
        let min = min_signed(w);
        if a != 0 && (a == min || b == min) {
            return None;
        }
        ceil_div_signed(a, b)
    })
}

pub(crate) fn ceildivui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    rounding_div(ctx, op, c, |a, b, w| {
        let (a, b) = (unsigned(a, w), unsigned(b, w));
        a.checked_div(b)?;
        Some(a.div_ceil(b) as i128)
    })
}

pub(crate) fn floordivsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    rounding_div(ctx, op, c, |a, b, w| {
        if b == -1 && a == min_signed(w) {
            return None;
        }
        floor_div_signed(a, b)
    })
}

// ---------------------------------------------------------------------------------------------
// Extended-precision ops (two results).

/// The operands of an extended op, its integer width and its two result types.
fn extended_parts(
    ctx: &Context,
    op: Op,
    consts: &[Option<Attribute>],
) -> Option<(Value, Value, u32, [Type; 2])> {
    let (&[lhs, rhs], 2, 2) = (ctx.operands(op), consts.len(), ctx.num_results(op)) else {
        return None;
    };
    let w = match elem_of(ctx, ctx.value_type(lhs))? {
        Elem::Int(w) => w,
        Elem::Float(_) => return None,
    };
    let types = [
        ctx.value_type(ctx.result(op, 0)),
        ctx.value_type(ctx.result(op, 1)),
    ];
    Some((lhs, rhs, w, types))
}

/// Evaluates an extended op on constant operands with `f(lhs, rhs, width)` on signed values,
/// giving both results; `None` unless both operands are constants and `f` folds every element.
fn extended_constants(
    ctx: &mut Context,
    op: Op,
    consts: &[Option<Attribute>],
    f: impl Fn(i128, i128, u32) -> Option<(i128, i128)>,
) -> Folded {
    let (lhs, rhs, w, types) = extended_parts(ctx, op, consts)?;
    let inputs = [
        decode(ctx, consts[0]?, ctx.value_type(lhs))?,
        decode(ctx, consts[1]?, ctx.value_type(rhs))?,
    ];
    let mut firsts = Vec::new();
    let mut seconds = Vec::new();
    map_elements(&inputs, |v| match v {
        [DenseValue::Int(x), DenseValue::Int(y)] => {
            let (first, second) = f(signed(*x, w), signed(*y, w), w)?;
            firsts.push(DenseValue::Int(first));
            seconds.push(DenseValue::Int(second));
            // The results are collected above; `map_elements` only drives the broadcast.
            Some(DenseValue::Int(0))
        }
        _ => None,
    })?;
    let first = build(ctx, types[0], firsts)?;
    let second = build(ctx, types[1], seconds)?;
    Some(smallvec![
        FoldResult::Constant(first),
        FoldResult::Constant(second)
    ])
}

pub(crate) fn addui_extended(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, _, _, types) = extended_parts(ctx, op, c)?;
    // x + 0 is x, without carry.
    if uniform_int(ctx, c[1]) == Some(0) {
        let no_carry = splat(ctx, types[1], DenseValue::Int(0))?;
        return Some(smallvec![
            FoldResult::Value(lhs),
            FoldResult::Constant(no_carry)
        ]);
    }
    extended_constants(ctx, op, c, |a, b, w| {
        let sum = unsigned(a.wrapping_add(b), w);
        // The sum wrapped exactly when it is below an operand.
        Some((sum as i128, (sum < unsigned(a, w)) as i128))
    })
}

/// The high half of the `2w`-bit product of `w`-bit values (signed or unsigned); `None` above
/// 64 bits, where the product does not fit an `i128`.
fn mul_high(a: i128, b: i128, w: u32, is_signed: bool) -> Option<i128> {
    if w > 64 {
        return None;
    }
    Some(if is_signed {
        (a * b) >> w
    } else {
        ((unsigned(a, w) * unsigned(b, w)) >> w) as i128
    })
}

/// `mulsi_extended`/`mului_extended`: `x * 0` is `0, 0`; `mului_extended(x, 1)` is `x, 0`;
/// constants fold to the low and high halves.
fn mul_extended(ctx: &mut Context, op: Op, c: &[Option<Attribute>], is_signed: bool) -> Folded {
    if let Some(zeros) = zero_width(ctx, op, c) {
        return Some(zeros);
    }
    let (lhs, _, w, types) = extended_parts(ctx, op, c)?;
    match uniform_int(ctx, c[1]) {
        Some(0) => {
            let zero = c[1]?;
            return Some(smallvec![
                FoldResult::Constant(zero),
                FoldResult::Constant(zero)
            ]);
        }
        Some(v) if !is_signed && is_one(v, w) => {
            let zero = splat(ctx, types[1], DenseValue::Int(0))?;
            return Some(smallvec![
                FoldResult::Value(lhs),
                FoldResult::Constant(zero)
            ]);
        }
        _ => {}
    }
    extended_constants(ctx, op, c, |a, b, w| {
        Some((a.wrapping_mul(b), mul_high(a, b, w, is_signed)?))
    })
}

pub(crate) fn mulsi_extended(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    mul_extended(ctx, op, c, true)
}

pub(crate) fn mului_extended(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    mul_extended(ctx, op, c, false)
}

/// Evaluates an integer comparison on `w`-bit values.
pub fn eval_cmpi(pred: CmpIPredicate, a: i128, b: i128, w: u32) -> bool {
    use CmpIPredicate::*;
    let (sa, sb) = (signed(a, w), signed(b, w));
    let (ua, ub) = (unsigned(a, w), unsigned(b, w));
    match pred {
        Eq => ua == ub,
        Ne => ua != ub,
        Slt => sa < sb,
        Sle => sa <= sb,
        Sgt => sa > sb,
        Sge => sa >= sb,
        Ult => ua < ub,
        Ule => ua <= ub,
        Ugt => ua > ub,
        Uge => ua >= ub,
    }
}

pub(crate) fn cmpi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    let pred = CmpIOp(op).cmp_predicate(ctx)?;
    let w = match elem_of(ctx, ctx.value_type(lhs))? {
        Elem::Int(w) => w,
        Elem::Float(_) => return None,
    };
    let folded = fold_constants(ctx, op, c, |v| match v {
        [DenseValue::Int(a), DenseValue::Int(b)] => {
            Some(DenseValue::Int(eval_cmpi(pred, *a, *b, w) as i128))
        }
        _ => None,
    });
    if folded.is_some() {
        return to_const(folded);
    }
    if lhs == rhs {
        let ty = result_type(ctx, op)?;
        return to_const(splat(
            ctx,
            ty,
            DenseValue::Int(pred.holds_for_equal() as i128),
        ));
    }
    // Comparisons that give back a boolean: `b != false` and `b == true` on `i1`, and
    // `ext(b) != 0` for an `i1` extended either way.
    let rhs_value = uniform_int(ctx, c[1]);
    if rhs_value == Some(0) && pred == CmpIPredicate::Ne {
        if w == 1 {
            return to_value(lhs);
        }
        let ext = defined_by::<ExtSIOp>(ctx, lhs).or_else(|| defined_by::<ExtUIOp>(ctx, lhs));
        if let Some(&[b]) = ext.map(|e| ctx.operands(e)) {
            if ctx.element_type(ctx.value_type(b)) == Type::I1 {
                return to_value(b);
            }
        }
    }
    if w == 1 && rhs_value == Some(-1) && pred == CmpIPredicate::Eq {
        return to_value(lhs);
    }
    // A constant goes to the right, with the predicate mirrored (`c < x` is `x > c`); the op
    // changes in place, which an empty result list says.
    if c[0].is_some() && c[1].is_none() {
        let mirrored = predicate_attr(ctx, pred.swapped() as i64);
        ctx.set_operands(op, &[rhs, lhs]);
        ctx.set_attr(op, PREDICATE, mirrored);
        return Some(SmallVec::new());
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Float ops.

fn float_binary(
    ctx: &mut Context,
    op: Op,
    c: &[Option<Attribute>],
    f: impl Fn(f64, f64) -> f64,
) -> Option<Attribute> {
    fold_constants(ctx, op, c, |v| match v {
        [DenseValue::Float(a), DenseValue::Float(b)] => Some(DenseValue::Float(f(*a, *b))),
        _ => None,
    })
}

fn is_zero(x: f64, negative: bool) -> bool {
    x == 0.0 && x.is_sign_negative() == negative
}

pub(crate) fn addf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if uniform_float(ctx, c[1]).is_some_and(|v| is_zero(v, true)) {
        return to_value(lhs);
    }
    if let Some(r) = float_binary(ctx, op, c, |a, b| FloatBinary::Add.eval(a, b)) {
        return to_const(Some(r));
    }
    // x + -0.0 is x for every x (+0.0 would turn -0.0 into +0.0).
    for (x, cy) in [(lhs, c[1]), (rhs, c[0])] {
        if uniform_float(ctx, cy).is_some_and(|v| is_zero(v, true)) {
            return to_value(x);
        }
    }
    None
}

pub(crate) fn subf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, _) = binary(ctx, op, c)?;
    if uniform_float(ctx, c[1]).is_some_and(|v| is_zero(v, false)) {
        return to_value(lhs);
    }
    if let Some(r) = float_binary(ctx, op, c, |a, b| FloatBinary::Sub.eval(a, b)) {
        return to_const(Some(r));
    }
    if uniform_float(ctx, c[1]).is_some_and(|v| is_zero(v, false)) {
        return to_value(lhs);
    }
    None
}

pub(crate) fn mulf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if uniform_float(ctx, c[1]) == Some(1.0) {
        return to_value(lhs);
    }
    if let Some(r) = float_binary(ctx, op, c, |a, b| FloatBinary::Mul.eval(a, b)) {
        return to_const(Some(r));
    }
    for (x, cy) in [(lhs, c[1]), (rhs, c[0])] {
        if uniform_float(ctx, cy) == Some(1.0) {
            return to_value(x);
        }
    }
    None
}

pub(crate) fn divf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let (lhs, _) = binary(ctx, op, c)?;
    if uniform_float(ctx, c[1]) == Some(1.0) {
        return to_value(lhs);
    }
    if let Some(r) = float_binary(ctx, op, c, |a, b| FloatBinary::Div.eval(a, b)) {
        return to_const(Some(r));
    }
    if uniform_float(ctx, c[1]) == Some(1.0) {
        return to_value(lhs);
    }
    None
}

pub(crate) fn remf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    binary(ctx, op, c)?;
    // `%` is C's `fmod` (exact, with the sign of the dividend), as APFloat's `mod`.
    to_const(float_binary(ctx, op, c, |a, b| FloatBinary::Rem.eval(a, b)))
}

/// IEEE 754-2019 `maximum` (as `llvm::maximum`): NaN wins, and +0 is above -0.
pub fn ieee_maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return a;
    }
    if b.is_nan() {
        return b;
    }
    if a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative() {
        return if a.is_sign_negative() { b } else { a };
    }
    if a < b {
        b
    } else {
        a
    }
}

/// IEEE 754-2019 `minimum` (as `llvm::minimum`): NaN wins, and -0 is below +0.
pub fn ieee_minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return a;
    }
    if b.is_nan() {
        return b;
    }
    if a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative() {
        return if a.is_sign_negative() { a } else { b };
    }
    if b < a {
        b
    } else {
        a
    }
}

fn min_maxf(ctx: &mut Context, op: Op, c: &[Option<Attribute>], is_max: bool) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if lhs == rhs {
        return to_value(lhs);
    }
    let neutral = if is_max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    if uniform_float(ctx, c[1]) == Some(neutral) {
        return to_value(lhs);
    }
    let f = if is_max {
        FloatBinary::Maximum
    } else {
        FloatBinary::Minimum
    };
    if let Some(r) = float_binary(ctx, op, c, |a, b| f.eval(a, b)) {
        return to_const(Some(r));
    }
    // maximum(x, -inf) and minimum(x, +inf) are x, NaN included.
    for (x, cy) in [(lhs, c[1]), (rhs, c[0])] {
        if uniform_float(ctx, cy) == Some(neutral) {
            return to_value(x);
        }
    }
    None
}

pub(crate) fn maximumf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    min_maxf(ctx, op, c, true)
}

pub(crate) fn minimumf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    min_maxf(ctx, op, c, false)
}

/// A NaN made quiet, as APFloat's `makeQuiet` (sets the quiet bit, keeps the payload).
fn quiet(x: f64) -> f64 {
    f64::from_bits(x.to_bits() | 1 << 51)
}

/// IEEE 754-2008 `maxNum` (as `llvm::maxnum`): a signaling NaN operand gives it made quiet,
/// a quiet NaN the other operand, and +0 is above -0.
pub fn ieee_maxnum(a: f64, b: f64) -> f64 {
    num_select(a, b, true)
}

/// IEEE 754-2008 `minNum` (as `llvm::minnum`): as [`ieee_maxnum`], with -0 below +0.
pub fn ieee_minnum(a: f64, b: f64) -> f64 {
    num_select(a, b, false)
}

fn is_signaling(x: f64) -> bool {
    x.is_nan() && x.to_bits() & (1 << 51) == 0
}

fn num_select(a: f64, b: f64, is_max: bool) -> f64 {
    if is_signaling(a) {
        return quiet(a);
    }
    if is_signaling(b) {
        return quiet(b);
    }
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative() {
        // The positive zero for max, the negative one for min.
        return if a.is_sign_negative() == is_max { b } else { a };
    }
    if (a < b) == is_max {
        b
    } else {
        a
    }
}

/// `maxnumf`/`minnumf`: `f(x, x)` and `f(x, NaN)` (any NaN, before constant folding) are `x`.
fn num_minmax(ctx: &mut Context, op: Op, c: &[Option<Attribute>], is_max: bool) -> Folded {
    let (lhs, rhs) = binary(ctx, op, c)?;
    if lhs == rhs {
        return to_value(lhs);
    }
    for (x, cy) in [(lhs, c[1]), (rhs, c[0])] {
        if uniform_float(ctx, cy).is_some_and(f64::is_nan) {
            return to_value(x);
        }
    }
    let f = if is_max {
        FloatBinary::MaxNum
    } else {
        FloatBinary::MinNum
    };
    to_const(float_binary(ctx, op, c, |a, b| f.eval(a, b)))
}

pub(crate) fn maxnumf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    num_minmax(ctx, op, c, true)
}

pub(crate) fn minnumf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    num_minmax(ctx, op, c, false)
}

pub(crate) fn negf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let [x] = ctx.operands(op) else { return None };
    let x = *x;
    let folded = fold_constants(ctx, op, c, |v| match v {
        [DenseValue::Float(a)] => Some(DenseValue::Float(-*a)),
        _ => None,
    });
    if folded.is_some() {
        return to_const(folded);
    }
    // -(-x) → x.
    let inner = defined_by::<NegFOp>(ctx, x)?;
    to_value(*ctx.operands(inner).first()?)
}

/// Evaluates a float comparison; `O` predicates are false and `U` predicates true on NaN.
pub fn eval_cmpf(pred: CmpFPredicate, a: f64, b: f64) -> bool {
    use CmpFPredicate::*;
    let unordered = a.is_nan() || b.is_nan();
    match pred {
        AlwaysFalse => false,
        Oeq => !unordered && a == b,
        Ogt => !unordered && a > b,
        Oge => !unordered && a >= b,
        Olt => !unordered && a < b,
        Ole => !unordered && a <= b,
        One => !unordered && a != b,
        Ord => !unordered,
        Ueq => unordered || a == b,
        Ugt => unordered || a > b,
        Uge => unordered || a >= b,
        Ult => unordered || a < b,
        Ule => unordered || a <= b,
        Une => unordered || a != b,
        Uno => unordered,
        AlwaysTrue => true,
    }
}

pub(crate) fn cmpf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    binary(ctx, op, c)?;
    let pred = CmpFOp(op).cmp_predicate(ctx)?;
    let folded = fold_constants(ctx, op, c, |v| match v {
        [DenseValue::Float(a), DenseValue::Float(b)] => {
            Some(DenseValue::Int(eval_cmpf(pred, *a, *b) as i128))
        }
        _ => None,
    });
    if folded.is_some() {
        return to_const(folded);
    }
    // A NaN operand decides every predicate, whatever the other operand is.
    if c.iter()
        .any(|a| uniform_float(ctx, *a).is_some_and(f64::is_nan))
    {
        let ty = result_type(ctx, op)?;
        let v = eval_cmpf(pred, f64::NAN, 0.0) as i128;
        return to_const(splat(ctx, ty, DenseValue::Int(v)));
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Select.

pub(crate) fn select(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let &[cond, t, f] = ctx.operands(op) else {
        return None;
    };
    if c.len() != 3 {
        return None;
    }
    if t == f {
        return to_value(t);
    }
    if let Some(v) = uniform_int(ctx, c[0]) {
        return to_value(if v != 0 { t } else { f });
    }
    // select %c, true, false → %c.
    let ty = result_type(ctx, op)?;
    if ty == ctx.value_type(cond)
        && uniform_int(ctx, c[1]) == Some(-1)
        && uniform_int(ctx, c[2]) == Some(0)
    {
        return to_value(cond);
    }
    // select (cmpi eq, a, b), a, b → b, and with `ne` → a (either operand order).
    if let Some(cmp) = defined_by::<CmpIOp>(ctx, cond) {
        let pred = CmpIOp(cmp).cmp_predicate(ctx);
        if let (Some(p @ (CmpIPredicate::Eq | CmpIPredicate::Ne)), &[a, b]) =
            (pred, ctx.operands(cmp))
        {
            if (a == t && b == f) || (b == t && a == f) {
                return to_value(if p == CmpIPredicate::Ne { t } else { f });
            }
        }
    }
    to_const(fold_constants(ctx, op, c, |v| match v {
        [DenseValue::Int(m), a, b] => Some(if *m & 1 != 0 { *a } else { *b }),
        _ => None,
    }))
}

// ---------------------------------------------------------------------------------------------
// Casts.

/// Constant-folds a cast with `f(value, from, to)`.
fn cast(
    ctx: &mut Context,
    op: Op,
    c: &[Option<Attribute>],
    f: impl Fn(DenseValue, Elem, Elem) -> Option<DenseValue>,
) -> Option<Attribute> {
    let &[input] = ctx.operands(op) else {
        return None;
    };
    if let Some(&[FoldResult::Constant(zero)]) = zero_width(ctx, op, c).as_deref() {
        return Some(zero);
    }
    let from = elem_of(ctx, ctx.value_type(input))?;
    let to = elem_of(ctx, result_type(ctx, op)?)?;
    fold_constants(ctx, op, c, |v| match v {
        [x] => f(*x, from, to),
        _ => None,
    })
}

fn int_cast(
    ctx: &mut Context,
    op: Op,
    c: &[Option<Attribute>],
    f: fn(i128, u32) -> i128,
) -> Option<Attribute> {
    cast(ctx, op, c, |v, from, _| match (v, from) {
        (DenseValue::Int(x), Elem::Int(w)) => Some(DenseValue::Int(f(x, w))),
        _ => None,
    })
}

pub(crate) fn index_cast(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    to_const(int_cast(ctx, op, c, signed))
}

pub(crate) fn index_castui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    to_const(int_cast(ctx, op, c, |x, w| unsigned(x, w) as i128))
}

/// `op`, whose input is the output of `inner`, now reads `inner`'s input instead: the folds of
/// cast chains that keep the outer cast (MLIR's in-place fold, an empty result list).
fn skip_inner_cast(ctx: &mut Context, op: Op, inner: Op) -> Folded {
    let &[src] = ctx.operands(inner) else {
        return None;
    };
    ctx.set_operands(op, &[src]);
    Some(SmallVec::new())
}

pub(crate) fn extsi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    // extsi(extsi(x)) → extsi(x).
    let input = *ctx.operands(op).first()?;
    if let Some(inner) = defined_by::<ExtSIOp>(ctx, input) {
        return skip_inner_cast(ctx, op, inner);
    }
    to_const(int_cast(ctx, op, c, signed))
}

pub(crate) fn extui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    // extui(extui(x)) → extui(x).
    let input = *ctx.operands(op).first()?;
    if let Some(inner) = defined_by::<ExtUIOp>(ctx, input) {
        return skip_inner_cast(ctx, op, inner);
    }
    to_const(int_cast(ctx, op, c, |x, w| unsigned(x, w) as i128))
}

/// `trunc(ext(x))`, `ext` an extension of the same kind: `x` when it has the result type,
/// `trunc(x)` (the outer op's flags kept) when `x` is still wider; `None` when `x` is narrower.
fn trunc_of_ext(ctx: &mut Context, op: Op, ext: Op) -> Option<Folded> {
    let ty = result_type(ctx, op)?;
    let src = *ctx.operands(ext).first()?;
    let src_ty = ctx.value_type(src);
    if src_ty == ty {
        return Some(to_value(src));
    }
    let width = |t: Type| crate::types::bit_width(ctx, ctx.element_type(t));
    (width(src_ty) > width(ty)).then(|| skip_inner_cast(ctx, op, ext))
}

pub(crate) fn trunci(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let input = *ctx.operands(op).first()?;
    if let Some(ext) =
        defined_by::<ExtSIOp>(ctx, input).or_else(|| defined_by::<ExtUIOp>(ctx, input))
    {
        if let Some(folded) = trunc_of_ext(ctx, op, ext) {
            return folded;
        }
    }
    // trunci(trunci(x)) → trunci(x), with the outer op's flags.
    if let Some(inner) = defined_by::<TruncIOp>(ctx, input) {
        return skip_inner_cast(ctx, op, inner);
    }
    to_const(int_cast(ctx, op, c, |x, _| x))
}

pub(crate) fn sitofp(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    to_const(cast(ctx, op, c, |v, from, to| match (v, from, to) {
        (DenseValue::Int(x), Elem::Int(w), Elem::Float(k)) => {
            Some(DenseValue::Float(int_to_float(signed(x, w), k)))
        }
        _ => None,
    }))
}

pub(crate) fn uitofp(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    to_const(cast(ctx, op, c, |v, from, to| match (v, from, to) {
        (DenseValue::Int(x), Elem::Int(w), Elem::Float(k)) => {
            Some(DenseValue::Float(magnitude_to_float(unsigned(x, w), k)))
        }
        _ => None,
    }))
}

pub(crate) fn fptoui(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    to_const(cast(ctx, op, c, |v, _, to| match (v, to) {
        (DenseValue::Float(x), Elem::Int(w)) => {
            // NaN, values at or below -1 and values of 2^w or more are invalid conversions
            // (APFloat's `opInvalidOp`): not folded. (-1, 0) truncates to 0.
            let t = x.trunc();
            let limit = 2f64.powi(w as i32);
            (!x.is_nan() && t > -1.0 && t < limit).then_some(DenseValue::Int(t as u128 as i128))
        }
        _ => None,
    }))
}

pub(crate) fn fptosi(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    to_const(cast(ctx, op, c, |v, _, to| match (v, to) {
        (DenseValue::Float(x), Elem::Int(w)) => {
            // NaN and out-of-range values are invalid conversions: not folded.
            let t = x.trunc();
            let limit = 2f64.powi(w as i32 - 1);
            // (`as` saturates, so the cast is harmless even when unused.)
            (!x.is_nan() && t >= -limit && t < limit).then_some(DenseValue::Int(t as i128))
        }
        _ => None,
    }))
}

pub(crate) fn extf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    // extf(truncf(x)) → x when x has the result type and both casts allow `contract`: the
    // rounding may then be dropped (whatever the truncf's rounding mode).
    let input = *ctx.operands(op).first()?;
    if let Some(trunc) = defined_by::<TruncFOp>(ctx, input) {
        let src = *ctx.operands(trunc).first()?;
        let contract = |o: Op| fastmath_flags(ctx, o).contains(FastMathFlags::CONTRACT);
        if Some(ctx.value_type(src)) == result_type(ctx, op) && contract(trunc) && contract(op) {
            return to_value(src);
        }
    }
    // Widening is exact, NaN payloads included.
    to_const(cast(ctx, op, c, |v, _, _| match v {
        DenseValue::Float(_) => Some(v),
        DenseValue::Int(_) => None,
    }))
}

/// True if `x`, a NaN of format `kind`, carries no payload beyond the quiet bit, so narrowing
/// it loses nothing.
fn is_canonical_nan(x: f64, kind: FloatKind) -> bool {
    let mantissa_bits = kind.mantissa_bits();
    let payload = kind.to_bits(x) & ((1u64 << mantissa_bits) - 1);
    payload == 1 << (mantissa_bits - 1)
}

pub(crate) fn truncf(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    // truncf(extf(x)) → x when x has the result type, truncf(x) (same rounding mode and flags)
    // when x is still wider: extf is exact, so the truncf rounds x's value either way.
    let input = *ctx.operands(op).first()?;
    if let Some(ext) = defined_by::<ExtFOp>(ctx, input) {
        if let Some(folded) = trunc_of_ext(ctx, op, ext) {
            return folded;
        }
    }
    // MLIR folds only conversions that lose nothing, which every rounding mode agrees on.
    to_const(cast(ctx, op, c, |v, from, to| match (v, from, to) {
        (DenseValue::Float(x), Elem::Float(f), Elem::Float(_)) if x.is_nan() => {
            is_canonical_nan(x, f).then_some(v)
        }
        (DenseValue::Float(x), _, Elem::Float(k)) if k.round(x) == x => Some(v),
        _ => None,
    }))
}

/// The raw bits of an element, and the element with given raw bits.
fn to_raw(v: DenseValue, elem: Elem) -> Option<u128> {
    match (v, elem) {
        (DenseValue::Int(x), Elem::Int(w)) => Some(unsigned(x, w)),
        (DenseValue::Float(x), Elem::Float(k)) => Some(k.to_bits(x) as u128),
        _ => None,
    }
}

fn from_raw(bits: u128, elem: Elem) -> Option<DenseValue> {
    match elem {
        Elem::Int(_) => Some(DenseValue::Int(bits as i128)),
        Elem::Float(k) => {
            let x = k.from_bits(bits as u64);
            // Float attributes keep an f64; refuse patterns (NaN payloads) it would not keep.
            (k.to_bits(x) as u128 == bits).then_some(DenseValue::Float(x))
        }
    }
}

pub(crate) fn bitcast(ctx: &mut Context, op: Op, c: &[Option<Attribute>]) -> Folded {
    let input = *ctx.operands(op).first()?;
    let ty = result_type(ctx, op)?;
    if ctx.value_type(input) == ty {
        return to_value(input);
    }
    if let Some(r) = cast(ctx, op, c, |v, from, to| from_raw(to_raw(v, from)?, to)) {
        return to_const(Some(r));
    }
    // bitcast(bitcast(x)) → x when x has the result type.
    let inner = defined_by::<BitcastOp>(ctx, input)?;
    let src = *ctx.operands(inner).first()?;
    (ctx.value_type(src) == ty).then_some(())?;
    to_value(src)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_division_never_overflows() {
        assert_eq!(signed_div(i128::MIN, -1, 128), None);
        assert_eq!(signed_div(i128::MIN, 1, 128), Some(i128::MIN));
        assert_eq!(signed_div(-128, -1, 8), None);
        assert_eq!(signed_div(-128, 2, 8), Some(-64));
        assert_eq!(signed_div(5, 0, 32), None);
        assert_eq!(signed_div(-1, -1, 1), None);
    }

    #[test]
    fn width_helpers_cover_128_bits() {
        assert_eq!(min_signed(128), i128::MIN);
        assert_eq!(max_signed(128), i128::MAX);
        assert_eq!((min_signed(1), max_signed(1)), (-1, 0));
        assert_eq!(unsigned(-1, 128), u128::MAX);
        assert_eq!(unsigned(-1, 8), 255);
        assert_eq!(signed(1, 1), -1);
    }

    #[test]
    fn integers_round_once_to_half_precision() {
        // 2049 is a tie between 2048 and 2050 in f16: even mantissa wins.
        assert_eq!(int_to_float(2049, FloatKind::F16), 2048.0);
        assert_eq!(int_to_float(2051, FloatKind::F16), 2052.0);
        assert_eq!(int_to_float(-65519, FloatKind::F16), -65504.0);
        assert_eq!(int_to_float(65520, FloatKind::F16), f64::INFINITY);
        assert_eq!(int_to_float(i128::MIN, FloatKind::BF16), -(2f64.powi(127)));
        // Just above the tie 2^24 + 1: f64 then bf16 would round twice.
        assert_eq!(int_to_float((1 << 24) + 1, FloatKind::F32), 16777216.0);
        assert_eq!(int_to_float(257, FloatKind::BF16), 256.0);
        assert_eq!(int_to_float(259, FloatKind::BF16), 260.0);
    }

    #[test]
    fn rounding_divisions_round_the_right_way() {
        assert_eq!(ceil_div_signed(7, 2), Some(4));
        assert_eq!(ceil_div_signed(-7, 2), Some(-3));
        assert_eq!(ceil_div_signed(7, -2), Some(-3));
        assert_eq!(ceil_div_signed(-7, -2), Some(4));
        assert_eq!(ceil_div_signed(6, 3), Some(2));
        assert_eq!(floor_div_signed(7, 2), Some(3));
        assert_eq!(floor_div_signed(-7, 2), Some(-4));
        assert_eq!(floor_div_signed(7, -2), Some(-4));
        assert_eq!(floor_div_signed(-6, 3), Some(-2));
        assert_eq!(floor_div_signed(1, 0), None);
        assert_eq!(ceil_div_signed(i128::MIN, -1), None);
    }

    #[test]
    fn maxnum_and_minnum_prefer_numbers() {
        let qnan = f64::NAN;
        let snan = f64::from_bits(0x7FF0_0000_0000_0001);
        assert_eq!(ieee_maxnum(qnan, 1.0), 1.0);
        assert_eq!(ieee_minnum(2.0, qnan), 2.0);
        assert_eq!(ieee_maxnum(snan, 1.0).to_bits(), 0x7FF8_0000_0000_0001);
        assert_eq!(ieee_maxnum(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(ieee_minnum(0.0, -0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(ieee_minnum(-1.0, 3.0), -1.0);
    }

    #[test]
    fn extended_products_split_into_halves() {
        // i8: 200 * 100 = 20000 = 0x4E20 unsigned; -56 * 100 = -5600 = 0xEA20 signed.
        assert_eq!(mul_high(-56, 100, 8, false), Some(78));
        assert_eq!(mul_high(-56, 100, 8, true), Some(-22));
        assert_eq!(
            mul_high(-1, -1, 64, false),
            Some(-2i64 as i128 & 0xFFFF_FFFF_FFFF_FFFF)
        );
        assert_eq!(mul_high(1, 1, 65, true), None);
        // 2^128 - 1 rounds to 2^128: exact in f64, beyond f32's largest finite value.
        assert_eq!(
            magnitude_to_float(u128::MAX, FloatKind::F64),
            2f64.powi(128)
        );
        assert_eq!(magnitude_to_float(u128::MAX, FloatKind::F32), f64::INFINITY);
        assert_eq!(magnitude_to_float(u128::MAX, FloatKind::F16), f64::INFINITY);
    }

    #[test]
    fn nan_results_follow_apfloat() {
        let div = |a, b| FloatBinary::Div.eval(a, b);
        assert_eq!(div(0.0, 0.0).to_bits(), f64::NAN.to_bits());
        let sub = |a, b| FloatBinary::Sub.eval(a, b);
        assert_eq!(
            sub(f64::INFINITY, f64::INFINITY).to_bits(),
            f64::NAN.to_bits()
        );
        let payload = f64::from_bits(0x7FF8_0000_0000_0001);
        assert_eq!(sub(1.0, payload).to_bits(), payload.to_bits());
        assert_eq!(ieee_maximum(-0.0, 0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(ieee_minimum(0.0, -0.0).to_bits(), (-0.0f64).to_bits());
    }
}
