//! Quantization operators: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the
//! integer products MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv, each a
//! composition of graph ops that computes the spec's values exactly.
//!
//! - Quantizing divides in the scale's type (or `precision`), rounds half to even
//!   (`graph.round`), then adds the zero point and clips to the output type's range in `f64`,
//!   where every step is exact, and casts.
//! - Dequantizing subtracts the zero point in a wide integer type, then multiplies by the scale
//!   in `f32` (`f64` for 32-bit inputs, whose differences `f32` cannot hold), as the spec's
//!   reference does, and casts to the output type.
//! - The integer products keep their bytes where they can: matrix products are a
//!   `graph.matmul` of bytes with the zero points entering through row and column sums
//!   ([`integer_product`]); convolutions by constant weights are a `graph.conv2d` of bytes
//!   whose padding holds the input's zero point ([`byte_conv`]). Both give wrapping `i32`.
//!   Other products widen to `i32` and subtract the zero points first; such a convolution
//!   runs on the shifted integers as floats where that is provably exact: every product and
//!   partial sum is an integer no larger than the bound [`exact_float`] computes (from the
//!   constant weights when they are known), which `f32` holds below 2²⁴ and `f64` below
//!   2⁵³; past that the node is refused.
//! - The QLinear ops requantize as the reference does: the multiplier `a_scale · b_scale /
//!   y_scale` in the scales' type, the product with the integer result in `f64`, then round,
//!   add the zero point and saturate.
//!
//! Quantized types are the integers of at most 32 bits; float8, int4, int2 and float4 are
//! refused by name (dlc has no such element types).

use super::nn::{conv_of, matmul_of};
use super::{axis, table, Handler};
use crate::importer::{show_shape, Dequantized, NodeCx, NodeResult, MAX_FOLD_ELEMENTS};
use crate::proto::DataType;
use crate::tensor::element_type;
use dlc_ir::attributes::DenseElements;
use dlc_ir::{AttrKind, Type, Value, DYNAMIC};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("QuantizeLinear", quantize_linear),
    ("DequantizeLinear", dequantize_linear),
    ("DynamicQuantizeLinear", dynamic_quantize_linear),
    ("MatMulInteger", matmul_integer),
    ("QLinearMatMul", qlinear_matmul),
    ("ConvInteger", conv_integer),
    ("QLinearConv", qlinear_conv),
];

/// The range of quantized integer type `ty`, or `None` for a type dlc does not quantize to.
fn int_range(ty: Type) -> Option<(f64, f64)> {
    Some(match ty {
        Type::I8 => (-128.0, 127.0),
        Type::UI8 => (0.0, 255.0),
        Type::I16 => (-32768.0, 32767.0),
        Type::UI16 => (0.0, 65535.0),
        Type::I32 => (i32::MIN as f64, i32::MAX as f64),
        Type::UI32 => (0.0, u32::MAX as f64),
        _ => return None,
    })
}

/// The element type named by data type attribute `name` = `value`, which must be one of
/// `allowed` (described by `what`); float8, int4 and the like are named in the error.
fn dtype_attr(value: i64, name: &str, allowed: fn(Type) -> bool, what: &str) -> NodeResult<Type> {
    let code = i32::try_from(value).map_err(|_| format!("{name} = {value} is not a data type"))?;
    let spelled = DataType::try_from(code)
        .map(|d| format!("{d:?}").to_ascii_uppercase())
        .map_err(|_| format!("{name} = {value} is not a data type"))?;
    match element_type(code) {
        Ok(ty) if allowed(ty) => Ok(ty),
        _ => Err(format!("{name} {spelled} is not supported ({what})").into()),
    }
}

/// Quantized types, for messages.
const QUANTIZED: &str = "dlc quantizes to int8, uint8, int16, uint16, int32 and uint32";

fn is_float_type(ty: Type) -> bool {
    matches!(ty, Type::F16 | Type::BF16 | Type::F32 | Type::F64)
}

/// dlc's spelling of `v`'s element type, for messages.
fn elem_name(cx: &NodeCx, v: Value) -> &'static str {
    super::dtype(cx.elem(v)).name()
}

/// Errors unless `v` (input `what`) has a float element type.
pub(super) fn expect_float(cx: &NodeCx, v: Value, what: &str) -> NodeResult<()> {
    if cx.is_float(v) {
        return Ok(());
    }
    Err(format!("{what} must be a float tensor, not {}", elem_name(cx, v)).into())
}

/// Errors unless `v` (input `what`) holds 8-bit integers, as the integer products require.
pub(super) fn expect_8bit(cx: &NodeCx, v: Value, what: &str) -> NodeResult<()> {
    if matches!(cx.elem(v), Type::I8 | Type::UI8) {
        return Ok(());
    }
    Err(format!(
        "{what} must be an int8 or uint8 tensor, not {}",
        elem_name(cx, v)
    )
    .into())
}

/// Errors unless zero point `zp` has the element type of `of` (its quantized tensor).
fn same_type(cx: &NodeCx, zp: Value, of: Value, what: &str) -> NodeResult<()> {
    if cx.elem(zp) == cx.elem(of) {
        return Ok(());
    }
    Err(format!(
        "{what} ({}) must have the type of the tensor it quantizes ({})",
        elem_name(cx, zp),
        elem_name(cx, of)
    )
    .into())
}

/// The number of elements of `shape`, if static.
fn count(shape: &[i64]) -> Option<i64> {
    shape
        .iter()
        .try_fold(1i64, |n, d| (*d != DYNAMIC).then(|| n.saturating_mul(*d)))
}

/// True if `v` holds exactly one element (a scalar, or any shape of ones).
fn is_single(cx: &NodeCx, v: Value) -> bool {
    count(&cx.shape(v)) == Some(1)
}

/// `v` as a rank-0 tensor (it holds one element).
fn to_scalar(cx: &mut NodeCx, v: Value) -> NodeResult<Value> {
    cx.reshape(v, &[])
}

/// Errors unless zero point `zp` has the shape of its scale `scale` (one element each counts
/// as the same: both are per-tensor).
fn same_shape(cx: &NodeCx, zp: Value, scale: Value, what: &str) -> NodeResult<()> {
    let (zs, ss) = (cx.shape(zp), cx.shape(scale));
    if zs == ss || (is_single(cx, zp) && is_single(cx, scale)) {
        return Ok(());
    }
    Err(format!(
        "{what} has shape {}, but its scale has shape {} (they must match)",
        show_shape(&zs),
        show_shape(&ss)
    )
    .into())
}

/// How a scale and its zero point apply to the tensor they quantize.
#[derive(Clone, Copy, Debug)]
enum Granularity {
    /// One scale for the whole tensor.
    Tensor,
    /// One scale per index of the axis.
    Axis(usize),
    /// One scale per block of `block` consecutive indices of the axis.
    Blocked { axis: usize, block: i64 },
}

/// The granularity of `scale` for `x`: per-tensor when it holds one element, blocked when
/// `block_size` is positive, else per-axis (a vector as long as the axis). `per_axis` says
/// whether the opset has per-axis and blocked forms at all.
fn granularity(
    cx: &NodeCx,
    x: Value,
    scale: Value,
    axis_attr: i64,
    block_size: i64,
    per_axis: bool,
) -> NodeResult<Granularity> {
    let (xs, ss) = (cx.shape(x), cx.shape(scale));
    if block_size < 0 {
        return Err(format!("block_size = {block_size} must be positive (or 0: none)").into());
    }
    if is_single(cx, scale) {
        return Ok(Granularity::Tensor);
    }
    if !per_axis {
        return Err(format!(
            "the scale has shape {}; this opset quantizes per tensor only (a scalar scale)",
            show_shape(&ss)
        )
        .into());
    }
    let a = axis(axis_attr, xs.len())? as usize;
    if block_size == 0 {
        let fits = ss.len() == 1 && (ss[0] == xs[a] || ss[0] == DYNAMIC || xs[a] == DYNAMIC);
        if !fits {
            return Err(format!(
                "a per-axis scale is a vector of the {} elements of axis {a} of the input ({}), but this one has shape {} (blocked quantization needs block_size)",
                show_shape(&xs[a..=a]),
                show_shape(&xs),
                show_shape(&ss)
            )
            .into());
        }
        return Ok(Granularity::Axis(a));
    }
    let mismatch = || -> NodeResult<Granularity> {
        Err(format!(
            "a blocked scale has the input's shape ({}) except along axis {a}, where it has ⌈{}/{block_size}⌉ blocks; this one has shape {}",
            show_shape(&xs),
            show_shape(&xs[a..=a]),
            show_shape(&ss)
        )
        .into())
    };
    if ss.len() != xs.len() || xs[a] == DYNAMIC || ss[a] == DYNAMIC {
        return mismatch();
    }
    let others_fit = (0..xs.len())
        .filter(|d| *d != a)
        .all(|d| ss[d] == xs[d] || ss[d] == DYNAMIC || xs[d] == DYNAMIC);
    let blocks = (xs[a] + block_size - 1) / block_size;
    if !others_fit || blocks != ss[a] {
        return mismatch();
    }
    Ok(Granularity::Blocked {
        axis: a,
        block: block_size,
    })
}

/// `p` (a scale or zero point of granularity `g`) made to broadcast against `x`: a scalar, a
/// vector reshaped onto its axis, or blocks repeated along theirs (a gather).
fn spread(cx: &mut NodeCx, p: Value, x: Value, g: Granularity) -> NodeResult<Value> {
    let rank = cx.shape(x).len();
    match g {
        Granularity::Tensor => to_scalar(cx, p),
        Granularity::Axis(a) => {
            let n = cx.shape(p)[0];
            let mut shape = vec![1; rank];
            shape[a] = if n == DYNAMIC { -1 } else { n };
            cx.reshape(p, &shape)
        }
        Granularity::Blocked { axis, block } => {
            let len = cx.shape(x)[axis];
            let n = table(i128::from(len))?;
            let index: Vec<i64> = (0..len).map(|i| i / block).collect();
            let index = cx.constant(Literal::from_i64(DType::I64, &[n], &index));
            let a = cx.int_attr(axis as i64);
            cx.op("graph.gather", &[p, index], &[("axis", a)])
        }
    }
}

/// `round(q) + zp`, clipped to the range of `out` and cast to it: the quantizers' shared tail.
/// `q` is a float tensor; `zp` (if any) already broadcasts against it. The sum and the clip
/// are exact: in `f32` for outputs of at most 16 bits from a `q` of at most 32 (an integer of
/// magnitude below 2^24 plus a zero point below 2^16 is exact there, and a larger one clips to
/// the same bound whichever way it rounds), else in `f64`, exact for any zero point of at most
/// 32 bits. `f64` vectors are half as wide, and their clips took a QDQ conv net's
/// requantizing epilogues twice the instructions.
pub(super) fn saturate(
    cx: &mut NodeCx,
    q: Value,
    zp: Option<Value>,
    out: Type,
) -> NodeResult<Value> {
    let (lo, hi) = int_range(out).ok_or("the output is not a quantized integer type")?;
    let narrow = hi - lo <= f64::from(u16::MAX);
    let float = if narrow && cx.elem(q) != Type::F64 {
        Type::F32
    } else {
        Type::F64
    };
    let r = cx.unary("graph.round", q)?;
    let mut y = cx.cast(r, float)?;
    if let Some(zp) = zp {
        let z = cx.cast(zp, float)?;
        y = cx.binary("graph.add", y, z)?;
    }
    let lo = cx.scalar_of(lo, float);
    let hi = cx.scalar_of(hi, float);
    let y = cx.binary("graph.max", y, lo)?;
    let y = cx.binary("graph.min", y, hi)?;
    cx.cast(y, out)
}

/// QuantizeLinear's and DequantizeLinear's `axis` (from opset 13; 1 before) and `block_size`
/// (from opset 21; 0, not blocked, before).
fn axis_and_block(cx: &mut NodeCx) -> (i64, i64) {
    let axis = if cx.opset >= 13 {
        cx.int_or("axis", 1)
    } else {
        1
    };
    let block_size = if cx.opset >= 21 {
        cx.int_or("block_size", 0)
    } else {
        0
    };
    (axis, block_size)
}

/// `y = saturate(round(x / y_scale) + y_zero_point)`, per tensor, per axis (opset 13) or
/// blocked (opset 21), with `output_dtype` (21) and `precision` (23).
fn quantize_linear(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, scale) = (cx.input(0)?, cx.input(1)?);
    let zp = cx.opt_input(2);
    let (axis_attr, block_size) = axis_and_block(cx);
    if cx.opset >= 19 {
        // Only float8 outputs saturate optionally; integer outputs always do.
        cx.ignore("saturate");
    }
    let output_dtype = if cx.opset >= 21 {
        cx.attr_int("output_dtype").filter(|d| *d != 0)
    } else {
        None
    };
    let precision = if cx.opset >= 23 {
        cx.attr_int("precision").filter(|d| *d != 0)
    } else {
        None
    };
    let quantized = |ty: Type| int_range(ty).is_some();
    let out = match (output_dtype, zp) {
        (Some(d), zp) => {
            let ty = dtype_attr(d, "output_dtype", quantized, QUANTIZED)?;
            if let Some(zp) = zp.filter(|zp| cx.elem(*zp) != ty) {
                return Err(format!(
                    "output_dtype is {} but the zero point is {} (they must agree)",
                    super::dtype(ty).name(),
                    elem_name(cx, zp)
                )
                .into());
            }
            ty
        }
        (None, Some(zp)) => {
            let ty = cx.elem(zp);
            if !quantized(ty) {
                return Err(format!(
                    "the zero point's type {} is not a quantized type ({QUANTIZED})",
                    elem_name(cx, zp)
                )
                .into());
            }
            ty
        }
        (None, None) => Type::UI8,
    };
    for (v, what) in [(x, "x"), (scale, "y_scale")] {
        let ty = cx.elem(v);
        if !is_float_type(ty) && ty != Type::I32 {
            return Err(format!(
                "{what} must be a float or int32 tensor, not {}",
                elem_name(cx, v)
            )
            .into());
        }
    }
    // The division is in `precision`'s type, else the scale's (the spec); an int32 scale
    // divides in x's float type, and int32 by int32 in f64 (true division).
    let compute = match precision {
        Some(p) => dtype_attr(p, "precision", is_float_type, "a float type")?,
        None if cx.is_float(scale) => cx.elem(scale),
        None if cx.is_float(x) => cx.elem(x),
        None => Type::F64,
    };
    let g = granularity(cx, x, scale, axis_attr, block_size, cx.opset >= 13)?;
    if let Some(zp) = zp {
        same_shape(cx, zp, scale, "the zero point")?;
    }
    let s = spread(cx, scale, x, g)?;
    let s = cx.cast(s, compute)?;
    let xf = cx.cast(x, compute)?;
    let q = cx.binary("graph.div", xf, s)?;
    let z = match zp {
        Some(zp) => Some(spread(cx, zp, x, g)?),
        None => None,
    };
    Ok(vec![saturate(cx, q, z, out)?])
}

/// `y = (x − x_zero_point) · x_scale`, per tensor, per axis (opset 13) or blocked (opset 21),
/// with `output_dtype` (23).
fn dequantize_linear(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, scale) = (cx.input(0)?, cx.input(1)?);
    let zp = cx.opt_input(2);
    let (axis_attr, block_size) = axis_and_block(cx);
    let output_dtype = if cx.opset >= 23 {
        cx.attr_int("output_dtype").filter(|d| *d != 0)
    } else {
        None
    };
    let xt = cx.elem(x);
    if int_range(xt).is_none() {
        return Err(format!(
            "x must be a quantized integer tensor (int8, uint8, int16, uint16, int32 or uint32), not {}",
            elem_name(cx, x)
        )
        .into());
    }
    expect_float(cx, scale, "x_scale")?;
    let out = match output_dtype {
        Some(d) => dtype_attr(
            d,
            "output_dtype",
            is_float_type,
            "the output is a float type",
        )?,
        None => cx.elem(scale),
    };
    let g = granularity(cx, x, scale, axis_attr, block_size, cx.opset >= 13)?;
    // Differences of 32-bit integers need 33 bits, and f32 holds only 24 of them.
    let wide32 = matches!(xt, Type::I32 | Type::UI32);
    let (int, float) = if wide32 {
        (Type::I64, Type::F64)
    } else {
        (Type::I32, Type::F32)
    };
    let float = if cx.elem(scale) == Type::F64 || out == Type::F64 {
        Type::F64
    } else {
        float
    };
    if let Some(zp) = zp {
        same_type(cx, zp, x, "the zero point")?;
        same_shape(cx, zp, scale, "the zero point")?;
    }
    let folded = match (float, out) {
        (Type::F32, Type::F32) => constant_dequantized(cx, (x, scale, zp), g),
        _ => None,
    };
    let y = match folded {
        Some(y) => y,
        None => dequantized(cx, (x, scale, zp), g, (int, float, out))?,
    };
    let axis = match g {
        Granularity::Tensor => Some(None),
        Granularity::Axis(a) => Some(Some(a)),
        Granularity::Blocked { .. } => None,
    };
    let f32_scale = out == Type::F32 && cx.elem(scale) == Type::F32;
    if let (Some(axis), true, true) = (axis, matches!(xt, Type::I8 | Type::UI8), f32_scale) {
        let q = Dequantized {
            q: x,
            scale,
            zero_point: zp,
            axis,
        };
        cx.imp.dequantized.insert(y, q);
    }
    Ok(vec![y])
}

/// `(x − zp) · scale` of granularity `g` as graph ops: the difference in `int`, the product
/// in `float`, the result cast to `out`.
fn dequantized(
    cx: &mut NodeCx,
    (x, scale, zp): (Value, Value, Option<Value>),
    g: Granularity,
    (int, float, out): (Type, Type, Type),
) -> NodeResult<Value> {
    let d = match zp {
        Some(zp) => {
            let z = spread(cx, zp, x, g)?;
            let z = cx.cast(z, int)?;
            let xi = cx.cast(x, int)?;
            cx.binary("graph.sub", xi, z)?
        }
        None => x,
    };
    let d = cx.cast(d, float)?;
    let s = spread(cx, scale, x, g)?;
    let s = cx.cast(s, float)?;
    let y = cx.binary("graph.mul", d, s)?;
    cx.cast(y, out)
}

/// The stored width in bytes and the signedness of the integer types whose constants are
/// read from their bytes here: `i8`, `ui8`, `i16`, `ui16`.
fn small_int(t: Type) -> Option<(usize, bool)> {
    match t {
        Type::I8 => Some((1, true)),
        Type::UI8 => Some((1, false)),
        Type::I16 => Some((2, true)),
        Type::UI16 => Some((2, false)),
        _ => None,
    }
}

/// Element `i` of a constant of [`small_int`] layout `(width, signed)` stored as `data`
/// (packed little-endian; one element stands for all when `splat`); `None` past the end.
fn stored_int(
    (splat, data): (bool, &[u8]),
    (width, signed): (usize, bool),
    i: usize,
) -> Option<i32> {
    let at = if splat { 0 } else { i.checked_mul(width)? };
    let b = data.get(at..at.checked_add(width)?)?;
    Some(decode_int(b, signed))
}

/// One element of [`small_int`] layout from its `width` little-endian bytes `b`.
fn decode_int(b: &[u8], signed: bool) -> i32 {
    match (b.len(), signed) {
        (1, true) => b[0] as i8 as i32,
        (1, false) => b[0] as i32,
        (_, true) => i16::from_le_bytes([b[0], b[1]]) as i32,
        (_, false) => u16::from_le_bytes([b[0], b[1]]) as i32,
    }
}

/// Appends elements `start .. start + len` of a constant of [`small_int`] layout to `out`, as
/// [`stored_int`] reads each; `None` past the end.
fn stored_run(
    (splat, data): (bool, &[u8]),
    (width, signed): (usize, bool),
    (start, len): (usize, usize),
    out: &mut Vec<i32>,
) -> Option<()> {
    if splat {
        let v = stored_int((true, data), (width, signed), 0)?;
        out.extend(std::iter::repeat_n(v, len));
        return Some(());
    }
    let bytes = data.get(start.checked_mul(width)?..start.checked_add(len)?.checked_mul(width)?)?;
    out.extend(bytes.chunks_exact(width).map(|b| decode_int(b, signed)));
    Some(())
}

/// [`dequantized`] into `f32` of constant 8- or 16-bit `x` by constant `f32` scales (and
/// zero points), computed from the packed bytes in one pass: `x − zp` is exact in `f32`, and
/// the product rounded once is what the graph ops give. A QDQ model's weights take this path;
/// through the interpreter's tensors they took about 200 ns an element (qdq_convnet's 240 k:
/// 50 ms). `None` when an operand is not such a constant, or the result would have more than
/// [`MAX_FOLD_ELEMENTS`] elements.
fn constant_dequantized(
    cx: &mut NodeCx,
    (x, scale, zp): (Value, Value, Option<Value>),
    g: Granularity,
) -> Option<Value> {
    let layout = small_int(cx.elem(x))?;
    if cx.elem(scale) != Type::F32 {
        return None;
    }
    let dims = dlc_tensor::static_shape(&cx.shape(x))?;
    // The parameter (scale and zero point) of each element of `x`, by its flat position.
    let inner = |a: usize| dims[a + 1..].iter().product::<usize>();
    let param: Box<dyn Fn(usize) -> usize> = match g {
        Granularity::Tensor => Box::new(|_| 0),
        Granularity::Axis(a) => {
            let (inner, n) = (inner(a), dims[a]);
            Box::new(move |i| (i / inner) % n)
        }
        Granularity::Blocked { axis, block } => {
            let (inner, n, block) = (inner(axis), dims[axis], usize::try_from(block).ok()?);
            let blocks = n.div_ceil(block);
            Box::new(move |i| {
                let (outer, k, r) = (i / (inner * n), (i / inner) % n, i % inner);
                (outer * blocks + k / block) * inner + r
            })
        }
    };
    // Larger results stay graph ops, as the interpreter's folds do (`MAX_FOLD_ELEMENTS`): a
    // QDQ product reads the bytes, and the unused dequantization is erased.
    let count: usize = dims.iter().product();
    if count > MAX_FOLD_ELEMENTS {
        return None;
    }
    let (xs, ss) = (cx.constant_bytes(x)?, cx.constant_bytes(scale)?);
    let zs = match zp {
        Some(z) => Some(cx.constant_bytes(z)?),
        None => None,
    };
    // Runs of elements that share their parameters: the whole tensor, or a stretch of the
    // dims inside the axis; a blocked parameter changes along the innermost dims too.
    let run = match g {
        Granularity::Tensor => count,
        Granularity::Axis(a) => inner(a),
        Granularity::Blocked { .. } => 1,
    }
    .max(1);
    let mut out = Vec::with_capacity(count * 4);
    let mut values = Vec::with_capacity(run.min(count));
    let mut start = 0;
    while start < count {
        let len = run.min(count - start);
        let p = param(start);
        let at = if ss.0 { 0 } else { p * 4 };
        let s = ss.1.get(at..at + 4)?;
        let s = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        let z = match zs {
            Some(zs) => stored_int(zs, layout, p)?,
            None => 0,
        };
        values.clear();
        stored_run(xs, layout, (start, len), &mut values)?;
        for &v in &values {
            out.extend_from_slice(&((v - z) as f32 * s).to_le_bytes());
        }
        start += len;
    }
    let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let ctx = cx.ctx();
    let ty = ctx.tensor_type(&dims, Type::F32);
    let attr = ctx.intern_attr(AttrKind::DenseElements(DenseElements {
        ty,
        splat: false,
        data: out.into(),
    }));
    Some(cx.attr_constant(attr))
}

/// uint8 quantization of `x` over its own range (extended to hold 0), as the spec's function
/// body: `scale = (max − min) / 255` (1 when they are equal), `zero_point = round(clip(−min /
/// scale, 0, 255))`, `y = saturate(round(x / scale) + zero_point)`; all in `f32`.
fn dynamic_quantize_linear(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    expect_float(cx, x, "x")?;
    let [y, scale, zp] = dynamic_quantize(cx, x)?;
    let scale = cx.cast(scale, cx.elem(x))?;
    Ok(vec![y, scale, zp])
}

/// DynamicQuantizeLinear's values: the uint8 tensor, its `f32` scale and its uint8 zero
/// point.
pub(super) fn dynamic_quantize(cx: &mut NodeCx, x0: Value) -> NodeResult<[Value; 3]> {
    let x = cx.cast(x0, Type::F32)?;
    let all: Vec<i64> = (0..cx.shape(x).len() as i64).collect();
    let zero = cx.scalar_of(0.0, Type::F32);
    let max = cx.reduce("graph.reduce_max", x, &all, false)?;
    let min = cx.reduce("graph.reduce_min", x, &all, false)?;
    let max = cx.binary("graph.max", max, zero)?;
    let min = cx.binary("graph.min", min, zero)?;
    let range = cx.binary("graph.sub", max, min)?;
    let same = cx.cmp("eq", max, min)?;
    let one = cx.scalar_of(1.0, Type::F32);
    let range = cx.select(same, one, range)?;
    let levels = cx.scalar_of(255.0, Type::F32);
    let scale = cx.binary("graph.div", range, levels)?;
    let m = cx.binary("graph.div", min, scale)?;
    let zp = cx.binary("graph.sub", zero, m)?;
    let zp = cx.binary("graph.max", zp, zero)?;
    let zp = cx.binary("graph.min", zp, levels)?;
    let zp = cx.unary("graph.round", zp)?;
    let q = cx.binary("graph.div", x, scale)?;
    let y = saturate(cx, q, Some(zp), Type::UI8)?;
    let zp = cx.cast(zp, Type::UI8)?;
    Ok([y, scale, zp])
}

/// Which operand of a matrix product a zero point or scale belongs to.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Side {
    /// `a` (`[..., M, K]`): per-tensor or per-row (`[M]`, or `[..., M, 1]`).
    Rows,
    /// `b` (`[..., K, N]`): per-tensor or per-column (`[N]`, or `[..., 1, N]`).
    Columns,
    /// The product (`[..., M, N]`, or lower rank when an operand had rank 1): per-tensor or
    /// per-column.
    Output,
}

/// Quantization parameter `p` of matrix `m` (`what` names it) made to broadcast against `m`
/// without changing its shape: a scalar, a per-row vector as a column, a per-column vector
/// as is, or a tensor of `m`'s rank whose dims are 1 or `m`'s.
pub(super) fn matrix_param(
    cx: &mut NodeCx,
    p: Value,
    m: Value,
    side: Side,
    what: &str,
) -> NodeResult<Value> {
    let (ps, ms) = (cx.shape(p), cx.shape(m));
    if is_single(cx, p) {
        return to_scalar(cx, p);
    }
    let fits = |a: i64, b: i64| a == b || a == 1 || a == DYNAMIC || b == DYNAMIC;
    let r = ms.len();
    // The axis a vector runs along; a rank-1 operand has no rows or columns of its own.
    let target = match side {
        Side::Rows if r >= 2 => Some(r - 2),
        Side::Columns if r >= 2 => Some(r - 1),
        Side::Output if r >= 1 => Some(r - 1),
        _ => None,
    };
    if let (Some(t), [n]) = (target, ps.as_slice()) {
        if fits(*n, ms[t]) {
            let mut shape = vec![1; r];
            shape[t] = if *n == DYNAMIC { -1 } else { *n };
            return cx.reshape(p, &shape);
        }
    } else if target.is_some() && ps.len() == r && ps.iter().zip(&ms).all(|(a, b)| fits(*a, *b)) {
        return Ok(p);
    }
    let form = match side {
        Side::Rows => "per-row ([M] or [..., M, 1])",
        Side::Columns | Side::Output => "per-column ([N] or [..., 1, N])",
    };
    Err(format!(
        "{what} has shape {}, which is neither a scalar nor {form} for a matrix of shape {}",
        show_shape(&ps),
        show_shape(&ms)
    )
    .into())
}

/// `m` as `i32` minus its zero point (if any).
pub(super) fn shifted(
    cx: &mut NodeCx,
    m: Value,
    zp: Option<Value>,
    side: Side,
    what: &str,
) -> NodeResult<Value> {
    let wide = cx.cast(m, Type::I32)?;
    let Some(zp) = zp else {
        return Ok(wide);
    };
    same_type(cx, zp, m, what)?;
    let z = matrix_param(cx, zp, m, side, what)?;
    let z = cx.cast(z, Type::I32)?;
    cx.binary("graph.sub", wide, z)
}

/// `(A − a_zero_point) · (B − b_zero_point)` in `i32`. Matrices (rank ≥ 2, static `K`) keep
/// their bytes: `A` as `ui8` and `B` as `i8`, the operands of the CPU's 8-bit dot products
/// (an operand of the other type moves by 128, its zero point with it), multiplied by a
/// `graph.matmul` of bytes, then the zero points enter through row and column sums:
/// `A·B − za·colsum(B) − zb·rowsum(A) + K·za·zb`, every step exact in wrapping `i32`. Vectors
/// widen and subtract first.
fn matmul_integer(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    expect_8bit(cx, a, "A")?;
    expect_8bit(cx, b, "B")?;
    let (za, zb) = (cx.opt_input(2), cx.opt_input(3));
    Ok(vec![integer_product(cx, (a, za), (b, zb))?])
}

/// `(A − za) · (B − zb)` in `i32` for 8-bit `A` and `B` with their optional zero points
/// (named `a_zero_point` and `b_zero_point` in messages), as [`matmul_integer`] describes:
/// the product of MatMulInteger, QLinearMatMul and the `com.microsoft` integer products.
pub(super) fn integer_product(
    cx: &mut NodeCx,
    (a, za): (Value, Option<Value>),
    (b, zb): (Value, Option<Value>),
) -> NodeResult<Value> {
    let (sa, sb) = (cx.shape(a), cx.shape(b));
    let k = sa.last().copied().unwrap_or(DYNAMIC);
    if sa.len() < 2 || sb.len() < 2 || k == DYNAMIC {
        let a = shifted(cx, a, za, Side::Rows, "a_zero_point")?;
        let b = shifted(cx, b, zb, Side::Columns, "b_zero_point")?;
        return matmul_of(cx, a, b);
    }
    let (a, za) = as_byte_type(cx, a, za, (Type::UI8, Side::Rows), "a_zero_point")?;
    let (b, zb) = as_byte_type(cx, b, zb, (Type::I8, Side::Columns), "b_zero_point")?;
    let mut y = matmul_of(cx, a, b)?;
    if let Some(za) = za {
        let colsum = sum_i32(cx, b, sb.len() - 2)?;
        let t = cx.binary("graph.mul", za, colsum)?;
        y = cx.binary("graph.sub", y, t)?;
    }
    if let Some(zb) = zb {
        let rowsum = sum_i32(cx, a, sa.len() - 1)?;
        let t = cx.binary("graph.mul", zb, rowsum)?;
        y = cx.binary("graph.sub", y, t)?;
    }
    if let (Some(za), Some(zb)) = (za, zb) {
        let k = cx.constant(Literal::from_i64(DType::I32, &[], &[k]));
        let t = cx.binary("graph.mul", za, zb)?;
        let t = cx.binary("graph.mul", t, k)?;
        y = cx.binary("graph.add", y, t)?;
    }
    Ok(y)
}

/// The sums of the 8-bit matrix `m` along `axis`, in `i32`, the axis kept. A constant `m` (a
/// weight) is summed here from its bytes ([`byte_sums`]), so the IR never holds its widened
/// `i32` copy.
fn sum_i32(cx: &mut NodeCx, m: Value, axis: usize) -> NodeResult<Value> {
    if let Some(sums) = byte_sums(cx, m, axis) {
        return Ok(cx.constant(sums));
    }
    let wide = cx.cast(m, Type::I32)?;
    cx.reduce("graph.reduce_sum", wide, &[axis as i64], true)
}

/// The sums along `axis` (kept) of constant 8-bit `m`, read from its packed bytes, wrapped to
/// `i32` as `graph.reduce_sum` in `i32` wraps; `None` when `m` is not a constant. A T5
/// encoder's 35 MB of `i8` weights took 200 ms decoded into the interpreter's tensors and summed
/// there, and a few here.
fn byte_sums(cx: &mut NodeCx, m: Value, axis: usize) -> Option<Literal> {
    let unsigned = cx.elem(m) == Type::UI8;
    let mut shape = dlc_tensor::static_shape(&cx.shape(m))?;
    let (splat, data) = cx.constant_bytes(m)?;
    let value = |byte: u8| {
        if unsigned {
            byte as i64
        } else {
            byte as i8 as i64
        }
    };
    let len = *shape.get(axis)?;
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut sums = vec![0i64; outer * inner];
    if splat {
        let v = value(*data.first()?) * len as i64;
        sums.fill(v);
    } else {
        if data.len() != outer * len * inner {
            return None;
        }
        for (o, row) in sums.chunks_mut(inner.max(1)).enumerate().take(outer) {
            for k in 0..len {
                let at = (o * len + k) * inner;
                for (s, &b) in row.iter_mut().zip(&data[at..at + inner]) {
                    *s += value(b);
                }
            }
        }
    }
    shape[axis] = 1;
    Some(Literal::from_i64(DType::I32, &shape, &sums))
}

/// Matrix `m` of an 8-bit type as type `want` (`ui8` or `i8`), and its zero point `zp` as an
/// `i32` shaped for `side` (`None` for none or a constant 0): the other 8-bit type moves by
/// 128 into `want`'s range, and its zero point with it, so `m − zp` keeps its values.
fn as_byte_type(
    cx: &mut NodeCx,
    m: Value,
    zp: Option<Value>,
    (want, side): (Type, Side),
    what: &str,
) -> NodeResult<(Value, Option<Value>)> {
    let zp = match zp {
        Some(z) => {
            same_type(cx, z, m, what)?;
            let z = matrix_param(cx, z, m, side, what)?;
            Some(cx.cast(z, Type::I32)?)
        }
        None => None,
    };
    let (m, zp) = if cx.elem(m) == want {
        (m, zp)
    } else {
        let shift = if want == Type::UI8 { 128 } else { -128 };
        let shift = cx.constant(Literal::from_i64(DType::I32, &[], &[shift]));
        let wide = cx.cast(m, Type::I32)?;
        let moved = cx.binary("graph.add", wide, shift)?;
        let zp = match zp {
            Some(z) => cx.binary("graph.add", z, shift)?,
            None => shift,
        };
        (cx.cast(moved, want)?, Some(zp))
    };
    let zero = zp
        .and_then(|z| cx.constant_of(z))
        .is_some_and(|t| t.to_f64_vec().iter().all(|&x| x == 0.0));
    Ok((m, if zero { None } else { zp }))
}

/// The requantization of the QLinear ops:
/// `saturate(round(acc · (x_scale · w_scale / y_scale)) + y_zero_point)`, the multiplier in the scales' type and the product in `f64`, as the
/// reference does. `acc` is the exact integer result (an integer or float tensor); the scales
/// already broadcast against it.
pub(super) fn requantize(
    cx: &mut NodeCx,
    acc: Value,
    scales: [Value; 3],
    zp: Option<Value>,
    out: Type,
) -> NodeResult<Value> {
    let [sa, sb, sy] = scales;
    let ty = cx.elem(sa);
    let sb = cx.cast(sb, ty)?;
    let sy = cx.cast(sy, ty)?;
    let ab = cx.binary("graph.mul", sa, sb)?;
    let m = cx.binary("graph.div", ab, sy)?;
    let m = cx.cast(m, Type::F64)?;
    let acc = cx.cast(acc, Type::F64)?;
    let d = cx.binary("graph.mul", acc, m)?;
    saturate(cx, d, zp, out)
}

/// The output type of a QLinear op: its zero point's, or the input's when it has none.
fn qlinear_output(cx: &NodeCx, zp: Option<Value>, input: Value) -> NodeResult<Type> {
    let ty = zp.map_or(cx.elem(input), |z| cx.elem(z));
    if matches!(ty, Type::I8 | Type::UI8) {
        return Ok(ty);
    }
    Err(format!(
        "y_zero_point must be an int8 or uint8 tensor, not {}",
        super::dtype(ty).name()
    )
    .into())
}

/// A scale of a matrix product, checked and shaped like its zero point.
fn matrix_scale(
    cx: &mut NodeCx,
    scale: Value,
    zp: Option<Value>,
    m: Value,
    side: Side,
    what: &str,
) -> NodeResult<Value> {
    expect_float(cx, scale, what)?;
    if let Some(zp) = zp {
        same_shape(cx, zp, scale, &format!("the zero point of {what}"))?;
    }
    matrix_param(cx, scale, m, side, what)
}

/// `saturate(round((A − a_zp) · (B − b_zp) · a_scale · b_scale / y_scale) + y_zp)`.
fn qlinear_matmul(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b) = (cx.input(0)?, cx.input(3)?);
    let (sa, sb, sy) = (cx.input(1)?, cx.input(4)?, cx.input(6)?);
    let (za, zb, zy) = (cx.opt_input(2), cx.opt_input(5), cx.opt_input(7));
    expect_8bit(cx, a, "a")?;
    expect_8bit(cx, b, "b")?;
    let out = qlinear_output(cx, zy, a)?;
    let acc = integer_product(cx, (a, za), (b, zb))?;
    let sa = matrix_scale(cx, sa, za, a, Side::Rows, "a_scale")?;
    let sb = matrix_scale(cx, sb, zb, b, Side::Columns, "b_scale")?;
    let sy = matrix_scale(cx, sy, zy, acc, Side::Output, "y_scale")?;
    let zy = match zy {
        Some(z) => Some(matrix_param(cx, z, acc, Side::Output, "y_zero_point")?),
        None => None,
    };
    // A rank-1 operand's dim is gone from the product: its per-row or per-column parameters
    // are scalars (matrix_param allowed nothing else), and they broadcast as such.
    Ok(vec![requantize(cx, acc, [sa, sb, sy], zy, out)?])
}

/// Checks that `p` (input `what` of a convolution) is one value (per tensor).
fn conv_scalar(cx: &mut NodeCx, p: Value, what: &str) -> NodeResult<Value> {
    if !is_single(cx, p) {
        return Err(format!(
            "{what} must be a scalar (per-tensor), but has shape {}",
            show_shape(&cx.shape(p))
        )
        .into());
    }
    to_scalar(cx, p)
}

/// Weight parameter `p` of a convolution: a scalar, or one value per output channel (a
/// vector of `channels` elements), shaped to broadcast against the weights or the output.
fn per_channel(
    cx: &mut NodeCx,
    p: Value,
    channels: i64,
    rank: usize,
    channel_axis: usize,
    what: &str,
) -> NodeResult<Value> {
    if is_single(cx, p) {
        return to_scalar(cx, p);
    }
    let ps = cx.shape(p);
    if ps != [channels] {
        return Err(format!(
            "{what} must be a scalar or have one value per output channel ({channels}), but has shape {}",
            show_shape(&ps)
        )
        .into());
    }
    let mut shape = vec![1; rank];
    shape[channel_axis] = channels;
    cx.reshape(p, &shape)
}

/// `x` and `w` minus their zero points (`x`'s per tensor, `w`'s per tensor or per output
/// channel), convolved: as a convolution of bytes ([`byte_conv`], an `i32` result) where it
/// applies, else exactly in floats (see [`exact_float`]), the float result holding the
/// integers.
fn conv_shifted(
    cx: &mut NodeCx,
    x: Value,
    w: Value,
    zx: Option<Value>,
    zw: Option<Value>,
) -> NodeResult<Value> {
    expect_8bit(cx, x, "x")?;
    expect_8bit(cx, w, "w")?;
    let ws = cx.static_shape(w, "the convolution's weights")?;
    if ws.len() < 3 {
        return Err(format!(
            "the weights have shape {}; a convolution needs M×C×kernel",
            show_shape(&ws)
        )
        .into());
    }
    if let Some(z) = zx {
        same_type(cx, z, x, "x_zero_point")?;
    }
    if let Some(z) = zw {
        same_type(cx, z, w, "w_zero_point")?;
    }
    if let Some(y) = byte_conv(cx, (x, zx), (w, zw), &ws)? {
        return Ok(y);
    }
    let mut xi = cx.cast(x, Type::I32)?;
    if let Some(z) = zx {
        let z = conv_scalar(cx, z, "x_zero_point")?;
        let z = cx.cast(z, Type::I32)?;
        xi = cx.binary("graph.sub", xi, z)?;
    }
    let mut wi = cx.cast(w, Type::I32)?;
    if let Some(z) = zw {
        let z = per_channel(cx, z, ws[0], ws.len(), 0, "w_zero_point")?;
        let z = cx.cast(z, Type::I32)?;
        wi = cx.binary("graph.sub", wi, z)?;
    }
    let float = exact_float(cx, wi, &ws)?;
    let xf = cx.cast(xi, float)?;
    let wf = cx.cast(wi, float)?;
    conv_of(cx, xf, wf, 0.0)
}

/// `(x − x_zp) ⋆ (w − w_zp)` in wrapping `i32` as a `graph.conv2d` of bytes, which runs as an
/// im2col byte product (the CPU's 8-bit dot products where it has them), for constant weights
/// (of shape `ws`) and a constant or absent input zero point:
/// - the weights minus their zero point (per tensor or per output channel), computed here,
///   must fit `i8` (else `None`);
/// - `x` is taken as `ui8`: an `i8` input moves by 128, and its zero point with it;
/// - the padding holds the input's zero point `zx`, so every tap is `x − zx` after
///   `zx · Σw` (per output channel, computed here) is subtracted from the product.
///
/// `None` when it does not apply; the caller then convolves in floats.
fn byte_conv(
    cx: &mut NodeCx,
    (x, zx): (Value, Option<Value>),
    (w, zw): (Value, Option<Value>),
    ws: &[i64],
) -> NodeResult<Option<Value>> {
    let constant = |cx: &mut NodeCx, v: Option<Value>| match v {
        None => Some(vec![0]),
        Some(v) => cx.imp.constant_value(v).map(|t| t.to_i64_vec()),
    };
    let (Some(layout), Some(zw), Some(zx)) =
        (small_int(cx.elem(w)), constant(cx, zw), constant(cx, zx))
    else {
        return Ok(None);
    };
    let channels = ws[0];
    let per_channel = ws[1..].iter().try_fold(1i64, |n, &d| n.checked_mul(d));
    let (Ok(channels_n), Some(Ok(per_channel_n))) =
        (usize::try_from(channels), per_channel.map(usize::try_from))
    else {
        return Ok(None);
    };
    if zx.len() != 1 || !(zw.len() == 1 || zw.len() == channels_n) || per_channel_n == 0 {
        return Ok(None);
    }
    // The weights minus their zero points, as `i8` bytes, and their sum per output channel:
    // read from the constant's bytes, as the weights are most of a model's constants.
    let Some((shifted, sums)) = cx.constant_bytes(w).and_then(|stored| {
        let mut shifted = Vec::with_capacity(channels_n * per_channel_n);
        let mut sums = Vec::with_capacity(channels_n);
        let mut values = Vec::with_capacity(per_channel_n);
        for c in 0..channels_n {
            let z = zw[if zw.len() == 1 { 0 } else { c }];
            let mut sum = 0i64;
            values.clear();
            stored_run(
                stored,
                layout,
                (c * per_channel_n, per_channel_n),
                &mut values,
            )?;
            for &v in &values {
                let v = i64::from(v) - z;
                sum += v;
                shifted.push(i8::try_from(v).ok()? as u8);
            }
            sums.push(sum);
        }
        Some((shifted, sums))
    }) else {
        return Ok(None);
    };
    let ctx = cx.ctx();
    let ty = ctx.tensor_type(ws, Type::I8);
    let w8 = ctx.dense_attr_packed(ty, shifted);
    let w8 = cx.attr_constant(w8);
    let (x8, zx) = if cx.elem(x) == Type::UI8 {
        (x, zx[0])
    } else {
        let shift = cx.constant(Literal::from_i64(DType::I32, &[], &[128]));
        let wide = cx.cast(x, Type::I32)?;
        let moved = cx.binary("graph.add", wide, shift)?;
        (cx.cast(moved, Type::UI8)?, zx[0] + 128)
    };
    let y = conv_of(cx, x8, w8, zx as f64)?;
    if zx == 0 {
        return Ok(Some(y));
    }
    // zx · Σw per output channel, wrapping as the i32 accumulation does.
    let sums: Vec<i64> = sums
        .iter()
        .map(|s| i64::from(s.wrapping_mul(zx) as i32))
        .collect();
    let mut shape = vec![1; cx.shape(y).len()];
    shape[1] = channels_n;
    let sums = cx.constant(Literal::from_i64(DType::I32, &shape, &sums));
    Ok(Some(cx.binary("graph.sub", y, sums)?))
}

/// `f(acc) · a_scale · b_scale (+ bias)` in the scales' float type: the float tail of the
/// integer matrix products and convolutions. `acc` is the `i32` product; the scales broadcast
/// against it.
pub(super) fn scale_to_float(
    cx: &mut NodeCx,
    acc: Value,
    sa: Value,
    sb: Value,
    bias: Option<Value>,
) -> NodeResult<Value> {
    let ty = cx.elem(sa);
    let sb = cx.cast(sb, ty)?;
    let m = cx.binary("graph.mul", sa, sb)?;
    let f = cx.cast(acc, ty)?;
    let mut y = cx.binary("graph.mul", f, m)?;
    if let Some(b) = bias {
        expect_float(cx, b, "bias")?;
        let b = cx.cast(b, ty)?;
        y = cx.binary("graph.add", y, b)?;
    }
    Ok(y)
}

/// The `DequantizeLinear`s that `a` and `b` are the outputs of, when both are.
fn dequantized_pair(cx: &NodeCx, a: Value, b: Value) -> Option<(Dequantized, Dequantized)> {
    let d = &cx.imp.dequantized;
    Some((*d.get(&a)?, *d.get(&b)?))
}

/// A Conv of two `DequantizeLinear` outputs (the QDQ pattern: `x` per tensor, the weights
/// per tensor or per output channel) as the byte convolution of the quantized tensors
/// ([`byte_conv`]), scaled: `(x_scale · w_scale[o]) · ((xq − x_zp) ⋆ (wq − w_zp))`. That is
/// the float convolution of the dequantized tensors with exact sums, rounded once. `None`
/// when the pattern or [`byte_conv`] does not apply.
pub(super) fn qdq_conv(cx: &mut NodeCx, x: Value, w: Value) -> NodeResult<Option<Value>> {
    let Some((dx, dw)) = dequantized_pair(cx, x, w) else {
        return Ok(None);
    };
    let ws = cx.shape(w);
    if dx.axis.is_some()
        || !matches!(dw.axis, None | Some(0))
        || ws.len() < 3
        || ws.contains(&DYNAMIC)
    {
        return Ok(None);
    }
    let Some(acc) = byte_conv(cx, (dx.q, dx.zero_point), (dw.q, dw.zero_point), &ws)? else {
        return Ok(None);
    };
    let sx = to_scalar(cx, dx.scale)?;
    let sw = match dw.axis {
        None => to_scalar(cx, dw.scale)?,
        Some(_) => {
            let mut shape = vec![1; ws.len()];
            shape[1] = ws[0];
            cx.reshape(dw.scale, &shape)?
        }
    };
    Ok(Some(scale_to_float(cx, acc, sx, sw, None)?))
}

/// A MatMul (or Gemm, `B` transposed when `trans_b`) of two `DequantizeLinear` outputs (`A`
/// per tensor, `B` per tensor or, as a matrix, per column of the product) as the byte product
/// of the quantized tensors ([`integer_product`]), scaled:
/// `(a_scale · b_scale[n]) · ((Aq − a_zp) · (Bq − b_zp))`. `None` when the pattern does not
/// apply.
pub(super) fn qdq_matmul(
    cx: &mut NodeCx,
    a: Value,
    b: Value,
    trans_b: bool,
) -> NodeResult<Option<Value>> {
    let Some((da, db)) = dequantized_pair(cx, a, b) else {
        return Ok(None);
    };
    let rb = cx.shape(b).len();
    // The axis of `B` that becomes the product's columns.
    let column_axis = if trans_b {
        rb.checked_sub(2)
    } else {
        rb.checked_sub(1)
    };
    let per_column = rb >= 2 && db.axis.is_some() && db.axis == column_axis;
    if da.axis.is_some() || cx.shape(a).len() < 2 || !(db.axis.is_none() || per_column) {
        return Ok(None);
    }
    let (bq, zb) = if trans_b {
        // Per tensor, the zero point is a scalar; per column, a vector: neither moves.
        (cx.transpose(db.q, &[1, 0])?, db.zero_point)
    } else {
        (db.q, db.zero_point)
    };
    let acc = integer_product(cx, (da.q, da.zero_point), (bq, zb))?;
    let sa = to_scalar(cx, da.scale)?;
    let sb = if per_column {
        db.scale
    } else {
        to_scalar(cx, db.scale)?
    };
    Ok(Some(scale_to_float(cx, acc, sa, sb, None)?))
}

/// The float type in which a convolution by the shifted weights `w` (shape `ws`) of inputs
/// shifted by their zero point (|x − zp| ≤ 255) is exact: every partial sum of an output is
/// an integer of at most 255 · Σ|w| over its window (the weights' sums per output channel
/// when they are constants, else 255 · 255 per term), which `f32` holds exactly below 2²⁴ and
/// `f64` below 2⁵³.
fn exact_float(cx: &mut NodeCx, w: Value, ws: &[i64]) -> NodeResult<Type> {
    let per_channel: i128 = ws[1..].iter().map(|d| i128::from(*d)).product();
    let bound: i128 = match cx.imp.constant_value(w) {
        Some(t) if ws[0] > 0 && per_channel > 0 => {
            let values = t.to_i64_vec();
            values
                .chunks(per_channel as usize)
                .map(|c| c.iter().map(|v| i128::from(v.unsigned_abs())).sum::<i128>())
                .max()
                .unwrap_or(0)
                * 255
        }
        _ => per_channel * 255 * 255,
    };
    if bound < 1 << 24 {
        Ok(Type::F32)
    } else if bound < 1 << 53 {
        Ok(Type::F64)
    } else {
        Err(format!(
            "the convolution's sums reach {bound}, past what dlc's float convolution computes exactly (2^53)"
        )
        .into())
    }
}

/// `(x − x_zp) ⋆ (w − w_zp)` in `i32`.
fn conv_integer(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, w) = (cx.input(0)?, cx.input(1)?);
    let (zx, zw) = (cx.opt_input(2), cx.opt_input(3));
    let y = conv_shifted(cx, x, w, zx, zw)?;
    if cx.elem(y) == Type::I32 {
        return Ok(vec![y]);
    }
    // Sums past the i32 range wrap, as 32-bit accumulation does (f64 → i64 is exact).
    let wide = cx.cast(y, Type::I64)?;
    Ok(vec![cx.cast(wide, Type::I32)?])
}

/// `saturate(round(((x − x_zp) ⋆ (w − w_zp) + B) · x_scale · w_scale / y_scale) + y_zp)`,
/// `w_scale` and `w_zp` per tensor or per output channel.
fn qlinear_conv(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, w) = (cx.input(0)?, cx.input(3)?);
    let (sx, sw, sy) = (cx.input(1)?, cx.input(4)?, cx.input(6)?);
    let (zx, zw, zy) = (cx.opt_input(2), cx.opt_input(5), cx.opt_input(7));
    let out = qlinear_output(cx, zy, x)?;
    let acc = conv_shifted(cx, x, w, zx, zw)?;
    let rank = cx.shape(acc).len();
    let channels = cx.shape(w)[0];
    let mut acc = cx.cast(acc, Type::F64)?;
    if let Some(b) = cx.opt_input(8) {
        if cx.elem(b) != Type::I32 {
            return Err(format!("B must be an int32 tensor, not {}", elem_name(cx, b)).into());
        }
        let b = per_channel(cx, b, channels, rank, 1, "B")?;
        let b = cx.cast(b, Type::F64)?;
        acc = cx.binary("graph.add", acc, b)?;
    }
    for (s, what) in [(sx, "x_scale"), (sw, "w_scale"), (sy, "y_scale")] {
        expect_float(cx, s, what)?;
    }
    if let Some(z) = zw {
        same_shape(cx, z, sw, "w_zero_point")?;
    }
    let sx = conv_scalar(cx, sx, "x_scale")?;
    let sy = conv_scalar(cx, sy, "y_scale")?;
    let sw = per_channel(cx, sw, channels, rank, 1, "w_scale")?;
    let zy = match zy {
        Some(z) => Some(conv_scalar(cx, z, "y_zero_point")?),
        None => None,
    };
    Ok(vec![requantize(cx, acc, [sx, sw, sy], zy, out)?])
}
