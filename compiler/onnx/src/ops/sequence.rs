//! Operators that move data along a sequence axis by runtime positions: ReverseSequence and
//! TensorScatter.
//!
//! Both compute, for every (batch, position) of the output, the position it reads from (an
//! iota compared with the runtime lengths or write offsets), lay the source out as `[B·T,
//! rest]` rows, and `graph.gather` the row `b·T + t` — the one-axis gather reaching a
//! per-batch position.

use super::{axis, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("ReverseSequence", reverse_sequence),
    ("TensorScatter", tensor_scatter),
];

/// `source` (`[B, T, rest…]`) read at per-batch positions `pos` (`[B, U]`, each in `[0, T)`):
/// `[B, U, rest…]`.
fn gather_rows(cx: &mut NodeCx, source: Value, pos: Value) -> NodeResult<Value> {
    let shape = cx.shape(source);
    let (b, t) = (shape[0], shape[1]);
    let rest: i64 = shape[2..].iter().product();
    let rows = cx.reshape(source, &[b * t, rest])?;
    let starts: Vec<i64> = (0..b).map(|i| i * t).collect();
    let base = cx.constant(Literal::from_i64(DType::I64, &[b as usize, 1], &starts));
    let flat = cx.binary("graph.add", pos, base)?;
    let attr = cx.int_attr(0);
    let picked = cx.op("graph.gather", &[rows, flat], &[("axis", attr)])?;
    let mut out = vec![b, cx.shape(pos)[1]];
    out.extend_from_slice(&shape[2..]);
    cx.reshape(picked, &out)
}

/// An `i64` `[1, n]` iota.
fn iota_row(cx: &mut NodeCx, n: i64) -> NodeResult<Value> {
    let len = super::table(n.into())?;
    let v: Vec<i64> = (0..n).collect();
    Ok(cx.constant(Literal::from_i64(DType::I64, &[1, len], &v)))
}

/// `v` clamped to `[lo, hi]` (i64).
fn clamp_i64(cx: &mut NodeCx, v: Value, lo: i64, hi: i64) -> NodeResult<Value> {
    let (l, h) = (cx.scalar(lo as f64, v), cx.scalar(hi as f64, v));
    let v = cx.binary("graph.max", v, l)?;
    cx.binary("graph.min", v, h)
}

/// The first `len[b]` steps of each batch entry reversed, the rest copied; lengths are clamped
/// to `[0, T]`.
fn reverse_sequence(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let lens = cx.input(1)?;
    let shape = cx.static_shape(x, "ReverseSequence")?;
    let time = cx.int_or("time_axis", 0);
    let batch = cx.int_or("batch_axis", 1);
    if shape.len() < 2 {
        return Err(format!("the input must have rank 2 or more, not {}", shape.len()).into());
    }
    if !matches!((time, batch), (0, 1) | (1, 0)) {
        return Err(format!(
            "time_axis {time} and batch_axis {batch} must be 0 and 1, in either order"
        )
        .into());
    }
    let (b, t) = (shape[batch as usize], shape[time as usize]);
    if cx.shape(lens) != [b] || cx.is_float(lens) {
        return Err(format!(
            "sequence_lens must be an integer tensor of shape [{b}], not {:?}",
            cx.shape(lens)
        )
        .into());
    }
    let mut perm: Vec<i64> = (0..shape.len() as i64).collect();
    perm.swap(0, batch as usize);
    let moved = cx.transpose(x, &perm)?;
    let len = cx.cast(lens, Type::I64)?;
    let len = cx.reshape(len, &[b, 1])?;
    let len = clamp_i64(cx, len, 0, t)?;
    let steps = iota_row(cx, t)?;
    let inside = cx.cmp("lt", steps, len)?;
    let one = cx.scalar(1.0, len);
    let last = cx.binary("graph.sub", len, one)?;
    let mirrored = cx.binary("graph.sub", last, steps)?;
    let pos = cx.select(inside, mirrored, steps)?;
    let y = gather_rows(cx, moved, pos)?;
    Ok(vec![cx.transpose(y, &perm)?])
}

/// `update` written into `past_cache` along `axis` from each batch entry's write index
/// (zeros when absent), wrapping around in `circular` mode; positions the update does not
/// reach keep the cache (a linear write past the end is dropped).
fn tensor_scatter(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let past = cx.input(0)?;
    let update = cx.input(1)?;
    let writes = cx.opt_input(2);
    let ps = cx.static_shape(past, "TensorScatter")?;
    let us = cx.static_shape(update, "TensorScatter's update")?;
    let rank = ps.len();
    let a = axis(cx.int_or("axis", -2), rank)? as usize;
    let circular = match cx.attr_string("mode").as_deref() {
        None | Some("linear") => false,
        Some("circular") => true,
        Some(other) => return Err(format!("mode '{other}' is not supported").into()),
    };
    if a == 0 {
        return Err("axis must not be 0 (the batch axis)".into());
    }
    let (m, s) = (ps[a], us[a]);
    let other_dims_match = (0..rank).all(|d| d == a || ps[d] == us[d]);
    if us.len() != rank || !other_dims_match || s > m {
        return Err(format!(
            "the update {us:?} must match the cache {ps:?} but along axis {a}, where it may be at most as long"
        )
        .into());
    }
    if cx.elem(past) != cx.elem(update) {
        return Err("the cache and the update must have the same element type".into());
    }
    let b = ps[0];
    if s == 0 {
        return Ok(vec![past]);
    }
    let w = match writes {
        Some(w) => {
            if cx.shape(w) != [b] || cx.is_float(w) {
                return Err(format!(
                    "write_indices must be an integer tensor of shape [{b}], not {:?}",
                    cx.shape(w)
                )
                .into());
            }
            let w = cx.cast(w, Type::I64)?;
            cx.reshape(w, &[b, 1])?
        }
        None => cx.scalar_of(0.0, Type::I64),
    };
    // j: the update step landing on cache position p.
    let p = iota_row(cx, m)?;
    let mut j = cx.binary("graph.sub", p, w)?;
    if circular {
        let mv = cx.scalar(m as f64, j);
        let r = cx.binary("graph.rem", j, mv)?;
        let r = cx.binary("graph.add", r, mv)?;
        j = cx.binary("graph.rem", r, mv)?;
    }
    let zero = cx.scalar(0.0, j);
    let limit = cx.scalar(s as f64, j);
    let from = cx.cmp("ge", j, zero)?;
    let below = cx.cmp("lt", j, limit)?;
    let valid = cx.binary("graph.and", from, below)?;
    let j = clamp_i64(cx, j, 0, s - 1)?;
    // The update as [B, S, rest…], the rest in order.
    let mut perm: Vec<i64> = vec![0, a as i64];
    perm.extend((1..rank as i64).filter(|d| *d != a as i64));
    let moved = cx.transpose(update, &perm)?;
    let j = if cx.shape(j) == [1, m] {
        let z = cx.constant(Literal::from_i64(
            DType::I64,
            &[b as usize, 1],
            &vec![0; b as usize],
        ));
        cx.binary("graph.add", j, z)?
    } else {
        j
    };
    let picked = gather_rows(cx, moved, j)?;
    let inverse: Vec<i64> = (0..rank as i64)
        .map(|d| perm.iter().position(|p| *p == d).unwrap_or(0) as i64)
        .collect();
    let picked = cx.transpose(picked, &inverse)?;
    let mut vshape = vec![1; rank];
    vshape[0] = b;
    vshape[a] = m;
    let valid = if cx.shape(valid) == [1, m] {
        let t = cx.constant(Literal::from_bools(
            &[b as usize, 1],
            &vec![true; b as usize],
        ));
        cx.binary("graph.and", valid, t)?
    } else {
        valid
    };
    let valid = cx.reshape(valid, &vshape)?;
    Ok(vec![cx.select(valid, picked, past)?])
}
