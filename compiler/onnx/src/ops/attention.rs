//! Attention (opset 23 and 24) as a composition of graph ops, following the spec's reference:
//! 3-D inputs split into heads, the past key/value cache concatenated (and returned as the
//! present ones), grouped-query heads repeated, `Q·√scale · (K·√scale)ᵀ`, an optional soft cap,
//! an additive bias built from the mask (boolean masks become 0/−∞), the causal and sliding
//! window limits and the non-padded key lengths, then a softmax that gives 0 for a row that
//! is masked everywhere, and the product with V. The optional fourth output is the QK matrix
//! at the stage `qk_matmul_output_mode` names.

use super::{table, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::tensor::element_type;
use dlc_ir::{Type, Value, DYNAMIC};
use dlc_tensor::{DType, Tensor};

pub(super) const OPS: &[(&str, Handler)] = &[("Attention", attention)];

/// `[B, S, H·D]` → `[B, H, S, D]`.
fn split_heads(cx: &mut NodeCx, x: Value, heads: i64) -> NodeResult<Value> {
    let s = cx.shape(x);
    if heads <= 0 || s[2] % heads != 0 {
        return Err(format!("{heads} heads do not divide the hidden size {}", s[2]).into());
    }
    let r = cx.reshape(x, &[s[0], s[1], heads, s[2] / heads])?;
    cx.transpose(r, &[0, 2, 1, 3])
}

fn attention(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (mut q, mut k, mut v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let rank = cx.shape(q).len();
    if !(3..=4).contains(&rank) || cx.shape(k).len() != rank || cx.shape(v).len() != rank {
        return Err("Q, K and V must all be 3-D or all 4-D".into());
    }
    if [q, k, v].iter().any(|x| cx.shape(*x).contains(&DYNAMIC)) {
        return Err("Attention needs static shapes".into());
    }
    let q_heads = cx.attr_int("q_num_heads");
    let kv_heads = cx.attr_int("kv_num_heads");
    if rank == 3 {
        let (qh, kh) = match (q_heads, kv_heads) {
            (Some(a), Some(b)) => (a, b),
            _ => return Err("3-D inputs need q_num_heads and kv_num_heads".into()),
        };
        q = split_heads(cx, q, qh)?;
        k = split_heads(cx, k, kh)?;
        v = split_heads(cx, v, kh)?;
    }
    let qs = cx.shape(q);
    let head = qs[3];
    let scale = cx.float_or("scale", 1.0 / (head as f64).sqrt());
    let root = cx.scalar(scale.sqrt(), q);
    let (past_k, past_v) = (cx.opt_input(4), cx.opt_input(5));
    if [past_k, past_v]
        .iter()
        .flatten()
        .any(|p| cx.shape(*p).len() != 4)
    {
        return Err("past_key and past_value must be 4-D".into());
    }
    if past_k.is_some() != past_v.is_some() {
        return Err("past_key and past_value must be given together".into());
    }
    let past_len = past_k.map_or(0, |p| cx.shape(p)[2]);
    let concat_seq = |cx: &mut NodeCx, past: Option<Value>, x: Value| -> NodeResult<Value> {
        match past {
            Some(p) => {
                let a = cx.int_attr(2);
                cx.op("graph.concat", &[p, x], &[("axis", a)])
            }
            None => Ok(x),
        }
    };
    let present_k = concat_seq(cx, past_k, k)?;
    let present_v = concat_seq(cx, past_v, v)?;
    // 16-bit floats compute in f32 (as onnxruntime's CPU kernel and numpy's half matmul
    // accumulate), the outputs rounded back.
    let elem = cx.elem(q);
    let compute = if matches!(elem, Type::F16 | Type::BF16) {
        Type::F32
    } else {
        elem
    };
    let q = cx.cast(q, compute)?;
    let root = cx.cast(root, compute)?;
    let (mut k, mut v) = (cx.cast(present_k, compute)?, cx.cast(present_v, compute)?);
    let (q_len, kv_len) = (qs[2], cx.shape(k)[2]);
    let (hq, hk) = (qs[1], cx.shape(k)[1]);
    if hq != hk {
        if hk == 0 || hq % hk != 0 {
            return Err(format!("{hq} query heads are not a multiple of {hk} key heads").into());
        }
        let index: Vec<i64> = (0..hq).map(|h| h / (hq / hk)).collect();
        let idx = cx.i64_vector(&index);
        let a = cx.int_attr(1);
        k = cx.op("graph.gather", &[k, idx], &[("axis", a)])?;
        v = cx.op("graph.gather", &[v, idx], &[("axis", a)])?;
    }

    // The bias, [.., q, kv].
    let mut bias: Option<Value> = None;
    let add = |cx: &mut NodeCx, bias: Option<Value>, b: Value| -> NodeResult<Option<Value>> {
        Ok(Some(match bias {
            Some(a) => cx.binary("graph.add", a, b)?,
            None => b,
        }))
    };
    if let Some(mask) = cx.opt_input(3) {
        let ms = cx.shape(mask);
        let pad = kv_len - ms.last().copied().unwrap_or(kv_len);
        let mut m = if cx.elem(mask) == Type::I1 {
            let zero = cx.scalar(0.0, q);
            let ninf = cx.scalar(f64::NEG_INFINITY, q);
            cx.select(mask, zero, ninf)?
        } else {
            cx.cast(mask, compute)?
        };
        if pad > 0 {
            let mut high = vec![0; ms.len()];
            *high.last_mut().unwrap_or(&mut 0) = pad;
            m = cx.pad_or_crop(m, &vec![0; ms.len()], &high, f64::NEG_INFINITY)?;
        }
        bias = add(cx, bias, m)?;
    }
    let nonpad = cx.opt_input(6);
    if nonpad.is_some() && past_k.is_some() {
        return Err("nonpad_kv_seqlen cannot be combined with a past cache".into());
    }
    let causal = cx.int_or("is_causal", 0) != 0;
    let left = cx.int_or("left_window_size", -1);
    let right = cx.int_or("right_window_size", -1);
    // Query i sits at position i + offset among the keys: offset is the past length, or per
    // batch `nonpad[b] − q_len` with an external cache. Limits compare D[i, j] = j − i with it.
    let nonpad = match nonpad {
        Some(n) => {
            let n = cx.cast(n, Type::I64)?;
            Some(cx.reshape(n, &[-1, 1, 1, 1])?)
        }
        None => None,
    };
    let offset = match nonpad {
        Some(n) => {
            let ql = cx.scalar(q_len as f64, n);
            cx.binary("graph.sub", n, ql)?
        }
        None => cx.scalar_of(past_len as f64, Type::I64),
    };
    table(q_len as i128 * kv_len as i128)?;
    let diagonal: Vec<i64> = (0..q_len)
        .flat_map(|i| (0..kv_len).map(move |j| j - i))
        .collect();
    let d = cx.constant(Tensor::from_i64(
        DType::I64,
        &[q_len as usize, kv_len as usize],
        &diagonal,
    ));
    let mut allowed: Option<Value> = None;
    let mut limit = |cx: &mut NodeCx, pred: &str, bound: Value| -> NodeResult<()> {
        let ok = cx.cmp(pred, d, bound)?;
        allowed = Some(match allowed {
            Some(a) => cx.binary("graph.and", a, ok)?,
            None => ok,
        });
        Ok(())
    };
    if causal {
        limit(cx, "le", offset)?;
    }
    if left >= 0 {
        let l = cx.scalar(left as f64, offset);
        let lo = cx.binary("graph.sub", offset, l)?;
        limit(cx, "ge", lo)?;
    }
    if right >= 0 {
        let r = cx.scalar(right as f64, offset);
        let hi = cx.binary("graph.add", offset, r)?;
        limit(cx, "le", hi)?;
    }
    if let Some(n) = nonpad {
        // Keys at or past a batch's length are masked: j < n[b].
        let positions: Vec<i64> = (0..kv_len).collect();
        let iota = cx.constant(Tensor::from_i64(DType::I64, &[kv_len as usize], &positions));
        let keep = cx.cmp("lt", iota, n)?;
        allowed = Some(match allowed {
            Some(a) => cx.binary("graph.and", a, keep)?,
            None => keep,
        });
    }
    if let Some(a) = allowed {
        let zero = cx.scalar(0.0, q);
        let ninf = cx.scalar(f64::NEG_INFINITY, q);
        let t = cx.select(a, zero, ninf)?;
        bias = add(cx, bias, t)?;
    }

    let qr = cx.binary("graph.mul", q, root)?;
    let kr = cx.binary("graph.mul", k, root)?;
    let kt = cx.transpose(kr, &[0, 1, 3, 2])?;
    let mut qk = cx.op("graph.matmul", &[qr, kt], &[])?;
    let softcap = cx.float_or("softcap", 0.0);
    if softcap > 0.0 {
        let c = cx.scalar(softcap, qk);
        let d = cx.binary("graph.div", qk, c)?;
        let t = cx.unary("graph.tanh", d)?;
        qk = cx.binary("graph.mul", t, c)?;
    }
    let with_bias = match bias {
        Some(b) => cx.binary("graph.add", qk, b)?,
        None => qk,
    };
    let mode = cx.int_or("qk_matmul_output_mode", 0);
    let precision = match cx.attr_int("softmax_precision") {
        Some(p) => element_type(p as i32)?,
        None => compute,
    };
    let x = cx.cast(with_bias, precision)?;
    // Softmax with fully masked rows: the max of such a row is −∞ (use 0), its sum 0 (use 1).
    let m = cx.reduce("graph.reduce_max", x, &[3], true)?;
    let ninf = cx.scalar(f64::NEG_INFINITY, m);
    let zero = cx.scalar(0.0, m);
    let one = cx.scalar(1.0, m);
    let masked = cx.cmp("eq", m, ninf)?;
    let m = cx.select(masked, zero, m)?;
    let d = cx.binary("graph.sub", x, m)?;
    let e = cx.unary("graph.exp", d)?;
    let s = cx.reduce("graph.reduce_sum", e, &[3], true)?;
    let empty = cx.cmp("eq", s, zero)?;
    let s = cx.select(empty, one, s)?;
    let mut p = cx.binary("graph.div", e, s)?;
    if let Some(b) = bias {
        let bm = cx.reduce("graph.reduce_max", b, &[cx.shape(b).len() as i64 - 1], true)?;
        let ninf = cx.scalar(f64::NEG_INFINITY, bm);
        let all = cx.cmp("eq", bm, ninf)?;
        let zero = cx.scalar(0.0, p);
        p = cx.select(all, zero, p)?;
    }
    let p = cx.cast(p, compute)?;
    let y = cx.op("graph.matmul", &[p, v], &[])?;
    let mut y = cx.cast(y, elem)?;
    if rank == 3 {
        let t = cx.transpose(y, &[0, 2, 1, 3])?;
        let ts = cx.shape(t);
        y = cx.reshape(t, &[ts[0], ts[1], ts[2] * ts[3]])?;
    }
    let qk_out = match mode {
        0 => qk,
        1 => qk,
        2 => with_bias,
        3 => p,
        other => return Err(format!("qk_matmul_output_mode {other} is not supported").into()),
    };
    let qk_out = cx.cast(qk_out, elem)?;
    Ok(vec![y, present_k, present_v, qk_out])
}
