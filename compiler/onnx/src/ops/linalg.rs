//! Det: the determinant of static square matrices by Gaussian elimination with partial
//! pivoting, unrolled over the `n` columns.
//!
//! Step `k` picks the row of largest magnitude in column `k` at or below the diagonal
//! (`graph.argmax`), swaps it into row `k` with a per-batch row `graph.gather` (flipping the
//! sign when it moves), multiplies the determinant by the pivot and subtracts multiples of
//! the pivot row from the rows below. A zero pivot means the rest of the column is zero: the
//! determinant is 0, and the pivot is replaced by 1 in the divisions so no NaN appears.
//! About 25 ops per column: matrices up to [`MAX_ORDER`] are unrolled, larger ones refused.

use super::Handler;
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[("Det", det)];

/// The largest matrix order Det unrolls.
const MAX_ORDER: i64 = 64;

fn det(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "Det")?;
    let rank = shape.len();
    if rank < 2 || shape[rank - 1] != shape[rank - 2] {
        return Err(format!("the input must be [..., n, n], not {shape:?}").into());
    }
    if !cx.is_float(x) {
        return Err("Det needs a float input".into());
    }
    let n = shape[rank - 1];
    if n > MAX_ORDER {
        return Err(format!(
            "matrices of order {n} are not supported (Det unrolls elimination up to order {MAX_ORDER})"
        )
        .into());
    }
    let batch_shape = &shape[..rank - 2];
    let batch: i64 = batch_shape.iter().product();
    let bu = super::table(batch.into())?;
    if n == 0 || batch == 0 {
        let one = Literal::from_f64(super::dtype(cx.elem(x)), &[], &[1.0]);
        return Ok(vec![cx.splat_constant(&one, batch_shape)?]);
    }
    let mut a = cx.reshape(x, &[batch, n, n])?;
    let mut det: Option<Value> = None;
    let row_base: Vec<i64> = (0..batch).map(|b| b * n).collect();
    let base = cx.constant(Literal::from_i64(DType::I64, &[bu, 1], &row_base));
    let rows: Vec<i64> = (0..n).collect();
    let iota = cx.constant(Literal::from_i64(DType::I64, &[1, n as usize], &rows));
    let zero_f = cx.scalar(0.0, x);
    let one_f = cx.scalar(1.0, x);
    for k in 0..n {
        // The pivot row p ≥ k of largest |a[p, k]|: [B, 1].
        let col = cx.slice(a, &[0, k, k], &[i64::MAX, n, k + 1], &[1, 1, 1])?;
        let mag = cx.unary("graph.abs", col)?;
        let (axis, keep) = (cx.int_attr(1), cx.ctx().bool_attr(true));
        let p = cx.op("graph.argmax", &[mag], &[("axis", axis), ("keepdim", keep)])?;
        let p = cx.reshape(p, &[batch, 1])?;
        let kv = cx.scalar_of(k as f64, Type::I64);
        let p = cx.binary("graph.add", p, kv)?;
        // Row permutation swapping k and p: [B, n].
        let is_k = cx.cmp("eq", iota, kv)?;
        let is_p = cx.cmp("eq", iota, p)?;
        let src = cx.select(is_p, kv, iota)?;
        let src = cx.select(is_k, p, src)?;
        let flat = cx.binary("graph.add", src, base)?;
        let rows_v = cx.reshape(a, &[batch * n, n])?;
        let attr = cx.int_attr(0);
        a = cx.op("graph.gather", &[rows_v, flat], &[("axis", attr)])?;
        // The sign of the swap and the pivot.
        let moved = cx.cmp("ne", p, kv)?;
        let minus = cx.scalar(-1.0, x);
        let sign = cx.select(moved, minus, one_f)?;
        let pivot = cx.slice(a, &[0, k, k], &[i64::MAX, k + 1, k + 1], &[1, 1, 1])?;
        let pivot2 = cx.reshape(pivot, &[batch, 1])?;
        let term = cx.binary("graph.mul", pivot2, sign)?;
        det = Some(match det {
            None => term,
            Some(d) => cx.binary("graph.mul", d, term)?,
        });
        if k + 1 == n {
            break;
        }
        // Eliminate below the pivot: a[i] −= a[i, k]/pivot · a[k] for i > k.
        let is_zero = cx.cmp("eq", pivot, zero_f)?;
        let safe = cx.select(is_zero, one_f, pivot)?;
        let column = cx.slice(a, &[0, 0, k], &[i64::MAX, n, k + 1], &[1, 1, 1])?;
        let factor = cx.binary("graph.div", column, safe)?;
        let below: Vec<f64> = (0..n).map(|i| if i > k { 1.0 } else { 0.0 }).collect();
        let mask = cx.float_table(x, &[1, n as usize, 1], &below);
        let factor = cx.binary("graph.mul", factor, mask)?;
        let pivot_row = cx.slice(a, &[0, k, 0], &[i64::MAX, k + 1, n], &[1, 1, 1])?;
        let sub = cx.binary("graph.mul", factor, pivot_row)?;
        a = cx.binary("graph.sub", a, sub)?;
    }
    let d = det.ok_or("Det of an empty matrix")?;
    Ok(vec![cx.reshape(d, batch_shape)?])
}
