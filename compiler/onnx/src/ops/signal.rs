//! The signal operators: the window generators (HannWindow, HammingWindow, BlackmanWindow),
//! MelWeightMatrix, DFT and STFT.
//!
//! The generators depend only on their (constant) sizes, so each becomes one constant table.
//! DFT is a matmul: the transformed axis and the real/imaginary pair are moved last and
//! flattened, and multiplied by a constant `[m·c, K·c']` matrix of cosines and sines (`m` the
//! samples used, `c`/`c'` 1 or 2 for real or complex, `K` the output length). That is
//! `O(m·K)` work per transformed vector, not an FFT's `O(N log N)`, and the matrix is bounded
//! by [`table`] (a complex DFT of 1,024 points needs 4M entries, the bound). The angles
//! `2π·(k·n mod N)/N` are reduced exactly in integers before the sine and cosine. STFT is
//! a `graph.gather` of the frames (a constant index table), the window product, and the DFT
//! of each frame.

use super::{table, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::tensor::element_type;
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal};
use std::f64::consts::PI;

pub(super) const OPS: &[(&str, Handler)] = &[
    ("HannWindow", hann_window),
    ("HammingWindow", hamming_window),
    ("BlackmanWindow", blackman_window),
    ("MelWeightMatrix", mel_weight_matrix),
    ("DFT", dft),
    ("STFT", stft),
];

/// Constant input `i`, a one-element integer tensor, when present.
fn scalar_int(cx: &mut NodeCx, i: usize, what: &str) -> NodeResult<Option<i64>> {
    let Some(v) = cx.ints_input(i)? else {
        return Ok(None);
    };
    match v[..] {
        [s] => Ok(Some(s)),
        _ => Err(format!("{what} must hold one value, not {}", v.len()).into()),
    }
}

/// Constant input `i`, a one-element number, as f64.
fn scalar_float(cx: &mut NodeCx, i: usize, what: &str) -> NodeResult<f64> {
    let t = cx
        .const_input(i)?
        .ok_or_else(|| format!("input #{i} ({what}) is required"))?;
    match t.to_f64_vec()[..] {
        [s] => Ok(s),
        _ => Err(format!("{what} must hold one value, not {}", t.len()).into()),
    }
}

/// The element type named by attribute `output_datatype` (FLOAT when absent).
fn output_type(cx: &mut NodeCx) -> NodeResult<Type> {
    let d = cx.int_or("output_datatype", 1);
    let d = i32::try_from(d).map_err(|_| format!("output_datatype {d} is not a data type"))?;
    let ty = element_type(d)?;
    if super::dtype(ty).is_bool() {
        return Err(format!("output_datatype {d} is not a numeric type").into());
    }
    Ok(ty)
}

/// A constant of element type `ty` from f64 values (integers truncate toward zero, as numpy's
/// `astype`).
fn typed_table(cx: &mut NodeCx, ty: Type, shape: &[usize], values: &[f64]) -> Value {
    let dt = super::dtype(ty);
    let t = if dt.is_float() {
        Literal::from_f64(dt, shape, values)
    } else {
        let ints: Vec<i64> = values.iter().map(|v| *v as i64).collect();
        Literal::from_i64(dt, shape, &ints)
    };
    cx.constant(t)
}

fn hann_window(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    window(cx, &[0.5, -0.5, 0.0])
}

fn hamming_window(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let alpha = 25.0 / 46.0;
    window(cx, &[alpha, alpha - 1.0, 0.0])
}

fn blackman_window(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    window(cx, &[0.42, -0.5, 0.08])
}

/// The cosine-sum window `a₀ + a₁·cos(2πn/M) + a₂·cos(4πn/M)` for `n` in `[0, size)`, with
/// `M = size` when `periodic` (the default) and `size − 1` otherwise (a symmetric window of
/// one point divides 0 by 0, NaN, as the spec's function body does).
fn window(cx: &mut NodeCx, a: &[f64; 3]) -> NodeResult<Vec<Value>> {
    let size = scalar_int(cx, 0, "size")?.ok_or("input #0 (size) is required")?;
    if size < 0 {
        return Err(format!("size {size} is negative").into());
    }
    let n = table(size.into())?;
    let periodic = match cx.int_or("periodic", 1) {
        0 => false,
        1 => true,
        p => return Err(format!("periodic {p} is not 0 or 1").into()),
    };
    let ty = output_type(cx)?;
    let m = if periodic { size } else { size - 1 } as f64;
    let values: Vec<f64> = (0..n)
        .map(|i| {
            let t = 2.0 * PI * i as f64 / m;
            a[0] + a[1] * t.cos() + a[2] * (2.0 * t).cos()
        })
        .collect();
    Ok(vec![typed_table(cx, ty, &[n], &values)])
}

/// The `[dft_length/2 + 1, num_mel_bins]` matrix of triangular filters, evenly spaced on the
/// mel scale `2595·log₁₀(1 + f/700)` between the edges (the reference's spacing: the range is
/// divided by `num_mel_bins + 2`); each filter's corners are spectrogram bins
/// `⌊(dft_length + 1)·f / sample_rate⌋`.
fn mel_weight_matrix(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let mels = scalar_int(cx, 0, "num_mel_bins")?.ok_or("input #0 (num_mel_bins) is required")?;
    let length = scalar_int(cx, 1, "dft_length")?.ok_or("input #1 (dft_length) is required")?;
    let rate = scalar_int(cx, 2, "sample_rate")?.ok_or("input #2 (sample_rate) is required")?;
    let low = scalar_float(cx, 3, "lower_edge_hertz")?;
    let high = scalar_float(cx, 4, "upper_edge_hertz")?;
    let ty = output_type(cx)?;
    if mels <= 0 || length <= 0 || rate <= 0 {
        return Err(format!(
            "num_mel_bins ({mels}), dft_length ({length}) and sample_rate ({rate}) must be positive"
        )
        .into());
    }
    if !(low.is_finite() && high.is_finite()) {
        return Err("the edge frequencies must be finite".into());
    }
    let bins = length / 2 + 1;
    let count = table(i128::from(bins) * i128::from(mels))?;
    let (rows, cols) = (bins as usize, mels as usize);
    let mel = |f: f64| 2595.0 * (f / 700.0).ln_1p() / 10f64.ln();
    let (low_mel, high_mel) = (mel(low), mel(high));
    let step = (high_mel - low_mel) / (mels + 2) as f64;
    let corners: Vec<i64> = (0..mels + 2)
        .map(|i| {
            let m = i as f64 * step + low_mel;
            let f = 700.0 * (m / 2595.0 * 10f64.ln()).exp_m1();
            ((length + 1) as f64 * f / rate as f64).floor() as i64
        })
        .collect();
    if let Some(c) = corners.iter().find(|c| **c < 0 || **c >= bins) {
        return Err(format!(
            "a filter corner falls on spectrogram bin {c}, outside the {bins} bins (check the edge frequencies against sample_rate)"
        )
        .into());
    }
    let mut w = vec![0.0; count];
    for i in 0..cols {
        let (lo, center, hi) = (corners[i], corners[i + 1], corners[i + 2]);
        let at = |j: i64| j as usize * cols + i;
        if center == lo {
            w[at(center)] = 1.0;
        } else {
            for j in lo..=center {
                w[at(j)] = (j - lo) as f64 / (center - lo) as f64;
            }
        }
        if hi > center {
            for j in center..hi {
                w[at(j)] = (hi - j) as f64 / (hi - center) as f64;
            }
        }
    }
    Ok(vec![typed_table(cx, ty, &[rows, cols], &w)])
}

/// Which transform a DFT matrix computes.
#[derive(Clone, Copy, PartialEq)]
enum Transform {
    /// `y[k] = Σ x[n]·e^(−2πi·kn/N)`, all `N` outputs or the first `N/2 + 1` (onesided).
    Forward { onesided: bool },
    /// `x[n] = (1/N)·Σ y[k]·e^(2πi·kn/N)`, complex out.
    Inverse,
    /// The inverse of a onesided spectrum: a real signal of `N` points, each bin but 0 and
    /// `N/2` counted twice (its conjugate mirror), their imaginary parts ignored (numpy's
    /// `irfft`).
    InverseReal,
}

fn dft(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "DFT")?;
    let rank = shape.len();
    if rank < 2 || !matches!(shape[rank - 1], 1 | 2) {
        return Err(format!(
            "the input's last dim must be 1 (real) or 2 (complex), and its shape is {shape:?}"
        )
        .into());
    }
    let axis = if cx.opset >= 20 {
        scalar_int(cx, 2, "axis")?.unwrap_or(-2)
    } else {
        cx.int_or("axis", 1)
    };
    let r = rank as i64;
    let axis = if (-r..=-2).contains(&axis) {
        axis + r
    } else if (0..=r - 2).contains(&axis) {
        axis
    } else {
        return Err(format!(
            "axis {axis} is outside [-{r}, -2] ∪ [0, {}] (the last dim holds the complex parts)",
            r - 2
        )
        .into());
    } as usize;
    let flag = |cx: &mut NodeCx, name: &str| match cx.int_or(name, 0) {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(format!("{name} {v} is not 0 or 1")),
    };
    let inverse = flag(cx, "inverse")?;
    let onesided = flag(cx, "onesided")?;
    let transform = match (inverse, onesided) {
        (false, o) => Transform::Forward { onesided: o },
        (true, false) => Transform::Inverse,
        (true, true) => Transform::InverseReal,
    };
    let n = match scalar_int(cx, 1, "dft_length")? {
        Some(n) => n,
        None if transform == Transform::InverseReal => 2 * (shape[axis] - 1),
        None => shape[axis],
    };
    if n <= 0 {
        return Err(format!("dft_length {n} must be positive").into());
    }
    Ok(vec![dft_along(cx, x, axis, n, transform)?])
}

/// The DFT of `n` points (`Transform`) of `x` along `axis`, `x`'s last dim holding the real
/// (1) or real and imaginary (2) parts; the axis becomes the output length.
fn dft_along(
    cx: &mut NodeCx,
    x: Value,
    axis: usize,
    n: i64,
    transform: Transform,
) -> NodeResult<Value> {
    if !cx.is_float(x) {
        return Err("the signal must be a float tensor".into());
    }
    let shape = cx.shape(x);
    let rank = shape.len();
    let c = shape[rank - 1];
    let (outputs, c_out, used) = match transform {
        Transform::Forward { onesided: false } | Transform::Inverse => (n, 2, n),
        Transform::Forward { onesided: true } => (n / 2 + 1, 2, n),
        Transform::InverseReal => (n, 1, n / 2 + 1),
    };
    // Samples past `used` do not contribute (truncation); the missing ones are zeros (the
    // matrix has no rows for them).
    let m = shape[axis].min(used);
    let rows = i128::from(m) * i128::from(c);
    let cols = i128::from(outputs) * i128::from(c_out);
    table(rows * cols)?;
    let w = dft_matrix(m, c, outputs, c_out, n, transform);
    // Compute in f32 at least (f16/bf16 sums of many terms lose too much).
    let ty = cx.elem(x);
    let work = if super::dtype(ty) == DType::F64 {
        ty
    } else {
        Type::F32
    };
    let mut y = cx.cast(x, work)?;
    if shape[axis] > m {
        let mut ends = vec![i64::MAX; rank];
        ends[axis] = m;
        y = cx.slice(y, &vec![0; rank], &ends, &vec![1; rank])?;
    }
    // [others..., m, c] flattened to [B, m·c].
    let others: Vec<usize> = (0..rank - 1).filter(|d| *d != axis).collect();
    let mut perm: Vec<i64> = others.iter().map(|d| *d as i64).collect();
    perm.extend([axis as i64, rank as i64 - 1]);
    let y = cx.transpose(y, &perm)?;
    let batch: i64 = others.iter().map(|d| shape[*d]).product();
    let y = cx.reshape(y, &[batch, m * c])?;
    let wv = cx.float_table(y, &[rows as usize, cols as usize], &w);
    let y = cx.op("graph.matmul", &[y, wv], &[])?;
    let mut split: Vec<i64> = others.iter().map(|d| shape[*d]).collect();
    split.extend([outputs, c_out]);
    let y = cx.reshape(y, &split)?;
    let back: Vec<i64> = (0..rank)
        .map(|p| {
            if p == axis {
                rank as i64 - 2
            } else if p == rank - 1 {
                rank as i64 - 1
            } else {
                others.iter().position(|d| *d == p).unwrap_or(0) as i64
            }
        })
        .collect();
    let y = cx.transpose(y, &back)?;
    cx.cast(y, ty)
}

/// The `[m·c, K·c']` DFT matrix: row `j·c + part` (sample `j`, real or imaginary), column
/// `k·c' + part`.
fn dft_matrix(m: i64, c: i64, outputs: i64, c_out: i64, n: i64, transform: Transform) -> Vec<f64> {
    let cols = (outputs * c_out) as usize;
    let mut w = vec![0.0; (m * c) as usize * cols];
    for j in 0..m {
        for k in 0..outputs {
            // The angle 2π·(j·k mod n)/n, reduced exactly.
            let phase = (i128::from(j) * i128::from(k) % i128::from(n)) as f64;
            let (sin, cos) = (2.0 * PI * phase / n as f64).sin_cos();
            let (re_re, im_re, re_im, im_im) = match transform {
                Transform::Forward { .. } => (cos, sin, -sin, cos),
                Transform::Inverse => {
                    let s = 1.0 / n as f64;
                    (cos * s, -sin * s, sin * s, cos * s)
                }
                Transform::InverseReal => {
                    // Row j is frequency j, column k the sample.
                    let edge = j == 0 || (n % 2 == 0 && j == n / 2);
                    let f = if edge { 1.0 } else { 2.0 } / n as f64;
                    (cos * f, if edge { 0.0 } else { -sin * f }, 0.0, 0.0)
                }
            };
            let row = (j * c) as usize * cols;
            let col = (k * c_out) as usize;
            w[row + col] = re_re;
            if c_out == 2 {
                w[row + col + 1] = re_im;
            }
            if c == 2 {
                w[row + cols + col] = im_re;
                if c_out == 2 {
                    w[row + cols + col + 1] = im_im;
                }
            }
        }
    }
    w
}

/// Frames of `frame_length` samples every `frame_step`, each multiplied by the window and
/// transformed: `[batch, frames, bins, 2]`.
fn stft(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "STFT")?;
    let [batch, length, c] = shape[..] else {
        return Err(format!(
            "the signal must have rank 3 ([batch, length, 1 or 2]), not {}",
            shape.len()
        )
        .into());
    };
    if !matches!(c, 1 | 2) {
        return Err(format!("the signal's last dim must be 1 or 2, not {c}").into());
    }
    let step = scalar_int(cx, 1, "frame_step")?.ok_or("input #1 (frame_step) is required")?;
    let window = cx.opt_input(2);
    let window_len = match window {
        Some(w) => match cx.static_shape(w, "STFT's window")?[..] {
            [l] => Some(l),
            ref s => return Err(format!("the window must have rank 1, not {}", s.len()).into()),
        },
        None => None,
    };
    let frame = match (scalar_int(cx, 3, "frame_length")?, window_len) {
        (Some(f), Some(l)) if f != l => {
            return Err(format!("frame_length {f} differs from the window's length {l}").into())
        }
        (Some(f), _) => f,
        (None, Some(l)) => l,
        (None, None) => length,
    };
    let onesided = match cx.int_or("onesided", 1) {
        0 => false,
        1 => true,
        v => return Err(format!("onesided {v} is not 0 or 1").into()),
    };
    if step <= 0 {
        return Err(format!("frame_step {step} must be positive").into());
    }
    if frame <= 0 || frame > length {
        return Err(format!("frame_length {frame} must be in [1, {length}]").into());
    }
    let frames = (length - frame) / step + 1;
    let count = table(i128::from(frames) * i128::from(frame))?;
    let mut starts = Vec::with_capacity(count);
    for f in 0..frames {
        starts.extend((0..frame).map(|j| f * step + j));
    }
    let idx = cx.constant(Literal::from_i64(
        DType::I64,
        &[frames as usize, frame as usize],
        &starts,
    ));
    let attr = cx.int_attr(1);
    let mut y = cx.op("graph.gather", &[x, idx], &[("axis", attr)])?;
    if let Some(w) = window {
        let w = cx.cast(w, cx.elem(x))?;
        let w = cx.reshape(w, &[1, 1, frame, 1])?;
        y = cx.binary("graph.mul", y, w)?;
    }
    debug_assert_eq!(cx.shape(y), [batch, frames, frame, c]);
    Ok(vec![dft_along(
        cx,
        y,
        2,
        frame,
        Transform::Forward { onesided },
    )?])
}
