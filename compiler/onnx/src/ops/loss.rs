//! The losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, composed from a
//! gather along the class axis (GatherElements' semantics), the class weights, the ignored
//! index and the reduction, as the spec's function bodies define them.

use super::movement::gather_along;
use super::Handler;
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("NegativeLogLikelihoodLoss", nll_loss),
    ("SoftmaxCrossEntropyLoss", softmax_cross_entropy),
];

fn nll_loss(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (input, target) = (cx.input(0)?, cx.input(1)?);
    let weight = cx.opt_input(2);
    Ok(vec![nll(cx, input, target, weight)?])
}

/// `log_softmax` over the class axis, then the NLL loss of it; the second output is the
/// log-probabilities.
fn softmax_cross_entropy(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (scores, labels) = (cx.input(0)?, cx.input(1)?);
    let weight = cx.opt_input(2);
    let axis = cx.int_attr(1);
    let log_prob = cx.op("graph.log_softmax", &[scores], &[("axis", axis)])?;
    let loss = nll(cx, log_prob, labels, weight)?;
    Ok(vec![loss, log_prob])
}

/// `loss[n, d…] = −input[n, target[n, d…], d…] · w[target]`, 0 where the target is
/// `ignore_index`; reduced by `none`, `sum` or `mean` (the sum over the sum of the weights
/// taken).
fn nll(cx: &mut NodeCx, input: Value, target: Value, weight: Option<Value>) -> NodeResult<Value> {
    let reduction = cx.attr_string("reduction").unwrap_or_else(|| "mean".into());
    let ignore = cx.attr_int("ignore_index");
    let shape = cx.shape(input);
    if shape.len() < 2 {
        return Err("the input needs a class axis (N×C×...)".into());
    }
    let t = cx.cast(target, Type::I64)?;
    let keep = match ignore {
        Some(i) => {
            let iv = cx.scalar(i as f64, t);
            Some(cx.cmp("ne", t, iv)?)
        }
        None => None,
    };
    let safe = match keep {
        Some(k) => {
            let zero = cx.scalar(0.0, t);
            cx.select(k, t, zero)?
        }
        None => t,
    };
    // target [N, d…] → [N, 1, d…], gathered along axis 1, back to [N, d…].
    let ts = cx.shape(safe);
    let mut lifted: Vec<i64> = ts.clone();
    lifted.insert(1, 1);
    let idx = cx.reshape(safe, &lifted)?;
    let picked = gather_along(cx, input, idx, 1)?;
    let picked = cx.reshape(picked, &ts)?;
    let mut w = match weight {
        Some(w) => {
            let a = cx.int_attr(0);
            cx.op("graph.gather", &[w, safe], &[("axis", a)])?
        }
        None => {
            let one = cx.scalar(1.0, input);
            let ones = cx.array_attr(&ts);
            cx.op("graph.broadcast_to", &[one], &[("shape", ones)])?
        }
    };
    if let Some(k) = keep {
        let zero = cx.scalar(0.0, w);
        w = cx.select(k, w, zero)?;
    }
    let neg = cx.unary("graph.neg", picked)?;
    let loss = cx.binary("graph.mul", neg, w)?;
    let all: Vec<i64> = (0..ts.len() as i64).collect();
    match reduction.as_str() {
        "none" => Ok(loss),
        "sum" => cx.reduce("graph.reduce_sum", loss, &all, false),
        "mean" => {
            let s = cx.reduce("graph.reduce_sum", loss, &all, false)?;
            let ws = cx.reduce("graph.reduce_sum", w, &all, false)?;
            cx.binary("graph.div", s, ws)
        }
        other => Err(format!("reduction '{other}' is not supported").into()),
    }
}
