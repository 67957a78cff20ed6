//! Index-tuple gathers and scatters: GatherND, ScatterElements (and its opset-9 name Scatter)
//! and ScatterND, composed from `graph.gather`, comparisons with an iota and reductions. All
//! need static shapes.
//!
//! - GatherND is one `graph.gather` from the data flattened to `[batch · M, R]` (M the
//!   product of the indexed dims, R of the rest), at `batch · M + Σ index_i · stride_i`.
//! - A scatter compares every index with every position of the scattered axis (ScatterElements,
//!   `|indices| · dim(axis)` booleans) or of the flattened indexed dims (ScatterND,
//!   `|index tuples| · M`). Without a reduction, the last update that hits a position wins (as
//!   the spec's reference loop): a `reduce_max` of the update's number where it hits, then a
//!   gather of that update. With `add`, `mul`, `max` or `min`, each update is selected where
//!   it hits (the identity elsewhere) and reduced: `|indices| · dim(axis)` elements for
//!   ScatterElements, `|index tuples| · |data|` for ScatterND. Indices out of range hit
//!   nothing.

use super::{axis, table, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("GatherND", gather_nd),
    ("ScatterElements", scatter_elements),
    ("Scatter", scatter_elements),
    ("ScatterND", scatter_nd),
];

/// Index tuples `idx` (last axis: one component per dim of `indexed`) with negative
/// components wrapped, and the mask of the tuples' components that are in range.
fn wrapped_in_range(cx: &mut NodeCx, idx: Value, indexed: &[i64]) -> NodeResult<(Value, Value)> {
    let dims_t = cx.constant(Literal::from_i64(DType::I64, &[indexed.len()], indexed));
    let idx = wrapped(cx, idx, dims_t)?;
    let zero = cx.scalar(0.0, idx);
    let ok_low = cx.cmp("ge", idx, zero)?;
    let ok_high = cx.cmp("lt", idx, dims_t)?;
    Ok((idx, cx.binary("graph.and", ok_low, ok_high)?))
}

/// `idx` (any integer type) as i64 with negative entries wrapped by `dims` (a constant that
/// broadcasts against it).
fn wrapped(cx: &mut NodeCx, idx: Value, dims: Value) -> NodeResult<Value> {
    let idx = cx.cast(idx, Type::I64)?;
    let zero = cx.scalar(0.0, idx);
    let neg = cx.cmp("lt", idx, zero)?;
    let up = cx.binary("graph.add", idx, dims)?;
    cx.select(neg, up, idx)
}

/// `out[b…, i…] = data[b…, indices[b…, i…, :], …]`.
fn gather_nd(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (data, idx) = (cx.input(0)?, cx.input(1)?);
    let ds = cx.static_shape(data, "GatherND")?;
    let is = cx.static_shape(idx, "GatherND's indices")?;
    let b = cx.int_or("batch_dims", 0);
    let (r, q) = (ds.len(), is.len());
    if r == 0 || q == 0 {
        return Err("data and indices must have rank ≥ 1".into());
    }
    if b < 0 || b as usize >= r.min(q) {
        return Err(format!("batch_dims {b} must be in [0, {})", r.min(q)).into());
    }
    let b = b as usize;
    if ds[..b] != is[..b] {
        return Err(format!("the batch dims of data {ds:?} and indices {is:?} differ").into());
    }
    let k = is[q - 1];
    if k < 1 || k as usize > r - b {
        return Err(format!("indices' last dim {k} must be in [1, {}]", r - b).into());
    }
    let k = k as usize;
    let batch: i64 = ds[..b].iter().product();
    let indexed = &ds[b..b + k];
    let m: i64 = indexed.iter().product();
    let rest = &ds[b + k..];
    let rows = batch * m;
    // Row-major strides of the indexed dims, and per component the index that sends a tuple
    // past every row (ceil(rows / stride), so that times the stride it stays in i64).
    let strides: Vec<i64> = (0..k).map(|i| indexed[i + 1..].iter().product()).collect();
    let far: Vec<i64> = strides
        .iter()
        .map(|s| ((rows + s - 1) / (*s).max(1)).max(1))
        .collect();
    let (idx, ok) = wrapped_in_range(cx, idx, indexed)?;
    let far = cx.constant(Literal::from_i64(DType::I64, &[k], &far));
    let idx = cx.select(ok, idx, far)?;
    let strides_t = cx.constant(Literal::from_i64(DType::I64, &[k], &strides));
    let scaled = cx.binary("graph.mul", idx, strides_t)?;
    let mut flat = cx.reduce("graph.reduce_sum", scaled, &[q as i64 - 1], false)?;
    if b > 0 {
        // Each batch's rows start at its flat batch number times M.
        table(batch.into())?;
        let starts: Vec<i64> = (0..batch).map(|i| i * m).collect();
        let mut shape: Vec<usize> = ds[..b].iter().map(|d| *d as usize).collect();
        shape.extend(vec![1; q - 1 - b]);
        let starts = cx.constant(Literal::from_i64(DType::I64, &shape, &starts));
        flat = cx.binary("graph.add", flat, starts)?;
    }
    let r_len: i64 = rest.iter().product();
    let rows_data = cx.reshape(data, &[rows, r_len])?;
    let attr = cx.int_attr(0);
    let y = cx.op("graph.gather", &[rows_data, flat], &[("axis", attr)])?;
    let mut out: Vec<i64> = is[..q - 1].to_vec();
    out.extend(rest);
    Ok(vec![cx.reshape(y, &out)?])
}

/// A scatter's `reduction`: none, or the combining op and its identity.
#[derive(Clone, Copy)]
enum Combine {
    Replace,
    Reduce {
        reduce: &'static str,
        combine: &'static str,
        identity: Identity,
    },
}

#[derive(Clone, Copy, PartialEq)]
enum Identity {
    Zero,
    One,
    Lowest,
    Highest,
}

fn combine(cx: &mut NodeCx) -> NodeResult<Combine> {
    let r = cx.attr_string("reduction").unwrap_or_else(|| "none".into());
    Ok(match r.as_str() {
        "none" => Combine::Replace,
        "add" => Combine::Reduce {
            reduce: "graph.reduce_sum",
            combine: "graph.add",
            identity: Identity::Zero,
        },
        "mul" => Combine::Reduce {
            reduce: "graph.reduce_prod",
            combine: "graph.mul",
            identity: Identity::One,
        },
        "max" => Combine::Reduce {
            reduce: "graph.reduce_max",
            combine: "graph.max",
            identity: Identity::Lowest,
        },
        "min" => Combine::Reduce {
            reduce: "graph.reduce_min",
            combine: "graph.min",
            identity: Identity::Highest,
        },
        other => {
            return Err(format!(
                "reduction '{other}' is not one of 'none', 'add', 'mul', 'max', 'min'"
            )
            .into())
        }
    })
}

/// The identity of a reduction as a scalar of `like`'s type.
fn identity(cx: &mut NodeCx, id: Identity, like: Value) -> Value {
    let ty = cx.elem(like);
    let (low, high) = match ty {
        Type::I1 => (0.0, 1.0),
        Type::I8 => (f64::from(i8::MIN), f64::from(i8::MAX)),
        Type::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        Type::I64 => (i64::MIN as f64, i64::MAX as f64),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let v = match id {
        Identity::Zero => 0.0,
        Identity::One => 1.0,
        Identity::Lowest => low,
        Identity::Highest => high,
    };
    if ty == Type::I64 && id == Identity::Highest {
        // i64::MAX is not an f64.
        return cx.constant(Literal::from_i64(DType::I64, &[], &[i64::MAX]));
    }
    cx.scalar(v, like)
}

/// An i64 constant of `shape` (all 1 but axis `a`) counting `0..n` along `a`.
fn iota(cx: &mut NodeCx, rank: usize, a: usize, n: i64) -> NodeResult<Value> {
    let len = table(n.into())?;
    let mut shape = vec![1usize; rank];
    shape[a] = len;
    let values: Vec<i64> = (0..n).collect();
    Ok(cx.constant(Literal::from_i64(DType::I64, &shape, &values)))
}

/// True where some entry of boolean `hit` along `axes` is true.
fn any(cx: &mut NodeCx, hit: Value, axes: &[i64]) -> NodeResult<Value> {
    let n = cx.cast(hit, Type::I32)?;
    let count = cx.reduce("graph.reduce_sum", n, axes, false)?;
    let zero = cx.scalar(0.0, count);
    cx.cmp("gt", count, zero)
}

/// The value at each position: the last update hitting it (`Replace`) or the reduction of
/// the data and every update hitting it. `hit` has the update axes first ([`..., L`] over
/// `j_axes`), then the target positions; `pick` gathers the updates by the winning update
/// number (a tensor shaped like the targets).
fn scattered(
    cx: &mut NodeCx,
    mode: Combine,
    hit: Value,
    number: Value,
    updates_spread: Value,
    j_axes: &[i64],
    pick: &mut dyn FnMut(&mut NodeCx, Value) -> NodeResult<Value>,
) -> NodeResult<(Value, Value)> {
    let hits = any(cx, hit, j_axes)?;
    let value = match mode {
        Combine::Replace => {
            let none = cx.scalar(-1.0, number);
            let cand = cx.select(hit, number, none)?;
            let last = cx.reduce("graph.reduce_max", cand, j_axes, false)?;
            let zero = cx.scalar(0.0, last);
            let last = cx.binary("graph.max", last, zero)?;
            pick(cx, last)?
        }
        Combine::Reduce {
            reduce,
            identity: id,
            ..
        } => {
            let e = identity(cx, id, updates_spread);
            let vals = cx.select(hit, updates_spread, e)?;
            cx.reduce(reduce, vals, j_axes, false)?
        }
    };
    Ok((hits, value))
}

/// `data` where nothing hits; else the scattered value (combined with the data under a
/// reduction).
fn merge(
    cx: &mut NodeCx,
    mode: Combine,
    data: Value,
    hits: Value,
    value: Value,
) -> NodeResult<Value> {
    let v = match mode {
        Combine::Replace => value,
        Combine::Reduce { combine, .. } => cx.binary(combine, data, value)?,
    };
    cx.select(hits, v, data)
}

/// `out = data`, then `out[i… with indices[i…] on axis] (⊕)= updates[i…]`.
fn scatter_elements(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (data, idx, upd) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let ds = cx.static_shape(data, "ScatterElements")?;
    let is = cx.static_shape(idx, "ScatterElements' indices")?;
    if cx.shape(upd) != is {
        return Err("updates and indices must have the same shape".into());
    }
    let rank = ds.len();
    if rank == 0 || is.len() != rank {
        return Err("data and indices must have the same rank ≥ 1".into());
    }
    let a = axis(cx.int_or("axis", 0), rank)? as usize;
    let mode = if cx.node.op_type == "Scatter" {
        Combine::Replace
    } else {
        combine(cx)?
    };
    if let Some(bad) = (0..rank).find(|d| *d != a && is[*d] > ds[*d]) {
        return Err(format!(
            "indices dim {bad} ({}) exceeds the data's ({})",
            is[bad], ds[bad]
        )
        .into());
    }
    let n = ds[a];
    let dim = cx.scalar_of(n as f64, Type::I64);
    let idx = wrapped(cx, idx, dim)?;
    // hit[i…, p] = (indices[i…] == p), p along a new last axis.
    let mut lifted: Vec<i64> = is.clone();
    lifted.push(1);
    let idx = cx.reshape(idx, &lifted)?;
    let positions = iota(cx, rank + 1, rank, n)?;
    let hit = cx.cmp("eq", idx, positions)?;
    let number = iota(cx, rank + 1, a, is[a])?;
    let spread = cx.reshape(upd, &lifted)?;
    // After reducing axis a, the position axis (last) moves to a.
    let mut back: Vec<i64> = (0..rank as i64 - 1).collect();
    back.insert(a, rank as i64 - 1);
    let mut pick = |cx: &mut NodeCx, last: Value| -> NodeResult<Value> {
        let last = cx.transpose(last, &back)?;
        super::movement::gather_along(cx, upd, last, a)
    };
    let (hits, value) = scattered(cx, mode, hit, number, spread, &[a as i64], &mut pick)?;
    let (hits, value) = match mode {
        Combine::Replace => (cx.transpose(hits, &back)?, value),
        Combine::Reduce { .. } => (cx.transpose(hits, &back)?, cx.transpose(value, &back)?),
    };
    // The other axes cover only the indices' extent: pad to the data's.
    let high: Vec<i64> = (0..rank)
        .map(|d| if d == a { 0 } else { ds[d] - is[d] })
        .collect();
    let low = vec![0; rank];
    let hits = cx.pad_or_crop(hits, &low, &high, 0.0)?;
    let value = cx.pad_or_crop(value, &low, &high, 0.0)?;
    Ok(vec![merge(cx, mode, data, hits, value)?])
}

/// `out = data`, then `out[indices[i…]] (⊕)= updates[i…]` for each index tuple, over the data
/// flattened to `[M, R]`.
fn scatter_nd(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (data, idx, upd) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let ds = cx.static_shape(data, "ScatterND")?;
    let is = cx.static_shape(idx, "ScatterND's indices")?;
    let us = cx.static_shape(upd, "ScatterND's updates")?;
    let mode = combine(cx)?;
    let (r, q) = (ds.len(), is.len());
    if r == 0 || q == 0 {
        return Err("data and indices must have rank ≥ 1".into());
    }
    let k = is[q - 1];
    if k < 1 || k as usize > r {
        return Err(format!("indices' last dim {k} must be in [1, {r}]").into());
    }
    let k = k as usize;
    let mut expected: Vec<i64> = is[..q - 1].to_vec();
    expected.extend(&ds[k..]);
    if us != expected {
        return Err(format!("updates have shape {us:?}, expected {expected:?}").into());
    }
    let indexed = &ds[..k];
    let m: i64 = indexed.iter().product();
    let rest: i64 = ds[k..].iter().product();
    let l: i64 = is[..q - 1].iter().product();
    // The flat position of each tuple among the M indexed positions; a component out of range
    // makes it −1, which hits nothing.
    let strides: Vec<i64> = (0..k).map(|i| indexed[i + 1..].iter().product()).collect();
    let (idx, ok) = wrapped_in_range(cx, idx, indexed)?;
    let strides_t = cx.constant(Literal::from_i64(DType::I64, &[k], &strides));
    let scaled = cx.binary("graph.mul", idx, strides_t)?;
    let flat = cx.reduce("graph.reduce_sum", scaled, &[q as i64 - 1], false)?;
    let ok = all_along(cx, ok, q as i64 - 1)?;
    let minus = cx.scalar(-1.0, flat);
    let flat = cx.select(ok, flat, minus)?;
    let flat = cx.reshape(flat, &[l, 1])?;
    let positions = iota(cx, 2, 1, m)?;
    // hit[j, p]: tuple j lands on flat position p.
    let hit = cx.cmp("eq", flat, positions)?;
    let number = iota(cx, 2, 0, l)?;
    let upd2 = cx.reshape(upd, &[l, rest])?;
    let data2 = cx.reshape(data, &[m, rest])?;
    let mut pick = |cx: &mut NodeCx, last: Value| -> NodeResult<Value> {
        let attr = cx.int_attr(0);
        cx.op("graph.gather", &[upd2, last], &[("axis", attr)])
    };
    let (hits, value) = match mode {
        Combine::Replace => scattered(cx, mode, hit, number, upd2, &[0], &mut pick)?,
        Combine::Reduce { .. } => {
            let hit3 = cx.reshape(hit, &[l, m, 1])?;
            let spread = cx.reshape(upd2, &[l, 1, rest])?;
            let (hits, value) = scattered(cx, mode, hit3, number, spread, &[0], &mut pick)?;
            (hits, value)
        }
    };
    let hits = cx.reshape(hits, &[m, 1])?;
    let y = merge(cx, mode, data2, hits, value)?;
    Ok(vec![cx.reshape(y, &ds)?])
}

/// True where every entry along `axis` of boolean `ok` is true.
fn all_along(cx: &mut NodeCx, ok: Value, axis: i64) -> NodeResult<Value> {
    let n = cx.cast(ok, Type::I32)?;
    let least = cx.reduce("graph.reduce_min", n, &[axis], false)?;
    let zero = cx.scalar(0.0, least);
    cx.cmp("gt", least, zero)
}
