//! Attention (opset 23 and 24) as a composition of graph ops, following the spec's reference:
//! 3-D inputs split into heads, the past key/value cache concatenated (and returned as the
//! present ones), grouped-query heads repeated, `Q·√scale · (K·√scale)ᵀ`, an optional soft cap,
//! an additive bias built from the mask (boolean masks become 0/−∞), the causal and sliding
//! window limits and the non-padded key lengths, then a softmax that gives 0 for a row that
//! is masked everywhere, and the product with V. The optional fourth output is the QK matrix
//! at the stage `qk_matmul_output_mode` names.

use super::{table, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::shape_values::Dim;
use crate::tensor::element_type;
use dlc_ir::{Type, Value, DYNAMIC};

pub(super) const OPS: &[(&str, Handler)] = &[("Attention", attention)];

/// `[B, S, H·D]` → `[B, H, S, D]` (`B` and `S` may be `?`; the hidden size is static).
fn split_heads(cx: &mut NodeCx, x: Value, heads: i64) -> NodeResult<Value> {
    let s = cx.dims(x);
    let Dim::Known(hidden) = s[2] else {
        return Err("the hidden size must be static".into());
    };
    if heads <= 0 || hidden % heads != 0 {
        return Err(format!("{heads} heads do not divide the hidden size {hidden}").into());
    }
    let r = cx.sized_reshape(
        x,
        &[s[0], s[1], Dim::Known(heads), Dim::Known(hidden / heads)],
    )?;
    cx.transpose(r, &[0, 2, 1, 3])
}

fn attention(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (mut q, mut k, mut v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let rank = cx.shape(q).len();
    if !(3..=4).contains(&rank) || cx.shape(k).len() != rank || cx.shape(v).len() != rank {
        return Err("Q, K and V must all be 3-D or all 4-D".into());
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
    if [q, k, v].iter().any(|x| cx.shape(*x)[1] == DYNAMIC) || qs[3] == DYNAMIC {
        return Err("the head counts and the head size must be static".into());
    }
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
    let past_len = match past_k {
        Some(p) => cx.dims(p)[2],
        None => Dim::Known(0),
    };
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
    let (q_len, kv_len) = (cx.dims(q)[2], cx.dims(k)[2]);
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
        let mut md = cx.dims(mask);
        let mask_len = md.last().copied().unwrap_or(kv_len);
        // A mask shorter than the keys is padded with −∞; with run-time lengths it must be
        // as long as the keys (a sized reshape checks it when the kernels run).
        let pad = match (kv_len, mask_len) {
            (Dim::Known(kv), Dim::Known(m)) => kv - m,
            _ => 0,
        };
        let mask = if mask_len != kv_len && pad == 0 && !md.is_empty() {
            *md.last_mut().unwrap_or(&mut Dim::Known(0)) = kv_len;
            cx.sized_reshape(mask, &md)?
        } else {
            mask
        };
        let ms = cx.shape(mask);
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
            let ql = cx.dim_scalar(q_len)?;
            cx.binary("graph.sub", n, ql)?
        }
        None => cx.dim_scalar(past_len)?,
    };
    if let (Dim::Known(q), Dim::Known(kv)) = (q_len, kv_len) {
        table(q as i128 * kv as i128)?;
    }
    let rows = cx.positions(q_len, 2, 0)?;
    let columns = cx.positions(kv_len, 2, 1)?;
    let d = cx.binary("graph.sub", columns, rows)?;
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
        let iota = cx.positions(kv_len, 1, 0)?;
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
        let ts = cx.dims(t);
        let merged = cx
            .dims_product(&ts[2..])
            .ok_or("the hidden size overflows")?;
        y = cx.sized_reshape(t, &[ts[0], ts[1], merged])?;
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
