//! Resize (and the older Upsample): nearest, linear and cubic resampling, one axis at a time.
//!
//! Every mode maps each output position `x` of an axis to a source coordinate with the
//! `coordinate_transformation_mode` (half_pixel, asymmetric, align_corners, ...), computed here
//! from the static sizes. Nearest rounds it (`nearest_mode`) and becomes a `graph.gather` with
//! a constant index table, exact for every dtype; linear and cubic become a constant
//! interpolation matrix `W[out, in]` applied along the axis with `graph.matmul` (the reference
//! interpolates axis by axis too, so the result is the same separable filter). Neighbours
//! outside the axis are clamped to its edge, as onnxruntime does; with `exclude_outside` their
//! cubic weights are dropped and the rest renormalized. `tf_crop_and_resize` reads the
//! constant `roi` and writes `extrapolation_value` where a position falls outside the input.
//! Sizes known only at run time (computed from `Shape`s) resample at run time instead
//! ([`resize_sized`]), and a tensor with `?` dims resized by whole scales repeats elements.

use super::{axes, table, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::shape_values::{known, Dim};
use dlc_ir::{Type, Value, DYNAMIC};
use dlc_tensor::Literal;

pub(super) const OPS: &[(&str, Handler)] = &[("Resize", resize), ("Upsample", resize)];

/// How one axis is resampled.
struct AxisPlan {
    input: i64,
    output: i64,
    /// The resized length the coordinate transforms use: `input · scale` unrounded when scales
    /// are given (as the spec's reference computes it), the size when sizes are.
    length: f64,
    scale: f64,
    /// roi start and end (fractions of the axis), for tf_crop_and_resize.
    roi: (f64, f64),
}

/// The modes read from the attributes.
struct Modes {
    mode: String,
    transform: String,
    nearest: String,
    cubic_a: f64,
    exclude_outside: bool,
    extrapolation: f64,
}

fn resize(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let dynamic = shape.contains(&DYNAMIC);
    let rank = shape.len();
    let legacy = cx.node.op_type == "Upsample" || cx.opset < 11;
    let mut run_time_sizes = None;
    let (roi, scales, sizes) = if cx.node.op_type == "Upsample" && cx.opset < 9 {
        let s = cx
            .attr_floats("scales")
            .ok_or("attribute 'scales' is required")?;
        (
            None,
            Some(s.iter().map(|v| *v as f64).collect::<Vec<_>>()),
            None,
        )
    } else if legacy {
        (None, float_input(cx, 1)?, None)
    } else {
        // Sizes may be computed from `Shape`s: run-time sizes resample at run time.
        let sizes = cx.dims_input(3)?.filter(|s| !s.is_empty());
        let scales = float_input(cx, 2)?;
        match sizes {
            Some(dims) if scales.is_none() && (dynamic || known(&dims).is_none()) => {
                run_time_sizes = Some(dims);
                (None, None, None)
            }
            sizes => (float_input(cx, 1)?, scales, sizes.and_then(|d| known(&d))),
        }
    };
    let list = match cx.attr_ints("axes") {
        Some(l) => axes(&l, rank)?,
        None => (0..rank as i64).collect(),
    };
    let modes = Modes {
        mode: cx.attr_string("mode").unwrap_or_else(|| "nearest".into()),
        transform: if legacy {
            "asymmetric".into()
        } else {
            cx.attr_string("coordinate_transformation_mode")
                .unwrap_or_else(|| "half_pixel".into())
        },
        nearest: if legacy {
            "floor".into()
        } else {
            cx.attr_string("nearest_mode")
                .unwrap_or_else(|| "round_prefer_floor".into())
        },
        cubic_a: cx.float_or("cubic_coeff_a", -0.75),
        exclude_outside: cx.int_or("exclude_outside", 0) != 0,
        extrapolation: cx.float_or("extrapolation_value", 0.0),
    };
    let policy = cx
        .attr_string("keep_aspect_ratio_policy")
        .unwrap_or_else(|| "stretch".into());
    let antialias = cx.int_or("antialias", 0) != 0;
    if let Some(sizes) = run_time_sizes {
        return resize_sized(cx, x, &list, &sizes, &modes, &policy, antialias).map(|y| vec![y]);
    }
    if dynamic {
        let all_axes = list.iter().copied().eq(0..rank as i64);
        return repeat_dynamic(cx, x, scales.filter(|_| all_axes).as_deref(), &modes)
            .map(|y| vec![y]);
    }
    let plans = plan_axes(
        &shape,
        &list,
        scales.as_deref(),
        sizes.as_deref(),
        roi.as_deref(),
        &policy,
    )?;
    if antialias && plans.iter().flatten().any(|p| p.output < p.input) {
        return Err("antialias = 1 when downsampling is not supported".into());
    }
    if !matches!(modes.mode.as_str(), "nearest" | "linear" | "cubic") {
        return Err(format!("mode '{}' is not supported", modes.mode).into());
    }
    if modes.mode != "nearest" && !cx.is_float(x) {
        return Err(format!("{} resampling of integers is not supported", modes.mode).into());
    }
    let mut y = x;
    for (a, plan) in plans.iter().enumerate() {
        let Some(plan) = plan else { continue };
        if plan.input == plan.output && modes.transform != "tf_crop_and_resize" && plan.scale == 1.0
        {
            continue;
        }
        y = resample_axis(cx, y, a, plan, &modes)?;
    }
    Ok(vec![y])
}

/// Resize to `sizes` known only at run time (`F.interpolate(x, size=skip.shape[2:])` in an
/// FPN or U-Net export), `nearest` or `linear`, as the static tables compute it but at run
/// time, per resized axis: the source coordinate of each output position (in f64, by the
/// coordinate transform, with the scale `out / in`), then the nearest rounding and a gather,
/// or the two neighbours' gather weighted by the fraction. The stretch policy only, no `roi`,
/// no antialiasing (whether it would downsample is known only at run time).
fn resize_sized(
    cx: &mut NodeCx,
    x: Value,
    list: &[i64],
    sizes: &[Dim],
    modes: &Modes,
    policy: &str,
    antialias: bool,
) -> NodeResult<Value> {
    let rank = cx.shape(x).len();
    if sizes.len() != list.len() {
        return Err(format!("{} sizes for {} axes", sizes.len(), list.len()).into());
    }
    let (mode, transform, nearest) = (&modes.mode, &modes.transform, &modes.nearest);
    let unsupported = |what: String| -> NodeResult<Value> {
        Err(format!("Resize to sizes computed at run time: {what} is not supported").into())
    };
    if policy != "stretch" {
        return unsupported(format!("keep_aspect_ratio_policy '{policy}'"));
    }
    if antialias {
        return unsupported("antialias = 1".into());
    }
    match mode.as_str() {
        "nearest" => {}
        "linear" if cx.is_float(x) => {}
        other => return unsupported(format!("mode '{other}' on this element type")),
    }
    if !matches!(
        transform.as_str(),
        "half_pixel" | "pytorch_half_pixel" | "align_corners" | "asymmetric"
    ) {
        return unsupported(format!("coordinate_transformation_mode '{transform}'"));
    }
    if !matches!(
        nearest.as_str(),
        "round_prefer_floor" | "round_prefer_ceil" | "floor" | "ceil"
    ) {
        return unsupported(format!("nearest_mode '{nearest}'"));
    }
    let mut y = x;
    for (&a, &out) in list.iter().zip(sizes) {
        let a = a as usize;
        let input = cx.dims(y)[a];
        if input == out {
            continue; // the identity for every transform supported here
        }
        if matches!(out, Dim::Known(k) if k < 0) {
            return Err(format!("size {out:?} is negative").into());
        }
        let f64_of = |cx: &mut NodeCx, v: Value| cx.cast(v, Type::F64);
        let positions = cx.positions(out, 1, 0)?;
        let p = f64_of(cx, positions)?;
        let n_in = cx.dim_scalar(input)?;
        let n_in = f64_of(cx, n_in)?;
        let n_out = cx.dim_scalar(out)?;
        let n_out = f64_of(cx, n_out)?;
        let scale = cx.binary("graph.div", n_out, n_in)?;
        let half = cx.scalar(0.5, p);
        let one = cx.scalar(1.0, p);
        let zero = cx.scalar(0.0, p);
        let centred = |cx: &mut NodeCx| -> NodeResult<Value> {
            let shifted = cx.binary("graph.add", p, half)?;
            let scaled = cx.binary("graph.div", shifted, scale)?;
            cx.binary("graph.sub", scaled, half)
        };
        let several = cx.cmp("gt", n_out, one)?;
        let source = match transform.as_str() {
            "half_pixel" => centred(cx)?,
            "pytorch_half_pixel" => {
                let c = centred(cx)?;
                cx.select(several, c, zero)?
            }
            "align_corners" => {
                let span_in = cx.binary("graph.sub", n_in, one)?;
                let span_out = cx.binary("graph.sub", n_out, one)?;
                let t = cx.binary("graph.mul", p, span_in)?;
                let t = cx.binary("graph.div", t, span_out)?;
                cx.select(several, t, zero)?
            }
            _ => cx.binary("graph.div", p, scale)?,
        };
        let last = cx.binary("graph.sub", n_in, one)?;
        let clamp = |cx: &mut NodeCx, v: Value| -> NodeResult<Value> {
            let v = cx.binary("graph.min", v, last)?;
            cx.binary("graph.max", v, zero)
        };
        let attr = cx.int_attr(a as i64);
        if mode == "nearest" {
            let rounded = match nearest.as_str() {
                "floor" => cx.unary("graph.floor", source)?,
                "ceil" => cx.unary("graph.ceil", source)?,
                // Halves go down: ceil(v − ½); up: floor(v + ½).
                "round_prefer_floor" => {
                    let v = cx.binary("graph.sub", source, half)?;
                    cx.unary("graph.ceil", v)?
                }
                _ => {
                    let v = cx.binary("graph.add", source, half)?;
                    cx.unary("graph.floor", v)?
                }
            };
            let index = clamp(cx, rounded)?;
            let index = cx.cast(index, Type::I64)?;
            y = cx.op("graph.gather", &[y, index], &[("axis", attr)])?;
            continue;
        }
        let v = clamp(cx, source)?;
        let low = cx.unary("graph.floor", v)?;
        let fraction = cx.binary("graph.sub", v, low)?;
        let next = cx.binary("graph.add", low, one)?;
        let high = cx.binary("graph.min", next, last)?;
        let (low, high) = (cx.cast(low, Type::I64)?, cx.cast(high, Type::I64)?);
        let below = cx.op("graph.gather", &[y, low], &[("axis", attr)])?;
        let above = cx.op("graph.gather", &[y, high], &[("axis", attr)])?;
        // The weights along the axis: [.., out, ..] with ones elsewhere.
        let mut dims = vec![Dim::Known(1); rank];
        dims[a] = out;
        let t = cx.cast(fraction, cx.elem(x))?;
        let t = cx.sized_reshape(t, &dims)?;
        let unit = cx.scalar(1.0, t);
        let complement = cx.binary("graph.sub", unit, t)?;
        let below = cx.binary("graph.mul", below, complement)?;
        let above = cx.binary("graph.mul", above, t)?;
        y = cx.binary("graph.add", below, above)?;
    }
    Ok(y)
}

/// Resize of a tensor with `?` dims, where no table can be built: nearest upsampling by whole
/// scales whose source index is `⌊i / k⌋` (`asymmetric` with `floor`, or `half_pixel` /
/// `pytorch_half_pixel` with a `round_prefer_*` mode, whose source coordinates then stay
/// within half a pixel of it), as each element repeated `k` times: a new axis of 1 after the
/// resized one, broadcast to `k`, merged back.
fn repeat_dynamic(
    cx: &mut NodeCx,
    x: Value,
    scales: Option<&[f64]>,
    modes: &Modes,
) -> NodeResult<Value> {
    let repeats = matches!(
        (modes.transform.as_str(), modes.nearest.as_str()),
        ("asymmetric", "floor")
            | (
                "half_pixel" | "pytorch_half_pixel",
                "round_prefer_floor" | "round_prefer_ceil"
            )
    );
    let rank = cx.shape(x).len();
    let factors: Option<Vec<i64>> = scales.filter(|s| s.len() == rank).and_then(|s| {
        s.iter()
            .map(|&k| (k >= 1.0 && k.fract() == 0.0 && k <= 1024.0).then_some(k as i64))
            .collect()
    });
    let (Some(factors), true, true) = (factors, modes.mode == "nearest", repeats) else {
        return Err(format!(
            "Resize of an input with dynamic dims ({}) is supported only as nearest upsampling \
             by whole scales (asymmetric with floor, or half_pixel with round_prefer_*); give \
             the sizes with --dim or --input-shape",
            crate::importer::show_shape(&cx.shape(x))
        )
        .into());
    };
    let mut y = x;
    for (a, &k) in factors.iter().enumerate() {
        if k == 1 {
            continue;
        }
        let dims = cx.dims(y);
        let mut split = dims.clone();
        split.insert(a + 1, Dim::Known(1));
        let v = cx.sized_reshape(y, &split)?;
        let mut target = vec![-1; rank + 1];
        target[a + 1] = k;
        let t = cx.array_attr(&target);
        let b = cx.op("graph.broadcast_to", &[v], &[("shape", t)])?;
        let mut merged = dims;
        merged[a] = cx
            .dims_product(&[merged[a], Dim::Known(k)])
            .ok_or("the resized axis is too large")?;
        y = cx.sized_reshape(b, &merged)?;
    }
    Ok(y)
}

/// A float-list input, when present and not empty (an empty `roi` or `scales` means absent).
fn float_input(cx: &mut NodeCx, i: usize) -> NodeResult<Option<Vec<f64>>> {
    Ok(cx
        .const_input(i)?
        .map(|t| t.to_f64_vec())
        .filter(|v| !v.is_empty()))
}

/// The output size and scale of each axis (`None`: not resized).
fn plan_axes(
    shape: &[i64],
    list: &[i64],
    scales: Option<&[f64]>,
    sizes: Option<&[i64]>,
    roi: Option<&[f64]>,
    policy: &str,
) -> NodeResult<Vec<Option<AxisPlan>>> {
    let rank = shape.len();
    let mut plans: Vec<Option<AxisPlan>> = (0..rank).map(|_| None).collect();
    let roi_of = |k: usize| -> (f64, f64) {
        roi.filter(|r| r.len() == 2 * list.len())
            .map_or((0.0, 1.0), |r| (r[k], r[k + list.len()]))
    };
    match (scales, sizes) {
        (Some(s), _) => {
            if s.len() != list.len() {
                return Err(format!("{} scales for {} axes", s.len(), list.len()).into());
            }
            for (k, &a) in list.iter().enumerate() {
                if s[k].is_nan() || s[k] <= 0.0 || !s[k].is_finite() {
                    return Err(format!("scale {} must be positive", s[k]).into());
                }
                let input = shape[a as usize];
                let output = (input as f64 * s[k]).floor();
                if output > crate::importer::MAX_TENSOR_ELEMENTS as f64 {
                    return Err(format!("scale {} makes the axis too large", s[k]).into());
                }
                let output = output as i64;
                plans[a as usize] = Some(AxisPlan {
                    input,
                    output,
                    length: input as f64 * s[k],
                    scale: s[k],
                    roi: roi_of(k),
                });
            }
        }
        (None, Some(z)) => {
            if z.len() != list.len() {
                return Err(format!("{} sizes for {} axes", z.len(), list.len()).into());
            }
            let ratios: Vec<f64> = list
                .iter()
                .zip(z)
                .map(|(a, n)| *n as f64 / shape[*a as usize] as f64)
                .collect();
            let common = match policy {
                "stretch" => None,
                "not_larger" => ratios.iter().copied().reduce(f64::min),
                "not_smaller" => ratios.iter().copied().reduce(f64::max),
                other => {
                    return Err(
                        format!("keep_aspect_ratio_policy '{other}' is not supported").into(),
                    )
                }
            };
            for (k, &a) in list.iter().enumerate() {
                let input = shape[a as usize];
                let (output, scale) = match common {
                    None => (z[k], ratios[k]),
                    Some(r) => (((input as f64) * r).round().min(i64::MAX as f64) as i64, r),
                };
                if output < 0 {
                    return Err(format!("size {output} is negative").into());
                }
                plans[a as usize] = Some(AxisPlan {
                    input,
                    output,
                    length: output as f64,
                    scale,
                    roi: roi_of(k),
                });
            }
        }
        (None, None) => return Err("one of scales and sizes is required".into()),
    }
    if plans
        .iter()
        .flatten()
        .any(|p| p.input == DYNAMIC || p.input == 0 && p.output > 0)
    {
        return Err("cannot resize an empty or dynamic axis".into());
    }
    Ok(plans)
}

/// The source coordinate of output position `x` (None: outside, for tf_crop_and_resize).
fn source(p: &AxisPlan, transform: &str, x: i64) -> NodeResult<Option<f64>> {
    let (xr, n_in, n_out, s) = (x as f64, p.input as f64, p.length, p.scale);
    Ok(Some(match transform {
        "half_pixel" => (xr + 0.5) / s - 0.5,
        "half_pixel_symmetric" => {
            let adjustment = p.output as f64 / (s * n_in);
            let center = n_in / 2.0;
            center * (1.0 - adjustment) + (xr + 0.5) / s - 0.5
        }
        "pytorch_half_pixel" => {
            if n_out > 1.0 {
                (xr + 0.5) / s - 0.5
            } else {
                0.0
            }
        }
        "align_corners" => {
            if n_out > 1.0 {
                xr * (n_in - 1.0) / (n_out - 1.0)
            } else {
                0.0
            }
        }
        "asymmetric" => xr / s,
        "tf_crop_and_resize" => {
            let (start, end) = p.roi;
            let v = if n_out > 1.0 {
                start * (n_in - 1.0) + xr * (end - start) * (n_in - 1.0) / (n_out - 1.0)
            } else {
                0.5 * (start + end) * (n_in - 1.0)
            };
            if v < 0.0 || v > n_in - 1.0 {
                return Ok(None);
            }
            v
        }
        other => {
            return Err(format!("coordinate_transformation_mode '{other}' is not supported").into())
        }
    }))
}

fn round_nearest(v: f64, mode: &str) -> NodeResult<f64> {
    let frac = v - v.floor();
    Ok(match mode {
        "round_prefer_floor" => {
            if frac == 0.5 {
                v.floor()
            } else {
                v.round()
            }
        }
        "round_prefer_ceil" => {
            if frac == 0.5 {
                v.ceil()
            } else {
                v.round()
            }
        }
        "floor" => v.floor(),
        "ceil" => v.ceil(),
        other => return Err(format!("nearest_mode '{other}' is not supported").into()),
    })
}

/// The cubic convolution weights of the four taps around fraction `t` (Keys, coefficient `a`).
fn cubic_weights(t: f64, a: f64) -> [f64; 4] {
    let w = |d: f64| {
        let d = d.abs();
        if d <= 1.0 {
            ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0
        } else if d < 2.0 {
            ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a
        } else {
            0.0
        }
    };
    [w(t + 1.0), w(t), w(1.0 - t), w(2.0 - t)]
}

fn resample_axis(
    cx: &mut NodeCx,
    x: Value,
    a: usize,
    p: &AxisPlan,
    m: &Modes,
) -> NodeResult<Value> {
    table(p.input as i128 * p.output as i128)?;
    let (n_in, n_out) = (p.input as usize, p.output as usize);
    let clamp = |i: f64| i.clamp(0.0, (n_in - 1) as f64) as usize;
    let mut outside = vec![false; n_out];
    if m.mode == "nearest" {
        let mut index = Vec::with_capacity(n_out);
        for (o, out) in outside.iter_mut().enumerate() {
            match source(p, &m.transform, o as i64)? {
                Some(v) => index.push(clamp(round_nearest(v, &m.nearest)?) as i64),
                None => {
                    *out = true;
                    index.push(0);
                }
            }
        }
        let idx = cx.i64_vector(&index);
        let attr = cx.int_attr(a as i64);
        let y = cx.op("graph.gather", &[x, idx], &[("axis", attr)])?;
        return extrapolate(cx, y, a, &outside, m.extrapolation);
    }
    let mut w = vec![0.0; n_out * n_in];
    for o in 0..n_out {
        let Some(v) = source(p, &m.transform, o as i64)? else {
            outside[o] = true;
            continue;
        };
        let row = &mut w[o * n_in..(o + 1) * n_in];
        if m.mode == "linear" {
            let v = v.clamp(0.0, (n_in - 1) as f64);
            let (lo, t) = (v.floor(), v - v.floor());
            row[clamp(lo)] += 1.0 - t;
            row[clamp(lo + 1.0)] += t;
        } else {
            let (lo, t) = (v.floor(), v - v.floor());
            let taps = cubic_weights(t, m.cubic_a);
            let mut total = 0.0;
            for (k, weight) in taps.iter().enumerate() {
                let i = lo - 1.0 + k as f64;
                let inside = i >= 0.0 && i <= (n_in - 1) as f64;
                if m.exclude_outside && !inside {
                    continue;
                }
                row[clamp(i)] += weight;
                total += weight;
            }
            if m.exclude_outside && total != 0.0 {
                row.iter_mut().for_each(|r| *r /= total);
            }
        }
    }
    // W^T as [in, out], applied to x with the axis moved last.
    let wt: Vec<f64> = (0..n_in)
        .flat_map(|i| (0..n_out).map(move |o| (i, o)))
        .map(|(i, o)| w[o * n_in + i])
        .collect();
    let wt = cx.float_table(x, &[n_in, n_out], &wt);
    let y = cx.matmul_along(x, a, wt)?;
    extrapolate(cx, y, a, &outside, m.extrapolation)
}

/// Writes `value` at the positions of axis `a` marked outside.
fn extrapolate(
    cx: &mut NodeCx,
    y: Value,
    a: usize,
    outside: &[bool],
    value: f64,
) -> NodeResult<Value> {
    if !outside.contains(&true) {
        return Ok(y);
    }
    let rank = cx.shape(y).len();
    let mut shape = vec![1usize; rank];
    shape[a] = outside.len();
    let mask = cx.constant(Literal::from_bools(&shape, outside));
    let v = cx.scalar(value, y);
    cx.select(mask, v, y)
}
