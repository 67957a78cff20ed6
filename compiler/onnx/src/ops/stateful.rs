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
    let (xs, ws) = (
        cx.shape(x),
        cx.static_shape(w, "CausalConvWithState's weight")?,
    );
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

/// `[B, T, H·D]` → `[B, T, H, D]` → transposed by `perm`.
fn unpack(cx: &mut NodeCx, x: Value, heads: i64, perm: &[i64]) -> NodeResult<Value> {
    let s = cx.shape(x);
    let f = cx.cast(x, Type::F32)?;
    let r = cx.reshape(f, &[s[0], s[1], heads, s[2] / heads])?;
    cx.transpose(r, perm)
}

/// Token `t` of `x` along `axis` (kept as a dim of 1).
fn token(cx: &mut NodeCx, x: Value, axis: usize, t: i64) -> NodeResult<Value> {
    let rank = cx.shape(x).len();
    let (mut starts, mut ends) = (vec![0; rank], vec![i64::MAX; rank]);
    starts[axis] = t;
    ends[axis] = t + 1;
    cx.slice(x, &starts, &ends, &vec![1; rank])
}

fn linear_attention(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let rule = cx
        .attr_string("update_rule")
        .unwrap_or_else(|| "gated_delta".into());
    let (gating, delta) = match rule.as_str() {
        "linear" => (false, false),
        "gated" => (true, false),
        "delta" => (false, true),
        "gated_delta" => (true, true),
        other => {
            return Err(format!(
                "attribute 'update_rule' is '{other}' (expected 'linear', 'gated', 'delta' or 'gated_delta')"
            )
            .into())
        }
    };
    let (hq, hkv) = match (cx.attr_int("q_num_heads"), cx.attr_int("kv_num_heads")) {
        (Some(q), Some(k)) => (q, k),
        _ => return Err("attributes 'q_num_heads' and 'kv_num_heads' are required".into()),
    };
    if hq <= 0 || hkv <= 0 || hq % hkv != 0 {
        return Err(format!(
            "attribute 'q_num_heads' ({hq}) must be a positive multiple of 'kv_num_heads' ({hkv})"
        )
        .into());
    }
    cx.ignore("chunk_size");
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let (decay, beta) = (cx.opt_input(4), cx.opt_input(5));
    match (gating, decay.is_some(), delta, beta.is_some()) {
        (true, false, ..) => {
            return Err(format!("update_rule '{rule}' needs the decay input").into())
        }
        (false, true, ..) => {
            return Err(format!("update_rule '{rule}' takes no decay input").into())
        }
        (_, _, true, false) => {
            return Err(format!("update_rule '{rule}' needs the beta input").into())
        }
        (_, _, false, true) => {
            return Err(format!("update_rule '{rule}' takes no beta input").into())
        }
        _ => {}
    }
    let elem = cx.elem(q);
    let mut shapes = Vec::new();
    for (x, name) in [
        (Some(q), "query"),
        (Some(k), "key"),
        (Some(v), "value"),
        (decay, "decay"),
        (beta, "beta"),
    ] {
        let Some(x) = x else { continue };
        check_float(cx, x, name)?;
        if cx.elem(x) != elem {
            return Err(format!("{name}'s element type differs from the query's").into());
        }
        let s = cx.static_shape(x, "LinearAttention")?;
        if s.len() != 3 {
            return Err(format!("{name} must be rank 3 (B, T, H·D), not {s:?}").into());
        }
        shapes.push((name, s));
    }
    let (b, t) = (shapes[0].1[0], shapes[0].1[1]);
    if let Some((name, s)) = shapes.iter().find(|(_, s)| s[0] != b || s[1] != t) {
        return Err(format!(
            "{name}'s (batch, sequence) dims {:?} differ from the query's ({b}, {t})",
            &s[..2]
        )
        .into());
    }
    let (qw, kw, vw) = (shapes[0].1[2], shapes[1].1[2], shapes[2].1[2]);
    if qw % hq != 0 || vw % hkv != 0 || kw != hkv * (qw / hq) {
        return Err(format!(
            "the query ({qw}), key ({kw}) and value ({vw}) widths must be q_num_heads·d_k, kv_num_heads·d_k and kv_num_heads·d_v for {hq} and {hkv} heads"
        )
        .into());
    }
    let (dk, dv, group) = (qw / hq, vw / hkv, hq / hkv);
    if t > MAX_STEPS {
        return Err(format!(
            "a sequence of {t} tokens is longer than the {MAX_STEPS} LinearAttention unrolls"
        )
        .into());
    }
    let past = cx.opt_input(3);
    let state_elem = match past {
        Some(p) => {
            check_float(cx, p, "past_state")?;
            if cx.shape(p) != [b, hkv, dk, dv] {
                return Err(format!(
                    "past_state must be (B, H_kv, d_k, d_v) = ({b}, {hkv}, {dk}, {dv}), not {:?}",
                    cx.shape(p)
                )
                .into());
            }
            cx.elem(p)
        }
        None => elem,
    };
    let scale = cx.float_or("scale", 0.0);
    let scale = if scale == 0.0 {
        1.0 / (dk as f64).sqrt()
    } else {
        scale
    };

    // Per token: q [B, H_kv, G, d_k], k as a column [B, H_kv, d_k, 1], v as a row
    // [B, H_kv, 1, d_v], the decay factor [B, H_kv, d_k or 1, 1], β [B, H_kv or 1, 1, 1].
    let q5 = {
        let f = cx.cast(q, Type::F32)?;
        let r = cx.reshape(f, &[b, t, hkv, group, dk])?;
        cx.transpose(r, &[0, 2, 1, 3, 4])?
    };
    let kt = unpack(cx, k, hkv, &[0, 2, 3, 1])?;
    let v4 = unpack(cx, v, hkv, &[0, 2, 1, 3])?;
    let gamma = match decay {
        Some(d) => {
            let w = cx.shape(d)[2];
            if w != hkv && w != hkv * dk {
                return Err(format!(
                    "decay's last dim {w} must be kv_num_heads ({hkv}) or kv_num_heads·d_k ({})",
                    hkv * dk
                )
                .into());
            }
            let g = unpack(cx, d, hkv, &[0, 2, 3, 1])?;
            Some(cx.unary("graph.exp", g)?)
        }
        None => None,
    };
    let beta = match beta {
        Some(x) => {
            let w = cx.shape(x)[2];
            if w != hkv && w != 1 {
                return Err(
                    format!("beta's last dim {w} must be kv_num_heads ({hkv}) or 1").into(),
                );
            }
            Some(unpack(cx, x, w, &[0, 2, 3, 1])?)
        }
        None => None,
    };
    // The state: the past one, or zeros (multiplied like any other, so an infinite decay or
    // key gives the reference's NaN).
    let zero = dlc_tensor::Literal::from_f64(dlc_tensor::DType::F32, &[], &[0.0]);
    let mut state = match past {
        Some(p) => cx.cast(p, Type::F32)?,
        None => cx.splat_constant(&zero, &[b, hkv, dk, dv])?,
    };
    let mut outputs = Vec::with_capacity(t as usize);
    for i in 0..t {
        if let Some(g) = gamma {
            let g = token(cx, g, 3, i)?;
            state = cx.binary("graph.mul", state, g)?;
        }
        let kc = token(cx, kt, 3, i)?;
        let mut vr = token(cx, v4, 2, i)?;
        if let Some(bt) = beta {
            let p = cx.binary("graph.mul", state, kc)?;
            let retrieved = cx.reduce("graph.reduce_sum", p, &[2], true)?;
            let d = cx.binary("graph.sub", vr, retrieved)?;
            let bt = token(cx, bt, 3, i)?;
            vr = cx.binary("graph.mul", bt, d)?;
        }
        let outer = cx.binary("graph.mul", kc, vr)?;
        state = cx.binary("graph.add", state, outer)?;
        let qt = token(cx, q5, 2, i)?;
        let qt = cx.reshape(qt, &[b, hkv, group, dk])?;
        let o = cx.op("graph.matmul", &[qt, state], &[])?;
        outputs.push(cx.reshape(o, &[b, hkv, 1, group, dv])?);
    }
    let y = if outputs.is_empty() {
        cx.splat_constant(&zero, &[b, t, hq * dv])?
    } else {
        let axis = cx.int_attr(2);
        let all = cx.op("graph.concat", &outputs, &[("axis", axis)])?;
        let sc = cx.scalar(scale, all);
        let all = cx.binary("graph.mul", all, sc)?;
        let tr = cx.transpose(all, &[0, 2, 1, 3, 4])?;
        cx.reshape(tr, &[b, t, hq * dv])?
    };
    Ok(vec![cx.cast(y, elem)?, cx.cast(state, state_elem)?])
}
