//! Elementwise operators: math (the inverse trigonometric and hyperbolic functions composed,
//! atan by a polynomial), comparison and logic, casts, clipping, the variadic Max/Min/Sum/Mean,
//! and the activations, each one graph op or a short composition of them.
//! ONNX's multidirectional broadcasting is numpy's, which every graph binary op implements.

use super::{dtype, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::tensor::element_type;
use dlc_ir::{Type, Value};

/// Operators whose graph op has the same name and semantics, and the graph op.
const DIRECT_UNARY: &[(&str, &str)] = &[
    ("Abs", "graph.abs"),
    ("Neg", "graph.neg"),
    ("Exp", "graph.exp"),
    ("Log", "graph.log"),
    ("Sqrt", "graph.sqrt"),
    ("Reciprocal", "graph.reciprocal"),
    ("Tanh", "graph.tanh"),
    ("Sigmoid", "graph.sigmoid"),
    ("Relu", "graph.relu"),
    ("Erf", "graph.erf"),
    ("Sin", "graph.sin"),
    ("Cos", "graph.cos"),
    ("Floor", "graph.floor"),
    ("Ceil", "graph.ceil"),
    ("Round", "graph.round"),
    ("Sign", "graph.sign"),
    ("Not", "graph.not"),
    ("BitwiseNot", "graph.not"),
];

const DIRECT_BINARY: &[(&str, &str)] = &[
    ("Add", "graph.add"),
    ("Sub", "graph.sub"),
    ("Mul", "graph.mul"),
    ("Div", "graph.div"),
    ("And", "graph.and"),
    ("Or", "graph.or"),
    ("BitwiseAnd", "graph.and"),
    ("BitwiseOr", "graph.or"),
    ("BitwiseXor", "graph.xor"),
];

const COMPARISONS: &[(&str, &str)] = &[
    ("Equal", "eq"),
    ("Less", "lt"),
    ("LessOrEqual", "le"),
    ("Greater", "gt"),
    ("GreaterOrEqual", "ge"),
];

pub(super) const OPS: &[(&str, Handler)] = &[
    ("Abs", unary),
    ("Neg", unary),
    ("Exp", unary),
    ("Log", unary),
    ("Sqrt", unary),
    ("Reciprocal", unary),
    ("Tanh", unary),
    ("Sigmoid", unary),
    ("Relu", unary),
    ("Erf", unary),
    ("Sin", unary),
    ("Cos", unary),
    ("Floor", unary),
    ("Ceil", unary),
    ("Round", unary),
    ("Sign", unary),
    ("Not", unary),
    ("BitwiseNot", unary),
    ("Add", binary),
    ("Sub", binary),
    ("Mul", binary),
    ("Div", binary),
    ("And", binary),
    ("Or", binary),
    ("BitwiseAnd", binary),
    ("BitwiseOr", binary),
    ("BitwiseXor", binary),
    ("BitShift", bit_shift),
    ("Equal", compare),
    ("Less", compare),
    ("LessOrEqual", compare),
    ("Greater", compare),
    ("GreaterOrEqual", compare),
    ("Xor", xor),
    ("Pow", pow),
    ("Mod", modulo),
    ("Where", select),
    ("Cast", cast),
    ("BitCast", bit_cast),
    ("CastLike", cast_like),
    ("Clip", clip),
    ("Max", variadic),
    ("Min", variadic),
    ("Sum", variadic),
    ("Mean", variadic),
    ("Identity", identity),
    ("Tan", tan),
    ("Atan", atan),
    ("Asin", asin),
    ("Acos", acos),
    ("Asinh", asinh),
    ("Acosh", acosh),
    ("Atanh", atanh),
    ("Sinh", sinh),
    ("Cosh", cosh),
    ("Softsign", softsign),
    ("Softplus", softplus),
    ("IsNaN", is_nan),
    ("IsInf", is_inf),
    ("LeakyRelu", leaky_relu),
    ("PRelu", prelu),
    ("HardSigmoid", hard_sigmoid),
    ("HardSwish", hard_swish),
    ("Swish", swish),
    ("Gelu", gelu),
    ("Elu", elu),
    ("Selu", selu),
    ("Celu", celu),
    ("ThresholdedRelu", thresholded_relu),
    ("Mish", mish),
    ("Shrink", shrink),
];

fn lookup(table: &[(&str, &'static str)], op_type: &str) -> &'static str {
    table
        .iter()
        .find(|(n, _)| *n == op_type)
        .map_or("graph.unknown", |(_, g)| *g)
}

fn unary(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let name = lookup(DIRECT_UNARY, &cx.node.op_type);
    let x = cx.input(0)?;
    Ok(vec![cx.unary(name, x)?])
}

fn binary(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let name = lookup(DIRECT_BINARY, &cx.node.op_type);
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    // Opset < 7 broadcasting is explicit (`broadcast`, `axis`); only the numpy-compatible
    // trailing alignment is supported.
    legacy_broadcast(cx)?;
    Ok(vec![cx.binary(name, a, b)?])
}

/// Opsets before 7 broadcast only with `broadcast = 1` and an `axis`; numpy's alignment is the
/// case where the axis is the trailing one, which is all dlc accepts.
fn legacy_broadcast(cx: &mut NodeCx) -> NodeResult<()> {
    cx.ignore("broadcast");
    if let Some(axis) = cx.attr_int("axis") {
        let (a, b) = (cx.input(0)?, cx.input(1)?);
        let (ra, rb) = (cx.shape(a).len() as i64, cx.shape(b).len() as i64);
        if axis != ra - rb && axis != -rb {
            return Err(format!("legacy broadcasting along axis {axis} is not supported").into());
        }
    }
    Ok(())
}

fn compare(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let pred = lookup(COMPARISONS, &cx.node.op_type);
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    legacy_broadcast(cx)?;
    Ok(vec![cx.cmp(pred, a, b)?])
}

fn xor(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    legacy_broadcast(cx)?;
    Ok(vec![cx.cmp("ne", a, b)?])
}

fn pow(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    legacy_broadcast(cx)?;
    // The exponent may have another type than the base; the result has the base's. An integer
    // base with a float exponent computes in the exponent's type, as the spec's reference does.
    let ty = cx.elem(a);
    if !cx.is_float(a) && cx.is_float(b) {
        let wide = cx.elem(b);
        let af = cx.cast(a, wide)?;
        let p = cx.binary("graph.pow", af, b)?;
        return Ok(vec![cx.cast(p, ty)?]);
    }
    let b = cx.cast(b, ty)?;
    Ok(vec![cx.binary("graph.pow", a, b)?])
}

/// `fmod = 1`: C's fmod (the sign of the dividend), which `graph.rem` is. `fmod = 0`: the sign
/// of the divisor, as Python's `%` (numpy's `mod` for floats).
fn modulo(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    let fmod = cx.int_or("fmod", 0);
    let r = cx.binary("graph.rem", a, b)?;
    if fmod == 1 {
        return Ok(vec![r]);
    }
    let zero = cx.scalar(0.0, a);
    let nonzero = cx.cmp("ne", r, zero)?;
    let r_neg = cx.cmp("lt", r, zero)?;
    let b_neg = cx.cmp("lt", b, zero)?;
    let signs_differ = cx.cmp("ne", r_neg, b_neg)?;
    let fix = cx.binary("graph.and", nonzero, signs_differ)?;
    let shifted = cx.binary("graph.add", r, b)?;
    Ok(vec![cx.select(fix, shifted, r)?])
}

/// `BitShift`: `direction` LEFT or RIGHT (logical: ONNX defines it on unsigned integers, and
/// `graph.shr` shifts signed ones arithmetically).
fn bit_shift(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, amount) = (cx.input(0)?, cx.input(1)?);
    let name = match cx.attr_string("direction").as_deref() {
        Some("LEFT") => "graph.shl",
        Some("RIGHT") => "graph.shr",
        Some(other) => {
            return Err(format!("direction '{other}' is not LEFT or RIGHT").into());
        }
        None => return Err("attribute 'direction' is required".into()),
    };
    Ok(vec![cx.binary(name, x, amount)?])
}

fn select(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (c, a, b) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    Ok(vec![cx.select(c, a, b)?])
}

/// `BitCast`: the bits reinterpreted as type `to`, which must be as wide as the input's
/// (`graph.bitcast`; a bool on either side is refused, since its bits are not a byte's).
fn bit_cast(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let to = cx.attr_int("to").ok_or("attribute 'to' is required")?;
    let to = i32::try_from(to).map_err(|_| format!("'to' = {to} is not a data type"))?;
    let ty = element_type(to)?;
    if cx.elem(x) == ty {
        return Ok(vec![x]);
    }
    let shape = cx.shape(x);
    let result = cx.ctx().tensor_type(&shape, ty);
    Ok(vec![cx.op_typed("graph.bitcast", &[x], &[], result)?])
}

fn cast(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let to = cx.attr_int("to").ok_or("attribute 'to' is required")?;
    let to = i32::try_from(to).map_err(|_| format!("'to' = {to} is not a data type"))?;
    let ty = element_type(to)?;
    cx.ignore("saturate");
    Ok(vec![cx.cast(x, ty)?])
}

fn cast_like(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, like) = (cx.input(0)?, cx.input(1)?);
    cx.ignore("saturate");
    let ty = cx.elem(like);
    Ok(vec![cx.cast(x, ty)?])
}

/// Opset < 11: `min`/`max` attributes; later, optional inputs (which may be runtime values).
fn clip(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let (lo, hi) = if cx.opset < 11 {
        let lo = cx.has_attr("min").then(|| cx.float_or("min", 0.0));
        let hi = cx.has_attr("max").then(|| cx.float_or("max", 0.0));
        (lo.map(|v| cx.scalar(v, x)), hi.map(|v| cx.scalar(v, x)))
    } else {
        (cx.opt_input(1), cx.opt_input(2))
    };
    let mut y = x;
    if let Some(lo) = lo {
        y = cx.binary("graph.max", y, lo)?;
    }
    if let Some(hi) = hi {
        y = cx.binary("graph.min", y, hi)?;
    }
    Ok(vec![y])
}

fn variadic(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let inputs = cx.inputs()?;
    let (first, rest) = inputs.split_first().ok_or("needs at least one input")?;
    let name = match cx.node.op_type.as_str() {
        "Max" => "graph.max",
        "Min" => "graph.min",
        _ => "graph.add",
    };
    let mut acc = *first;
    for v in rest {
        acc = cx.binary(name, acc, *v)?;
    }
    if cx.node.op_type == "Mean" {
        let n = cx.scalar(inputs.len() as f64, acc);
        acc = cx.binary("graph.div", acc, n)?;
    }
    Ok(vec![acc])
}

fn identity(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    Ok(vec![cx.input(0)?])
}

fn tan(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let s = cx.unary("graph.sin", x)?;
    let c = cx.unary("graph.cos", x)?;
    Ok(vec![cx.binary("graph.div", s, c)?])
}

/// `atan(x)` from primitives: Cephes' single-precision range reduction (|x| > tan 3π/8:
/// π/2 − atan(1/|x|); |x| > tan π/8: π/4 + atan((|x| − 1)/(|x| + 1))) and its odd polynomial
/// on the reduced argument, sign restored at the end. Accurate to a few f32 ulps (f64 inputs
/// get the same f32-level accuracy).
fn atan_of(cx: &mut NodeCx, x: Value) -> NodeResult<Value> {
    let a = cx.unary("graph.abs", x)?;
    let one = cx.scalar(1.0, x);
    let big = cx.scalar(2.414_213_562_373_095, x);
    let mid = cx.scalar(0.414_213_562_373_095_1, x);
    let is_big = cx.cmp("gt", a, big)?;
    let is_mid = cx.cmp("gt", a, mid)?;
    // Reduced argument and offset per range.
    let inv = cx.binary("graph.div", one, a)?;
    let neg_inv = cx.unary("graph.neg", inv)?;
    let am1 = cx.binary("graph.sub", a, one)?;
    let ap1 = cx.binary("graph.add", a, one)?;
    let ratio = cx.binary("graph.div", am1, ap1)?;
    let r_mid = cx.select(is_mid, ratio, a)?;
    let r = cx.select(is_big, neg_inv, r_mid)?;
    let zero = cx.scalar(0.0, x);
    let quarter = cx.scalar(std::f64::consts::FRAC_PI_4, x);
    let half = cx.scalar(std::f64::consts::FRAC_PI_2, x);
    let o_mid = cx.select(is_mid, quarter, zero)?;
    let offset = cx.select(is_big, half, o_mid)?;
    let z = cx.binary("graph.mul", r, r)?;
    let mut p = cx.scalar(8.053_744_495_38e-2, x);
    for c in [
        -1.387_768_560_32e-1,
        1.997_771_064_78e-1,
        -3.333_294_915_39e-1,
    ] {
        let pz = cx.binary("graph.mul", p, z)?;
        let cv = cx.scalar(c, x);
        p = cx.binary("graph.add", pz, cv)?;
    }
    let pz = cx.binary("graph.mul", p, z)?;
    let pzr = cx.binary("graph.mul", pz, r)?;
    let poly = cx.binary("graph.add", pzr, r)?;
    let y = cx.binary("graph.add", offset, poly)?;
    let neg = cx.cmp("lt", x, zero)?;
    let ny = cx.unary("graph.neg", y)?;
    cx.select(neg, ny, y)
}

fn atan(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    Ok(vec![atan_of(cx, x)?])
}

/// `asin(x) = atan(x / √(1 − x²))` (±π/2 at ±1; NaN outside [−1, 1] from the square root).
fn asin_of(cx: &mut NodeCx, x: Value) -> NodeResult<Value> {
    let one = cx.scalar(1.0, x);
    let sq = cx.binary("graph.mul", x, x)?;
    let d = cx.binary("graph.sub", one, sq)?;
    let root = cx.unary("graph.sqrt", d)?;
    let t = cx.binary("graph.div", x, root)?;
    atan_of(cx, t)
}

fn asin(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    Ok(vec![asin_of(cx, x)?])
}

/// `acos(x) = 2·atan(√((1 − x)/(1 + x)))`, accurate near 1 where `π/2 − asin(x)` cancels.
fn acos(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let one = cx.scalar(1.0, x);
    let m = cx.binary("graph.sub", one, x)?;
    let p = cx.binary("graph.add", one, x)?;
    let q = cx.binary("graph.div", m, p)?;
    let root = cx.unary("graph.sqrt", q)?;
    let t = atan_of(cx, root)?;
    let two = cx.scalar(2.0, x);
    Ok(vec![cx.binary("graph.mul", t, two)?])
}

/// `ln(x + √(x² ± 1))`: asinh with +, acosh with −.
fn log_root(cx: &mut NodeCx, sign: f64) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let sq = cx.binary("graph.mul", x, x)?;
    let one = cx.scalar(sign, x);
    let d = cx.binary("graph.add", sq, one)?;
    let root = cx.unary("graph.sqrt", d)?;
    let s = cx.binary("graph.add", x, root)?;
    Ok(vec![cx.unary("graph.log", s)?])
}

fn asinh(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    log_root(cx, 1.0)
}

fn acosh(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    log_root(cx, -1.0)
}

/// `½ ln((1 + x)/(1 − x))`.
fn atanh(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let one = cx.scalar(1.0, x);
    let p = cx.binary("graph.add", one, x)?;
    let m = cx.binary("graph.sub", one, x)?;
    let q = cx.binary("graph.div", p, m)?;
    let l = cx.unary("graph.log", q)?;
    let half = cx.scalar(0.5, x);
    Ok(vec![cx.binary("graph.mul", l, half)?])
}

/// `(eˣ ∓ e⁻ˣ) / 2`.
fn hyperbolic(cx: &mut NodeCx, combine: &str) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let e = cx.unary("graph.exp", x)?;
    let nx = cx.unary("graph.neg", x)?;
    let en = cx.unary("graph.exp", nx)?;
    let s = cx.binary(combine, e, en)?;
    let half = cx.scalar(0.5, x);
    Ok(vec![cx.binary("graph.mul", s, half)?])
}

fn sinh(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    hyperbolic(cx, "graph.sub")
}

fn cosh(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    hyperbolic(cx, "graph.add")
}

fn softsign(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let a = cx.unary("graph.abs", x)?;
    let one = cx.scalar(1.0, x);
    let d = cx.binary("graph.add", a, one)?;
    Ok(vec![cx.binary("graph.div", x, d)?])
}

/// `ln(1 + eˣ)`.
fn softplus_of(cx: &mut NodeCx, x: Value) -> NodeResult<Value> {
    let e = cx.unary("graph.exp", x)?;
    let one = cx.scalar(1.0, x);
    let s = cx.binary("graph.add", e, one)?;
    cx.unary("graph.log", s)
}

fn softplus(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    Ok(vec![softplus_of(cx, x)?])
}

fn is_nan(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    Ok(vec![cx.cmp("ne", x, x)?])
}

fn is_inf(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let neg = cx.int_or("detect_negative", 1) != 0;
    let pos = cx.int_or("detect_positive", 1) != 0;
    let inf = cx.scalar(f64::INFINITY, x);
    let ninf = cx.scalar(f64::NEG_INFINITY, x);
    let is_pos = cx.cmp("eq", x, inf)?;
    let is_neg = cx.cmp("eq", x, ninf)?;
    Ok(vec![match (pos, neg) {
        (true, true) => cx.binary("graph.or", is_pos, is_neg)?,
        (true, false) => is_pos,
        (false, true) => is_neg,
        (false, false) => {
            let f = cx.scalar_of(0.0, Type::I1);
            cx.binary("graph.and", is_pos, f)?
        }
    }])
}

/// `x < 0 ? negative(x) : x`.
fn piecewise(cx: &mut NodeCx, x: Value, negative: Value) -> NodeResult<Value> {
    let zero = cx.scalar(0.0, x);
    let lt = cx.cmp("lt", x, zero)?;
    cx.select(lt, negative, x)
}

fn leaky_relu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let alpha = cx.float_or("alpha", 0.01);
    let a = cx.scalar(alpha, x);
    let ax = cx.binary("graph.mul", x, a)?;
    Ok(vec![piecewise(cx, x, ax)?])
}

fn prelu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, slope) = (cx.input(0)?, cx.input(1)?);
    let ax = cx.binary("graph.mul", x, slope)?;
    Ok(vec![piecewise(cx, x, ax)?])
}

/// `max(0, min(1, alpha·x + beta))`.
fn hard_sigmoid_of(cx: &mut NodeCx, x: Value, alpha: f64, beta: f64) -> NodeResult<Value> {
    let a = cx.scalar(alpha, x);
    let b = cx.scalar(beta, x);
    let ax = cx.binary("graph.mul", x, a)?;
    let y = cx.binary("graph.add", ax, b)?;
    let one = cx.scalar(1.0, x);
    let zero = cx.scalar(0.0, x);
    let y = cx.binary("graph.min", y, one)?;
    cx.binary("graph.max", y, zero)
}

fn hard_sigmoid(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let alpha = cx.float_or("alpha", 0.2);
    let beta = cx.float_or("beta", 0.5);
    Ok(vec![hard_sigmoid_of(cx, x, alpha, beta)?])
}

fn hard_swish(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let h = hard_sigmoid_of(cx, x, 1.0 / 6.0, 0.5)?;
    Ok(vec![cx.binary("graph.mul", x, h)?])
}

/// `x · sigmoid(alpha · x)` (opset 24).
fn swish(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let alpha = cx.float_or("alpha", 1.0);
    let ax = if alpha == 1.0 {
        x
    } else {
        let a = cx.scalar(alpha, x);
        cx.binary("graph.mul", x, a)?
    };
    let s = cx.unary("graph.sigmoid", ax)?;
    Ok(vec![cx.binary("graph.mul", x, s)?])
}

fn gelu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let approximate = cx
        .attr_string("approximate")
        .unwrap_or_else(|| "none".into());
    if approximate != "none" && approximate != "tanh" {
        return Err(format!("approximate = '{approximate}' is not one of 'none', 'tanh'").into());
    }
    let a = cx.ctx().string_attr(&approximate);
    Ok(vec![cx.op("graph.gelu", &[x], &[("approximate", a)])?])
}

/// `alpha · (eˣ − 1)`.
fn exp_minus_one(cx: &mut NodeCx, x: Value, alpha: f64) -> NodeResult<Value> {
    let e = cx.unary("graph.exp", x)?;
    let one = cx.scalar(1.0, x);
    let em1 = cx.binary("graph.sub", e, one)?;
    let a = cx.scalar(alpha, x);
    cx.binary("graph.mul", em1, a)
}

fn elu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let alpha = cx.float_or("alpha", 1.0);
    let neg = exp_minus_one(cx, x, alpha)?;
    Ok(vec![piecewise(cx, x, neg)?])
}

fn selu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let alpha = cx.float_or("alpha", 1.673_263_192_176_818_8);
    let gamma = cx.float_or("gamma", 1.050_701_022_148_132_3);
    let neg = exp_minus_one(cx, x, alpha)?;
    let zero = cx.scalar(0.0, x);
    let le = cx.cmp("le", x, zero)?;
    let y = cx.select(le, neg, x)?;
    let g = cx.scalar(gamma, x);
    Ok(vec![cx.binary("graph.mul", y, g)?])
}

/// `max(0, x) + min(0, alpha · (e^(x/alpha) − 1))`.
fn celu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let alpha = cx.float_or("alpha", 1.0);
    let a = cx.scalar(alpha, x);
    let xa = cx.binary("graph.div", x, a)?;
    let neg = exp_minus_one(cx, xa, alpha)?;
    let zero = cx.scalar(0.0, x);
    let p = cx.binary("graph.max", x, zero)?;
    let n = cx.binary("graph.min", neg, zero)?;
    Ok(vec![cx.binary("graph.add", p, n)?])
}

fn thresholded_relu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let alpha = cx.float_or("alpha", 1.0);
    let a = cx.scalar(alpha, x);
    let gt = cx.cmp("gt", x, a)?;
    let zero = cx.scalar(0.0, x);
    Ok(vec![cx.select(gt, x, zero)?])
}

/// `x · tanh(softplus(x))`.
fn mish(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let sp = softplus_of(cx, x)?;
    let t = cx.unary("graph.tanh", sp)?;
    Ok(vec![cx.binary("graph.mul", x, t)?])
}

/// `x < −lambd ? x + bias : x > lambd ? x − bias : 0`.
fn shrink(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let bias = cx.float_or("bias", 0.0);
    let lambd = cx.float_or("lambd", 0.5);
    // Integer inputs compare and shift in their own type, as the spec's reference does.
    let elem: Type = cx.elem(x);
    let round = |v: f64| if dtype(elem).is_float() { v } else { v.trunc() };
    let b = cx.scalar(round(bias), x);
    let hi = cx.scalar(lambd, x);
    let lo = cx.scalar(-lambd, x);
    let zero = cx.scalar(0.0, x);
    let lt = cx.cmp("lt", x, lo)?;
    let gt = cx.cmp("gt", x, hi)?;
    let plus = cx.binary("graph.add", x, b)?;
    let minus = cx.binary("graph.sub", x, b)?;
    let upper = cx.select(gt, minus, zero)?;
    Ok(vec![cx.select(lt, plus, upper)?])
}
