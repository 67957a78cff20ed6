//! Reductions: ReduceSum/Mean/Max/Min/Prod and the composed ReduceL1/L2/LogSum/LogSumExp/
//! SumSquare, ArgMax/ArgMin, and the scans CumSum and CumProd (log-step shifts and adds or
//! multiplies).
//!
//! The axes are an attribute until opset 13 (ReduceSum) or 18 (the others), then an optional
//! input. No axes reduce every axis, unless `noop_with_empty_axes` makes that the identity.

use super::{axes, axis, table, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::shape_values::Dim;
use dlc_ir::Value;

pub(super) const OPS: &[(&str, Handler)] = &[
    ("ReduceSum", reduce),
    ("ReduceMean", reduce),
    ("ReduceMax", reduce),
    ("ReduceMin", reduce),
    ("ReduceProd", reduce),
    ("ReduceL1", reduce),
    ("ReduceL2", reduce),
    ("ReduceLogSum", reduce),
    ("ReduceLogSumExp", reduce),
    ("ReduceSumSquare", reduce),
    ("ArgMax", arg_reduce),
    ("ArgMin", arg_reduce),
    ("CumSum", cumulative),
    ("CumProd", cumulative),
];

fn reduce(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let rank = cx.shape(x).len();
    let op_type = cx.node.op_type.clone();
    let axes_are_input = if op_type == "ReduceSum" { 13 } else { 18 };
    let given = if cx.opset < axes_are_input {
        cx.attr_ints("axes")
    } else {
        cx.ints_input(1)?
    };
    let keepdim = cx.int_or("keepdims", 1) != 0;
    let noop = cx.int_or("noop_with_empty_axes", 0) != 0;
    let list = match given {
        Some(l) if !l.is_empty() => axes(&l, rank)?,
        _ if noop => return Ok(vec![x]),
        _ => (0..rank as i64).collect(),
    };
    let y = match op_type.as_str() {
        "ReduceSum" => cx.reduce("graph.reduce_sum", x, &list, keepdim)?,
        "ReduceMean" => cx.reduce("graph.reduce_mean", x, &list, keepdim)?,
        "ReduceMax" => cx.reduce("graph.reduce_max", x, &list, keepdim)?,
        "ReduceMin" => cx.reduce("graph.reduce_min", x, &list, keepdim)?,
        "ReduceProd" => cx.reduce("graph.reduce_prod", x, &list, keepdim)?,
        "ReduceL1" => {
            let a = cx.unary("graph.abs", x)?;
            cx.reduce("graph.reduce_sum", a, &list, keepdim)?
        }
        "ReduceL2" => {
            let sq = cx.binary("graph.mul", x, x)?;
            let s = cx.reduce("graph.reduce_sum", sq, &list, keepdim)?;
            cx.unary("graph.sqrt", s)?
        }
        "ReduceLogSum" => {
            let s = cx.reduce("graph.reduce_sum", x, &list, keepdim)?;
            cx.unary("graph.log", s)?
        }
        "ReduceLogSumExp" => {
            // log Σ e^(x − m) + m with m the max, as stable as onnxruntime's.
            let m = cx.reduce("graph.reduce_max", x, &list, true)?;
            let d = cx.binary("graph.sub", x, m)?;
            let e = cx.unary("graph.exp", d)?;
            let s = cx.reduce("graph.reduce_sum", e, &list, keepdim)?;
            let l = cx.unary("graph.log", s)?;
            let m = if keepdim {
                m
            } else {
                cx.reduce("graph.reduce_max", m, &list, false)?
            };
            cx.binary("graph.add", l, m)?
        }
        _ => {
            let sq = cx.binary("graph.mul", x, x)?;
            cx.reduce("graph.reduce_sum", sq, &list, keepdim)?
        }
    };
    Ok(vec![y])
}

/// `select_last_index = 1` reverses the axis, takes the first extreme, and maps the index back.
fn arg_reduce(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let a = axis(cx.int_or("axis", 0), shape.len())?;
    let keepdim = cx.int_or("keepdims", 1) != 0;
    let last = cx.int_or("select_last_index", 0) != 0;
    let name = if cx.node.op_type == "ArgMax" {
        "graph.argmax"
    } else {
        "graph.argmin"
    };
    let (axis_attr, keep_attr) = (cx.int_attr(a), cx.ctx().bool_attr(keepdim));
    if !last {
        return Ok(vec![cx.op(
            name,
            &[x],
            &[("axis", axis_attr), ("keepdim", keep_attr)],
        )?]);
    }
    let dim = shape[a as usize];
    if dim == dlc_ir::DYNAMIC {
        return Err("select_last_index on a dynamic axis is not supported".into());
    }
    table(dim as i128)?;
    let reversed: Vec<i64> = (0..dim).rev().collect();
    let idx = cx.i64_vector(&reversed);
    let r = cx.op("graph.gather", &[x, idx], &[("axis", axis_attr)])?;
    let i = cx.op(name, &[r], &[("axis", axis_attr), ("keepdim", keep_attr)])?;
    let top = cx.scalar((dim - 1) as f64, i);
    Ok(vec![cx.binary("graph.sub", top, i)?])
}

/// Running sums (CumSum) or products (CumProd) along `axis` ([`running`]).
fn cumulative(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let product = cx.node.op_type == "CumProd";
    let a = cx.const_input(1)?.ok_or("input #1 (axis) is required")?;
    if a.len() != 1 || !a.dtype().is_int() {
        return Err("axis must be an integer scalar".into());
    }
    let a = axis(a.get(0).as_i64(), shape.len())? as usize;
    let exclusive = cx.int_or("exclusive", 0) != 0;
    let reverse = cx.int_or("reverse", 0) != 0;
    Ok(vec![running(cx, x, a, product, exclusive, reverse)?])
}

/// Running sums (or products) along a `?` axis of `n` elements, whose scan would need
/// `⌈log₂ n⌉` steps known at compile time: output `j` reduces the inputs `i` its mask keeps
/// (`i ≤ j`; `i < j` exclusive; `≥`, `>` reversed), the others replaced by the identity. The
/// `[.., n, n, ..]` select feeds the reduction in one kernel; `n²` work per row, where the
/// scan does `n log n`.
fn masked_running(
    cx: &mut NodeCx,
    x: Value,
    a: usize,
    product: bool,
    exclusive: bool,
    reverse: bool,
) -> NodeResult<Value> {
    let mut dims = cx.dims(x);
    let rank = dims.len();
    let n = dims[a];
    let sources = cx.positions(n, rank + 1, a)?;
    let outputs = cx.positions(n, rank + 1, a + 1)?;
    let predicate = match (reverse, exclusive) {
        (false, false) => "le",
        (false, true) => "lt",
        (true, false) => "ge",
        (true, true) => "gt",
    };
    let keep = cx.cmp(predicate, sources, outputs)?;
    dims.insert(a + 1, Dim::Known(1));
    let lifted = cx.sized_reshape(x, &dims)?;
    let (reduce, identity) = if product {
        ("graph.reduce_prod", 1.0)
    } else {
        ("graph.reduce_sum", 0.0)
    };
    let identity = cx.scalar(identity, x);
    let kept = cx.select(keep, lifted, identity)?;
    cx.reduce(reduce, kept, &[a as i64], false)
}

/// Running sums (or products) of `x` along its static `axis` by a log-step scan
/// (Hillis–Steele): `y ⊕= y` shifted by 1, 2, 4, ... positions (a pad with the identity, 0 or
/// 1, and a crop), `⌈log₂ n⌉` adds or multiplies. `exclusive` shifts the input by one first,
/// `reverse` shifts the other way. Every output combines exactly its own inputs, so
/// infinities and NaNs stay where they belong.
pub(super) fn running(
    cx: &mut NodeCx,
    x: Value,
    a: usize,
    product: bool,
    exclusive: bool,
    reverse: bool,
) -> NodeResult<Value> {
    let shape = cx.shape(x);
    let (combine, identity) = if product {
        ("graph.mul", 1.0)
    } else {
        ("graph.add", 0.0)
    };
    let n = shape[a];
    if n == dlc_ir::DYNAMIC {
        return masked_running(cx, x, a, product, exclusive, reverse);
    }
    let rank = shape.len();
    // `y` moved `k` positions along the axis, toward the end (or the start when reversed).
    let shift = |cx: &mut NodeCx, y: Value, k: i64| -> NodeResult<Value> {
        let (mut low, mut high) = (vec![0; rank], vec![0; rank]);
        (low[a], high[a]) = if reverse { (-k, k) } else { (k, -k) };
        cx.pad_or_crop(y, &low, &high, identity)
    };
    let mut y = if exclusive && n > 0 {
        shift(cx, x, 1)?
    } else {
        x
    };
    let mut k = 1;
    while k < n {
        let moved = shift(cx, y, k)?;
        y = cx.binary(combine, y, moved)?;
        k *= 2;
    }
    Ok(y)
}
