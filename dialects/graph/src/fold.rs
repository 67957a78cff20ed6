//! Folders of the graph ops: constant evaluation of small tensors and algebraic identities.
//!
//! Constant folding evaluates elementwise ops (unary, cast, binary with broadcasting, cmp,
//! select) and the data movement ops reshape, transpose and broadcast_to when every operand is
//! a dense constant and the result has a static shape of at most [`MAX_FOLD_ELEMENTS`] elements
//! (larger constants would bloat the IR for little gain). Floats are computed in `f64` and
//! rounded to the result dtype, as the interpreter rounds after each op; integers wrap at their
//! width. Anything the interpreter reports as an error (integer division by zero) or that has no
//! exact definition here (`erf`, out-of-range float→int casts, NaN in max/min) stays unfolded.
//!
//! Identities fold to an existing value only when that value has the result's type (broadcasting
//! can make `x + 0` larger than `x`): `x + 0`, `x - 0`, `x * 1`, `x / 1`, `neg(neg(x))`, identity
//! transposes, reshapes, broadcasts, full-range slices and casts to the same type. Two ops change
//! in place instead: `transpose(transpose(x))` becomes one transpose of `x` with the composed
//! permutation, and `reshape(reshape(x))` one reshape of `x`.
//!
//! Float identities are exact in IEEE arithmetic: `x + (-0.0)` and `x - (+0.0)` fold, but
//! `x + 0.0` does not (it turns `-0.0` into `+0.0`), and `x * 0` never folds for floats (NaN, inf
//! and the sign of zero).

use crate::infer::slice_bound;
use crate::ops::{Family, GraphOps, NegOp, ReshapeOp, TransposeOp};
use crate::verify::{tensor_parts, Attrs};
use dlc_ir::attributes::sign_extend;
use dlc_ir::{fold_to_value as to_value, Folded};
use dlc_ir::{
    AttrKind, Attribute, Context, DenseValue, FloatKind, FoldResult, Op, Type, TypeKind, Value,
    DYNAMIC,
};
use smallvec::{smallvec, SmallVec};

/// Constants with more elements than this are not folded.
pub const MAX_FOLD_ELEMENTS: usize = 1024;

/// The element type of a folded value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Elem {
    Int(u32),
    Float(FloatKind),
}

fn elem_of(ctx: &Context, ty: Type) -> Option<Elem> {
    match ctx.type_kind(ctx.element_type(ty)) {
        TypeKind::Integer { width } if (1..=64).contains(width) => Some(Elem::Int(*width)),
        TypeKind::Float(k) => Some(Elem::Float(*k)),
        _ => None,
    }
}

/// The static shape of `ty` if it has at most [`MAX_FOLD_ELEMENTS`] elements.
fn small_static_shape(ctx: &Context, ty: Type) -> Option<Vec<i64>> {
    let t = tensor_parts(ctx, ty)?;
    if t.shape.iter().any(|d| *d < 0) {
        return None;
    }
    let count = t
        .shape
        .iter()
        .try_fold(1usize, |c, d| c.checked_mul(*d as usize))?;
    (count <= MAX_FOLD_ELEMENTS).then_some(t.shape)
}

/// Every element of a dense constant of type `ty`, row-major (a splat expanded).
fn decode(ctx: &Context, attr: Attribute, ty: Type) -> Option<Vec<DenseValue>> {
    let AttrKind::DenseElements(d) = ctx.attr_kind(attr) else {
        return None;
    };
    if d.ty != ty {
        return None;
    }
    let shape = small_static_shape(ctx, ty)?;
    let count: usize = shape.iter().map(|d| *d as usize).product();
    if d.splat {
        return Some(vec![ctx.dense_element(d, 0); count]);
    }
    Some((0..count).map(|i| ctx.dense_element(d, i)).collect())
}

/// For each element of `out` (row-major), the index of the element of `input` numpy
/// broadcasting reads.
fn broadcast_map(out: &[i64], input: &[i64]) -> Vec<usize> {
    let count: usize = out.iter().map(|d| *d as usize).product();
    let offset = out.len() - input.len();
    let mut strides = vec![0usize; out.len()];
    let mut s = 1usize;
    for k in (0..input.len()).rev() {
        strides[offset + k] = if input[k] == 1 { 0 } else { s };
        s *= input[k] as usize;
    }
    (0..count)
        .map(|mut i| {
            let mut at = 0;
            for j in (0..out.len()).rev() {
                let d = out[j] as usize;
                at += (i % d) * strides[j];
                i /= d;
            }
            at
        })
        .collect()
}

/// Builds a dense constant of `ty` from row-major values, normalized to the element type.
fn build(ctx: &mut Context, ty: Type, values: Vec<DenseValue>) -> Option<Attribute> {
    let elem = elem_of(ctx, ty)?;
    let values: Vec<DenseValue> = values
        .into_iter()
        .map(|v| normalize(v, elem))
        .collect::<Option<_>>()?;
    Some(ctx.dense_attr(ty, &values))
}

fn normalize(v: DenseValue, elem: Elem) -> Option<DenseValue> {
    match (v, elem) {
        (DenseValue::Int(x), Elem::Int(1)) => Some(DenseValue::Int(x & 1)),
        (DenseValue::Int(x), Elem::Int(w)) => Some(DenseValue::Int(sign_extend(x, w))),
        (DenseValue::Float(x), Elem::Float(k)) => Some(DenseValue::Float(k.round(x))),
        _ => None,
    }
}

/// The value every element of a constant holds, if there is one.
fn uniform(ctx: &Context, attr: Option<Attribute>) -> Option<DenseValue> {
    let AttrKind::DenseElements(d) = ctx.attr_kind(attr?) else {
        return None;
    };
    if d.splat {
        return Some(ctx.dense_element(d, 0));
    }
    let values = decode(ctx, attr?, d.ty)?;
    let first = *values.first()?;
    values.iter().all(|v| same_bits(*v, first)).then_some(first)
}

fn same_bits(a: DenseValue, b: DenseValue) -> bool {
    match (a, b) {
        (DenseValue::Int(x), DenseValue::Int(y)) => x == y,
        (DenseValue::Float(x), DenseValue::Float(y)) => x.to_bits() == y.to_bits(),
        _ => false,
    }
}

fn is_int(v: Option<DenseValue>, n: i128) -> bool {
    matches!(v, Some(DenseValue::Int(x)) if x == n)
}

fn is_float_bits(v: Option<DenseValue>, f: f64) -> bool {
    matches!(v, Some(DenseValue::Float(x)) if x.to_bits() == f.to_bits())
}

fn is_one(v: Option<DenseValue>) -> bool {
    is_int(v, 1) || is_float_bits(v, 1.0)
}

// ---------------------------------------------------------------------------------------------
// The folder.

/// Folds a graph op (the `fold` hook of the graph ops whose definition names one).
pub(crate) fn fold(ctx: &mut Context, op: Op, consts: &[Option<Attribute>]) -> Folded {
    let kind = GraphOps::of(ctx, op)?;
    if ctx.num_results(op) != 1 {
        return None;
    }
    let result = ctx.result(op, 0);
    let result_ty = ctx.value_type(result);
    let operands: SmallVec<[Value; 3]> = ctx.operands(op).into();
    if let Some(folded) = fold_identity(ctx, op, kind, &operands, consts) {
        // A value replaces the result only if it has the result's type.
        let fits = match folded.first() {
            Some(FoldResult::Value(v)) => ctx.value_type(*v) == result_ty,
            _ => true,
        };
        if fits {
            return Some(folded);
        }
    }
    let attr = fold_constant(ctx, op, kind, &operands, consts)?;
    Some(smallvec![FoldResult::Constant(attr)])
}

fn fold_identity(
    ctx: &mut Context,
    op: Op,
    kind: GraphOps,
    operands: &[Value],
    consts: &[Option<Attribute>],
) -> Folded {
    let result_ty = ctx.value_type(ctx.result(op, 0));
    let c = |i: usize| consts.get(i).copied().flatten();
    match kind {
        GraphOps::AddOp(_) => {
            let (l, r) = (uniform(ctx, c(0)), uniform(ctx, c(1)));
            let zero = |v| is_int(v, 0) || is_float_bits(v, -0.0);
            if zero(r) && ctx.value_type(operands[0]) == result_ty {
                return to_value(operands[0]);
            }
            if zero(l) && ctx.value_type(operands[1]) == result_ty {
                return to_value(operands[1]);
            }
            None
        }
        GraphOps::SubOp(_) => {
            let r = uniform(ctx, c(1));
            (is_int(r, 0) || is_float_bits(r, 0.0)).then(|| to_value(operands[0]))?
        }
        GraphOps::MulOp(_) => {
            let (l, r) = (uniform(ctx, c(0)), uniform(ctx, c(1)));
            if is_one(r) && ctx.value_type(operands[0]) == result_ty {
                return to_value(operands[0]);
            }
            if is_one(l) && ctx.value_type(operands[1]) == result_ty {
                return to_value(operands[1]);
            }
            None
        }
        GraphOps::DivOp(_) => is_one(uniform(ctx, c(1))).then(|| to_value(operands[0]))?,
        GraphOps::NegOp(_) => {
            let inner = ctx.view::<NegOp>(ctx.defining_op(operands[0])?)?;
            to_value(ctx.operand(inner.0, 0))
        }
        GraphOps::CastOp(_) => {
            (ctx.value_type(operands[0]) == result_ty).then(|| to_value(operands[0]))?
        }
        GraphOps::TransposeOp(_) => fold_transpose(ctx, op, operands[0]),
        GraphOps::ReshapeOp(_) => fold_reshape(ctx, op, operands[0]),
        GraphOps::BroadcastToOp(_) => {
            let ty = ctx.value_type(operands[0]);
            let static_ty = tensor_parts(ctx, ty).is_some_and(|t| !t.shape.contains(&DYNAMIC));
            (ty == result_ty && static_ty).then(|| to_value(operands[0]))?
        }
        GraphOps::SliceOp(_) => fold_slice(ctx, op, operands[0]),
        _ => None,
    }
}

fn fold_transpose(ctx: &mut Context, op: Op, x: Value) -> Folded {
    let perm = Attrs::new(ctx, ctx.attrs(op)).array("perm").ok()??;
    if perm.iter().enumerate().all(|(i, p)| *p == i as i64) {
        return to_value(x);
    }
    let inner = ctx
        .defining_op(x)
        .filter(|d| ctx.view::<TransposeOp>(*d).is_some())?;
    let inner_perm = Attrs::new(ctx, ctx.attrs(inner)).array("perm").ok()??;
    if inner_perm.len() != perm.len() {
        return None;
    }
    let composed: Vec<i64> = perm.iter().map(|p| inner_perm[*p as usize]).collect();
    let source = ctx.operand(inner, 0);
    if composed.iter().enumerate().all(|(i, p)| *p == i as i64) {
        return to_value(source);
    }
    let attr = ctx.intern_attr(AttrKind::DenseArray {
        element: Type::I64,
        values: composed.into(),
    });
    ctx.set_operand(op, 0, source);
    ctx.set_attr(op, "perm", attr);
    Some(SmallVec::new())
}

fn fold_reshape(ctx: &mut Context, op: Op, x: Value) -> Folded {
    let target = Attrs::new(ctx, ctx.attrs(op)).array("shape").ok()??;
    let input = tensor_parts(ctx, ctx.value_type(x))?;
    // The identity: every entry the input's dim (a `-1` standing for the one `?`, whose size the
    // element count then fixes).
    let identity = input.shape.len() == target.len()
        && input.shape.iter().filter(|d| **d == DYNAMIC).count() <= 1
        && input
            .shape
            .iter()
            .zip(&target)
            .all(|(d, t)| d == t || (*d == DYNAMIC && *t == -1));
    if identity && ctx.value_type(x) == ctx.value_type(ctx.result(op, 0)) {
        return to_value(x);
    }
    let inner = ctx
        .defining_op(x)
        .filter(|d| ctx.view::<ReshapeOp>(*d).is_some())?;
    let source = ctx.operand(inner, 0);
    ctx.set_operand(op, 0, source);
    Some(SmallVec::new())
}

fn fold_slice(ctx: &mut Context, op: Op, x: Value) -> Folded {
    let a = Attrs::new(ctx, ctx.attrs(op));
    let (starts, ends, steps) = (
        a.array("starts").ok()??,
        a.array("ends").ok()??,
        a.array("steps").ok()??,
    );
    let input = tensor_parts(ctx, ctx.value_type(x))?;
    let full = input.shape.iter().enumerate().all(|(i, &d)| {
        let (s, e, st) = (starts[i], ends[i], steps[i]);
        if d == DYNAMIC {
            s == 0 && e == i64::MAX && st == 1
        } else {
            st == 1 && slice_bound(s, d) == 0 && slice_bound(e, d) == d
        }
    });
    full.then(|| to_value(x))?
}

// ---------------------------------------------------------------------------------------------
// Constant evaluation.

fn fold_constant(
    ctx: &mut Context,
    op: Op,
    kind: GraphOps,
    operands: &[Value],
    consts: &[Option<Attribute>],
) -> Option<Attribute> {
    if consts.is_empty() || consts.iter().any(Option::is_none) {
        return None;
    }
    let result_ty = ctx.value_type(ctx.result(op, 0));
    let out_shape = small_static_shape(ctx, result_ty)?;
    let mut inputs = Vec::with_capacity(operands.len());
    for (c, v) in consts.iter().zip(operands) {
        let ty = ctx.value_type(*v);
        let values = decode(ctx, (*c)?, ty)?;
        let shape = tensor_parts(ctx, ty)?.shape;
        inputs.push((values, shape, elem_of(ctx, ty)?));
    }
    let out_elem = elem_of(ctx, result_ty)?;
    let values: Vec<DenseValue> = match kind.family() {
        Family::Unary(_) | Family::Cast | Family::Binary(_) | Family::Cmp | Family::Select => {
            let maps: Vec<Vec<usize>> = inputs
                .iter()
                .map(|(_, shape, _)| broadcast_map(&out_shape, shape))
                .collect();
            let count = maps.first()?.len();
            let pred = Attrs::new(ctx, ctx.attrs(op))
                .string("predicate")
                .ok()
                .flatten()
                .map(str::to_string);
            let in_elem = inputs.last()?.2;
            (0..count)
                .map(|i| {
                    let args: SmallVec<[DenseValue; 3]> = inputs
                        .iter()
                        .zip(&maps)
                        .map(|((vals, _, _), m)| vals[m[i]])
                        .collect();
                    eval(kind, pred.as_deref(), &args, in_elem, out_elem)
                })
                .collect::<Option<_>>()?
        }
        Family::Reshape => inputs[0].0.clone(),
        Family::BroadcastTo => {
            let (vals, shape, _) = &inputs[0];
            broadcast_map(&out_shape, shape)
                .into_iter()
                .map(|i| vals[i])
                .collect()
        }
        Family::Transpose => {
            let perm = Attrs::new(ctx, ctx.attrs(op)).array("perm").ok()??;
            let (vals, shape, _) = &inputs[0];
            transpose_values(vals, shape, &perm)?
        }
        _ => return None,
    };
    build(ctx, result_ty, values)
}

fn transpose_values(vals: &[DenseValue], shape: &[i64], perm: &[i64]) -> Option<Vec<DenseValue>> {
    let shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let perm: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
    let order = dlc_ir::attributes::transpose_order(&shape, &perm)?;
    Some(order.into_iter().map(|at| vals[at]).collect())
}

/// Evaluates one element of an elementwise op; `None` where the op does not fold.
fn eval(
    kind: GraphOps,
    pred: Option<&str>,
    args: &[DenseValue],
    in_elem: Elem,
    out_elem: Elem,
) -> Option<DenseValue> {
    use DenseValue::{Float as F, Int as I};
    use GraphOps as G;
    let width = match in_elem {
        Elem::Int(w) => w,
        Elem::Float(_) => 0,
    };
    let wrap = |x: i128| I(sign_extend(x, width.max(1)));
    Some(match (kind, args) {
        (G::NegOp(_), [F(x)]) => F(-x),
        (G::NegOp(_), [I(x)]) => wrap(-x),
        (G::AbsOp(_), [F(x)]) => F(x.abs()),
        (G::AbsOp(_), [I(x)]) => wrap(x.abs()),
        (G::ReluOp(_), [F(x)]) => F(if *x > 0.0 || x.is_nan() { *x } else { 0.0 }),
        (G::ReluOp(_), [I(x)]) => I((*x).max(0)),
        (G::SignOp(_), [F(x)]) => F(if x.is_nan() || *x == 0.0 {
            *x
        } else {
            x.signum()
        }),
        (G::SignOp(_), [I(x)]) => I(x.signum()),
        (G::ExpOp(_), [F(x)]) => F(x.exp()),
        (G::LogOp(_), [F(x)]) => F(x.ln()),
        (G::SqrtOp(_), [F(x)]) => F(x.sqrt()),
        (G::RsqrtOp(_), [F(x)]) => F(1.0 / x.sqrt()),
        (G::ReciprocalOp(_), [F(x)]) => F(1.0 / x),
        (G::TanhOp(_), [F(x)]) => F(x.tanh()),
        (G::SigmoidOp(_), [F(x)]) => F(1.0 / (1.0 + (-x).exp())),
        (G::SinOp(_), [F(x)]) => F(x.sin()),
        (G::CosOp(_), [F(x)]) => F(x.cos()),
        (G::FloorOp(_), [F(x)]) => F(x.floor()),
        (G::CeilOp(_), [F(x)]) => F(x.ceil()),
        (G::RoundOp(_), [F(x)]) => F(x.round_ties_even()),
        (G::NotOp(_), [I(x)]) => wrap(!x),
        (G::CastOp(_), [v]) => cast(*v, out_elem)?,
        (G::AddOp(_), [F(x), F(y)]) => F(x + y),
        (G::AddOp(_), [I(x), I(y)]) => wrap(x + y),
        (G::SubOp(_), [F(x), F(y)]) => F(x - y),
        (G::SubOp(_), [I(x), I(y)]) => wrap(x - y),
        (G::MulOp(_), [F(x), F(y)]) => F(x * y),
        (G::MulOp(_), [I(x), I(y)]) => wrap(x.wrapping_mul(*y)),
        (G::DivOp(_), [F(x), F(y)]) => F(x / y),
        (G::DivOp(_), [I(x), I(y)]) if *y != 0 => wrap(x / y),
        (G::RemOp(_), [F(x), F(y)]) => F(x % y),
        (G::RemOp(_), [I(x), I(y)]) if *y != 0 => wrap(x % y),
        (G::PowOp(_), [F(x), F(y)]) => F(x.powf(*y)),
        (G::PowOp(_), [I(x), I(y)]) if (0..=u32::MAX as i128).contains(y) => {
            let base = sign_extend(*x, width) as i64;
            wrap(base.wrapping_pow(*y as u32) as i128)
        }
        (G::MaxOp(_), [F(x), F(y)]) if !x.is_nan() && !y.is_nan() => F(x.max(*y)),
        (G::MaxOp(_), [I(x), I(y)]) => I(*x.max(y)),
        (G::MinOp(_), [F(x), F(y)]) if !x.is_nan() && !y.is_nan() => F(x.min(*y)),
        (G::MinOp(_), [I(x), I(y)]) => I(*x.min(y)),
        (G::AndOp(_), [I(x), I(y)]) => wrap(x & y),
        (G::OrOp(_), [I(x), I(y)]) => wrap(x | y),
        (G::XorOp(_), [I(x), I(y)]) => wrap(x ^ y),
        (G::CmpOp(_), [a, b]) => {
            let ord = match (a, b) {
                (F(x), F(y)) => x.partial_cmp(y),
                (I(x), I(y)) => Some(x.cmp(y)),
                _ => return None,
            };
            use std::cmp::Ordering::*;
            let r = match (pred?, ord) {
                ("ne", None) => true,
                (_, None) => false,
                ("eq", Some(o)) => o == Equal,
                ("ne", Some(o)) => o != Equal,
                ("lt", Some(o)) => o == Less,
                ("le", Some(o)) => o != Greater,
                ("gt", Some(o)) => o == Greater,
                ("ge", Some(o)) => o != Less,
                _ => return None,
            };
            I(r as i128)
        }
        (G::SelectOp(_), [I(c), a, b]) => {
            if *c != 0 {
                *a
            } else {
                *b
            }
        }
        _ => return None,
    })
}

/// `graph.cast` of one element to `to`.
fn cast(v: DenseValue, to: Elem) -> Option<DenseValue> {
    use DenseValue::{Float as F, Int as I};
    Some(match (v, to) {
        (F(x), Elem::Int(1)) => I((x != 0.0) as i128),
        (I(x), Elem::Int(1)) => I((x != 0) as i128),
        (F(x), Elem::Int(w)) => {
            let t = x.trunc();
            let (lo, hi) = (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1));
            if !(t >= lo && t < hi) {
                return None;
            }
            I(t as i128)
        }
        (I(x), Elem::Int(w)) => I(sign_extend(x, w)),
        // `as f32` rounds once, as the interpreter does; through f64 an i64 could round twice.
        (I(x), Elem::Float(FloatKind::F32)) => F(x as i64 as f32 as f64),
        (I(x), Elem::Float(_)) => F(x as f64),
        (F(x), Elem::Float(_)) => F(x),
    })
}
