//! Neural-network operators: MatMul, Gemm, Conv and ConvTranspose (1-D and 2-D), MaxPool,
//! AveragePool and LpPool (any spatial rank), the global pools, BatchNormalization (inference), LayerNormalization, RMSNormalization,
//! InstanceNormalization, GroupNormalization, LpNormalization, Softmax, LogSoftmax and
//! Hardmax.
//!
//! Convolutions and pools map to the graph dialect's `conv2d` and `*_pool2d` composites; 1-D
//! ones are 2-D ones with a height of 1. ONNX's `auto_pad` and `ceil_mode` become explicit
//! padding computed from the static spatial sizes.

use super::pool::Reduction;
use super::{axis, table, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::shape_values::Dim;
use dlc_ir::{Type, Value, DYNAMIC};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("MatMul", matmul),
    ("Gemm", gemm),
    ("Conv", conv),
    ("ConvTranspose", conv_transpose),
    ("MaxPool", pool),
    ("AveragePool", pool),
    ("LpPool", pool),
    ("GlobalAveragePool", global_pool),
    ("GlobalMaxPool", global_pool),
    ("BatchNormalization", batch_norm),
    ("LayerNormalization", layer_norm),
    ("RMSNormalization", rms_norm),
    ("GroupNormalization", group_norm),
    ("LpNormalization", lp_norm),
    ("Hardmax", hardmax),
    ("InstanceNormalization", instance_norm),
    ("Softmax", softmax),
    ("LogSoftmax", softmax),
];

/// Dims as reshape entries (`?` → −1).
fn entries(shape: &[i64]) -> Vec<i64> {
    shape
        .iter()
        .map(|d| if *d == DYNAMIC { -1 } else { *d })
        .collect()
}

fn matmul(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    if let Some(y) = super::quant::qdq_matmul(cx, a, b, false)? {
        return Ok(vec![y]);
    }
    Ok(vec![matmul_of(cx, a, b)?])
}

/// numpy matmul, with rank-1 operands promoted and their dim dropped again.
pub(super) fn matmul_of(cx: &mut NodeCx, a: Value, b: Value) -> NodeResult<Value> {
    let (sa, sb) = (cx.shape(a), cx.shape(b));
    if sa.is_empty() || sb.is_empty() {
        return Err("MatMul operands must have rank ≥ 1".into());
    }
    let a2 = if sa.len() == 1 {
        cx.reshape(a, &[1, entries(&sa)[0]])?
    } else {
        a
    };
    let b2 = if sb.len() == 1 {
        cx.reshape(b, &[entries(&sb)[0], 1])?
    } else {
        b
    };
    let y = cx.op("graph.matmul", &[a2, b2], &[])?;
    if sa.len() > 1 && sb.len() > 1 {
        return Ok(y);
    }
    let mut out = entries(&cx.shape(y));
    let n = out.len();
    if sb.len() == 1 {
        out.remove(n - 1);
    }
    if sa.len() == 1 {
        out.remove(n - 2);
    }
    if out.iter().filter(|d| **d == -1).count() > 1 {
        return Err("MatMul of a rank-1 operand with more than one dynamic dim".into());
    }
    cx.reshape(y, &out)
}

/// `alpha · A' · B' + beta · C`.
fn gemm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (mut a, mut b) = (cx.input(0)?, cx.input(1)?);
    let alpha = cx.float_or("alpha", 1.0);
    let beta = cx.float_or("beta", 1.0);
    cx.ignore("broadcast");
    let (trans_a, trans_b) = (cx.int_or("transA", 0) != 0, cx.int_or("transB", 0) != 0);
    let qdq = match (trans_a, cx.shape(b).len()) {
        (false, 2) => super::quant::qdq_matmul(cx, a, b, trans_b)?,
        _ => None,
    };
    let mut y = match qdq {
        Some(y) => y,
        None => {
            if trans_a {
                a = cx.transpose(a, &[1, 0])?;
            }
            if trans_b {
                b = cx.transpose(b, &[1, 0])?;
            }
            cx.op("graph.matmul", &[a, b], &[])?
        }
    };
    if alpha != 1.0 {
        let s = cx.scalar(alpha, y);
        y = cx.binary("graph.mul", y, s)?;
    }
    if let Some(mut c) = cx.opt_input(2) {
        if beta != 1.0 {
            let s = cx.scalar(beta, c);
            c = cx.binary("graph.mul", c, s)?;
        }
        y = cx.binary("graph.add", y, c)?;
    }
    Ok(vec![y])
}

/// A window op's geometry on its spatial axes (1 or 2 of them), from the ONNX attributes.
#[derive(Clone)]
pub(super) struct Window {
    pub(super) kernel: Vec<i64>,
    pub(super) strides: Vec<i64>,
    pub(super) dilations: Vec<i64>,
    /// Begin pads then end pads, ONNX order.
    pub(super) pads: Vec<i64>,
    /// What `ceil_mode` adds to the end pads (padding that never counts in an average).
    pub(super) ceil_extra: Vec<i64>,
}

impl Window {
    /// Reads `strides`, `dilations`, `pads`/`auto_pad` (and `ceil_mode` when `ceil` allows it)
    /// for spatial dims `spatial` and kernel `kernel`.
    fn read(cx: &mut NodeCx, spatial: &[i64], kernel: Vec<i64>, ceil: bool) -> NodeResult<Window> {
        let n = spatial.len();
        let strides = cx.attr_ints("strides").unwrap_or_else(|| vec![1; n]);
        let dilations = cx.attr_ints("dilations").unwrap_or_else(|| vec![1; n]);
        let mut pads = cx.attr_ints("pads").unwrap_or_else(|| vec![0; 2 * n]);
        if strides.len() != n || dilations.len() != n || pads.len() != 2 * n || kernel.len() != n {
            return Err(format!(
                "strides, dilations, kernel and pads must cover the {n} spatial axes"
            )
            .into());
        }
        if strides
            .iter()
            .chain(&dilations)
            .chain(&kernel)
            .any(|v| *v <= 0)
            || pads.iter().any(|p| *p < 0)
        {
            return Err("kernel, strides and dilations must be positive, pads non-negative".into());
        }
        let auto_pad = cx
            .attr_string("auto_pad")
            .unwrap_or_else(|| "NOTSET".into());
        // Attributes are the model's: compute in i128 and check what comes back fits.
        let wide = |v: i64| i128::from(v);
        let effective = |i: usize| (wide(kernel[i]) - 1) * wide(dilations[i]) + 1;
        let fit = |v: i128| -> NodeResult<i64> {
            i64::try_from(v)
                .ok()
                .filter(|v| *v <= crate::importer::MAX_TENSOR_ELEMENTS)
                .ok_or_else(|| "the window's padding is larger than any tensor".into())
        };
        match auto_pad.as_str() {
            "NOTSET" => {}
            "VALID" => pads = vec![0; 2 * n],
            "SAME_UPPER" | "SAME_LOWER" => {
                for i in 0..n {
                    if spatial[i] == DYNAMIC {
                        return Err("auto_pad SAME needs static spatial dims".into());
                    }
                    let (sp, st) = (wide(spatial[i]), wide(strides[i]));
                    let out = (sp + st - 1) / st;
                    let total = fit(((out - 1) * st + effective(i) - sp).max(0))?;
                    let small = total / 2;
                    let (begin, end) = if auto_pad == "SAME_UPPER" {
                        (small, total - small)
                    } else {
                        (total - small, small)
                    };
                    pads[i] = begin;
                    pads[i + n] = end;
                }
            }
            other => return Err(format!("auto_pad '{other}' is not supported").into()),
        }
        let mut ceil_extra = vec![0; n];
        if ceil && cx.int_or("ceil_mode", 0) != 0 {
            // Grow the end pads so the floor formula gives the ceil one; a last window that
            // would start in the end padding is dropped, as the spec says.
            for i in 0..n {
                if spatial[i] == DYNAMIC {
                    return Err("ceil_mode needs static spatial dims".into());
                }
                let (sp, st) = (wide(spatial[i]), wide(strides[i]));
                let (pb, pe) = (wide(pads[i]), wide(pads[i + n]));
                let span = sp + pb + pe - effective(i);
                let mut out = (span + st - 1).div_euclid(st) + 1;
                if (out - 1) * st >= sp + pb {
                    out -= 1;
                }
                ceil_extra[i] = fit(((out - 1) * st + effective(i) - (sp + pb + pe)).max(0))?;
            }
        }
        Ok(Window {
            kernel,
            strides,
            dilations,
            pads,
            ceil_extra,
        })
    }

    /// The graph dialect's 2-D attributes: (kernel, strides, dilations, padding t, l, b, r),
    /// a 1-D window as height 1.
    fn as_2d(&self) -> ([i64; 2], [i64; 2], [i64; 2], [i64; 4]) {
        let n = self.kernel.len();
        let p: Vec<i64> = (0..2 * n)
            .map(|i| self.pads[i] + if i >= n { self.ceil_extra[i - n] } else { 0 })
            .collect();
        if n == 1 {
            return (
                [1, self.kernel[0]],
                [1, self.strides[0]],
                [1, self.dilations[0]],
                [0, p[0], 0, p[1]],
            );
        }
        (
            [self.kernel[0], self.kernel[1]],
            [self.strides[0], self.strides[1]],
            [self.dilations[0], self.dilations[1]],
            [p[0], p[1], p[2], p[3]],
        )
    }
}

/// `x` as NCHW: a rank-3 NCL tensor gets H = 1. Errors for other ranks.
fn to_nchw(cx: &mut NodeCx, x: Value) -> NodeResult<Value> {
    let s = cx.shape(x);
    match s.len() {
        4 => Ok(x),
        3 if s.iter().filter(|&&d| d == DYNAMIC).count() > 1 => {
            let d = cx.dims(x);
            cx.sized_reshape(x, &[d[0], d[1], Dim::Known(1), d[2]])
        }
        3 => {
            let e = entries(&s);
            cx.reshape(x, &[e[0], e[1], 1, e[2]])
        }
        r => Err(format!("only 1-D and 2-D windows are supported (input rank {r})").into()),
    }
}

/// Undoes [`to_nchw`] for a rank-`rank` original.
fn from_nchw(cx: &mut NodeCx, y: Value, rank: usize) -> NodeResult<Value> {
    if rank == 4 {
        return Ok(y);
    }
    let s = cx.shape(y);
    if s.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
        let d = cx.dims(y);
        return cx.sized_reshape(y, &[d[0], d[1], d[3]]);
    }
    let e = entries(&s);
    cx.reshape(y, &[e[0], e[1], e[3]])
}

/// The kernel's spatial dims from the weights' shape, checked against `kernel_shape`.
fn kernel_of(cx: &mut NodeCx, weights: &[i64]) -> NodeResult<Vec<i64>> {
    let kernel = weights[2..].to_vec();
    match cx.attr_ints("kernel_shape") {
        Some(k) if k != kernel => {
            Err(format!("kernel_shape {k:?} does not match the weights' {kernel:?}").into())
        }
        _ => Ok(kernel),
    }
}

fn conv(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, w) = (cx.input(0)?, cx.input(1)?);
    let mut y = match super::quant::qdq_conv(cx, x, w)? {
        Some(y) => y,
        None => conv_of(cx, x, w, 0.0)?,
    };
    if let Some(b) = cx.opt_input(2) {
        let (rank, channels) = (cx.shape(x).len(), cx.shape(w)[0]);
        let mut shape = vec![1; rank];
        shape[1] = channels;
        let b = cx.reshape(b, &shape)?;
        y = cx.binary("graph.add", y, b)?;
    }
    Ok(vec![y])
}

/// The convolution of `x` by `w` (no bias) with the node's window attributes (`kernel_shape`,
/// `strides`, `dilations`, `pads`, `auto_pad`, `group`): 1-D or 2-D, as `graph.conv2d`.
/// `pad_value` is what the padding holds (an integer convolution's input zero point): other
/// than 0, the padding is a `graph.pad` before an unpadded `graph.conv2d`.
pub(super) fn conv_of(cx: &mut NodeCx, x: Value, w: Value, pad_value: f64) -> NodeResult<Value> {
    let (xs, ws) = (
        cx.shape(x),
        cx.static_shape(w, "the convolution's weights")?,
    );
    if xs.len() != ws.len() || !(3..=4).contains(&xs.len()) {
        return Err(format!(
            "only 1-D and 2-D convolutions are supported (input rank {}, weight rank {})",
            xs.len(),
            ws.len()
        )
        .into());
    }
    let kernel = kernel_of(cx, &ws)?;
    let window = Window::read(cx, &xs[2..], kernel, false)?;
    let groups = cx.int_or("group", 1);
    let (_, strides, dilations, mut padding) = window.as_2d();
    let mut x4 = to_nchw(cx, x)?;
    let w4 = to_nchw(cx, w)?;
    if pad_value != 0.0 && padding != [0; 4] {
        let [t, l, b, r] = padding;
        x4 = cx.pad_or_crop(x4, &[0, 0, t, l], &[0, 0, b, r], pad_value)?;
        padding = [0; 4];
    }
    let attrs = [
        ("strides", cx.array_attr(&strides)),
        ("dilations", cx.array_attr(&dilations)),
        ("padding", cx.array_attr(&padding)),
        ("groups", cx.int_attr(groups)),
    ];
    let y = cx.op("graph.conv2d", &[x4, w4], &attrs)?;
    from_nchw(cx, y, xs.len())
}

/// Whether 2-D ConvTranspose `x ⊛ w` has its kernel equal to its strides, one group, and no
/// padding, dilation or output padding: the upsampling of U-Nets, FPNs and text detectors,
/// which [`upsample_by_kernel`] computes without the dilated input.
fn kernel_is_stride(cx: &mut NodeCx, x: Value, w: Value) -> bool {
    let (ws, xs) = (cx.shape(w), cx.shape(x));
    let ones = |v: Option<Vec<i64>>, one: i64| v.is_none_or(|v| v.iter().all(|&d| d == one));
    let (kh, kw) = match ws[..] {
        [_, _, kh, kw] if xs.len() == 4 && kh > 0 && kw > 0 => (kh, kw),
        _ => return false,
    };
    let strides = cx.attr_ints("strides").unwrap_or_else(|| vec![1, 1]);
    let kernel = cx.attr_ints("kernel_shape").unwrap_or_else(|| vec![kh, kw]);
    strides == [kh, kw]
        && kernel == [kh, kw]
        && cx.int_or("group", 1) == 1
        && ones(cx.attr_ints("dilations"), 1)
        && ones(cx.attr_ints("pads"), 0)
        && ones(cx.attr_ints("output_padding"), 0)
        && cx.attr_ints("output_shape").is_none()
        && matches!(
            cx.attr_string("auto_pad").as_deref(),
            None | Some("NOTSET") | Some("VALID")
        )
        && xs[1] == ws[0]
}

/// A 2-D ConvTranspose whose kernel equals its strides ([`kernel_is_stride`]): each input
/// pixel becomes a `KH×KW` block of outputs, `y[n, o, h·KH + a, w·KW + b] = Σ_c x[n, c, h, w]
/// · W[c, o, a, b]`, one matmul of the weights `[O·KH·KW, C]` by the pixels `[N, C, H·W]`,
/// then the blocks interleaved by a transpose between sized reshapes. Over dynamic dims the
/// dilate-and-convolve form would need static sizes; over static ones it convolves an input
/// three quarters zeros (a 2x2 kernel): ppocr_det's two upsamplings took 3.3 ms of its 13 ms
/// that way (`dlc-run --bench 30 --profile`).
fn upsample_by_kernel(cx: &mut NodeCx, x: Value, w: Value) -> NodeResult<Value> {
    let ws = cx.static_shape(w, "ConvTranspose's weights")?;
    let xs = cx.shape(x);
    let (kh, kw) = match ws[..] {
        [_, _, kh, kw] if xs.len() == 4 => (kh, kw),
        _ => return Err("ConvTranspose over dynamic dims must be 2-D".into()),
    };
    if !kernel_is_stride(cx, x, w) {
        return Err(format!(
            "ConvTranspose of an input with dynamic dims ({}) is supported only with kernel = \
             strides, one group, no padding or dilation; give the sizes with --dim or \
             --input-shape",
            crate::importer::show_shape(&xs)
        )
        .into());
    }
    let (c, o) = (ws[0], ws[1]);
    let dims = cx.dims(x);
    let (n, h, wd) = (dims[0], dims[2], dims[3]);
    let pixels = cx.dims_product(&[h, wd]).ok_or("too many pixels")?;
    let flat = cx.sized_reshape(x, &[n, Dim::Known(c), pixels])?;
    let wt = cx.reshape(w, &[c, o * kh * kw])?;
    let wt = cx.transpose(wt, &[1, 0])?;
    let y = cx.op("graph.matmul", &[wt, flat], &[])?; // [N, O·KH·KW, H·W]
    let blocks = [n, Dim::Known(o), Dim::Known(kh), Dim::Known(kw), h, wd];
    let y = cx.sized_reshape(y, &blocks)?;
    let y = cx.transpose(y, &[0, 1, 4, 2, 5, 3])?; // [N, O, H, KH, W, KW]
    let (oh, ow) = (
        cx.dims_product(&[h, Dim::Known(kh)])
            .ok_or("too many rows")?,
        cx.dims_product(&[wd, Dim::Known(kw)])
            .ok_or("too many columns")?,
    );
    let mut y = cx.sized_reshape(y, &[n, Dim::Known(o), oh, ow])?;
    if let Some(b) = cx.opt_input(2) {
        let b = cx.reshape(b, &[1, o, 1, 1])?;
        y = cx.binary("graph.add", y, b)?;
    }
    Ok(y)
}

/// As a convolution: the input dilated by the strides (zeros between elements), padded by
/// `dilation·(k − 1) − pad` on each side (cropped where that is negative) plus
/// `output_padding` at the end, convolved at stride 1 with the kernel flipped and its channel
/// axes swapped per group. `output_shape` and `auto_pad` set the pads as the spec's reference
/// does.
fn conv_transpose(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, w) = (cx.input(0)?, cx.input(1)?);
    if cx.shape(x).contains(&DYNAMIC) || kernel_is_stride(cx, x, w) {
        return upsample_by_kernel(cx, x, w).map(|y| vec![y]);
    }
    let xs = cx.static_shape(x, "ConvTranspose")?;
    let ws = cx.static_shape(w, "ConvTranspose's weights")?;
    let n = xs.len().saturating_sub(2);
    if xs.len() != ws.len() || !(1..=2).contains(&n) {
        return Err(format!(
            "only 1-D and 2-D transposed convolutions are supported (input rank {})",
            xs.len()
        )
        .into());
    }
    let groups = cx.int_or("group", 1);
    if groups <= 0 || xs[1] != ws[0] || ws[0] % groups != 0 {
        return Err(format!(
            "weights {ws:?} do not fit {} input channels in {groups} groups",
            xs[1]
        )
        .into());
    }
    let kernel = kernel_of(cx, &ws)?;
    let list = |cx: &mut NodeCx, name: &str, default: i64, len: usize| -> NodeResult<Vec<i64>> {
        let v = cx.attr_ints(name).unwrap_or_else(|| vec![default; len]);
        if v.len() != len {
            return Err(format!("attribute '{name}' needs {len} entries").into());
        }
        Ok(v)
    };
    let strides = list(cx, "strides", 1, n)?;
    let dilations = list(cx, "dilations", 1, n)?;
    let output_padding = list(cx, "output_padding", 0, n)?;
    if strides.iter().chain(&dilations).any(|v| *v <= 0) || output_padding.iter().any(|v| *v < 0) {
        return Err("strides and dilations must be positive, output_padding non-negative".into());
    }
    let auto_pad = cx
        .attr_string("auto_pad")
        .unwrap_or_else(|| "NOTSET".into());
    let output_shape = cx.attr_ints("output_shape");
    if strides
        .iter()
        .chain(&dilations)
        .chain(&output_padding)
        .any(|v| *v > crate::importer::MAX_TENSOR_ELEMENTS)
    {
        return Err("strides, dilations or output_padding are larger than any tensor".into());
    }
    // Every factor is at most 2^48: the products fit in i64 only as i128 intermediates.
    let natural = |i: usize, pads: i64| -> i64 {
        let v = i128::from(strides[i]) * i128::from(xs[i + 2] - 1)
            + i128::from(output_padding[i])
            + i128::from(kernel[i] - 1) * i128::from(dilations[i])
            + 1
            - i128::from(pads);
        v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    };
    // As the spec's reference: explicit pads (zeros when absent), except that SAME_* derives
    // them from the output shape (given, or input × stride); a given output_shape then pads or
    // crops the end.
    let pads = match auto_pad.as_str() {
        "NOTSET" => cx.attr_ints("pads").unwrap_or_else(|| vec![0; 2 * n]),
        "VALID" => vec![0; 2 * n],
        mode @ ("SAME_UPPER" | "SAME_LOWER") => {
            let target: Vec<i64> = match &output_shape {
                Some(s) => s[s.len().saturating_sub(n)..].to_vec(),
                None => (0..n)
                    .map(|i| xs[i + 2].saturating_mul(strides[i]))
                    .collect(),
            };
            if target.len() != n {
                return Err("output_shape needs an entry per spatial axis".into());
            }
            let total: Vec<i64> = (0..n)
                .map(|i| natural(i, 0).saturating_sub(target[i]))
                .collect();
            let (mut begin, mut end) = (Vec::new(), Vec::new());
            for t in total {
                // Python's floor division, as the spec's reference (t may be negative).
                let half = t.div_euclid(2);
                let (b, e) = if mode == "SAME_UPPER" {
                    (half, t - half)
                } else {
                    (t - half, half)
                };
                begin.push(b);
                end.push(e);
            }
            begin.into_iter().chain(end).collect()
        }
        other => return Err(format!("auto_pad '{other}' is not supported").into()),
    };
    if pads.len() != 2 * n {
        return Err(format!("pads needs {} entries", 2 * n).into());
    }
    if pads
        .iter()
        .any(|p| p.unsigned_abs() > crate::importer::MAX_TENSOR_ELEMENTS as u64)
    {
        return Err("pads are larger than any tensor".into());
    }
    // Work in 2-D: a 1-D input is NC1W.
    let x4 = to_nchw(cx, x)?;
    let w4 = to_nchw(cx, w)?;
    let at = |v: &[i64], i: usize| if n == 1 { [1, v[0]][i] } else { v[i] };
    let (s2, d2) = (
        [at(&strides, 0), at(&strides, 1)],
        [at(&dilations, 0), at(&dilations, 1)],
    );
    let k2 = [if n == 1 { 1 } else { kernel[0] }, kernel[n - 1]];
    let (pb, pe): ([i64; 2], [i64; 2]) = if n == 1 {
        ([0, pads[0]], [0, pads[1]])
    } else {
        ([pads[0], pads[1]], [pads[2], pads[3]])
    };
    let op2 = if n == 1 {
        [0, output_padding[0]]
    } else {
        [output_padding[0], output_padding[1]]
    };
    let s4 = cx.shape(x4);
    let (c, h, wd) = (s4[1], s4[2], s4[3]);
    // Dilate: [N, C, H, 1, W, 1] padded to [N, C, H, sh, W, sw], then cropped to (H−1)·sh + 1.
    let mut y = x4;
    if s2 != [1, 1] {
        y = cx.reshape(y, &[s4[0], c, h, 1, wd, 1])?;
        let high = [0, 0, 0, s2[0] - 1, 0, s2[1] - 1];
        y = cx.pad_or_crop(y, &[0; 6], &high, 0.0)?;
        y = cx.reshape(y, &[s4[0], c, h * s2[0], wd * s2[1]])?;
        let ends = [
            i64::MAX,
            i64::MAX,
            (h - 1) * s2[0] + 1,
            (wd - 1) * s2[1] + 1,
        ];
        y = cx.slice(y, &[0; 4], &ends, &[1; 4])?;
    }
    // Pad (or crop) each side.
    let reach = |i: usize| i128::from(d2[i]) * i128::from(k2[i] - 1);
    let narrow = |v: i128| v.clamp(-(1 << 62), 1 << 62) as i64;
    let before: Vec<i64> = (0..2)
        .map(|i| narrow(reach(i) - i128::from(pb[i])))
        .collect();
    let after: Vec<i64> = (0..2)
        .map(|i| narrow(reach(i) - i128::from(pe[i]) + i128::from(op2[i])))
        .collect();
    y = cx.pad_or_crop(
        y,
        &[0, 0, before[0], before[1]],
        &[0, 0, after[0], after[1]],
        0.0,
    )?;
    // Weights [C, O/g, kh, kw] → [O, C/g, kh, kw], flipped.
    let ws4 = cx.shape(w4);
    let (cg, og) = (ws4[0] / groups, ws4[1]);
    let wg = cx.reshape(w4, &[groups, cg, og, k2[0], k2[1]])?;
    let wg = cx.transpose(wg, &[0, 2, 1, 3, 4])?;
    let wf = cx.reshape(wg, &[groups * og, cg, k2[0], k2[1]])?;
    let mut wf = wf;
    for (axis, k) in [(2i64, k2[0]), (3, k2[1])] {
        if k > 1 {
            let rev: Vec<i64> = (0..k).rev().collect();
            let idx = cx.i64_vector(&rev);
            let a = cx.int_attr(axis);
            wf = cx.op("graph.gather", &[wf, idx], &[("axis", a)])?;
        }
    }
    let attrs = [
        ("strides", cx.array_attr(&[1, 1])),
        ("dilations", cx.array_attr(&d2)),
        ("padding", cx.array_attr(&[0, 0, 0, 0])),
        ("groups", cx.int_attr(groups)),
    ];
    let out = cx.op("graph.conv2d", &[y, wf], &attrs)?;
    let mut out = from_nchw(cx, out, xs.len())?;
    if let Some(target) = &output_shape {
        let want = &target[target.len().saturating_sub(n)..];
        if want.len() != n || want.iter().any(|d| *d < 0) {
            return Err(format!("output_shape {target:?} needs a size per spatial axis").into());
        }
        let got = cx.shape(out);
        let change: Vec<i64> = (0..got.len())
            .map(|d| if d < 2 { 0 } else { want[d - 2] - got[d] })
            .collect();
        out = cx.pad_or_crop(out, &vec![0; got.len()], &change, 0.0)?;
    }
    if let Some(b) = cx.opt_input(2) {
        let mut shape = vec![1; xs.len()];
        shape[1] = groups * og;
        let b = cx.reshape(b, &shape)?;
        out = cx.binary("graph.add", out, b)?;
    }
    Ok(vec![out])
}

/// MaxPool, AveragePool and LpPool. 1-D and 2-D undilated max and average pools are the graph
/// dialect's `max_pool2d`/`avg_pool2d`; the rest (dilations, 3-D and higher windows, LpPool,
/// MaxPool's `Indices`) unfold the windows with gathers ([`super::pool`]).
fn pool(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let op_type = cx.node.op_type.clone();
    let max = op_type == "MaxPool";
    cx.at_most_outputs(if max { 2 } else { 1 })?;
    let xs = cx.shape(x);
    let kernel = cx
        .attr_ints("kernel_shape")
        .ok_or("attribute 'kernel_shape' is required")?;
    if xs.len() < 3 {
        return Err("pools need an N×C×spatial input".into());
    }
    // LpPool has ceil_mode from opset 18.
    let window = Window::read(cx, &xs[2..], kernel, true)?;
    // Only MaxPool's Indices depend on storage_order.
    let column_major = match max.then(|| cx.int_or("storage_order", 0)) {
        None | Some(0) => false,
        Some(1) => true,
        Some(other) => return Err(format!("storage_order = {other} is not 0 or 1").into()),
    };
    let include_pad = op_type == "AveragePool" && cx.int_or("count_include_pad", 0) != 0;
    let reduction = match op_type.as_str() {
        "MaxPool" => Reduction::Max,
        "AveragePool" => Reduction::Average { include_pad },
        _ => {
            // An integer from opset 2; a float before.
            let p = if cx.opset < 2 {
                let p = cx.float_or("p", 2.0);
                if p.fract() != 0.0 || p < 1.0 || p > i64::MAX as f64 {
                    return Err(format!("p = {p} is not supported (a positive integer)").into());
                }
                p as i64
            } else {
                cx.int_or("p", 2)
            };
            if p < 1 {
                return Err(format!("p = {p} must be positive").into());
            }
            Reduction::Lp(p)
        }
    };
    if cx.num_outputs() > 1 {
        let [y, indices] = super::pool::max_pool_with_indices(cx, x, &window, column_major)?;
        return Ok(vec![y, indices]);
    }
    let direct = (3..=4).contains(&xs.len()) && window.dilations.iter().all(|d| *d == 1);
    if !direct || matches!(reduction, Reduction::Lp(_)) {
        return Ok(vec![super::pool::pool(cx, x, &window, reduction)?]);
    }
    let mut x4 = to_nchw(cx, x)?;
    let mut padded = window.clone();
    if include_pad {
        // Explicit pads count in the average: pad with zeros first, and let the pool exclude
        // only what ceil_mode added.
        let n = window.pads.len() / 2;
        let mut low = vec![0; 4];
        let mut high = vec![0; 4];
        for i in 0..n {
            low[4 - n + i] = window.pads[i];
            high[4 - n + i] = window.pads[n + i];
        }
        x4 = cx.pad_or_crop(x4, &low, &high, 0.0)?;
        padded.pads = vec![0; 2 * n];
    }
    let (kernel, strides, _, padding) = padded.as_2d();
    let attrs = [
        ("kernel", cx.array_attr(&kernel)),
        ("strides", cx.array_attr(&strides)),
        ("padding", cx.array_attr(&padding)),
    ];
    let name = if max {
        "graph.max_pool2d"
    } else {
        "graph.avg_pool2d"
    };
    let y = cx.op(name, &[x4], &attrs)?;
    Ok(vec![from_nchw(cx, y, xs.len())?])
}

fn global_pool(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let rank = cx.shape(x).len();
    if rank < 3 {
        return Err("global pools need an N×C×spatial input".into());
    }
    let list: Vec<i64> = (2..rank as i64).collect();
    let name = if cx.node.op_type == "GlobalMaxPool" {
        "graph.reduce_max"
    } else {
        "graph.reduce_mean"
    };
    Ok(vec![cx.reduce(name, x, &list, true)?])
}

/// A per-channel parameter `[C]` reshaped to broadcast against an N×C×... tensor of `rank`.
fn per_channel(cx: &mut NodeCx, p: Value, rank: usize) -> NodeResult<Value> {
    let e = entries(&cx.shape(p));
    if e.len() != 1 {
        return Err("per-channel parameters must have rank 1".into());
    }
    let mut shape = vec![1; rank.max(2)];
    shape[1] = e[0];
    cx.reshape(p, &shape)
}

/// Inference: `y = x · a + b` with `a = scale / √(var + ε)`, `b = B − mean · a` (both fold when
/// the parameters are constants).
fn batch_norm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    cx.at_most_outputs(1)?;
    let eps = cx.float_or("epsilon", 1e-5);
    cx.ignore("momentum");
    cx.ignore("consumed_inputs");
    cx.ignore("is_test");
    if cx.int_or("training_mode", 0) != 0 {
        return Err("training_mode = 1 is not supported (dlc runs inference)".into());
    }
    if cx.int_or("spatial", 1) != 1 {
        return Err("spatial = 0 is not supported".into());
    }
    let rank = cx.shape(x).len();
    let mut params = Vec::with_capacity(4);
    for i in 1..5 {
        let p = cx.input(i)?;
        params.push(per_channel(cx, p, rank)?);
    }
    let (scale, bias, mean, var) = (params[0], params[1], params[2], params[3]);
    let e = cx.scalar(eps, var);
    let ve = cx.binary("graph.add", var, e)?;
    let inv = cx.unary("graph.rsqrt", ve)?;
    let a = cx.binary("graph.mul", scale, inv)?;
    let ma = cx.binary("graph.mul", mean, a)?;
    let b = cx.binary("graph.sub", bias, ma)?;
    let xa = cx.binary("graph.mul", x, a)?;
    Ok(vec![cx.binary("graph.add", xa, b)?])
}

/// `p` broadcast to the normalized shape `shape[axis..]` (graph norms take it exactly).
fn fit_normalized(cx: &mut NodeCx, p: Value, normalized: &[i64]) -> NodeResult<Value> {
    if cx.shape(p) == normalized {
        return Ok(p);
    }
    let s = cx.array_attr(&entries(normalized));
    cx.op("graph.broadcast_to", &[p], &[("shape", s)])
}

/// Whether a norm of a 16-bit float input computes in f32 (`stash_type = 1`, the default), as
/// the spec's reference does; the results are cast back.
fn stashed(cx: &mut NodeCx, x: Value) -> bool {
    let wide = cx.int_or("stash_type", 1) == 1;
    wide && matches!(cx.elem(x), Type::F16 | Type::BF16)
}

/// `graph.layer_norm` when only Y is wanted; with the Mean and InvStdDev outputs, its formula
/// in primitives: `d = x − mean(x)`, `inv = 1/√(mean(d²) + ε)`, `y = d · inv · scale + B`.
fn layer_norm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x0, scale0) = (cx.input(0)?, cx.input(1)?);
    let shape = cx.shape(x0);
    let a = axis(cx.int_or("axis", -1), shape.len())?;
    let eps = cx.float_or("epsilon", 1e-5);
    let elem = cx.elem(x0);
    let wide = stashed(cx, x0);
    let compute = if wide { Type::F32 } else { elem };
    let x = cx.cast(x0, compute)?;
    let normalized = shape[a as usize..].to_vec();
    let scale = cx.cast(scale0, compute)?;
    let gamma = fit_normalized(cx, scale, &normalized)?;
    let beta = match cx.opt_input(2) {
        Some(b) => cx.cast(b, compute)?,
        None => cx.scalar(0.0, x),
    };
    let beta = fit_normalized(cx, beta, &normalized)?;
    if cx.num_outputs() <= 1 {
        let attrs = [("axis", cx.int_attr(a)), ("epsilon", cx.f64_attr(eps))];
        let y = cx.op("graph.layer_norm", &[x, gamma, beta], &attrs)?;
        return Ok(vec![cx.cast(y, elem)?]);
    }
    let list: Vec<i64> = (a..shape.len() as i64).collect();
    let [n, mean, inv] = cx.standardize(x, &list, eps)?;
    let s = cx.binary("graph.mul", n, gamma)?;
    let y = cx.binary("graph.add", s, beta)?;
    Ok(vec![cx.cast(y, elem)?, mean, inv])
}

/// `x / √(mean(x²) + ε) · scale` over the axes from `axis` on.
fn rms_norm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x0, scale0) = (cx.input(0)?, cx.input(1)?);
    let shape = cx.shape(x0);
    let a = axis(cx.int_or("axis", -1), shape.len())?;
    let eps = cx.float_or("epsilon", 1e-5);
    let elem = cx.elem(x0);
    let compute = if stashed(cx, x0) { Type::F32 } else { elem };
    let x = cx.cast(x0, compute)?;
    let scale = cx.cast(scale0, compute)?;
    let gamma = fit_normalized(cx, scale, &shape[a as usize..])?;
    let attrs = [("axis", cx.int_attr(a)), ("epsilon", cx.f64_attr(eps))];
    let y = cx.op("graph.rms_norm", &[x, gamma], &attrs)?;
    Ok(vec![cx.cast(y, elem)?])
}

/// Over groups of channels: `x` as `[N, G, C/G · spatial]`, normalized over the last axis,
/// then `· scale + bias` per channel.
fn group_norm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x0 = cx.input(0)?;
    let shape = cx.static_shape(x0, "GroupNormalization")?;
    if shape.len() < 3 {
        return Err("GroupNormalization needs an N×C×spatial input".into());
    }
    let groups = cx
        .attr_int("num_groups")
        .ok_or("attribute 'num_groups' is required")?;
    if groups <= 0 || shape[1] % groups != 0 {
        return Err(format!("{groups} groups do not divide {} channels", shape[1]).into());
    }
    let eps = cx.float_or("epsilon", 1e-5);
    let elem = cx.elem(x0);
    let compute = if stashed(cx, x0) { Type::F32 } else { elem };
    let x = cx.cast(x0, compute)?;
    let g = cx.reshape(x, &[shape[0], groups, -1])?;
    let [n, _, _] = cx.standardize(g, &[2], eps)?;
    let n = cx.reshape(n, &shape)?;
    let (scale, bias) = (cx.input(1)?, cx.input(2)?);
    let (scale, bias) = (cx.cast(scale, compute)?, cx.cast(bias, compute)?);
    // Opset 18 gave one scale and bias per group; opset 21 one per channel.
    let per_group = |cx: &mut NodeCx, p: Value| -> NodeResult<Value> {
        if cx.shape(p) != [groups] || groups == shape[1] {
            return Ok(p);
        }
        let g = cx.reshape(p, &[groups, 1])?;
        let s = cx.array_attr(&[groups, shape[1] / groups]);
        let spread = cx.op("graph.broadcast_to", &[g], &[("shape", s)])?;
        cx.reshape(spread, &[shape[1]])
    };
    let (scale, bias) = (per_group(cx, scale)?, per_group(cx, bias)?);
    let (scale, bias) = (
        per_channel(cx, scale, shape.len())?,
        per_channel(cx, bias, shape.len())?,
    );
    let y = cx.binary("graph.mul", n, scale)?;
    let y = cx.binary("graph.add", y, bias)?;
    Ok(vec![cx.cast(y, elem)?])
}

/// `x / ‖x‖ₚ` along `axis`, p = 1 or 2.
fn lp_norm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let rank = cx.shape(x).len();
    let a = axis(cx.int_or("axis", -1), rank)?;
    let norm = match cx.int_or("p", 2) {
        1 => {
            let m = cx.unary("graph.abs", x)?;
            cx.reduce("graph.reduce_sum", m, &[a], true)?
        }
        2 => {
            let sq = cx.binary("graph.mul", x, x)?;
            let s = cx.reduce("graph.reduce_sum", sq, &[a], true)?;
            cx.unary("graph.sqrt", s)?
        }
        p => return Err(format!("p = {p} is not supported (1 or 2)").into()),
    };
    // A zero vector stays zero (the spec's reference divides by 1 there).
    let zero = cx.scalar(0.0, norm);
    let one = cx.scalar(1.0, norm);
    let is_zero = cx.cmp("eq", norm, zero)?;
    let norm = cx.select(is_zero, one, norm)?;
    Ok(vec![cx.binary("graph.div", x, norm)?])
}

/// 1 at the first maximum along `axis`, else 0 (opset < 13: over the flattened trailing axes).
fn hardmax(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x0 = cx.input(0)?;
    let shape = cx.static_shape(x0, "Hardmax")?;
    let (x, a) = if cx.opset >= 13 {
        (x0, axis(cx.int_or("axis", -1), shape.len())?)
    } else {
        let a = axis(cx.int_or("axis", 1), shape.len())? as usize;
        let inner: i64 = shape[a..].iter().product();
        (cx.reshape(x0, &[-1, inner])?, 1)
    };
    let xs = cx.shape(x);
    let axis_attr = cx.int_attr(a);
    let keep = cx.ctx().bool_attr(true);
    let arg = cx.op(
        "graph.argmax",
        &[x],
        &[("axis", axis_attr), ("keepdim", keep)],
    )?;
    let n = xs[a as usize];
    table(n as i128)?;
    let mut iota_shape = vec![1usize; xs.len()];
    iota_shape[a as usize] = n as usize;
    let positions: Vec<i64> = (0..n).collect();
    let iota = cx.constant(dlc_tensor::Literal::from_i64(
        dlc_tensor::DType::I64,
        &iota_shape,
        &positions,
    ));
    let hit = cx.cmp("eq", arg, iota)?;
    let elem = cx.elem(x);
    let y = cx.cast(hit, elem)?;
    Ok(vec![cx.reshape(y, &entries(&shape))?])
}

/// Per sample and channel over the spatial axes: `(x − mean) / √(var + ε) · scale + B`.
fn instance_norm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let eps = cx.float_or("epsilon", 1e-5);
    let rank = cx.shape(x).len();
    if rank < 3 {
        return Err("InstanceNormalization needs an N×C×spatial input".into());
    }
    let (scale, bias) = (cx.input(1)?, cx.input(2)?);
    let (scale, bias) = (per_channel(cx, scale, rank)?, per_channel(cx, bias, rank)?);
    let list: Vec<i64> = (2..rank as i64).collect();
    let [n, _, _] = cx.standardize(x, &list, eps)?;
    let s = cx.binary("graph.mul", n, scale)?;
    Ok(vec![cx.binary("graph.add", s, bias)?])
}

/// Opset ≥ 13: over `axis` (default −1). Before: the input is flattened to 2-D at `axis`
/// (default 1) and normalized over the whole second half.
fn softmax(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let name = if cx.node.op_type == "Softmax" {
        "graph.softmax"
    } else {
        "graph.log_softmax"
    };
    if cx.opset >= 13 {
        let a = axis(cx.int_or("axis", -1), shape.len())?;
        let attr = cx.int_attr(a);
        return Ok(vec![cx.op(name, &[x], &[("axis", attr)])?]);
    }
    let a = axis(cx.int_or("axis", 1), shape.len())? as usize;
    if a == shape.len() - 1 {
        let attr = cx.int_attr(a as i64);
        return Ok(vec![cx.op(name, &[x], &[("axis", attr)])?]);
    }
    let inner = &shape[a..];
    if inner.contains(&DYNAMIC) {
        return Err("softmax over a flattened dynamic dim is not supported".into());
    }
    let flat = cx.reshape(x, &[-1, inner.iter().product()])?;
    let attr = cx.int_attr(1);
    let y = cx.op(name, &[flat], &[("axis", attr)])?;
    Ok(vec![cx.reshape(y, &entries(&shape))?])
}
