//! The stateful sequence operators of opset 27, as compositions of graph ops.
//!
//! - CausalConvWithState: the past state (or k − 1 zeros) joined before the input along the
//!   length, a depthwise `graph.conv2d` (`groups = channels`, no padding) plus the bias, the
//!   optional fused SiLU, and the last k − 1 positions of the joined sequence as the present
//!   state. 16-bit floats convolve in f32, rounded back before the activation as the spec's
//!   reference does.
//! - LinearAttention: the recurrence `S_t = γ_t ⊙ S_{t−1} + k_t ⊗ v'_t`, `o_t = scale · q_tᵀ S_t`
//!   (with `v'_t = β_t (v_t − (γ_t ⊙ S_{t−1})ᵀ k_t)` for the delta rules) unrolled over the
//!   static sequence length, one step per token in f32 as the reference runs it; see
//!   [`MAX_STEPS`] for its bound.

use super::Handler;
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value, DYNAMIC};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("CausalConvWithState", causal_conv_with_state),
    ("LinearAttention", linear_attention),
];

/// The most tokens LinearAttention unrolls: each is about ten graph ops on the
/// `[B, H_kv, d_k, d_v]` state, so longer prefills are refused rather than built as a program
/// of tens of thousands of ops.
pub const MAX_STEPS: i64 = 1024;

/// The element type 16-bit floats compute in (f32), others in their own.
fn widened(elem: Type) -> Type {
    if matches!(elem, Type::F16 | Type::BF16) {
        Type::F32
    } else {
        elem
    }
}

/// Dims as reshape entries (`?` → −1).
fn entries(shape: &[i64]) -> Vec<i64> {
    shape
        .iter()
        .map(|d| if *d == DYNAMIC { -1 } else { *d })
        .collect()
}

/// Errors unless `v`'s element type is one the operator's spec allows (f32, f16, bf16).
fn check_float(cx: &NodeCx, v: Value, what: &str) -> NodeResult<()> {
    let elem = cx.elem(v);
    if matches!(elem, Type::F32 | Type::F16 | Type::BF16) {
        Ok(())
    } else {
        Err(format!("{what} must be float, float16 or bfloat16, not {elem:?}").into())
    }
}

fn causal_conv_with_state(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, w) = (cx.input(0)?, cx.input(1)?);
    let activation = cx
        .attr_string("activation")
        .unwrap_or_else(|| "none".into());
    let silu = match activation.as_str() {
        "none" => false,
        "silu" | "swish" => true,
        other => {
            return Err(format!(
                "attribute 'activation' is '{other}' (expected 'silu', 'swish' or 'none')"
            )
            .into())
        }
    };
    check_float(cx, x, "the input")?;
    let elem = cx.elem(x);
    let (xs, ws) = (cx.shape(x), cx.static_shape(w, "CausalConvWithState's weight")?);
    if xs.len() != 3 || ws.len() != 3 {
        return Err(format!(
            "the input and the weight must be rank 3 (batch, channels, length) and (channels, 1, k); they are rank {} and {}",
            xs.len(),
            ws.len()
        )
        .into());
    }
    let (channels, k) = (ws[0], ws[2]);
    if xs[1] != channels || ws[1] != 1 || k < 1 {
        return Err(format!(
            "the weight must be ({}, 1, k) with k ≥ 1 for {} channels (depthwise), not {ws:?}",
            xs[1], xs[1]
        )
        .into());
    }
    if cx.elem(w) != elem {
        return Err("the weight's element type differs from the input's".into());
    }
    if xs.iter().filter(|d| **d == DYNAMIC).count() > 1 {
        return Err("CausalConvWithState allows at most one dynamic dim in its input".into());
    }
    let joined = match cx.opt_input(3) {
        Some(past) => {
            let ps = cx.shape(past);
            let fits = ps.len() == 3
                && ps[2] == k - 1
                && [0, 1]
                    .iter()
                    .all(|&i| ps[i] == xs[i] || ps[i] == DYNAMIC || xs[i] == DYNAMIC);
            if !fits || cx.elem(past) != elem {
                return Err(format!(
                    "past_state must be (batch, channels, k − 1) = ({}, {}, {}) of the input's type; it is {ps:?}",
                    xs[0], xs[1], k - 1
                )
                .into());
            }
            let axis = cx.int_attr(2);
            cx.op("graph.concat", &[past, x], &[("axis", axis)])?
        }
        None => cx.pad_or_crop(x, &[0, 0, k - 1], &[0, 0, 0], 0.0)?,
    };
    let compute = widened(elem);
    let padded = cx.cast(joined, compute)?;
    let ps = cx.shape(padded);
    let x4 = cx.reshape(padded, &entries(&[ps[0], ps[1], 1, ps[2]]))?;
    let wc = cx.cast(w, compute)?;
    let w4 = cx.reshape(wc, &[channels, 1, 1, k])?;
    let attrs = [
        ("strides", cx.array_attr(&[1, 1])),
        ("dilations", cx.array_attr(&[1, 1])),
        ("padding", cx.array_attr(&[0, 0, 0, 0])),
        ("groups", cx.int_attr(channels)),
    ];
    let y = cx.op("graph.conv2d", &[x4, w4], &attrs)?;
    let ys = cx.shape(y);
    let mut y = cx.reshape(y, &entries(&[ys[0], ys[1], ys[3]]))?;
    if let Some(b) = cx.opt_input(2) {
        if cx.shape(b) != [channels] || cx.elem(b) != elem {
            return Err(format!(
                "bias must be ({channels}) of the input's type, not {:?}",
                cx.shape(b)
            )
            .into());
        }
        let b = cx.cast(b, compute)?;
        let b = cx.reshape(b, &[1, channels, 1])?;
        y = cx.binary("graph.add", y, b)?;
    }
    let mut y = cx.cast(y, elem)?;
    if silu {
        let f = cx.cast(y, widened(elem))?;
        let s = cx.unary("graph.sigmoid", f)?;
        let m = cx.binary("graph.mul", f, s)?;
        y = cx.cast(m, elem)?;
    }
    // The last k − 1 positions of the joined sequence (none for k = 1).
    let start = if k == 1 { i64::MAX } else { -(k - 1) };
    let present = cx.slice(joined, &[0, 0, start], &[i64::MAX; 3], &[1; 3])?;
    Ok(vec![y, present])
}

fn linear_attention(_cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    Err("LinearAttention is not implemented yet".into())
}
