//! The vector-Jacobian products of the graph ops, one function per op or family, named by the
//! op definitions (`vjp = rules::...` in [`crate::ops`]).
//!
//! Each takes the cotangent `g` of the result and builds those of the operands with graph ops,
//! reusing forward values: `exp`'s reads its result, `mul`'s the other operand. Where the
//! derivative is not defined at a point, the rules take PyTorch's choice: `relu` and `abs`
//! pass nothing at 0, a tie of `max`/`min` splits `g` evenly, `floor`, `ceil`, `round` and
//! `sign` have derivative 0 everywhere, `pow`'s exponent gets 0 where the base is 0.
//! Composites without a rule here (`layer_norm`, `gelu`, `sdpa`, pools, ...) are
//! differentiated through their decomposition by the `grad` pass.

use super::{Vjp, VjpResult};
use crate::decompose::Conv;
use crate::infer::{slice_bound, slice_size};
use crate::interp::primitives::normalize_axis;
use crate::ops::MatmulOp;
use dlc_ir::attributes::{AttrKind, DenseValue};
use dlc_ir::{Type, Value, DYNAMIC};

/// A rule of a one-operand op: the operand's cotangent from `g`.
fn unary(v: &mut Vjp<'_, '_>, f: impl FnOnce(&mut Vjp<'_, '_>, Value) -> Value) -> VjpResult {
    let g = v.g();
    Ok(vec![Some(f(v, g))])
}

/// `−g`.
pub(crate) fn neg(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| v.un("graph.neg", g))
}

/// `g · sign(x)` (0 at 0).
pub(crate) fn abs(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let s = v.un("graph.sign", v.x(0));
        v.mul(g, s)
    })
}

/// `g · e^x`, the result reused.
pub(crate) fn exp(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| v.mul(g, v.y(0)))
}

/// `g / x`.
pub(crate) fn log(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| v.bin("graph.div", g, v.x(0)))
}

/// `g / (2·√x)`.
pub(crate) fn sqrt(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let two = v.scalar(2.0, v.y(0));
        let d = v.mul(two, v.y(0));
        v.bin("graph.div", g, d)
    })
}

/// `g · (−½) · x^(−3/2) = g · (−½) · rsqrt(x) / x`.
pub(crate) fn rsqrt(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let half = v.scalar(-0.5, v.y(0));
        let q = v.bin("graph.div", v.y(0), v.x(0));
        let d = v.mul(half, q);
        v.mul(g, d)
    })
}

/// `−g / x² = −g · y²`.
pub(crate) fn reciprocal(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let y2 = v.mul(v.y(0), v.y(0));
        let d = v.mul(g, y2);
        v.un("graph.neg", d)
    })
}

/// `g · (1 − y²)`.
pub(crate) fn tanh(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let one = v.scalar(1.0, v.y(0));
        let y2 = v.mul(v.y(0), v.y(0));
        let d = v.bin("graph.sub", one, y2);
        v.mul(g, d)
    })
}

/// `g · y · (1 − y)`.
pub(crate) fn sigmoid(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let one = v.scalar(1.0, v.y(0));
        let c = v.bin("graph.sub", one, v.y(0));
        let d = v.mul(v.y(0), c);
        v.mul(g, d)
    })
}

/// `x > 0 ? g : 0`.
pub(crate) fn relu(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let zero = v.scalar(0.0, v.x(0));
        let pos = v.b.cmp("gt", v.x(0), zero);
        v.where_else_zero(pos, g)
    })
}

/// `g · 2/√π · e^(−x²)`.
pub(crate) fn erf(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let x = v.x(0);
        let x2 = v.mul(x, x);
        let n = v.un("graph.neg", x2);
        let e = v.un("graph.exp", n);
        let c = v.scalar(std::f64::consts::FRAC_2_SQRT_PI, x);
        let d = v.mul(c, e);
        v.mul(g, d)
    })
}

/// `g · cos x`.
pub(crate) fn sin(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let c = v.un("graph.cos", v.x(0));
        v.mul(g, c)
    })
}

/// `−g · sin x`.
pub(crate) fn cos(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let s = v.un("graph.sin", v.x(0));
        let d = v.mul(g, s);
        v.un("graph.neg", d)
    })
}

/// `floor`, `ceil`, `round`, `sign`: piecewise constant, derivative 0 (PyTorch's choice; a
/// finite difference across a step sees the jump).
pub(crate) fn zero(v: &mut Vjp<'_, '_>) -> VjpResult {
    Ok(vec![None; v.arity()])
}

/// A cast between float types passes `g` back in the operand's type; from or to an integer
/// type nothing passes.
pub(crate) fn cast(v: &mut Vjp<'_, '_>) -> VjpResult {
    let (x, y) = (v.x(0), v.y(0));
    if !v.b.is_float(x) || !v.b.is_float(y) {
        return Ok(vec![None]);
    }
    let g = v.g();
    let elem = v.b.elem(x);
    Ok(vec![Some(v.b.cast(g, elem))])
}

/// The cotangents `da`, `db` of a broadcasting binary op, each summed back to its operand's
/// shape; a `None` side gets nothing.
fn binary(v: &mut Vjp<'_, '_>, da: Option<Value>, db: Option<Value>) -> VjpResult {
    let (a, b) = (v.x(0), v.x(1));
    let da = da.filter(|_| v.wants(0)).map(|d| v.unbroadcast(d, a));
    let db = db.filter(|_| v.wants(1)).map(|d| v.unbroadcast(d, b));
    Ok(vec![da, db])
}

/// `g` to both operands.
pub(crate) fn add(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    binary(v, Some(g), Some(g))
}

/// `g` to the left operand, `−g` to the right.
pub(crate) fn sub(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    let db = v.wants(1).then(|| v.un("graph.neg", g));
    binary(v, Some(g), db)
}

/// `g · b` to `a`, `g · a` to `b`.
pub(crate) fn mul(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    let (a, b) = (v.x(0), v.x(1));
    let da = v.wants(0).then(|| v.mul(g, b));
    let db = v.wants(1).then(|| v.mul(g, a));
    binary(v, da, db)
}

/// `da = g / b`, `db = −g · y / b`.
pub(crate) fn div(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    let (b, y) = (v.x(1), v.y(0));
    let da = v.wants(0).then(|| v.bin("graph.div", g, b));
    let db = v.wants(1).then(|| {
        let gy = v.mul(g, y);
        let q = v.bin("graph.div", gy, b);
        v.un("graph.neg", q)
    });
    binary(v, da, db)
}

/// `da = g · b · a^(b−1)` (0 where `b` is 0), `db = g · y · ln a` (0 where `a` is 0 and `b ≥ 0`,
/// as PyTorch has it).
pub(crate) fn pow(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    let (a, b, y) = (v.x(0), v.x(1), v.y(0));
    let da = v.wants(0).then(|| {
        let one = v.scalar(1.0, b);
        let bm1 = v.bin("graph.sub", b, one);
        let p = v.bin("graph.pow", a, bm1);
        let d = v.mul(b, p);
        let d = v.mul(g, d);
        let zero = v.scalar(0.0, b);
        let nonzero = v.b.cmp("ne", b, zero);
        v.where_else_zero(nonzero, d)
    });
    let db = v.wants(1).then(|| {
        let ln = v.un("graph.log", a);
        let gy = v.mul(g, y);
        let d = v.mul(gy, ln);
        let zero = v.scalar(0.0, a);
        let base_zero = v.b.cmp("eq", a, zero);
        let zero_b = v.scalar(0.0, b);
        let exponent_nonneg = v.b.cmp("ge", b, zero_b);
        let masked = v.bin("graph.and", base_zero, exponent_nonneg);
        let kept = v.scalar(0.0, d);
        v.b.select(masked, kept, d)
    });
    binary(v, da, db)
}

/// `max` (`wins` = "gt") or `min` ("lt"): `g` to the operand that is selected, half of it to
/// each on a tie.
fn extremum(v: &mut Vjp<'_, '_>, wins: &str) -> VjpResult {
    let g = v.g();
    let (a, b) = (v.x(0), v.x(1));
    let half = v.scalar(0.5, g);
    let half_g = v.mul(g, half);
    let tie = v.b.cmp("eq", a, b);
    let tied = v.where_else_zero(tie, half_g);
    let side = |v: &mut Vjp<'_, '_>, first: Value, second: Value| {
        let win = v.b.cmp(wins, first, second);
        v.b.select(win, g, tied)
    };
    let da = v.wants(0).then(|| side(v, a, b));
    let db = v.wants(1).then(|| side(v, b, a));
    binary(v, da, db)
}

/// [`extremum`] with `gt`.
pub(crate) fn max(v: &mut Vjp<'_, '_>) -> VjpResult {
    extremum(v, "gt")
}

/// [`extremum`] with `lt`.
pub(crate) fn min(v: &mut Vjp<'_, '_>) -> VjpResult {
    extremum(v, "lt")
}

/// `fmod(a, b) = a − trunc(a/b)·b`: `da = g`, `db = −g · trunc(a/b)`.
pub(crate) fn rem(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    let (a, b) = (v.x(0), v.x(1));
    let db = v.wants(1).then(|| {
        let q = v.bin("graph.div", a, b);
        let s = v.un("graph.sign", q);
        let m = v.un("graph.abs", q);
        let f = v.un("graph.floor", m);
        let t = v.mul(s, f);
        let d = v.mul(g, t);
        v.un("graph.neg", d)
    });
    binary(v, Some(g), db)
}

/// `select(c, a, b)`: `g` to `a` where `c`, to `b` elsewhere; the condition gets nothing.
pub(crate) fn select(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    let (c, a, b) = (v.x(0), v.x(1), v.x(2));
    let da = v.wants(1).then(|| v.where_else_zero(c, g));
    let db = v.wants(2).then(|| {
        let zero = v.scalar(0.0, g);
        v.b.select(c, zero, g)
    });
    let da = da.map(|d| v.unbroadcast(d, a));
    let db = db.map(|d| v.unbroadcast(d, b));
    Ok(vec![None, da, db])
}

/// `g` summed back over the broadcast dims. A dim of `?` size broadcast to a static size (1 at
/// run time, or that size: nothing says which) is refused.
pub(crate) fn broadcast_to(v: &mut Vjp<'_, '_>) -> VjpResult {
    let (x, y) = (v.x(0), v.y(0));
    let (xs, ys) = (v.b.shape(x), v.b.shape(y));
    let lead = ys.len().saturating_sub(xs.len());
    if let Some(axis) = (0..xs.len())
        .find(|&i| xs[i] == DYNAMIC && ys.get(lead + i).is_some_and(|&d| d != DYNAMIC && d != 1))
    {
        return Err(format!(
            "broadcasts axis {axis}, of a size known only at run time, to {}: its gradient \
             needs to know whether that axis is 1",
            ys[lead + axis]
        ));
    }
    let g = v.g();
    Ok(vec![Some(v.unbroadcast(g, x))])
}

/// `g` reshaped back; the size operands get nothing.
pub(crate) fn reshape(v: &mut Vjp<'_, '_>) -> VjpResult {
    let g = v.g();
    let x = v.x(0);
    let mut out = vec![Some(v.reshape_like(g, x))];
    out.resize(v.arity(), None);
    Ok(out)
}

/// `g` transposed by the inverse permutation.
pub(crate) fn transpose(v: &mut Vjp<'_, '_>) -> VjpResult {
    let perm =
        v.b.array_attr(v.op, "perm")
            .ok_or("needs a 'perm' attribute")?;
    let mut inverse = vec![0; perm.len()];
    for (i, p) in perm.iter().enumerate() {
        let p = usize::try_from(*p).map_err(|_| "has a negative 'perm' entry")?;
        *inverse
            .get_mut(p)
            .ok_or("has a 'perm' entry out of range")? = i as i64;
    }
    let g = v.g();
    Ok(vec![Some(v.b.transpose(g, &inverse))])
}

/// `g` put back where the slice read: along each sliced axis, zeros between the strided
/// elements (each element given `step − 1` zeros after it on a new axis, then flattened) and
/// padding before and after. `g` is first given the slice's static shape (its type may say `?`
/// where the size is known). A sliced axis of `?` size must be read with step 1 from a
/// non-negative start to its end or to a negative end (padding before and after).
pub(crate) fn slice(v: &mut Vjp<'_, '_>) -> VjpResult {
    let x = v.x(0);
    let shape = v.b.shape(x);
    let rank = shape.len();
    let read = |name| v.b.array_attr(v.op, name).filter(|a| a.len() == rank);
    let (starts, ends, steps) = match (read("starts"), read("ends"), read("steps")) {
        (Some(s), Some(e), Some(t)) => (s, e, t),
        (Some(s), Some(e), None) => (s, e, vec![1; rank]),
        _ => return Err("needs 'starts' and 'ends' with one entry per axis".into()),
    };
    if let Some(axis) = (0..rank).find(|&a| steps[a] < 1) {
        return Err(format!("has step {} on axis {axis}", steps[axis]));
    }
    let g = v.g();
    let mut sliced = v.b.shape(g);
    if sliced.len() != rank {
        return Err("has a result whose rank is not its operand's".into());
    }
    let mut dynamic = Vec::new();
    for axis in 0..rank {
        if shape[axis] != DYNAMIC {
            sliced[axis] = slice_size(shape[axis], starts[axis], ends[axis], steps[axis]);
        } else if sliced[axis] == DYNAMIC {
            dynamic.push(v.dim(g, axis));
        }
    }
    let mut g = v.reshape_to(g, &sliced, &dynamic);
    for axis in 0..rank {
        let (start, end, step, dim) = (starts[axis], ends[axis], steps[axis], shape[axis]);
        if dim == DYNAMIC {
            let to_end = end >= i64::MAX / 2;
            if start < 0 || step != 1 || !(to_end || end < 0) {
                return Err(format!(
                    "slices axis {axis}, whose size is known only at run time: its gradient \
                     is supported only with step 1 from a non-negative start to the end or to \
                     a negative end"
                ));
            }
            let high = if to_end { 0 } else { end.saturating_neg() };
            if start > 0 || high > 0 {
                g = pad_axis(v, g, axis, start, high);
            }
            continue;
        }
        let n = sliced[axis];
        if n == 0 {
            return zero_cotangent(v);
        }
        // The span from the first element read to the last: `(n − 1)·step + 1 ≤ dim`.
        let span = if n > 1 && step > 1 {
            g = interleave_zeros(v, g, axis, step);
            let keep = (n - 1) * step + 1;
            let mut e = vec![i64::MAX; rank];
            e[axis] = keep;
            g = v.b.slice(g, &vec![0; rank], &e, &vec![1; rank]);
            keep
        } else {
            n
        };
        let first = slice_bound(start, dim);
        if first > 0 || first + span < dim {
            g = pad_axis(v, g, axis, first, dim - first - span);
        }
    }
    Ok(vec![Some(g)])
}

/// Zeros for the operand: the slice read nothing, so nothing flows back.
fn zero_cotangent(v: &mut Vjp<'_, '_>) -> VjpResult {
    let x = v.x(0);
    Ok(vec![Some(v.zeros_like(x))])
}

/// `g` padded with zeros by `low` and `high` along `axis`.
fn pad_axis(v: &mut Vjp<'_, '_>, g: Value, axis: usize, low: i64, high: i64) -> Value {
    let rank = v.b.rank(g);
    let (mut lo, mut hi) = (vec![0; rank], vec![0; rank]);
    lo[axis] = low;
    hi[axis] = high;
    v.b.pad(g, &lo, &hi, 0.0)
}

/// `g` with `step − 1` zeros after each element along the static `axis`.
fn interleave_zeros(v: &mut Vjp<'_, '_>, g: Value, axis: usize, step: i64) -> Value {
    let shape = v.b.shape(g);
    let rank = shape.len();
    let mut split = shape.clone();
    split.insert(axis + 1, 1);
    let dynamic: Vec<Value> = v.dynamic_dims(g);
    let g = v.reshape_to(g, &split, &dynamic);
    let (lo, mut hi) = (vec![0; rank + 1], vec![0; rank + 1]);
    hi[axis + 1] = step - 1;
    let padded = v.b.pad(g, &lo, &hi, 0.0);
    let mut merged = shape;
    merged[axis] *= step;
    v.reshape_to(padded, &merged, &dynamic)
}

/// Each operand's part of `g` along the axis. One operand may have a `?` size there: the
/// parts before it are cut at offsets from the start, it and the parts after it at offsets from
/// the end (a negative start or end counts from the end).
pub(crate) fn concat(v: &mut Vjp<'_, '_>) -> VjpResult {
    let rank = v.b.rank(v.y(0));
    let axis =
        v.b.axis_attr(v.op, "axis", rank, 0)
            .ok_or("needs an 'axis' attribute in range")? as usize;
    let sizes: Vec<i64> = (0..v.arity()).map(|i| v.b.shape(v.x(i))[axis]).collect();
    let dynamic: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i] == DYNAMIC).collect();
    if dynamic.len() > 1 {
        return Err(format!(
            "concatenates operands #{} and #{}, whose sizes along axis {axis} are known only at \
             run time; its gradient needs all sizes but one static there",
            dynamic[0], dynamic[1]
        ));
    }
    let pivot = dynamic.first().copied().unwrap_or(sizes.len());
    let g = v.g();
    let mut out = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        if !v.wants(i) {
            out.push(None);
            continue;
        }
        // Offsets from the start before the `?` operand, from the end after it.
        let (start, end) = if i < pivot {
            let at: i64 = sizes[..i].iter().sum();
            (at, at + size)
        } else {
            let after: i64 = sizes[i + 1..].iter().sum();
            let start = if i == pivot {
                sizes[..i].iter().sum()
            } else {
                -(after + size)
            };
            (start, if after == 0 { i64::MAX } else { -after })
        };
        let (mut s, mut e) = (vec![0; rank], vec![i64::MAX; rank]);
        s[axis] = start;
        e[axis] = end;
        let x = v.x(i);
        let part = v.b.slice(g, &s, &e, &vec![1; rank]);
        out.push(Some(v.reshape_like(part, x)));
    }
    Ok(out)
}

/// `g` with the padding cut off (a negative end counts from the end, so `?` dims work).
pub(crate) fn pad(v: &mut Vjp<'_, '_>) -> VjpResult {
    let x = v.x(0);
    let rank = v.b.rank(x);
    let read = |name| v.b.array_attr(v.op, name).filter(|a| a.len() == rank);
    let (Some(low), Some(high)) = (read("low"), read("high")) else {
        return Err("needs 'low' and 'high' with one entry per axis".into());
    };
    let g = v.g();
    let ends: Vec<i64> = high
        .iter()
        .map(|h| if *h > 0 { -h } else { i64::MAX })
        .collect();
    let inner = v.b.slice(g, &low, &ends, &vec![1; rank]);
    Ok(vec![Some(v.reshape_like(inner, x))])
}

/// `gather` (numpy `take`): `g` added back into the rows it was read from. With constant
/// indices and a static axis this is a gather through an inverted index table (each row of
/// the operand lists the places of `g` that read it, padded with a zero row) and a sum; with
/// run-time indices, a product with their one-hot matrix (static shapes).
pub(crate) fn gather(v: &mut Vjp<'_, '_>) -> VjpResult {
    let (x, idx) = (v.x(0), v.x(1));
    let xs = v.b.shape(x);
    let axis =
        v.b.axis_attr(v.op, "axis", xs.len(), 0)
            .ok_or("needs an 'axis' attribute in range")? as usize;
    let n = xs[axis];
    if n == DYNAMIC {
        return Err(format!(
            "gathers along axis {axis}, whose size is known only at run time; its gradient \
             needs a static size there"
        ));
    }
    let g = v.g();
    if let Some(indices) = constant_indices(v, idx, n)? {
        // g: [pre.., I.., post..] → [pre.., M, post..], the other `?` dims read from g.
        let idx_rank = v.b.rank(idx);
        let gs = v.b.shape(g);
        let mut flat = gs[..axis].to_vec();
        flat.push(indices.len() as i64);
        flat.extend(&gs[axis + idx_rank..]);
        let mut dynamic = Vec::new();
        for (i, d) in flat.iter().enumerate() {
            if *d == DYNAMIC {
                let src = if i < axis { i } else { i + idx_rank - 1 };
                dynamic.push(v.dim(g, src));
            }
        }
        let g_flat = v.reshape_to(g, &flat, &dynamic);
        let dx = scatter_add_constant(v, g_flat, &indices, n, axis)?;
        return Ok(vec![Some(v.reshape_like(dx, x)), None]);
    }
    let idx_shape = v.b.shape(idx);
    if xs.contains(&DYNAMIC) || idx_shape.contains(&DYNAMIC) {
        return Err(
            "gathers with indices computed at run time over dims known only at run \
                    time; its gradient needs static shapes there"
                .into(),
        );
    }
    let m: i64 = idx_shape.iter().product();
    if m.saturating_mul(n) > MAX_SCATTER_ENTRIES {
        return Err(format!(
            "gathers {m} rows of {n} by indices computed at run time: its gradient would need a \
             one-hot matrix of {} entries",
            m.saturating_mul(n)
        ));
    }
    let pre: i64 = xs[..axis].iter().product();
    let post: i64 = xs[axis + 1..].iter().product();
    let g3 = v.reshape_to(g, &[pre, m, post], &[]);
    let gt = v.b.transpose(g3, &[0, 2, 1]); // [P, Q, M]
    let hot = one_hot(v, idx, m, n, g); // [M, N]
    let prod = v.b.matmul(gt, hot); // [P, Q, N]
    let back = v.b.transpose(prod, &[0, 2, 1]);
    Ok(vec![Some(v.reshape_like(back, x)), None])
}

/// The values of `idx` when it is a constant (`None` otherwise), each in `0..n` (negative
/// ones counted from the end); an error for one out of range.
fn constant_indices(v: &Vjp<'_, '_>, idx: Value, n: i64) -> Result<Option<Vec<i64>>, String> {
    let ctx = &*v.b.ctx;
    let dense = ctx
        .defining_op(idx)
        .filter(|def| ctx.view::<crate::ops::ConstantOp>(*def).is_some())
        .and_then(|def| ctx.attr(def, "value"))
        .and_then(|value| match ctx.attr_kind(value) {
            AttrKind::DenseElements(dense) => Some(dense),
            _ => None,
        });
    let (Some(dense), Some(shape)) = (dense, ctx.shape(ctx.value_type(idx))) else {
        return Ok(None);
    };
    let count = shape.iter().product::<i64>().max(0) as usize;
    let mut out = Vec::with_capacity(count);
    for value in ctx.dense_values(dense, count) {
        let DenseValue::Int(i) = value else {
            return Ok(None);
        };
        let resolved = if i < 0 { i + n as i128 } else { i };
        if !(0..n as i128).contains(&resolved) {
            return Err(format!(
                "gathers with the constant index {i}, out of range for a size of {n}"
            ));
        }
        out.push(resolved as i64);
    }
    Ok(Some(out))
}

/// The most entries the gradient of a `gather` may build: its inverted index table (a
/// compile-time constant) or its one-hot matrix (a run-time tensor).
const MAX_SCATTER_ENTRIES: i64 = 1 << 24;

/// The sum, for each of the `n` rows along `axis` of the result, of the rows of `src` that
/// `indices` (one per row of `src` along `axis`) sends there: a gather through the inverted
/// table, padded to the most rows any target receives with the index of an appended zero row,
/// then a sum over that padding axis.
fn scatter_add_constant(
    v: &mut Vjp<'_, '_>,
    src: Value,
    indices: &[i64],
    n: i64,
    axis: usize,
) -> Result<Value, String> {
    let m = indices.len() as i64;
    let mut reads = vec![0usize; n as usize];
    for &i in indices {
        reads[i as usize] += 1;
    }
    let width = reads.iter().copied().max().unwrap_or(0).max(1);
    // A row read very often (every index the same) would make a table of mostly padding.
    let entries = n.saturating_mul(width as i64);
    if entries > MAX_SCATTER_ENTRIES || entries > 16 * (m + n) {
        return Err(format!(
            "gathers {m} rows of {n}, one of them {width} times: its gradient would need an \
             index table of {entries} entries"
        ));
    }
    let mut sources: Vec<Vec<i64>> = vec![Vec::new(); n as usize];
    for (j, &i) in indices.iter().enumerate() {
        sources[i as usize].push(j as i64);
    }
    let mut table = Vec::with_capacity(n as usize * width);
    for row in &sources {
        for k in 0..width {
            table.push(DenseValue::Int(row.get(k).copied().unwrap_or(m) as i128));
        }
    }
    let src = pad_axis(v, src, axis, 0, 1);
    let ty = v.b.ctx.tensor_type(&[n, width as i64], Type::I64);
    let table = v.b.constant(ty, &table);
    let gathered = v.b.gather(src, table, axis as i64);
    Ok(v.b.reduce("graph.reduce_sum", gathered, &[axis as i64 + 1], false))
}

/// `[M, N]` for the `M` static indices `idx`: row `j` is 1 at the (end-counted when negative)
/// index `idx[j]`, in `like`'s float type.
fn one_hot(v: &mut Vjp<'_, '_>, idx: Value, m: i64, n: i64, like: Value) -> Value {
    let idx_elem = v.b.elem(idx);
    let flat = v.reshape_to(idx, &[m, 1], &[]);
    let zero = v.b.splat(0.0, idx_elem, &[1, 1]);
    let size = v.b.splat(n as f64, idx_elem, &[1, 1]);
    let negative = v.b.cmp("lt", flat, zero);
    let wrapped = v.bin("graph.add", flat, size);
    let resolved = v.b.select(negative, wrapped, flat);
    let ty = v.b.ctx.tensor_type(&[1, n], idx_elem);
    let axis = v.b.i64_attr(1);
    let iota = v.b.build_one("graph.iota", &[], vec![("axis", axis)], ty);
    let hot = v.b.cmp("eq", resolved, iota);
    let elem = v.b.elem(like);
    v.b.cast(hot, elem)
}

/// The reduced axes of a `reduce_*` op, normalized (none when `axes` is empty: the reduction
/// is then the identity, as the verifier and the interpreter read it).
fn reduced_axes(v: &Vjp<'_, '_>) -> Result<Vec<usize>, String> {
    let rank = v.b.rank(v.x(0));
    let axes =
        v.b.array_attr(v.op, "axes")
            .ok_or("needs an 'axes' attribute")?;
    axes.iter()
        .map(|&a| normalize_axis(a, rank).map_err(|m| format!("has a bad axis: {m}")))
        .collect()
}

/// `g` spread back over the reduced axes.
pub(crate) fn reduce_sum(v: &mut Vjp<'_, '_>) -> VjpResult {
    let axes = reduced_axes(v)?;
    let (g, x) = (v.g(), v.x(0));
    Ok(vec![Some(v.unreduce(g, x, &axes))])
}

/// `g / count`, broadcast back; the count is a constant over static axes, and a sum of ones
/// over axes known only at run time.
pub(crate) fn reduce_mean(v: &mut Vjp<'_, '_>) -> VjpResult {
    let axes = reduced_axes(v)?;
    let (g, x) = (v.g(), v.x(0));
    let shape = v.b.shape(x);
    let count = if axes.iter().any(|a| shape[*a] == DYNAMIC) {
        let ones = v.zeros_like(x);
        let one = v.scalar(1.0, x);
        let ones = v.bin("graph.add", ones, one);
        let axes: Vec<i64> = axes.iter().map(|a| *a as i64).collect();
        v.b.reduce("graph.reduce_sum", ones, &axes, true)
    } else {
        let n: i64 = axes.iter().map(|a| shape[*a]).product();
        v.scalar(n as f64, x)
    };
    let spread = v.unreduce(g, x, &axes);
    Ok(vec![Some(v.bin("graph.div", spread, count))])
}

/// `g` to the elements equal to the extremum, split evenly among ties.
pub(crate) fn reduce_extremum(v: &mut Vjp<'_, '_>) -> VjpResult {
    let axes = reduced_axes(v)?;
    let (g, x, y) = (v.g(), v.x(0), v.y(0));
    let y_kept = v.unreduce(y, x, &axes);
    let hit = v.b.cmp("eq", x, y_kept);
    let elem = v.b.elem(x);
    let mask = v.b.cast(hit, elem);
    let axes_i: Vec<i64> = axes.iter().map(|a| *a as i64).collect();
    let ties = v.b.reduce("graph.reduce_sum", mask, &axes_i, true);
    let spread = v.unreduce(g, x, &axes);
    let share = v.mul(spread, mask);
    Ok(vec![Some(v.bin("graph.div", share, ties))])
}

/// `g` times the product of the other elements of the reduced group, zeros handled as
/// PyTorch does: with `p` the product of the group's non-zero elements, `p / x` where the group
/// has no 0; where it has one, `p` at the 0 and 0 elsewhere; 0 where it has two or more.
pub(crate) fn reduce_prod(v: &mut Vjp<'_, '_>) -> VjpResult {
    let axes = reduced_axes(v)?;
    let (g, x) = (v.g(), v.x(0));
    let axes_i: Vec<i64> = axes.iter().map(|a| *a as i64).collect();
    let zero = v.scalar(0.0, x);
    let one = v.scalar(1.0, x);
    let is_zero = v.b.cmp("eq", x, zero);
    let safe = v.b.select(is_zero, one, x);
    let p = v.b.reduce("graph.reduce_prod", safe, &axes_i, true);
    let elem = v.b.elem(x);
    let zeros = v.b.cast(is_zero, elem);
    let count = v.b.reduce("graph.reduce_sum", zeros, &axes_i, true);
    let none = v.b.cmp("eq", count, zero);
    let single = v.b.cmp("eq", count, one);
    let q = v.bin("graph.div", p, safe);
    let elsewhere = v.where_else_zero(none, q);
    let at_zero = v.where_else_zero(single, p);
    let others = v.b.select(is_zero, at_zero, elsewhere);
    let spread = v.unreduce(g, x, &axes);
    Ok(vec![Some(v.mul(spread, others))])
}

/// `dA = g · Bᵀ`, `dB = Aᵀ · g` over the last two dims, batch dims summed back where they were
/// broadcast; a transposed operand gets its cotangent transposed.
pub(crate) fn matmul(v: &mut Vjp<'_, '_>) -> VjpResult {
    let (a, b) = (v.x(0), v.x(1));
    if v.b.rank(a) < 2 || v.b.rank(b) < 2 {
        return Err("has an operand of rank below 2".into());
    }
    let (ta, tb) = MatmulOp(v.op).transposes(v.b.ctx);
    let g = v.g();
    let swap = |v: &mut Vjp<'_, '_>, t: Value| {
        let r = v.b.rank(t);
        let mut perm: Vec<i64> = (0..r as i64).collect();
        perm.swap(r - 2, r - 1);
        v.b.transpose(t, &perm)
    };
    let da = v.wants(0).then(|| {
        // g · B_effᵀ, where B_eff is b or bᵀ.
        let d = if tb {
            v.b.matmul(g, b)
        } else {
            v.b.matmul_transposed_b(g, b)
        };
        let d = if ta { swap(v, d) } else { d };
        v.unbroadcast(d, a)
    });
    let db = v.wants(1).then(|| {
        // A_effᵀ · g, where A_eff is a or aᵀ.
        let at = if ta { a } else { swap(v, a) };
        let d = v.b.matmul(at, g);
        let d = if tb { swap(v, d) } else { d };
        v.unbroadcast(d, b)
    });
    Ok(vec![da, db])
}

/// `y · (g − Σ g·y)` along the axis.
pub(crate) fn softmax(v: &mut Vjp<'_, '_>) -> VjpResult {
    let (g, y) = (v.g(), v.y(0));
    let axis =
        v.b.axis_attr(v.op, "axis", v.b.rank(y), -1)
            .ok_or("needs an 'axis' in range")?;
    let gy = v.mul(g, y);
    let s = v.b.reduce("graph.reduce_sum", gy, &[axis], true);
    let d = v.bin("graph.sub", g, s);
    Ok(vec![Some(v.mul(y, d))])
}

/// `g − e^y · Σ g` along the axis.
pub(crate) fn log_softmax(v: &mut Vjp<'_, '_>) -> VjpResult {
    let (g, y) = (v.g(), v.y(0));
    let axis =
        v.b.axis_attr(v.op, "axis", v.b.rank(y), -1)
            .ok_or("needs an 'axis' in range")?;
    let s = v.b.reduce("graph.reduce_sum", g, &[axis], true);
    let p = v.un("graph.exp", y);
    let ps = v.mul(p, s);
    Ok(vec![Some(v.bin("graph.sub", g, ps))])
}

/// `g · σ(x) · (1 + x · (1 − σ(x)))`.
pub(crate) fn silu(v: &mut Vjp<'_, '_>) -> VjpResult {
    unary(v, |v, g| {
        let x = v.x(0);
        let s = v.un("graph.sigmoid", x);
        let one = v.scalar(1.0, x);
        let c = v.bin("graph.sub", one, s);
        let xc = v.mul(x, c);
        let t = v.bin("graph.add", one, xc);
        let d = v.mul(s, t);
        v.mul(g, d)
    })
}

/// conv2d through its im2col form, whatever form `decompose` gives it: with the windows of the
/// padded input as columns `[N, G, C/G·KK, L]` and the weights as `[G, O/G, C/G·KK]`,
/// `dW = Σ_N g · colsᵀ` and `dcols = Wᵀ · g`, whose columns are added back into the input
/// positions they were read from (an inverted index table) and the padding cut off. Needs
/// static spatial dims and weights.
pub(crate) fn conv2d(v: &mut Vjp<'_, '_>) -> VjpResult {
    let (x, w) = (v.x(0), v.x(1));
    let Some(Conv {
        window,
        groups,
        outputs: o,
    }) = Conv::of(v.b.ctx, v.op)
    else {
        return Err(
            "has channels, weights or attributes its gradient cannot read: it needs \
                    static channels and weights, and groups dividing them"
                .into(),
        );
    };
    if window.dynamic() {
        return Err(
            "has an output height or width known only at run time; its gradient needs them \
             static"
                .into(),
        );
    }
    let g = v.g();
    let [n, c, _, _] = window.input;
    let batch = if n == DYNAMIC { -1 } else { n };
    let kk = window.kh * window.kw;
    let l = window.oh * window.ow;
    let cg = c / groups * kk;
    let xp = window.pad(v.b, x, 0.0);
    let whole = kk == 1 && window.strides == [1, 1];
    let cols = if whole { xp } else { window.gather(v.b, xp) };
    let cols = v.b.reshape(cols, &[batch, groups, cg, l]);
    let gr = v.b.reshape(g, &[batch, groups, o / groups, l]);
    let dw = v.wants(1).then(|| {
        let per_image = v.b.matmul_transposed_b(gr, cols); // [N, G, O/G, C/G·KK]
        let summed = v.b.reduce("graph.reduce_sum", per_image, &[0], false);
        v.reshape_like(summed, w)
    });
    let dx = if v.wants(0) {
        let wr = v.b.reshape(w, &[groups, o / groups, cg]);
        let wt = v.b.transpose(wr, &[0, 2, 1]); // [G, C/G·KK, O/G]
        let dcols = v.b.matmul(wt, gr); // [N, G, C/G·KK, L]
        let (hp, wp) = window.padded();
        let dxp = if whole {
            v.b.reshape(dcols, &[batch, c, hp, wp])
        } else {
            let flat = v.b.reshape(dcols, &[batch, c, kk * l]);
            let back = scatter_add_constant(v, flat, &window.indices(), hp * wp, 2)?;
            v.b.reshape(back, &[batch, c, hp, wp])
        };
        let [t, left, bottom, right] = window.padding;
        let end = |p: i64| if p > 0 { -p } else { i64::MAX };
        let inner = v.b.slice(
            dxp,
            &[0, 0, t, left],
            &[i64::MAX, i64::MAX, end(bottom), end(right)],
            &[1; 4],
        );
        Some(v.reshape_like(inner, x))
    } else {
        None
    };
    Ok(vec![dx, dw])
}
