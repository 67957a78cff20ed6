//! Scalar (and lane-wise vector) semantics of the `arith` and `math` ops a kernel computes with.
//!
//! Integers are held sign-extended from their width in an `i64` (so an `i1` true is -1, as
//! MLIR's signed reading of it), computed in `i128` and wrapped back; floats are held in `f64`
//! and rounded to the result type's format after every op (`truncf` rounds in its own rounding
//! mode). Ops on `vector<...>` values apply lane by lane. Errors are messages; the caller attaches the op's location.

use crate::math::{MathOps, ScalarOp};
use crate::ReduceKind;
use dlc_arith::fold::eval_cmpi;
use dlc_arith::{
    int_to_float, magnitude_to_float, round_to_format, rounding_mode, ArithOps, CmpIPredicate,
    ConstantOp, FloatBinary, IntBinary, RoundingMode,
};
use dlc_ir::attributes::sign_extend;
use dlc_ir::{AttrKind, Context, DenseValue, FloatKind, Op, Type, TypeKind};
use smallvec::SmallVec;
use std::borrow::Borrow;

/// A runtime value of the interpreter.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Val {
    /// An integer, `index` or `i1`, sign-extended from its width.
    Int(i64),
    /// A float, exactly representable in its type's format.
    Float(f64),
    /// A `vector<Nx...>` value, one scalar per lane.
    Vector(Vec<Val>),
    /// A buffer: an index into the interpreter's memory.
    Buf(usize),
}

impl Val {
    pub(crate) fn as_int(&self) -> Result<i64, String> {
        match self {
            Val::Int(v) => Ok(*v),
            other => Err(format!("expected an integer value, got {other:?}")),
        }
    }

    fn as_float(&self) -> Result<f64, String> {
        match self {
            Val::Float(v) => Ok(*v),
            other => Err(format!("expected a float value, got {other:?}")),
        }
    }
}

/// Wraps `v` to `width` bits, sign-extended.
pub(crate) fn wrap_int(v: i128, width: u32) -> i64 {
    sign_extend(v, width.min(64)) as i64
}

/// The integer width of a scalar type (`index` is 64), or `None` for non-integers.
fn int_width(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_kind(ty) {
        TypeKind::Integer { width } => Some(*width),
        TypeKind::Index => Some(64),
        _ => None,
    }
}

fn float_kind(ctx: &Context, ty: Type) -> Option<FloatKind> {
    ctx.float_kind(ty)
}

/// Rounds or wraps a scalar to the scalar type `ty`.
pub(crate) fn normalize(ctx: &Context, ty: Type, v: Val) -> Val {
    match (v, ctx.type_kind(ty)) {
        (Val::Float(x), TypeKind::Float(k)) => Val::Float(k.round(x)),
        (Val::Int(x), _) => match int_width(ctx, ty) {
            Some(w) => Val::Int(wrap_int(x as i128, w)),
            None => Val::Int(x),
        },
        (v, _) => v,
    }
}

/// Evaluates a pure `arith` or `math` op on operand values (owned or borrowed); returns its
/// one result.
pub(crate) fn eval<A: Borrow<Val>>(ctx: &Context, op: ScalarOp, args: &[A]) -> Result<Val, String> {
    eval_typed(ctx, op, ScalarTypes::of(ctx, op.op())?, args)
}

/// The types evaluating an op reads: its result's, and the element types of its result and
/// (last) operand. The interpreter looks them up once per op and launch.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ScalarTypes {
    result: Type,
    elem_res: Type,
    elem_opd: Type,
}

impl ScalarTypes {
    pub(crate) fn of(ctx: &Context, op: Op) -> Result<ScalarTypes, String> {
        let result = *ctx
            .result_types(op)
            .first()
            .ok_or_else(|| format!("'{}' has no result", ctx.op_name(op)))?;
        let operand = (ctx.operands(op).last()).map_or(result, |&v| ctx.value_type(v));
        Ok(ScalarTypes {
            result,
            elem_res: ctx.element_type(result),
            elem_opd: ctx.element_type(operand),
        })
    }
}

/// [`eval`] with the op's types given.
pub(crate) fn eval_typed<A: Borrow<Val>>(
    ctx: &Context,
    op: ScalarOp,
    types: ScalarTypes,
    args: &[A],
) -> Result<Val, String> {
    let name = ctx.op_name(op.op());
    if let ScalarOp::Arith(ArithOps::ConstantOp(c)) = op {
        return constant(ctx, c, types.result);
    }
    let args: SmallVec<[&Val; 3]> = args.iter().map(Borrow::borrow).collect();
    let lanes = args.iter().find_map(|a| match a {
        Val::Vector(l) => Some(l.len()),
        _ => None,
    });
    let (elem_res, elem_opd) = (types.elem_res, types.elem_opd);
    match lanes {
        None => eval_scalar(ctx, op, name, &args, elem_opd, elem_res),
        Some(n) => {
            let mut out = Vec::with_capacity(n);
            for lane in 0..n {
                let lane_args = args
                    .iter()
                    .map(|&a| match a {
                        Val::Vector(l) => l.get(lane).ok_or("vector lane counts differ"),
                        s => Ok(s),
                    })
                    .collect::<Result<SmallVec<[&Val; 3]>, _>>()?;
                out.push(eval_scalar(ctx, op, name, &lane_args, elem_opd, elem_res)?);
            }
            Ok(Val::Vector(out))
        }
    }
}

fn constant(ctx: &Context, op: ConstantOp, ty: Type) -> Result<Val, String> {
    let attr = op
        .value(ctx)
        .ok_or("'arith.constant' has no 'value' attribute")?;
    let decode = |d: DenseValue| match d {
        DenseValue::Int(i) => Val::Int(i as i64),
        DenseValue::Float(f) => Val::Float(f),
    };
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => Ok(normalize(ctx, ty, Val::Int(*value as i64))),
        AttrKind::Float { bits, .. } => Ok(normalize(ctx, ty, Val::Float(f64::from_bits(*bits)))),
        AttrKind::DenseElements(dense) => {
            let n: i64 = ctx.shape(dense.ty).map_or(1, |s| s.iter().product());
            let lanes = (0..n.max(0) as usize)
                .map(|i| decode(ctx.dense_element(dense, i)))
                .collect();
            Ok(Val::Vector(lanes))
        }
        other => Err(format!("unsupported constant value {other:?}")),
    }
}

/// Evaluates `op` on one lane of scalar operands; `name` is the op's name, for messages.
fn eval_scalar(
    ctx: &Context,
    op: ScalarOp,
    name: &str,
    args: &[&Val],
    opd_ty: Type,
    res_ty: Type,
) -> Result<Val, String> {
    use ArithOps as A;
    use MathOps as M;
    let arg = |i: usize| {
        args.get(i)
            .copied()
            .ok_or_else(|| format!("'{name}' expects at least {} operands", i + 1))
    };
    let unary =
        |f: fn(f64) -> f64| -> Result<Val, String> { Ok(Val::Float(f(arg(0)?.as_float()?))) };
    let binary = |f: fn(f64, f64) -> f64| -> Result<Val, String> {
        Ok(Val::Float(f(arg(0)?.as_float()?, arg(1)?.as_float()?)))
    };
    let v = match op {
        ScalarOp::Arith(a) => match a {
            // The float binary ops: dlc_arith's one definition.
            A::AddFOp(_)
            | A::SubFOp(_)
            | A::MulFOp(_)
            | A::DivFOp(_)
            | A::RemFOp(_)
            | A::MaximumFOp(_)
            | A::MinimumFOp(_)
            | A::MaxNumFOp(_)
            | A::MinNumFOp(_) => {
                let f = FloatBinary::of(a).ok_or_else(|| format!("unsupported op '{name}'"))?;
                Val::Float(f.eval(arg(0)?.as_float()?, arg(1)?.as_float()?))
            }
            A::NegFOp(_) => unary(|x| -x)?,
            A::CmpIOp(_) => {
                let w = int_width(ctx, opd_ty).ok_or("cmpi on a non-integer type")?;
                let (x, y) = (arg(0)?.as_int()?, arg(1)?.as_int()?);
                let p = predicate(ctx, a.op())?;
                let pred =
                    CmpIPredicate::from_i64(p).ok_or(format!("unknown cmpi predicate {p}"))?;
                Val::Int(-i64::from(eval_cmpi(pred, i128::from(x), i128::from(y), w)))
            }
            A::CmpFOp(_) => {
                let (x, y) = (arg(0)?.as_float()?, arg(1)?.as_float()?);
                Val::Int(-(cmpf(predicate(ctx, a.op())?, x, y)? as i64))
            }
            A::SelectOp(_) => {
                // The condition is a scalar i1 (or lane-wise with vector operands).
                if arg(0)?.as_int()? != 0 {
                    arg(1)?.clone()
                } else {
                    arg(2)?.clone()
                }
            }
            A::IndexCastOp(_) | A::ExtSIOp(_) | A::TruncIOp(_) => Val::Int(arg(0)?.as_int()?),
            A::ExtUIOp(_) | A::IndexCastUIOp(_) => {
                let x = arg(0)?.as_int()?;
                let w = int_width(ctx, opd_ty).ok_or("cast from a non-integer type")?;
                Val::Int(unsigned(x, w) as i64)
            }
            // Rounded once to the result's format (dlc_arith's one definition).
            A::SIToFPOp(_) => {
                let kind = float_kind(ctx, res_ty).ok_or("sitofp to a non-float type")?;
                Val::Float(int_to_float(arg(0)?.as_int()?.into(), kind))
            }
            A::UIToFPOp(_) => {
                let w = int_width(ctx, opd_ty).ok_or("cast from a non-integer type")?;
                let kind = float_kind(ctx, res_ty).ok_or("uitofp to a non-float type")?;
                Val::Float(magnitude_to_float(unsigned(arg(0)?.as_int()?, w), kind))
            }
            A::FPToUIOp(_) => {
                let x = arg(0)?.as_float()?;
                if !x.is_finite() || x <= -1.0 {
                    return Err(format!("'{name}' of a value {x} out of the unsigned range"));
                }
                Val::Int(x.trunc() as u64 as i64)
            }
            A::FPToSIOp(_) => {
                let x = arg(0)?.as_float()?;
                if !x.is_finite() {
                    return Err(format!("'{name}' of a non-finite value {x}"));
                }
                Val::Int(x.trunc() as i64)
            }
            A::ExtFOp(_) => Val::Float(arg(0)?.as_float()?),
            // Rounded here, once, in the op's mode (the default is to nearest even).
            A::TruncFOp(t) => {
                let kind = float_kind(ctx, res_ty).ok_or("truncf to a non-float type")?;
                let mode = rounding_mode(ctx, t.0).unwrap_or(RoundingMode::ToNearestEven);
                Val::Float(round_to_format(arg(0)?.as_float()?, kind, mode))
            }
            A::BitcastOp(_) => bitcast(ctx, arg(0)?, opd_ty, res_ty)?,
            // Evaluated whole by `eval`, never lane by lane; the two-result ops are not
            // evaluated.
            A::ConstantOp(_)
            | A::AddUIExtendedOp(_)
            | A::MulSIExtendedOp(_)
            | A::MulUIExtendedOp(_) => return Err(format!("unsupported op '{name}'")),
            // The integer binary ops (also on index and i1): dlc_arith's one definition. Listed
            // (no catch-all), so that a new arith op does not build until it has a rule here.
            A::AddIOp(_)
            | A::SubIOp(_)
            | A::MulIOp(_)
            | A::DivSIOp(_)
            | A::DivUIOp(_)
            | A::CeilDivSIOp(_)
            | A::CeilDivUIOp(_)
            | A::FloorDivSIOp(_)
            | A::RemSIOp(_)
            | A::RemUIOp(_)
            | A::MaxSIOp(_)
            | A::MinSIOp(_)
            | A::MaxUIOp(_)
            | A::MinUIOp(_)
            | A::AndIOp(_)
            | A::OrIOp(_)
            | A::XOrIOp(_)
            | A::ShLIOp(_)
            | A::ShRSIOp(_)
            | A::ShRUIOp(_) => {
                let int_op = IntBinary::of(a).ok_or_else(|| format!("unsupported op '{name}'"))?;
                let w = int_width(ctx, opd_ty).ok_or("integer op on a non-integer type")?;
                let (x, y) = (arg(0)?.as_int()? as i128, arg(1)?.as_int()? as i128);
                Val::Int(wrap_int(int_op.eval(x, y, w)?, w))
            }
        },
        ScalarOp::Math(m) => match m {
            M::ExpOp(_) => unary(f64::exp)?,
            M::LogOp(_) => unary(f64::ln)?,
            M::TanhOp(_) => unary(f64::tanh)?,
            M::ErfOp(_) => unary(erf)?,
            M::SqrtOp(_) => unary(f64::sqrt)?,
            M::RsqrtOp(_) => unary(|x| 1.0 / x.sqrt())?,
            M::SinOp(_) => unary(f64::sin)?,
            M::CosOp(_) => unary(f64::cos)?,
            M::FloorOp(_) => unary(f64::floor)?,
            M::CeilOp(_) => unary(f64::ceil)?,
            M::RoundOp(_) => unary(f64::round)?,
            M::RoundEvenOp(_) => unary(f64::round_ties_even)?,
            M::AbsFOp(_) => unary(f64::abs)?,
            M::PowFOp(_) => binary(f64::powf)?,
            M::FmaOp(_) => {
                let (a, b, c) = (
                    arg(0)?.as_float()?,
                    arg(1)?.as_float()?,
                    arg(2)?.as_float()?,
                );
                Val::Float(a.mul_add(b, c))
            }
        },
    };
    Ok(normalize(ctx, res_ty, v))
}

/// `x`'s low `w` bits, read as an unsigned integer.
fn unsigned(x: i64, w: u32) -> u128 {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    ((x as u64) & mask) as u128
}

/// The error function to about 1e-13 relative: its Maclaurin series below 3, a continued
/// fraction for `erfc` above.
pub(crate) fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a < 3.0 {
        let (mut term, mut sum, x2) = (a, a, a * a);
        for n in 1..200 {
            term *= -x2 / n as f64;
            let t = term / (2 * n + 1) as f64;
            sum += t;
            if t.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else if a < 6.0 {
        // erfc(a) = exp(-a²)/√π · 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))).
        let mut f = a;
        for k in (1..80).rev() {
            f = a + (k as f64 / 2.0) / f;
        }
        1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / f
    } else {
        1.0
    };
    r.copysign(x)
}

fn predicate(ctx: &Context, op: Op) -> Result<i64, String> {
    ctx.attr(op, "predicate")
        .and_then(|a| ctx.attr_as_int(a))
        .map(|v| v as i64)
        .ok_or_else(|| "comparison without an integer 'predicate' attribute".to_string())
}

/// `arith.cmpf` with MLIR's predicate numbering (ordered: false if either is NaN).
fn cmpf(p: i64, a: f64, b: f64) -> Result<bool, String> {
    let unordered = a.is_nan() || b.is_nan();
    let ordered = |r: bool| !unordered && r;
    let unord = |r: bool| unordered || r;
    Ok(match p {
        0 => false,
        1 => ordered(a == b),
        2 => ordered(a > b),
        3 => ordered(a >= b),
        4 => ordered(a < b),
        5 => ordered(a <= b),
        6 => ordered(a != b),
        7 => !unordered,
        8 => unord(a == b),
        9 => unord(a > b),
        10 => unord(a >= b),
        11 => unord(a < b),
        12 => unord(a <= b),
        13 => unord(a != b),
        14 => unordered,
        15 => true,
        _ => return Err(format!("unknown cmpf predicate {p}")),
    })
}

fn bitcast(ctx: &Context, v: &Val, from: Type, to: Type) -> Result<Val, String> {
    let bits = match (v, float_kind(ctx, from)) {
        (Val::Float(x), Some(k)) => k.to_bits(*x),
        (Val::Int(x), None) => unsigned(*x, int_width(ctx, from).unwrap_or(64)) as u64,
        _ => return Err("bitcast of an unsupported value".into()),
    };
    Ok(match float_kind(ctx, to) {
        Some(k) => Val::Float(k.from_bits(bits)),
        None => Val::Int(bits as i64),
    })
}

/// Combines one value per lane of a warp (at most 32) in the order of the GPU code's shuffle
/// tree (compiler/codegen/src/gpu.rs): steps with offsets 16, 8, 4, 2, 1 in which lane `l`
/// combines lane `l + offset`'s value when that lane exists, each result rounded to the
/// element type; the total is lane 0's. (The butterfly a full warp runs gives every lane that
/// same total, each combine being commutative.) The order matters for floats, an `f16` sum most.
pub(crate) fn combine_lanes(
    ctx: &Context,
    kind: ReduceKind,
    ty: Type,
    vals: &[Val],
) -> Result<Val, String> {
    let elem = ctx.element_type(ty);
    let mut acc = vals.to_vec();
    if acc.is_empty() {
        return Err("reduction over no threads".into());
    }
    let mut offset = 16;
    while offset > 0 {
        // Lane `l + offset` is still unchanged in this step when lane `l` reads it.
        for l in 0..acc.len().saturating_sub(offset) {
            acc[l] = match combine2(kind, &acc[l], &acc[l + offset])? {
                Val::Vector(x) => {
                    Val::Vector(x.into_iter().map(|x| normalize(ctx, elem, x)).collect())
                }
                v => normalize(ctx, elem, v),
            };
        }
        offset /= 2;
    }
    Ok(acc.swap_remove(0))
}

fn combine2(kind: ReduceKind, a: &Val, b: &Val) -> Result<Val, String> {
    Ok(match (a, b) {
        (Val::Int(x), Val::Int(y)) => Val::Int(kind.combine_int(*x, *y)),
        (Val::Float(x), Val::Float(y)) => {
            Val::Float(kind.combine_float(*x, *y).ok_or_else(|| {
                format!("reduction kind '{}' does not apply to floats", kind.name())
            })?)
        }
        (Val::Vector(x), Val::Vector(y)) if x.len() == y.len() => Val::Vector(
            x.iter()
                .zip(y)
                .map(|(a, b)| combine2(kind, a, b))
                .collect::<Result<_, _>>()?,
        ),
        _ => return Err("reduction over mismatched values".into()),
    })
}
