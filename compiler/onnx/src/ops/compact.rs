//! Outputs whose size depends on the data: NonZero, Compress and Unique.
//!
//! Each selects the positions where a mask is true (nonzero elements, the condition, first
//! occurrences), and its output has one element (or slice) per true position: a size known
//! only once the mask is computed. They become a count (a
//! reduction, in a kernel), `graph.read_size` of it (read on the host after that kernel ran),
//! and a result sized by it: `graph.iota` over the `n` output positions, each the index of the
//! `j`-th true position, then a gather. The `j`-th true position is the number of positions
//! whose running count of trues is at most `j`: the running count is a log-step scan
//! (`N log N`), and as it never decreases, each output position finds its place by a binary
//! search over it (`n log N`). The mask must have a static length.
//!
//! Unique compares every slice along its axis (every element without one) with every other:
//! equal slices, and for `sorted` their lexicographic order (the first differing element
//! decides), give each slice's first occurrence and the rank of its value among the distinct
//! ones; the output positions then gather the first occurrences by rank. `D²·T` work for `D`
//! slices of `T` elements.

use super::{axis, reduce::running, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value, DYNAMIC};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("NonZero", nonzero),
    ("Compress", compress),
    ("Unique", unique),
];

/// The indices of the true elements of the 1-D `i1` tensor `mask`, in order, as an `i64`
/// vector of `?` length (see the module docs).
pub(super) fn true_positions(cx: &mut NodeCx, mask: Value, what: &str) -> NodeResult<Value> {
    let len = match cx.shape(mask)[..] {
        [n] if n != DYNAMIC => n,
        _ => return Err(format!("{what} must have a static length").into()),
    };
    let ones = cx.cast(mask, Type::I64)?;
    let count = cx.reduce("graph.reduce_sum", ones, &[0], false)?;
    let n = cx.index_op("graph.read_size", &[count], &[]);
    let ty = cx.ctx().tensor_type(&[DYNAMIC], Type::I64);
    let zero = cx.int_attr(0);
    let j = cx.op_typed("graph.iota", &[n], &[("axis", zero)], ty)?;
    // running[i] = trues in mask[0..=i], which never decreases; position(j) = #{i :
    // running[i] <= j}, found by a binary search for each j: ⌈log₂ N⌉ steps, each a gather.
    let counts = running(cx, ones, 0, false, false, false)?;
    let one = cx.scalar_of(1.0, Type::I64);
    let target = cx.binary("graph.add", j, one)?;
    let size = cx.scalar_of(len as f64, Type::I64);
    let nothing = cx.scalar_of(0.0, Type::I64);
    let mut at = cx.binary("graph.mul", j, nothing)?;
    let mut step = 1i64 << (63 - (len.max(1) as u64).leading_zeros());
    while step > 0 {
        // Move to `at + step` when that many running counts are still below `j + 1`.
        let s = cx.scalar_of(step as f64, Type::I64);
        let cand = cx.binary("graph.add", at, s)?;
        let inside = cx.cmp("le", cand, size)?;
        let clipped = cx.binary("graph.min", cand, size)?;
        let probe = cx.binary("graph.sub", clipped, one)?;
        let axis = cx.int_attr(0);
        let value = cx.op("graph.gather", &[counts, probe], &[("axis", axis)])?;
        let below = cx.cmp("lt", value, target)?;
        let further = cx.binary("graph.and", inside, below)?;
        at = cx.select(further, cand, at)?;
        step /= 2;
    }
    Ok(at)
}

/// `x` and the node's normalized `axis` attribute, or without one `x` flattened (which needs a
/// static shape; `what` names the operator) and axis 0.
fn along_axis(cx: &mut NodeCx, x: Value, what: &str) -> NodeResult<(Value, usize)> {
    match cx.attr_int("axis") {
        Some(a) => Ok((x, axis(a, cx.shape(x).len())? as usize)),
        None => {
            cx.static_shape(x, what)?;
            Ok((cx.reshape(x, &[-1])?, 0))
        }
    }
}

/// NonZero: the indices of the nonzero elements of `x`, as `[rank, n]` (row-major order).
fn nonzero(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "NonZero")?;
    let shape = if shape.is_empty() { vec![1] } else { shape };
    let flat = cx.reshape(x, &[-1])?;
    let mask = if cx.elem(x) == Type::I1 {
        flat
    } else {
        let zero = cx.scalar(0.0, flat);
        cx.cmp("ne", flat, zero)?
    };
    let at = true_positions(cx, mask, "the input")?;
    let mut rows = Vec::with_capacity(shape.len());
    let mut stride: i64 = shape.iter().product();
    for (k, &d) in shape.iter().enumerate() {
        stride /= d.max(1);
        // coord = at / stride % d; the first dim's quotient is already below d.
        let mut coord = at;
        if stride != 1 {
            let s = cx.scalar_of(stride as f64, Type::I64);
            coord = cx.binary("graph.div", coord, s)?;
        }
        if k > 0 {
            let size = cx.scalar_of(d as f64, Type::I64);
            coord = cx.binary("graph.rem", coord, size)?;
        }
        rows.push(cx.reshape(coord, &[1, -1])?);
    }
    if rows.len() == 1 {
        return Ok(rows);
    }
    let a = cx.int_attr(0);
    Ok(vec![cx.op("graph.concat", &rows, &[("axis", a)])?])
}

/// Compress: the slices of `x` along `axis` (of the flattened `x` without one) where
/// `condition` is true; a condition shorter than the axis drops the slices past it.
fn compress(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let condition = cx.input(1)?;
    let (x, a) = along_axis(cx, x, "Compress without an axis")?;
    let length = cx.shape(x)[a];
    let kept = match cx.shape(condition)[..] {
        [l] if l != DYNAMIC => l,
        _ => return Err("the condition must be a 1-D tensor of static length".into()),
    };
    if length != DYNAMIC && kept > length {
        return Err(format!(
            "the condition has {kept} entries, more than the {length} slices along the axis"
        )
        .into());
    }
    if cx.elem(condition) != Type::I1 {
        return Err("the condition must be boolean".into());
    }
    let at = true_positions(cx, condition, "the condition")?;
    let axis_attr = cx.int_attr(a as i64);
    Ok(vec![cx.op(
        "graph.gather",
        &[x, at],
        &[("axis", axis_attr)],
    )?])
}

/// `x` (of static shape) with `axis` moved first and the rest flattened: `[D, T]`.
fn slices(cx: &mut NodeCx, x: Value, axis: usize) -> NodeResult<Value> {
    let rank = cx.shape(x).len() as i64;
    let mut perm: Vec<i64> = (0..rank).filter(|&d| d != axis as i64).collect();
    perm.insert(0, axis as i64);
    let moved = cx.transpose(x, &perm)?;
    let d = cx.shape(moved)[0];
    cx.reshape(moved, &[d, -1])
}

/// The `[D, T]` slices `a` compared elementwise by `predicate`, every row slice with every
/// column slice: `[D, D, T]` as `i64` 0/1, with the broadcast operands (`a` as `[D, 1, T]` and
/// `[1, D, T]`).
fn pairwise(cx: &mut NodeCx, a: Value, predicate: &str) -> NodeResult<(Value, Value, Value)> {
    let [d, t] = cx.shape(a)[..] else {
        return Err("slices must be 2-D".into());
    };
    let rows = cx.reshape(a, &[d, 1, t])?;
    let cols = cx.reshape(a, &[1, d, t])?;
    let c = cx.cmp(predicate, rows, cols)?;
    let c = cx.cast(c, Type::I64)?;
    Ok((c, rows, cols))
}

/// Unique (`sorted` by default): the distinct slices of `x` along `axis` (the distinct elements
/// of the flattened `x` without one), with the index of each one's first occurrence, the index
/// of each input slice's value among them, and how often each occurs.
fn unique(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let sorted = cx.int_or("sorted", 1) != 0;
    cx.static_shape(x, "Unique")?;
    let (x, a) = along_axis(cx, x, "Unique")?;
    let s = slices(cx, x, a)?;
    let d = cx.shape(s)[0];
    // eq[i, k]: slice i equals slice k.
    let (ne, rows, cols) = pairwise(cx, s, "ne")?;
    let differs = cx.reduce("graph.reduce_max", ne, &[2], false)?;
    let one = cx.scalar_of(1.0, Type::I64);
    let eq = cx.binary("graph.sub", one, differs)?;
    // first[i]: no equal slice before i.
    let ty = cx.ctx().tensor_type(&[d, d], Type::I64);
    let (zero, axis1) = (cx.int_attr(0), cx.int_attr(1));
    let row_index = cx.op_typed("graph.iota", &[], &[("axis", zero)], ty)?;
    let col_index = cx.op_typed("graph.iota", &[], &[("axis", axis1)], ty)?;
    let earlier = cx.cmp("lt", col_index, row_index)?;
    let earlier = cx.cast(earlier, Type::I64)?;
    let dup = cx.binary("graph.mul", eq, earlier)?;
    let dup = cx.reduce("graph.reduce_max", dup, &[1], false)?;
    let first = cx.binary("graph.sub", one, dup)?;
    // rank[i]: the position of slice i's value among the distinct values.
    let rank = if sorted {
        // less[i, k]: slice k < slice i, decided by their first differing element.
        let ne = cx.reshape(ne, &[d, d, -1])?;
        let before = running(cx, ne, 2, false, true, false)?;
        let zero_i = cx.scalar_of(0.0, Type::I64);
        let undecided = cx.cmp("eq", before, zero_i)?;
        let smaller = cx.cmp("lt", cols, rows)?;
        let decides = cx.binary("graph.and", undecided, smaller)?;
        let decides = cx.cast(decides, Type::I64)?;
        let less = cx.reduce("graph.reduce_max", decides, &[2], false)?;
        let f = cx.reshape(first, &[1, d])?;
        let counted = cx.binary("graph.mul", less, f)?;
        cx.reduce("graph.reduce_sum", counted, &[1], false)?
    } else {
        running(cx, first, 0, false, true, false)?
    };
    // The output positions j gather the first occurrence of rank j.
    let count = cx.reduce("graph.reduce_sum", first, &[0], false)?;
    let n = cx.index_op("graph.read_size", &[count], &[]);
    let jty = cx.ctx().tensor_type(&[DYNAMIC], Type::I64);
    let j = cx.op_typed("graph.iota", &[n], &[("axis", zero)], jty)?;
    let j = cx.reshape(j, &[-1, 1])?;
    let r = cx.reshape(rank, &[1, d])?;
    let hit = cx.cmp("eq", r, j)?;
    let hit = cx.cast(hit, Type::I64)?;
    let f = cx.reshape(first, &[1, d])?;
    let hit = cx.binary("graph.mul", hit, f)?;
    let positions = cx.i64_vector(&(0..d).collect::<Vec<_>>());
    let positions = cx.reshape(positions, &[1, d])?;
    let at = cx.binary("graph.mul", hit, positions)?;
    let indices = cx.reduce("graph.reduce_sum", at, &[1], false)?;
    let axis_attr = cx.int_attr(a as i64);
    let y = cx.op("graph.gather", &[x, indices], &[("axis", axis_attr)])?;
    // inverse[i] = rank of the first occurrence of slice i's value; counts[j] = #{i: inverse = j}.
    let fr = cx.binary("graph.mul", first, rank)?;
    let fr = cx.reshape(fr, &[1, d])?;
    let picked = cx.binary("graph.mul", eq, fr)?;
    let inverse = cx.reduce("graph.reduce_sum", picked, &[1], false)?;
    let inv = cx.reshape(inverse, &[1, d])?;
    let of = cx.cmp("eq", inv, j)?;
    let of = cx.cast(of, Type::I64)?;
    let counts = cx.reduce("graph.reduce_sum", of, &[1], false)?;
    Ok(vec![y, indices, inverse, counts])
}
