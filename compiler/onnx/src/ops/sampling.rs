//! GridSample and AffineGrid: sampling an image at coordinates computed at runtime.
//!
//! GridSample's grid is a runtime tensor, so nothing about the taps is known when importing.
//! Each spatial axis's coordinate is read from the grid, denormalized (`align_corners`),
//! rounded (nearest) and moved back inside by the padding mode (clamped or reflected), all
//! with elementwise ops; its taps (1, 2 or 4 per axis) get an index, clamped into the axis,
//! and a weight, zeroed where a `zeros`-padded tap falls outside. The input is laid out as
//! `[N·D₁·…·Dₖ, C]`, and each combination of taps across the axes is one `graph.gather` of
//! the rows at the flat index `n·P + Σ iᵢ·strideᵢ`, scaled by the product of the weights and
//! summed: `2ᵏ` gathers for linear, `4ᵏ` for cubic, one for nearest. This follows the
//! reference's order of steps (denormalize, round, pad, tap), which differs from clamping the
//! coordinate first for cubic taps near a border.
//!
//! AffineGrid is one batched matmul of the constant homogeneous base grid `[P, k+1]` with the
//! transposed `theta`.

use super::{table, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] =
    &[("GridSample", grid_sample), ("AffineGrid", affine_grid)];

/// The interpolation a GridSample mode names (opset 16 and 20 spellings).
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Nearest,
    Linear,
    Cubic,
}

/// How a coordinate or tap outside the image is treated.
#[derive(Clone, Copy, PartialEq)]
enum Padding {
    Zeros,
    Border,
    Reflection,
}

/// The bicubic convolution coefficient `A` of the reference (Keys, as PyTorch).
const CUBIC_A: f64 = -0.75;

fn grid_sample(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let grid = cx.input(1)?;
    let xs = cx.static_shape(x, "GridSample")?;
    let gs = cx.static_shape(grid, "GridSample's grid")?;
    let mode = match cx.attr_string("mode").as_deref() {
        None if cx.opset < 20 => Mode::Linear,
        None | Some("linear") | Some("bilinear") => Mode::Linear,
        Some("nearest") => Mode::Nearest,
        Some("cubic") | Some("bicubic") => Mode::Cubic,
        Some(other) => return Err(format!("mode '{other}' is not supported").into()),
    };
    let padding = match cx.attr_string("padding_mode").as_deref() {
        None | Some("zeros") => Padding::Zeros,
        Some("border") => Padding::Border,
        Some("reflection") => Padding::Reflection,
        Some(other) => return Err(format!("padding_mode '{other}' is not supported").into()),
    };
    let align = match cx.int_or("align_corners", 0) {
        0 => false,
        1 => true,
        v => return Err(format!("align_corners {v} is not 0 or 1").into()),
    };
    if xs.len() < 3 {
        return Err(format!("X must have rank 3 or more (N×C×spatial), not {}", xs.len()).into());
    }
    let k = xs.len() - 2;
    if gs.len() != k + 2 || gs[k + 1] != k as i64 || gs[0] != xs[0] {
        return Err(format!(
            "the grid must have shape [{}, out₁…out{k}, {k}] for X of shape {xs:?}, not {gs:?}",
            xs[0]
        )
        .into());
    }
    if mode != Mode::Nearest && !cx.is_float(x) {
        return Err("linear and cubic sampling need a float X".into());
    }
    if !cx.is_float(grid) {
        return Err("the grid must be a float tensor".into());
    }
    let (n, c) = (xs[0], xs[1]);
    let dims = &xs[2..];
    let out = &gs[1..=k];
    // Coordinates and weights in f64 when either input is, else f32.
    let f64_in = [x, grid]
        .iter()
        .any(|v| super::dtype(cx.elem(*v)) == DType::F64);
    let work = if f64_in { Type::F64 } else { Type::F32 };
    let g = cx.cast(grid, work)?;
    // Per axis: its taps as (row offset i·stride, weight), weights already masked.
    let mut axes_taps: Vec<Vec<(Value, Value)>> = Vec::with_capacity(k);
    let mut stride = 1i64;
    let mut strides = vec![0; k];
    for i in (0..k).rev() {
        strides[i] = stride;
        stride = stride.checked_mul(dims[i]).ok_or("X is too large")?;
    }
    let plane = stride;
    for i in 0..k {
        let mut starts = vec![0; k + 2];
        let mut ends = vec![i64::MAX; k + 2];
        // The grid lists the coordinates innermost axis first (x, y, z).
        let component = (k - 1 - i) as i64;
        starts[k + 1] = component;
        ends[k + 1] = component + 1;
        let gi = cx.slice(g, &starts, &ends, &vec![1; k + 2])?;
        let mut shape = vec![n];
        shape.extend_from_slice(out);
        let gi = cx.reshape(gi, &shape)?;
        let taps = axis_taps(cx, gi, dims[i], align, mode, padding)?;
        let mut scaled = Vec::with_capacity(taps.len());
        for (idx, w) in taps {
            let idx = cx.cast(idx, Type::I64)?;
            let s = cx.scalar_of(strides[i] as f64, Type::I64);
            scaled.push((cx.binary("graph.mul", idx, s)?, w));
        }
        axes_taps.push(scaled);
    }
    // The batch offsets n·P, shaped [N, 1, …, 1].
    let rows = table(n.into())?;
    let offsets: Vec<i64> = (0..n)
        .map(|b| b.checked_mul(plane).ok_or("X is too large"))
        .collect::<Result<_, _>>()?;
    let mut oshape = vec![rows];
    oshape.extend(vec![1; k]);
    let base = cx.constant(Literal::from_i64(DType::I64, &oshape, &offsets));
    // X as [N·P, C] rows.
    let mut perm: Vec<i64> = vec![0];
    perm.extend(2..k as i64 + 2);
    perm.push(1);
    let xt = cx.transpose(x, &perm)?;
    let total = n.checked_mul(plane).ok_or("X is too large")?;
    let data = cx.reshape(xt, &[total, c])?;
    let attr = cx.int_attr(0);
    let mut sum: Option<Value> = None;
    let combos = axes_taps.iter().map(Vec::len).product::<usize>();
    for combo in 0..combos {
        let (mut idx, mut w) = (base, None::<Value>);
        let mut rest = combo;
        for taps in &axes_taps {
            let (ti, tw) = taps[rest % taps.len()];
            rest /= taps.len();
            idx = cx.binary("graph.add", idx, ti)?;
            w = Some(match w {
                None => tw,
                Some(w) => cx.binary("graph.mul", w, tw)?,
            });
        }
        let w = w.ok_or("GridSample needs a spatial axis")?;
        let picked = cx.op("graph.gather", &[data, idx], &[("axis", attr)])?;
        let mut wshape = vec![n];
        wshape.extend_from_slice(out);
        wshape.push(1);
        let w = cx.reshape(w, &wshape)?;
        let term = if cx.is_float(x) {
            let p = cx.cast(picked, work)?;
            cx.binary("graph.mul", p, w)?
        } else {
            // Nearest on integers: the one tap's weight is 1 or 0 (outside, zeros padding).
            let zero = cx.scalar(0.0, w);
            let hit = cx.cmp("ne", w, zero)?;
            let none = cx.scalar(0.0, picked);
            cx.select(hit, picked, none)?
        };
        sum = Some(match sum {
            None => term,
            Some(s) => cx.binary("graph.add", s, term)?,
        });
    }
    let y = sum.ok_or("GridSample needs a spatial axis")?;
    let y = cx.cast(y, cx.elem(x))?;
    // [N, out…, C] → [N, C, out…].
    let mut back: Vec<i64> = vec![0, k as i64 + 1];
    back.extend(1..=k as i64);
    Ok(vec![cx.transpose(y, &back)?])
}

/// The taps of one axis of `d` pixels at normalized coordinates `g`: per tap, its (float,
/// in-range) index and its weight, zero for a `zeros`-padded tap outside the axis.
fn axis_taps(
    cx: &mut NodeCx,
    g: Value,
    d: i64,
    align: bool,
    mode: Mode,
    padding: Padding,
) -> NodeResult<Vec<(Value, Value)>> {
    let df = d as f64;
    // Denormalize in the reference's order of operations.
    let one = cx.scalar(1.0, g);
    let g1 = cx.binary("graph.add", g, one)?;
    let mut x = if align {
        let half = cx.scalar(0.5, g);
        let h = cx.binary("graph.mul", g1, half)?;
        let span = cx.scalar(df - 1.0, g);
        cx.binary("graph.mul", h, span)?
    } else {
        let dv = cx.scalar(df, g);
        let s = cx.binary("graph.mul", g1, dv)?;
        let s = cx.binary("graph.sub", s, one)?;
        let half = cx.scalar(0.5, g);
        cx.binary("graph.mul", s, half)?
    };
    if mode == Mode::Nearest {
        x = cx.unary("graph.round", x)?;
    }
    let (lo, hi) = if align {
        (0.0, df - 1.0)
    } else {
        (-0.5, df - 0.5)
    };
    // The coordinate moved inside [lo, hi] when it is outside.
    match padding {
        Padding::Zeros => {}
        Padding::Border => {
            let outside = outside(cx, x, lo, hi)?;
            let clamped = clamp(cx, x, 0.0, df - 1.0)?;
            x = cx.select(outside, clamped, x)?;
        }
        Padding::Reflection => {
            let outside = outside(cx, x, lo, hi)?;
            let reflected = reflect(cx, x, lo, hi)?;
            x = cx.select(outside, reflected, x)?;
        }
    }
    let (first, weights) = match mode {
        Mode::Nearest => (x, vec![cx.scalar(1.0, x)]),
        Mode::Linear => {
            let x0 = cx.unary("graph.floor", x)?;
            let f = cx.binary("graph.sub", x, x0)?;
            let one = cx.scalar(1.0, f);
            (x0, vec![cx.binary("graph.sub", one, f)?, f])
        }
        Mode::Cubic => {
            let x0 = cx.unary("graph.floor", x)?;
            let f = cx.binary("graph.sub", x, x0)?;
            let m1 = cx.scalar(-1.0, x0);
            (cx.binary("graph.add", x0, m1)?, cubic_weights(cx, f)?)
        }
    };
    let mut taps = Vec::with_capacity(weights.len());
    for (j, w) in weights.into_iter().enumerate() {
        let step = cx.scalar(j as f64, first);
        let t = cx.binary("graph.add", first, step)?;
        let (idx, w) = match padding {
            Padding::Zeros => {
                let out = outside(cx, t, 0.0, df - 1.0)?;
                let zero = cx.scalar(0.0, w);
                let w = cx.select(out, zero, w)?;
                (clamp(cx, t, 0.0, df - 1.0)?, w)
            }
            Padding::Border => (clamp(cx, t, 0.0, df - 1.0)?, w),
            Padding::Reflection => {
                let out = outside(cx, t, lo, hi)?;
                let r = reflect(cx, t, lo, hi)?;
                let r = cx.select(out, r, t)?;
                let r = cx.unary("graph.floor", r)?;
                (clamp(cx, r, 0.0, df - 1.0)?, w)
            }
        };
        // The nearest weight is a broadcast scalar: give it the coordinates' shape.
        let w = if cx.shape(w).is_empty() {
            let zero = cx.scalar(0.0, t);
            let z = cx.binary("graph.mul", t, zero)?;
            cx.binary("graph.add", z, w)?
        } else {
            w
        };
        taps.push((idx, w));
    }
    Ok(taps)
}

/// `x < lo || x > hi` (false for NaN, which then samples index 0 of a clamped axis).
fn outside(cx: &mut NodeCx, x: Value, lo: f64, hi: f64) -> NodeResult<Value> {
    let (l, h) = (cx.scalar(lo, x), cx.scalar(hi, x));
    let below = cx.cmp("lt", x, l)?;
    let above = cx.cmp("gt", x, h)?;
    cx.binary("graph.or", below, above)
}

/// `x` clamped to `[lo, hi]`.
fn clamp(cx: &mut NodeCx, x: Value, lo: f64, hi: f64) -> NodeResult<Value> {
    let (l, h) = (cx.scalar(lo, x), cx.scalar(hi, x));
    let y = cx.binary("graph.max", x, l)?;
    cx.binary("graph.min", y, h)
}

/// `x` (outside `[lo, hi]`) reflected by the nearer border until inside, as the reference:
/// the distance `dx` past the border is split into `q` whole spans and a remainder `r`; an
/// even `q` puts the point `r` inside that border, an odd one `r` inside the other. A span of
/// 0 (one pixel with align_corners) maps everything to `lo`.
fn reflect(cx: &mut NodeCx, x: Value, lo: f64, hi: f64) -> NodeResult<Value> {
    let span = hi - lo;
    let (l, h) = (cx.scalar(lo, x), cx.scalar(hi, x));
    if span <= 0.0 {
        let zero = cx.scalar(0.0, x);
        let z = cx.binary("graph.mul", x, zero)?;
        return cx.binary("graph.add", z, l);
    }
    let below = cx.cmp("lt", x, l)?;
    let under = cx.binary("graph.sub", l, x)?;
    let over = cx.binary("graph.sub", x, h)?;
    let dx = cx.select(below, under, over)?;
    let s = cx.scalar(span, x);
    let q = cx.binary("graph.div", dx, s)?;
    let q = cx.unary("graph.floor", q)?;
    let qs = cx.binary("graph.mul", q, s)?;
    let r = cx.binary("graph.sub", dx, qs)?;
    let half = cx.scalar(0.5, x);
    let q2 = cx.binary("graph.mul", q, half)?;
    let q2 = cx.unary("graph.floor", q2)?;
    let q2 = cx.binary("graph.add", q2, q2)?;
    let parity = cx.binary("graph.sub", q, q2)?;
    let odd = cx.cmp("gt", parity, half)?;
    let lo_r = cx.binary("graph.add", l, r)?;
    let hi_r = cx.binary("graph.sub", h, r)?;
    let from_below = cx.select(odd, hi_r, lo_r)?;
    let from_above = cx.select(odd, lo_r, hi_r)?;
    cx.select(below, from_below, from_above)
}

/// The four cubic convolution weights of taps `x₀−1 … x₀+2` for the fraction `f`.
fn cubic_weights(cx: &mut NodeCx, f: Value) -> NodeResult<Vec<Value>> {
    let a = CUBIC_A;
    // Far taps (distance 1 < s < 2): ((A·s − 5A)·s + 8A)·s − 4A.
    let far = |cx: &mut NodeCx, s: Value| -> NodeResult<Value> {
        let (ca, c5, c8, c4) = (
            cx.scalar(a, s),
            cx.scalar(5.0 * a, s),
            cx.scalar(8.0 * a, s),
            cx.scalar(4.0 * a, s),
        );
        let t = cx.binary("graph.mul", ca, s)?;
        let t = cx.binary("graph.sub", t, c5)?;
        let t = cx.binary("graph.mul", t, s)?;
        let t = cx.binary("graph.add", t, c8)?;
        let t = cx.binary("graph.mul", t, s)?;
        cx.binary("graph.sub", t, c4)
    };
    // Near taps (distance s ≤ 1): ((A+2)·s − (A+3))·s·s + 1.
    let near = |cx: &mut NodeCx, s: Value| -> NodeResult<Value> {
        let (c2, c3, one) = (
            cx.scalar(a + 2.0, s),
            cx.scalar(a + 3.0, s),
            cx.scalar(1.0, s),
        );
        let t = cx.binary("graph.mul", c2, s)?;
        let t = cx.binary("graph.sub", t, c3)?;
        let t = cx.binary("graph.mul", t, s)?;
        let t = cx.binary("graph.mul", t, s)?;
        cx.binary("graph.add", t, one)
    };
    let (one, two) = (cx.scalar(1.0, f), cx.scalar(2.0, f));
    let f1 = cx.binary("graph.add", f, one)?;
    let g = cx.binary("graph.sub", one, f)?;
    let g2 = cx.binary("graph.sub", two, f)?;
    Ok(vec![far(cx, f1)?, near(cx, f)?, near(cx, g)?, far(cx, g2)?])
}

/// `theta` applied to the homogeneous base grid of `size`: `[N, H, W, 2]` or `[N, D, H, W,
/// 3]`, the base points evenly spaced in `[−1, 1]` (centers of the corner pixels with
/// align_corners, their outer edges without; an axis of one pixel sits at 0, as PyTorch).
fn affine_grid(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let theta = cx.input(0)?;
    let size = cx.ints_input(1)?.ok_or("input #1 (size) is required")?;
    let align = match cx.int_or("align_corners", 0) {
        0 => false,
        1 => true,
        v => return Err(format!("align_corners {v} is not 0 or 1").into()),
    };
    if !matches!(size.len(), 4 | 5) {
        return Err(format!(
            "size must have 4 (N, C, H, W) or 5 (N, C, D, H, W) entries, not {}",
            size.len()
        )
        .into());
    }
    if let Some(d) = size.iter().find(|d| **d < 0) {
        return Err(format!("size {size:?} has a negative entry {d}").into());
    }
    if !cx.is_float(theta) {
        return Err("theta must be a float tensor".into());
    }
    let k = size.len() - 2;
    let n = size[0];
    let ts = cx.shape(theta);
    if ts.len() != 3 || ts[1] != k as i64 || ts[2] != k as i64 + 1 || ts[0] != n {
        return Err(format!(
            "theta must have shape [{n}, {k}, {}] for size {size:?}, not {ts:?}",
            k + 1
        )
        .into());
    }
    let spatial = &size[2..];
    let points = spatial
        .iter()
        .try_fold(1i128, |p, d| p.checked_mul(i128::from(*d)))
        .ok_or("size is too large")?;
    let count = table(points * (k as i128 + 1))?;
    let line = |d: i64, i: i64| -> f64 {
        if d <= 1 {
            0.0
        } else if align {
            -1.0 + i as f64 * (2.0 / (d - 1) as f64)
        } else {
            let step = 2.0 / d as f64;
            -1.0 + step / 2.0 + i as f64 * step
        }
    };
    // Row p (row-major over the spatial dims) is (x, y[, z], 1): innermost axis first.
    let mut base = Vec::with_capacity(count);
    let mut index = vec![0i64; k];
    for _ in 0..points {
        for a in (0..k).rev() {
            base.push(line(spatial[a], index[a]));
        }
        base.push(1.0);
        for a in (0..k).rev() {
            index[a] += 1;
            if index[a] < spatial[a] {
                break;
            }
            index[a] = 0;
        }
    }
    let b = cx.float_table(theta, &[points as usize, k + 1], &base);
    let tt = cx.transpose(theta, &[0, 2, 1])?;
    let y = cx.op("graph.matmul", &[b, tt], &[])?;
    let mut shape = vec![n];
    shape.extend_from_slice(spatial);
    shape.push(k as i64);
    Ok(vec![cx.reshape(y, &shape)?])
}
