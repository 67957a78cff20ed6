//! Reference semantics of the composite graph ops, written as the formulas that define them —
//! deliberately not through their decompositions, so that differential tests of a
//! decomposition compare two independent implementations.
//!
//! Every composite computes in `f64` (operands are widened, intermediate tensors are `f64`) and
//! rounds once, to the operand dtype, when it returns.

use super::primitives::{
    binary, byte_operands, erf, int_key, matmul, normalize_axis, sigmoid, Binary, OpResult,
};
use dlc_tensor::{
    broadcast_shapes, broadcast_source, indices, num_elements, DType, Literal, Scalar,
};

/// Checks that every operand is a float tensor of one dtype, and returns it.
fn float_dtype(operands: &[&Literal]) -> Result<DType, String> {
    let dtype = operands
        .first()
        .map(|t| t.dtype())
        .ok_or("needs operands")?;
    if !dtype.is_float() {
        return Err(format!("is defined on floats only, not {dtype}"));
    }
    if let Some(t) = operands.iter().find(|t| t.dtype() != dtype) {
        return Err(format!(
            "operands have different element types ({dtype} and {})",
            t.dtype()
        ));
    }
    Ok(dtype)
}

/// `x` with `f` applied to every 1-D lane along `axis` (each lane's values in order).
fn map_lanes(x: &Literal, axis: usize, f: impl Fn(&[f64]) -> Vec<f64>) -> Literal {
    let n = x.shape()[axis];
    let mut out = vec![0.0; x.len()];
    let mut outer = x.shape().to_vec();
    outer[axis] = 1;
    for start in indices(&outer) {
        let positions: Vec<usize> = (0..n)
            .map(|i| {
                let mut at = start.clone();
                at[axis] = i;
                dlc_tensor::ravel(&at, x.shape())
            })
            .collect();
        let lane: Vec<f64> = positions.iter().map(|&p| x.get(p).as_f64()).collect();
        for (p, v) in positions.iter().zip(f(&lane)) {
            out[*p] = v;
        }
    }
    Literal::from_f64(DType::F64, x.shape(), &out)
}

fn softmax_lane(lane: &[f64]) -> Vec<f64> {
    let max = lane.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = lane.iter().map(|v| (v - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

/// `graph.softmax`: `exp(x − max) / Σ exp(x − max)` along `axis`.
pub fn softmax(x: &Literal, axis: i64) -> OpResult {
    let dtype = float_dtype(&[x])?;
    let axis = normalize_axis(axis, x.rank())?;
    Ok(map_lanes(x, axis, softmax_lane).cast(dtype))
}

/// `graph.log_softmax`: `x − max − log Σ exp(x − max)` along `axis`.
pub fn log_softmax(x: &Literal, axis: i64) -> OpResult {
    let dtype = float_dtype(&[x])?;
    let axis = normalize_axis(axis, x.rank())?;
    let lanes = map_lanes(x, axis, |lane| {
        let max = lane.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let log_sum = lane.iter().map(|v| (v - max).exp()).sum::<f64>().ln();
        lane.iter().map(|v| v - max - log_sum).collect()
    });
    Ok(lanes.cast(dtype))
}

/// `x` normalized over the trailing axes from `axis` with `f(group) -> values`, then multiplied
/// by `scale` and shifted by `shift` (both broadcast against `x`, which must keep its shape).
fn normalize_trailing(
    x: &Literal,
    axis: i64,
    scale: &Literal,
    shift: Option<&Literal>,
    f: impl Fn(&[f64]) -> Vec<f64>,
) -> OpResult {
    let axis = normalize_axis(axis, x.rank())?;
    for t in std::iter::once(scale).chain(shift) {
        if broadcast_shapes(&[x.shape(), t.shape()]).as_deref() != Some(x.shape()) {
            return Err(format!(
                "parameter of shape {:?} does not broadcast to the input shape {:?}",
                t.shape(),
                x.shape()
            ));
        }
    }
    let group = num_elements(&x.shape()[axis..]);
    let values = x.to_f64_vec();
    let normalized: Vec<f64> = if group == 0 {
        values
    } else {
        values.chunks(group).flat_map(&f).collect()
    };
    let mut out = Vec::with_capacity(x.len());
    for (flat, index) in indices(x.shape()).enumerate() {
        let g = scale.get(broadcast_source(&index, scale.shape())).as_f64();
        let b = shift.map_or(0.0, |t| t.get(broadcast_source(&index, t.shape())).as_f64());
        out.push(normalized[flat] * g + b);
    }
    Ok(Literal::from_f64(DType::F64, x.shape(), &out).cast(x.dtype()))
}

/// `graph.layer_norm`: over the axes from `axis` on, `(x − mean) / sqrt(var + ε) · γ + β`
/// with the population variance.
pub fn layer_norm(
    x: &Literal,
    gamma: &Literal,
    beta: &Literal,
    axis: i64,
    epsilon: f64,
) -> OpResult {
    float_dtype(&[x, gamma, beta])?;
    normalize_trailing(x, axis, gamma, Some(beta), |group| {
        let n = group.len() as f64;
        let mean = group.iter().sum::<f64>() / n;
        let var = group.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let inv = 1.0 / (var + epsilon).sqrt();
        group.iter().map(|v| (v - mean) * inv).collect()
    })
}

/// `graph.rms_norm`: over the axes from `axis` on, `x / sqrt(mean(x²) + ε) · γ`.
pub fn rms_norm(x: &Literal, gamma: &Literal, axis: i64, epsilon: f64) -> OpResult {
    float_dtype(&[x, gamma])?;
    normalize_trailing(x, axis, gamma, None, |group| {
        let mean_square = group.iter().map(|v| v * v).sum::<f64>() / group.len() as f64;
        let inv = 1.0 / (mean_square + epsilon).sqrt();
        group.iter().map(|v| v * inv).collect()
    })
}

/// `graph.gelu`: `x/2 · (1 + erf(x/√2))`, or with `approximate = "tanh"`
/// `x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))`.
pub fn gelu(x: &Literal, approximate: &str) -> OpResult {
    float_dtype(&[x])?;
    let f: fn(f64) -> f64 = match approximate {
        "none" => |v| 0.5 * v * (1.0 + erf(v / std::f64::consts::SQRT_2)),
        "tanh" => |v| {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            0.5 * v * (1.0 + (k * (v + 0.044715 * v * v * v)).tanh())
        },
        other => return Err(format!("unknown approximation '{other}'")),
    };
    Literal::from_fn(x.dtype(), x.shape(), |i| {
        Ok(Scalar::Float(f(x.at(i).as_f64())))
    })
}

/// `graph.silu`: `x · sigmoid(x)`.
pub fn silu(x: &Literal) -> OpResult {
    float_dtype(&[x])?;
    Literal::from_fn(x.dtype(), x.shape(), |i| {
        let v = x.at(i).as_f64();
        Ok(Scalar::Float(v * sigmoid(v)))
    })
}

/// `graph.linear`: `x · w + b` with `x: [..., K]`, `w: [K, N]` and `b` broadcast against
/// `[..., N]` (no bias when `b` is absent).
pub fn linear(x: &Literal, w: &Literal, b: Option<&Literal>) -> OpResult {
    let dtype = float_dtype(&[&[x, w][..], b.as_slice()].concat())?;
    if x.rank() == 0 || w.rank() != 2 {
        return Err(format!(
            "expects x of rank >= 1 and w of rank 2, got {:?} and {:?}",
            x.shape(),
            w.shape()
        ));
    }
    // As a matrix product: [rows, K] · [K, N], rows = every leading position of x.
    let k = x.shape()[x.rank() - 1];
    let rows = x.len().checked_div(k).unwrap_or(0);
    let x2 = x.cast(DType::F64).reshaped(vec![rows, k])?;
    let mut y = matmul(&x2, &w.cast(DType::F64))?;
    let mut shape = x.shape()[..x.rank() - 1].to_vec();
    shape.push(w.shape()[1]);
    y = y.reshaped(shape.clone())?;
    if let Some(b) = b {
        y = binary(Binary::Add, &y, &b.cast(DType::F64))?;
        if y.shape() != shape.as_slice() {
            return Err(format!(
                "bias of shape {:?} changes the result shape",
                b.shape()
            ));
        }
    }
    Ok(y.cast(dtype))
}

/// Window geometry of a 2-D convolution or pooling: `[height, width]` pairs, and padding as
/// `[top, left, bottom, right]`.
#[derive(Clone, Debug)]
pub struct Window {
    pub kernel: [usize; 2],
    pub strides: [usize; 2],
    pub padding: [usize; 4],
    pub dilations: [usize; 2],
}

impl Window {
    /// The output size along spatial dim `d` (0 = height, 1 = width) of an input of size `n`;
    /// a window larger than the padded input gives none (`empty_ok`, pools) or an error.
    fn output_size(&self, d: usize, n: usize, empty_ok: bool) -> Result<usize, String> {
        if self.strides[d] == 0 || self.kernel[d] == 0 {
            return Err("kernel sizes and strides must be positive".into());
        }
        let too_large = || "window or padding is too large".to_string();
        let padded = n
            .checked_add(self.padding[d])
            .and_then(|p| p.checked_add(self.padding[d + 2]))
            .ok_or_else(too_large)?;
        let span = self.dilations[d]
            .checked_mul(self.kernel[d] - 1)
            .and_then(|s| s.checked_add(1))
            .ok_or_else(too_large)?;
        if padded < span {
            if empty_ok {
                return Ok(0);
            }
            return Err(format!(
                "window of extent {span} is larger than the padded input ({padded})"
            ));
        }
        Ok((padded - span) / self.strides[d] + 1)
    }

    /// The input position of window tap `tap` for output position `out` along dim `d`, or
    /// `None` when it falls in the padding.
    fn input_position(&self, d: usize, out: usize, tap: usize, n: usize) -> Option<usize> {
        (out * self.strides[d] + tap * self.dilations[d])
            .checked_sub(self.padding[d])
            .filter(|&i| i < n)
    }
}

fn nchw(x: &Literal, what: &str) -> Result<[usize; 4], String> {
    <[usize; 4]>::try_from(x.shape())
        .map_err(|_| format!("{what} must have rank 4, got shape {:?}", x.shape()))
}

/// `graph.conv2d`: NCHW input, OIHW weights (`I = C / groups`), no bias; `window.kernel` is
/// taken from the weights. Two 8-bit operands widen by their own signedness and accumulate in
/// wrapping `i32`, as `graph.matmul` of bytes does; padding is the integer 0.
pub fn conv2d(x: &Literal, w: &Literal, window: &Window, groups: usize) -> OpResult {
    let bytes = byte_operands(x, w);
    let dtype = if bytes {
        DType::I32
    } else {
        float_dtype(&[x, w])?
    };
    let [n, c, h, wd] = nchw(x, "input")?;
    let [o, ci, kh, kw] = nchw(w, "weight")?;
    if groups == 0 || c % groups != 0 || o % groups != 0 || ci != c / groups {
        return Err(format!(
            "input channels {c}, weight shape {:?} and groups {groups} do not agree",
            w.shape()
        ));
    }
    let window = Window {
        kernel: [kh, kw],
        ..window.clone()
    };
    let (oh, ow) = (
        window.output_size(0, h, false)?,
        window.output_size(1, wd, false)?,
    );
    let out_per_group = o / groups;
    Literal::from_fn(dtype, &[n, o, oh, ow], |i| {
        let [b, oc, y, xo] = [i[0], i[1], i[2], i[3]];
        let group = oc / out_per_group;
        let (mut sum, mut int_sum) = (0.0, 0i64);
        for ic in 0..ci {
            for ky in 0..kh {
                let Some(iy) = window.input_position(0, y, ky, h) else {
                    continue;
                };
                for kx in 0..kw {
                    let Some(ix) = window.input_position(1, xo, kx, wd) else {
                        continue;
                    };
                    let (input, weight) =
                        (x.at(&[b, group * ci + ic, iy, ix]), w.at(&[oc, ic, ky, kx]));
                    if bytes {
                        int_sum = int_sum.wrapping_add(input.as_i64() * weight.as_i64());
                    } else {
                        sum += input.as_f64() * weight.as_f64();
                    }
                }
            }
        }
        Ok(if bytes {
            Scalar::Int(i64::from(int_sum as i32))
        } else {
            Scalar::Float(sum)
        })
    })
}

/// `graph.max_pool2d` (`max`) or `graph.avg_pool2d`: over each NCHW window; padding never wins
/// a max, and an average divides by the number of taps inside the input (padding excluded).
pub fn pool2d(x: &Literal, window: &Window, max: bool) -> OpResult {
    // Max pooling is defined on integers too (it only compares); averaging on floats.
    let dtype = if max && x.dtype().is_int() {
        x.dtype()
    } else {
        float_dtype(&[x])?
    };
    let [n, c, h, wd] = nchw(x, "input")?;
    let (oh, ow) = (
        window.output_size(0, h, true)?,
        window.output_size(1, wd, true)?,
    );
    Literal::from_fn(dtype, &[n, c, oh, ow], |i| {
        let mut taps = Vec::new();
        for ky in 0..window.kernel[0] {
            for kx in 0..window.kernel[1] {
                let iy = window.input_position(0, i[2], ky, h);
                let ix = window.input_position(1, i[3], kx, wd);
                if let (Some(iy), Some(ix)) = (iy, ix) {
                    taps.push(x.at(&[i[0], i[1], iy, ix]));
                }
            }
        }
        if dtype.is_int() {
            let best = taps
                .iter()
                .map(|t| t.as_i64())
                .max_by_key(|&v| int_key(dtype, v));
            return best
                .map(Scalar::Int)
                .ok_or_else(|| "a pooling window without elements".to_string());
        }
        let taps: Vec<f64> = taps.iter().map(|t| t.as_f64()).collect();
        Ok(Scalar::Float(if max {
            if taps.iter().any(|v| v.is_nan()) {
                f64::NAN
            } else {
                taps.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            }
        } else {
            taps.iter().sum::<f64>() / taps.len() as f64
        }))
    })
}

/// `graph.sdpa`: `softmax(q · kᵀ · scale + mask) · v` over the last two dims (batch dims
/// broadcast as in matmul); `scale` defaults to `1/√d` with `d` the last dim of `q`, and the
/// mask is additive.
pub fn sdpa(
    q: &Literal,
    k: &Literal,
    v: &Literal,
    mask: Option<&Literal>,
    scale: Option<f64>,
) -> OpResult {
    let dtype = float_dtype(&[&[q, k, v][..], mask.as_slice()].concat())?;
    if q.rank() < 2 || k.rank() < 2 || v.rank() < 2 {
        return Err("q, k and v must have rank >= 2".into());
    }
    let d = q.shape()[q.rank() - 1];
    let scale = scale.unwrap_or(1.0 / (d as f64).sqrt());
    let rank = k.rank();
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(rank - 2, rank - 1);
    let kt = super::primitives::transpose(&k.cast(DType::F64), &perm)?;
    let mut scores = matmul(&q.cast(DType::F64), &kt)?;
    let scale = Literal::from_f64(DType::F64, &[], &[scale]);
    scores = binary(Binary::Mul, &scores, &scale)?;
    if let Some(mask) = mask {
        let shape = scores.shape().to_vec();
        scores = binary(Binary::Add, &scores, &mask.cast(DType::F64))?;
        if scores.shape() != shape.as_slice() {
            return Err(format!(
                "mask of shape {:?} changes the score shape",
                mask.shape()
            ));
        }
    }
    let last = scores.rank() - 1;
    let weights = map_lanes(&scores, last, softmax_lane);
    Ok(matmul(&weights, &v.cast(DType::F64))?.cast(dtype))
}
