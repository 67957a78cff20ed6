//! TopK without a sort: each element's rank along the axis is counted by comparing it with
//! every other one, `rank_i = #{j : x_j ≻ x_i} + #{j < i : x_j = x_i}` (`≻` is `>` for the
//! largest, `<` for the smallest), which orders ties by index as the spec asks and makes the
//! ranks a permutation. The `r`-th output is then the one element whose rank is `r`: a one-hot
//! `[k, n]` comparison per row, the value picked by a `reduce_max` over it (the others masked
//! to the row's minimum, so every dtype is exact) and the index by a `reduce_sum`.
//!
//! The cost is `O(n²)` comparisons per row (the `[.., n, n]` pairwise tensor) and `O(k·n)`
//! for the pick, against a sort's `O(n log n)`; the `[n, n]` tie table is bounded by
//! [`table`]. Outputs are always sorted, which `sorted = 0` allows.

use super::{axis, table, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[("TopK", topk)];

fn topk(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "TopK")?;
    if shape.is_empty() {
        return Err("TopK needs an input of rank 1 or more".into());
    }
    let rank = shape.len();
    let a = axis(cx.int_or("axis", -1), rank)? as usize;
    let largest = cx.int_or("largest", 1);
    let sorted = cx.int_or("sorted", 1);
    if !(0..=1).contains(&largest) || !(0..=1).contains(&sorted) {
        return Err(format!(
            "attributes 'largest' ({largest}) and 'sorted' ({sorted}) must be 0 or 1"
        )
        .into());
    }
    let k = if cx.opset >= 10 {
        match cx.ints_input(1)? {
            Some(v) if v.len() == 1 => v[0],
            Some(v) => return Err(format!("input K must hold one value, not {}", v.len()).into()),
            None => return Err("input K is required".into()),
        }
    } else {
        cx.attr_int("k").ok_or("attribute 'k' is required")?
    };
    let n = shape[a];
    if k < 0 || k > n {
        return Err(format!("K = {k} is outside [0, {n}] (the axis' length)").into());
    }
    table(n as i128 * n as i128)?;
    if k == 0 {
        let mut dims = shape.clone();
        dims[a] = 0;
        let elem = super::dtype(cx.elem(x));
        let v = cx.splat_constant(&Literal::zeros(elem, &[1]), &dims)?;
        let i = cx.splat_constant(&Literal::zeros(DType::I64, &[1]), &dims)?;
        return Ok(vec![v, i]);
    }
    let (nu, ku) = (n as usize, k as usize);

    // The axis moved last: [.., n].
    let mut perm: Vec<i64> = (0..rank as i64).filter(|d| *d != a as i64).collect();
    perm.push(a as i64);
    let inverse: Vec<i64> = (0..rank as i64)
        .map(|d| perm.iter().position(|p| *p == d).unwrap_or(0) as i64)
        .collect();
    let xt = cx.transpose(x, &perm)?;
    let outer: Vec<i64> = cx.shape(xt)[..rank - 1].to_vec();
    let with = |tail: &[i64]| -> Vec<i64> { outer.iter().chain(tail).copied().collect() };
    let xi = cx.reshape(xt, &with(&[n, 1]))?;
    let xj = cx.reshape(xt, &with(&[1, n]))?;
    // [.., i, j]: x_j ranks before x_i.
    let better = cx.cmp(if largest == 1 { "gt" } else { "lt" }, xj, xi)?;
    let equal = cx.cmp("eq", xj, xi)?;
    let earlier: Vec<bool> = (0..nu).flat_map(|i| (0..nu).map(move |j| j < i)).collect();
    let earlier = cx.constant(Literal::from_bools(&[nu, nu], &earlier));
    let tie = cx.binary("graph.and", equal, earlier)?;
    let before = cx.binary("graph.or", better, tie)?;
    let count = cx.cast(before, Type::I64)?;
    let last = rank as i64; // the j axis of [.., n, n]
    let ranks = cx.reduce("graph.reduce_sum", count, &[last], false)?;

    // [.., r, i]: element i has rank r.
    let ranks = cx.reshape(ranks, &with(&[1, n]))?;
    let wanted: Vec<i64> = (0..k).collect();
    let wanted = cx.constant(Literal::from_i64(DType::I64, &[ku, 1], &wanted));
    let hit = cx.cmp("eq", ranks, wanted)?;
    let floor = cx.reduce("graph.reduce_min", xj, &[last], true)?;
    let masked = cx.select(hit, xj, floor)?;
    let values = cx.reduce("graph.reduce_max", masked, &[last], false)?;
    let positions: Vec<i64> = (0..n).collect();
    let positions = cx.constant(Literal::from_i64(DType::I64, &[nu], &positions));
    let zero = cx.scalar_of(0.0, Type::I64);
    let picked = cx.select(hit, positions, zero)?;
    let indices = cx.reduce("graph.reduce_sum", picked, &[last], false)?;
    let values = cx.transpose(values, &inverse)?;
    let indices = cx.transpose(indices, &inverse)?;
    Ok(vec![values, indices])
}
