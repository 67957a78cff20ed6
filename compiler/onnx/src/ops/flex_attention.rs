//! FlexAttention (domain `ai.onnx.preview`, version 1) as a composition of graph ops, following
//! the spec's reference: grouped-query K/V heads repeated, `(Q·√s)·(K·√s)ᵀ` in the inputs' type
//! (16-bit floats multiply in f32 and round back, as numpy's half matmul does), the scores
//! cast to the softmax precision, the `score_mod` subgraph inlined on them, `graph.softmax`
//! over the keys, the `prob_mod` subgraph inlined on the probabilities, and the product with
//! V in the softmax precision, cast to V's type.

use super::Handler;
use crate::importer::{NodeCx, NodeResult};
use crate::tensor::element_type;
use dlc_ir::{Type, Value};

pub(super) const OPS: &[(&str, Handler)] = &[("FlexAttention", flex_attention)];

/// Inlines the modifier subgraph of attribute `name` on `x` when the node has one: one rank-4
/// output of `x`'s shape, cast to `x`'s element type (as the reference does).
fn modify(cx: &mut NodeCx, name: &str, x: Value) -> NodeResult<Value> {
    let Some(g) = cx.attr_graph(name) else {
        if cx.has_attr(name) {
            return Err(format!("attribute '{name}' must be a graph").into());
        }
        return Ok(x);
    };
    let out = cx.inline_graph(name, g, &[x])?;
    let [y] = out[..] else {
        return Err(format!(
            "attribute '{name}' is a graph of {} outputs; it must have one",
            out.len()
        )
        .into());
    };
    if cx.shape(y) != cx.shape(x) {
        return Err(format!(
            "attribute '{name}' changes the shape {:?} to {:?}",
            cx.shape(x),
            cx.shape(y)
        )
        .into());
    }
    let elem = cx.elem(x);
    cx.cast(y, elem)
}

fn flex_attention(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let elem = cx.elem(q);
    let mut shapes = Vec::with_capacity(3);
    for (x, name) in [(q, "Q"), (k, "K"), (v, "V")] {
        if !matches!(elem, Type::F32 | Type::F16 | Type::BF16 | Type::F64) || cx.elem(x) != elem {
            return Err(format!(
                "Q, K and V must share one float type (float, float16, bfloat16, double); {name} is {:?}",
                cx.elem(x)
            )
            .into());
        }
        let s = cx.static_shape(x, "FlexAttention")?;
        if s.len() != 4 {
            return Err(format!("{name} must be rank 4, not {s:?}").into());
        }
        shapes.push(s);
    }
    let (qs, ks, vs) = (&shapes[0], &shapes[1], &shapes[2]);
    if qs[0] != ks[0] || ks[0] != vs[0] {
        return Err(
            format!("Q, K and V have different batch sizes ({qs:?}, {ks:?}, {vs:?})").into(),
        );
    }
    if ks[1] != vs[1] || ks[2] != vs[2] {
        return Err(
            format!("K and V must share their heads and sequence length ({ks:?}, {vs:?})").into(),
        );
    }
    if qs[3] != ks[3] {
        return Err(format!("Q and K must share their head size ({qs:?}, {ks:?})").into());
    }
    let (hq, hkv) = (qs[1], ks[1]);
    if hkv == 0 || hq % hkv != 0 {
        return Err(format!("{hq} query heads are not a multiple of {hkv} key/value heads").into());
    }
    let compute = match cx.attr_int("softmax_precision") {
        Some(p @ (1 | 10 | 11 | 16)) => element_type(p as i32)?,
        Some(p) => {
            return Err(format!(
                "attribute 'softmax_precision' is {p} (expected 1 float, 10 float16, 16 bfloat16 or 11 double)"
            )
            .into())
        }
        None if elem == Type::F64 => Type::F64,
        None => Type::F32,
    };
    let scale = cx.float_or("scale", 1.0 / (qs[3] as f64).sqrt());
    // √scale in f32, then in the inputs' type.
    let root = (scale as f32).sqrt() as f64;
    let root = cx.scalar(root, q);

    let (mut k, mut v) = (k, v);
    if hq != hkv {
        let index: Vec<i64> = (0..hq).map(|h| h / (hq / hkv)).collect();
        let idx = cx.i64_vector(&index);
        let a = cx.int_attr(1);
        k = cx.op("graph.gather", &[k, idx], &[("axis", a)])?;
        v = cx.op("graph.gather", &[v, idx], &[("axis", a)])?;
    }
    let qr = cx.binary("graph.mul", q, root)?;
    let kr = cx.binary("graph.mul", k, root)?;
    let kt = cx.transpose(kr, &[0, 1, 3, 2])?;
    let wide = if matches!(elem, Type::F16 | Type::BF16) {
        Type::F32
    } else {
        elem
    };
    let (qw, kw) = (cx.cast(qr, wide)?, cx.cast(kt, wide)?);
    let scores = cx.op("graph.matmul", &[qw, kw], &[])?;
    let scores = cx.cast(scores, elem)?;
    let scores = cx.cast(scores, compute)?;
    let scores = modify(cx, "score_mod", scores)?;
    let axis = cx.int_attr(3);
    let probs = cx.op("graph.softmax", &[scores], &[("axis", axis)])?;
    let probs = modify(cx, "prob_mod", probs)?;
    let vf = cx.cast(v, compute)?;
    let y = cx.op("graph.matmul", &[probs, vf], &[])?;
    Ok(vec![cx.cast(y, elem)?])
}
