//! The onnxruntime contrib operators (domain `com.microsoft`) that int8 models exported by
//! onnxruntime's quantizer use, with the semantics of its ContribOperators.md and CPU kernels:
//!
//! - MatMulIntegerToFloat: `(A − a_zp) · (B − b_zp)` in `i32`, then `· a_scale · b_scale`
//!   and `+ bias` in the scales' float type.
//! - DynamicQuantizeMatMul: `A` quantized to uint8 as DynamicQuantizeLinear does, then as
//!   MatMulIntegerToFloat with that scale and zero point.
//! - QLinearAdd, QLinearMul: elementwise on the dequantized operands in `f32`, requantized
//!   (rounding half to even, saturating).
//! - QGemm: `(A' − a_zp) · (B' − b_zp) + C` in `i32`, scaled by `alpha · a_scale · b_scale`,
//!   requantized when `y_scale` is given, else a float output.
//!
//! Every other `com.microsoft` operator is refused by name.

use super::quant::{
    dynamic_quantize, expect_8bit, expect_float, integer_product, matrix_param, requantize,
    scale_to_float, shifted, Side,
};
use super::Handler;
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("MatMulIntegerToFloat", matmul_integer_to_float),
    ("DynamicQuantizeMatMul", dynamic_quantize_matmul),
    ("QLinearAdd", qlinear_binary),
    ("QLinearMul", qlinear_binary),
    ("QGemm", qgemm),
];

/// `(A − a_zp) · (B − b_zp) · a_scale · b_scale + bias`.
fn matmul_integer_to_float(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    let (sa, sb) = (cx.input(2)?, cx.input(3)?);
    let (za, zb, bias) = (cx.opt_input(4), cx.opt_input(5), cx.opt_input(6));
    expect_8bit(cx, a, "A")?;
    expect_8bit(cx, b, "B")?;
    expect_float(cx, sa, "a_scale")?;
    expect_float(cx, sb, "b_scale")?;
    let acc = integer_product(cx, (a, za), (b, zb))?;
    let sa = matrix_param(cx, sa, a, Side::Rows, "a_scale")?;
    let sb = matrix_param(cx, sb, acc, Side::Output, "b_scale")?;
    Ok(vec![scale_to_float(cx, acc, sa, sb, bias)?])
}

/// `A` quantized to uint8 over its own range, then as MatMulIntegerToFloat.
fn dynamic_quantize_matmul(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b, sb) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let (zb, bias) = (cx.opt_input(3), cx.opt_input(4));
    expect_float(cx, a, "A")?;
    expect_8bit(cx, b, "B")?;
    expect_float(cx, sb, "b_scale")?;
    let [aq, sa, za] = dynamic_quantize(cx, a)?;
    let acc = integer_product(cx, (aq, Some(za)), (b, zb))?;
    let sb = matrix_param(cx, sb, acc, Side::Output, "b_scale")?;
    let sa = cx.cast(sa, cx.elem(a))?;
    Ok(vec![scale_to_float(cx, acc, sa, sb, bias)?])
}

/// One per-tensor quantization parameter: it must hold one element.
fn scalar_param(cx: &mut NodeCx, p: Value, what: &str) -> NodeResult<Value> {
    let shape = cx.shape(p);
    if shape.iter().any(|d| *d != 1) {
        return Err(format!(
            "{what} must be a scalar (per-tensor), but has shape {}",
            crate::importer::show_shape(&shape)
        )
        .into());
    }
    cx.reshape(p, &[])
}

/// `(A − A_zp) · A_scale` in `f32`, with checked per-tensor parameters.
fn dequantized(
    cx: &mut NodeCx,
    x: Value,
    scale: Value,
    zp: Option<Value>,
    what: &str,
) -> NodeResult<Value> {
    expect_8bit(cx, x, what)?;
    expect_float(cx, scale, &format!("{what}_scale"))?;
    let mut d = cx.cast(x, Type::I32)?;
    if let Some(z) = zp {
        if cx.elem(z) != cx.elem(x) {
            return Err(format!("{what}_zero_point must have {what}'s type").into());
        }
        let z = scalar_param(cx, z, &format!("{what}_zero_point"))?;
        let z = cx.cast(z, Type::I32)?;
        d = cx.binary("graph.sub", d, z)?;
    }
    let s = scalar_param(cx, scale, &format!("{what}_scale"))?;
    let s = cx.cast(s, Type::F32)?;
    let d = cx.cast(d, Type::F32)?;
    cx.binary("graph.mul", d, s)
}

/// QLinearAdd and QLinearMul: `quantize(dequantize(A) ∘ dequantize(B))` with the output's
/// scale and zero point, in `f32`, rounding half to even and saturating; the output has the
/// operands' type.
fn qlinear_binary(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, sa, za) = (cx.input(0)?, cx.input(1)?, cx.opt_input(2));
    let (b, sb, zb) = (cx.input(3)?, cx.input(4)?, cx.opt_input(5));
    let (sc, zc) = (cx.input(6)?, cx.opt_input(7));
    if cx.elem(a) != cx.elem(b) {
        return Err("A and B must have the same type".into());
    }
    let out = cx.elem(a);
    let da = dequantized(cx, a, sa, za, "A")?;
    let db = dequantized(cx, b, sb, zb, "B")?;
    let op = if cx.node.op_type == "QLinearAdd" {
        "graph.add"
    } else {
        "graph.mul"
    };
    let y = cx.binary(op, da, db)?;
    expect_float(cx, sc, "C_scale")?;
    let sc = scalar_param(cx, sc, "C_scale")?;
    let sc = cx.cast(sc, Type::F32)?;
    let q = cx.binary("graph.div", y, sc)?;
    let zc = match zc {
        Some(z) => {
            if cx.elem(z) != out {
                return Err("C_zero_point must have the operands' type".into());
            }
            Some(scalar_param(cx, z, "C_zero_point")?)
        }
        None => None,
    };
    Ok(vec![super::quant::saturate(cx, q, zc, out)?])
}

/// `alpha · (A' − a_zp) · (B' − b_zp) + C`, scaled by `a_scale · b_scale`, quantized with
/// `y_scale` and `y_zero_point` when given.
fn qgemm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (mut a, sa, za) = (cx.input(0)?, cx.input(1)?, cx.opt_input(2));
    let (mut b, sb, zb) = (cx.input(3)?, cx.input(4)?, cx.opt_input(5));
    let (c, sy, zy) = (cx.opt_input(6), cx.opt_input(7), cx.opt_input(8));
    let alpha = cx.float_or("alpha", 1.0);
    expect_8bit(cx, a, "A")?;
    expect_8bit(cx, b, "B")?;
    expect_float(cx, sa, "a_scale")?;
    expect_float(cx, sb, "b_scale")?;
    for (v, what) in [(a, "A"), (b, "B")] {
        if cx.shape(v).len() != 2 {
            return Err(format!("{what} must be a matrix (rank 2)").into());
        }
    }
    if cx.int_or("transA", 0) != 0 {
        a = cx.transpose(a, &[1, 0])?;
    }
    if cx.int_or("transB", 0) != 0 {
        b = cx.transpose(b, &[1, 0])?;
    }
    let sa = scalar_param(cx, sa, "a_scale")?;
    let za = match za {
        Some(z) => Some(scalar_param(cx, z, "a_zero_point")?),
        None => None,
    };
    let ai = shifted(cx, a, za, Side::Rows, "a_zero_point")?;
    let bi = shifted(cx, b, zb, Side::Columns, "b_zero_point")?;
    let mut acc = cx.op("graph.matmul", &[ai, bi], &[])?;
    if let Some(c) = c {
        if cx.elem(c) != Type::I32 {
            return Err("C must be an int32 tensor".into());
        }
        acc = cx.binary("graph.add", acc, c)?;
        if cx.shape(acc)
            != cx.shape(ai)[..1]
                .iter()
                .chain(&cx.shape(bi)[1..])
                .copied()
                .collect::<Vec<_>>()
        {
            return Err("C does not broadcast to the product's shape (M, N)".into());
        }
    }
    let sb = matrix_param(cx, sb, acc, Side::Output, "b_scale")?;
    let alpha_v = cx.scalar_of(alpha, Type::F32);
    let sa = cx.cast(sa, Type::F32)?;
    let sa = cx.binary("graph.mul", sa, alpha_v)?;
    match (sy, zy) {
        (None, None) => Ok(vec![scale_to_float(cx, acc, sa, sb, None)?]),
        (Some(sy), zy) => {
            expect_float(cx, sy, "y_scale")?;
            let sy = scalar_param(cx, sy, "y_scale")?;
            let (zy, out) = match zy {
                Some(z) => {
                    expect_8bit(cx, z, "y_zero_point")?;
                    let out = cx.elem(z);
                    (Some(scalar_param(cx, z, "y_zero_point")?), out)
                }
                None => (None, Type::UI8),
            };
            Ok(vec![requantize(cx, acc, [sa, sb, sy], zy, out)?])
        }
        (None, Some(_)) => Err("y_zero_point is given without y_scale".into()),
    }
}
