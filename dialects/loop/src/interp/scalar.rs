//! Scalar (and lane-wise vector) semantics of the `arith` and `math` ops a kernel computes with.
//!
//! Integers are held sign-extended from their width in an `i64` (so an `i1` true is -1, as
//! MLIR's signed reading of it), computed in `i128` and wrapped back; floats are held in `f64`
//! and rounded to the result type's format after every op. Ops on `vector<...>` values apply
//! lane by lane. Errors are messages; the caller attaches the op's location.

use dlc_ir::attributes::sign_extend;
use dlc_ir::{AttrKind, Context, DenseValue, FloatKind, Op, Type, TypeKind};

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

/// Whether this interpreter evaluates ops of this name as scalar math.
pub(crate) fn is_scalar_op(name: &str) -> bool {
    name.starts_with("arith.") || name.starts_with("math.")
}

/// Evaluates a pure `arith` or `math` op on operand values; returns its one result.
pub(crate) fn eval(ctx: &Context, op: Op, args: &[Val]) -> Result<Val, String> {
    let name = ctx.op_name(op);
    let result_ty = *ctx
        .result_types(op)
        .first()
        .ok_or_else(|| format!("'{name}' has no result"))?;
    if name == "arith.constant" {
        return constant(ctx, op, result_ty);
    }
    let operand_ty = ctx
        .operands(op)
        .iter()
        .map(|&v| ctx.value_type(v))
        .next_back()
        .unwrap_or(result_ty);
    let lanes = args.iter().find_map(|a| match a {
        Val::Vector(l) => Some(l.len()),
        _ => None,
    });
    let elem_res = ctx.element_type(result_ty);
    let elem_opd = ctx.element_type(operand_ty);
    match lanes {
        None => eval_scalar(ctx, op, name, args, elem_opd, elem_res),
        Some(n) => {
            let mut out = Vec::with_capacity(n);
            for lane in 0..n {
                let lane_args: Vec<Val> = args
                    .iter()
                    .map(|a| match a {
                        Val::Vector(l) => l.get(lane).cloned().ok_or("vector lane counts differ"),
                        s => Ok(s.clone()),
                    })
                    .collect::<Result<_, _>>()?;
                out.push(eval_scalar(ctx, op, name, &lane_args, elem_opd, elem_res)?);
            }
            Ok(Val::Vector(out))
        }
    }
}

fn constant(ctx: &Context, op: Op, ty: Type) -> Result<Val, String> {
    let attr = ctx
        .attr(op, "value")
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

fn eval_scalar(
    ctx: &Context,
    op: Op,
    name: &str,
    args: &[Val],
    opd_ty: Type,
    res_ty: Type,
) -> Result<Val, String> {
    let arg = |i: usize| {
        args.get(i)
            .ok_or_else(|| format!("'{name}' expects at least {} operands", i + 1))
    };
    let short = name.split_once('.').map_or(name, |(_, s)| s);
    let v = match short {
        // Integer binary ops (also on index and i1).
        "addi" | "subi" | "muli" | "divsi" | "divui" | "remsi" | "remui" | "andi" | "ori"
        | "xori" | "shli" | "shrsi" | "shrui" | "maxsi" | "minsi" | "maxui" | "minui"
        | "ceildivsi" | "floordivsi" | "ceildivui" => {
            let w = int_width(ctx, opd_ty).ok_or("integer op on a non-integer type")?;
            let (a, b) = (arg(0)?.as_int()? as i128, arg(1)?.as_int()? as i128);
            Val::Int(wrap_int(int_binary(short, a, b, w)?, w))
        }
        "addf" | "subf" | "mulf" | "divf" | "remf" | "maximumf" | "minimumf" | "maxnumf"
        | "minnumf" | "powf" => {
            let (a, b) = (arg(0)?.as_float()?, arg(1)?.as_float()?);
            Val::Float(float_binary(short, a, b))
        }
        "negf" | "exp" | "exp2" | "log" | "log2" | "tanh" | "erf" | "sqrt" | "rsqrt" | "sin"
        | "cos" | "floor" | "ceil" | "round" | "roundeven" | "absf" => {
            Val::Float(float_unary(short, arg(0)?.as_float()?))
        }
        "fma" => {
            let (a, b, c) = (
                arg(0)?.as_float()?,
                arg(1)?.as_float()?,
                arg(2)?.as_float()?,
            );
            Val::Float(a.mul_add(b, c))
        }
        "absi" => Val::Int(arg(0)?.as_int()?.wrapping_abs()),
        "cmpi" => {
            let w = int_width(ctx, opd_ty).ok_or("cmpi on a non-integer type")?;
            let (a, b) = (arg(0)?.as_int()?, arg(1)?.as_int()?);
            Val::Int(-(cmpi(predicate(ctx, op)?, a, b, w)? as i64))
        }
        "cmpf" => {
            let (a, b) = (arg(0)?.as_float()?, arg(1)?.as_float()?);
            Val::Int(-(cmpf(predicate(ctx, op)?, a, b)? as i64))
        }
        "select" => {
            // The condition is a scalar i1 (or lane-wise with vector operands).
            if arg(0)?.as_int()? != 0 {
                arg(1)?.clone()
            } else {
                arg(2)?.clone()
            }
        }
        "index_cast" | "extsi" | "trunci" | "index_castui" | "extui" => {
            let x = arg(0)?.as_int()?;
            let x = if short == "extui" || short == "index_castui" {
                let w = int_width(ctx, opd_ty).ok_or("cast from a non-integer type")?;
                unsigned(x, w) as i64
            } else {
                x
            };
            Val::Int(x)
        }
        "sitofp" => Val::Float(arg(0)?.as_int()? as f64),
        "uitofp" => {
            let w = int_width(ctx, opd_ty).ok_or("cast from a non-integer type")?;
            Val::Float(unsigned(arg(0)?.as_int()?, w) as f64)
        }
        "fptosi" | "fptoui" => {
            let x = arg(0)?.as_float()?;
            if !x.is_finite() {
                return Err(format!("'{name}' of a non-finite value {x}"));
            }
            Val::Int(x.trunc() as i64)
        }
        "extf" | "truncf" => Val::Float(arg(0)?.as_float()?),
        "bitcast" => bitcast(ctx, arg(0)?, opd_ty, res_ty)?,
        _ => return Err(format!("unsupported op '{name}'")),
    };
    Ok(normalize(ctx, res_ty, v))
}

fn unsigned(x: i64, w: u32) -> u128 {
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    ((x as u64) & mask) as u128
}

fn int_binary(op: &str, a: i128, b: i128, w: u32) -> Result<i128, String> {
    let (ua, ub) = (unsigned(a as i64, w) as i128, unsigned(b as i64, w) as i128);
    let nonzero = |d: i128| {
        if d == 0 {
            Err("division by zero".to_string())
        } else {
            Ok(d)
        }
    };
    Ok(match op {
        "addi" => a + b,
        "subi" => a - b,
        "muli" => a.wrapping_mul(b),
        "divsi" => a / nonzero(b)?,
        "remsi" => a % nonzero(b)?,
        "divui" => ua / nonzero(ub)?,
        "remui" => ua % nonzero(ub)?,
        "ceildivui" => (ua + nonzero(ub)? - 1) / ub,
        "ceildivsi" => {
            let b = nonzero(b)?;
            let q = a / b;
            if (a % b != 0) && ((a < 0) == (b < 0)) {
                q + 1
            } else {
                q
            }
        }
        "floordivsi" => a.div_euclid(nonzero(b)?) - i128::from(b < 0 && a.rem_euclid(b) != 0),
        "andi" => a & b,
        "ori" => a | b,
        "xori" => a ^ b,
        "shli" | "shrsi" | "shrui" => {
            if ub >= w as i128 {
                // MLIR: poison; the interpreter is strict.
                return Err(format!("shift amount {ub} is not below the width {w}"));
            }
            match op {
                "shli" => a << ub,
                "shrsi" => a >> ub,
                _ => ua >> ub,
            }
        }
        "maxsi" => a.max(b),
        "minsi" => a.min(b),
        "maxui" => ua.max(ub),
        "minui" => ua.min(ub),
        _ => return Err(format!("unsupported integer op '{op}'")),
    })
}

fn float_binary(op: &str, a: f64, b: f64) -> f64 {
    match op {
        "addf" => a + b,
        "subf" => a - b,
        "mulf" => a * b,
        "divf" => a / b,
        "remf" => a % b,
        "powf" => a.powf(b),
        // maximumf/minimumf propagate NaN; maxnumf/minnumf prefer the number.
        "maximumf" if a.is_nan() || b.is_nan() => f64::NAN,
        "minimumf" if a.is_nan() || b.is_nan() => f64::NAN,
        "maximumf" | "maxnumf" => a.max(b),
        _ => a.min(b),
    }
}

fn float_unary(op: &str, x: f64) -> f64 {
    match op {
        "negf" => -x,
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "tanh" => x.tanh(),
        "erf" => erf(x),
        "sqrt" => x.sqrt(),
        "rsqrt" => 1.0 / x.sqrt(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "round" => x.round(),
        "roundeven" => x.round_ties_even(),
        _ => x.abs(),
    }
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

/// `arith.cmpi` with MLIR's predicate numbering.
fn cmpi(p: i64, a: i64, b: i64, w: u32) -> Result<bool, String> {
    let (ua, ub) = (unsigned(a, w), unsigned(b, w));
    Ok(match p {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        5 => a >= b,
        6 => ua < ub,
        7 => ua <= ub,
        8 => ua > ub,
        9 => ua >= ub,
        _ => return Err(format!("unknown cmpi predicate {p}")),
    })
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

/// Combines the values of a warp or block reduction in lane order.
pub(crate) fn combine(ctx: &Context, kind: &str, ty: Type, vals: &[Val]) -> Result<Val, String> {
    let elem = ctx.element_type(ty);
    let mut acc = vals.first().cloned().ok_or("reduction over no threads")?;
    for v in &vals[1..] {
        acc = combine2(kind, &acc, v)?;
        acc = match acc {
            Val::Vector(l) => Val::Vector(l.into_iter().map(|x| normalize(ctx, elem, x)).collect()),
            s => normalize(ctx, elem, s),
        };
    }
    Ok(acc)
}

fn combine2(kind: &str, a: &Val, b: &Val) -> Result<Val, String> {
    Ok(match (a, b) {
        (Val::Int(x), Val::Int(y)) => Val::Int(match kind {
            "add" => x.wrapping_add(*y),
            "mul" => x.wrapping_mul(*y),
            "max" => *x.max(y),
            "min" => *x.min(y),
            "and" => x & y,
            "or" => x | y,
            _ => return Err(format!("unknown reduction kind '{kind}'")),
        }),
        (Val::Float(x), Val::Float(y)) => Val::Float(match kind {
            "add" => x + y,
            "mul" => x * y,
            "max" => float_binary("maximumf", *x, *y),
            "min" => float_binary("minimumf", *x, *y),
            _ => return Err(format!("reduction kind '{kind}' does not apply to floats")),
        }),
        (Val::Vector(x), Val::Vector(y)) if x.len() == y.len() => Val::Vector(
            x.iter()
                .zip(y)
                .map(|(a, b)| combine2(kind, a, b))
                .collect::<Result<_, _>>()?,
        ),
        _ => return Err("reduction over mismatched values".into()),
    })
}
