//! Reference semantics of the primitive graph ops, as functions of tensors.
//!
//! Each function checks what the verifier cannot (runtime sizes, integer division by zero,
//! gather indices) and returns the problem as a message; the evaluator attaches the op's
//! location. Floats compute in `f64`, integers in wrapping `i64`, and the result is rounded or
//! wrapped to its dtype when stored (see [`dlc_tensor::Literal`]).

use dlc_arith::FloatBinary;
use dlc_tensor::{
    broadcast_shapes, broadcast_source, next_index, num_elements, DType, Literal, Scalar,
};

/// A runtime failure of one op, described for the user.
pub type OpResult = Result<Literal, String>;

/// An axis attribute resolved against `rank`; negative axes count from the end, as in numpy.
pub fn normalize_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(resolved)
        .ok()
        .filter(|&a| a < rank)
        .ok_or_else(|| format!("axis {axis} is out of range for rank {rank}"))
}

/// `erf(x)` to within a few ulp of `f64` (Rust's standard library has none).
///
/// For |x| < 3 the series `erf x = 2/√π · e^(−x²) · Σ 2ⁿ x^(2n+1) / (1·3·…·(2n+1))`, whose
/// terms are all positive (no cancellation); beyond, `1 − erfc x` with erfc's continued
/// fraction `e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …))))`.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let value = if a < 3.0 {
        let mut term = a;
        let mut sum = a;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= 2.0 * a * a / (2.0 * n + 1.0);
            sum += term;
        }
        std::f64::consts::FRAC_2_SQRT_PI * (-a * a).exp() * sum
    } else if a < 6.0 {
        let mut fraction = a;
        for k in (1..=80).rev() {
            fraction = a + (k as f64 / 2.0) / fraction;
        }
        1.0 - (-a * a).exp() / (std::f64::consts::PI.sqrt() * fraction)
    } else {
        1.0
    };
    value.copysign(x)
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The unary elementwise ops ([`unary`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Unary {
    Neg,
    Abs,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Reciprocal,
    Tanh,
    Sigmoid,
    Relu,
    Erf,
    Sin,
    Cos,
    Floor,
    Ceil,
    Round,
    Sign,
    Not,
}

impl Unary {
    /// True for the ops defined only on floats.
    fn float_only(self) -> bool {
        use Unary::*;
        matches!(
            self,
            Exp | Log
                | Sqrt
                | Rsqrt
                | Reciprocal
                | Tanh
                | Sigmoid
                | Erf
                | Sin
                | Cos
                | Floor
                | Ceil
                | Round
        )
    }
}

/// A unary elementwise op. `Round` rounds half to even (numpy's rule); `Sign` is −1, 0 or 1
/// (NaN stays NaN); `Not` is logical on `i1` and bitwise on integers.
pub fn unary(op: Unary, x: &Literal) -> OpResult {
    use Unary::*;
    let dtype = x.dtype();
    if op.float_only() && !dtype.is_float() {
        return Err(format!("is defined on floats only, not {dtype}"));
    }
    let width = dtype.int_width().unwrap_or(64);
    let unsigned = dtype.is_unsigned();
    let f = |s: Scalar| -> Result<Scalar, String> {
        Ok(match (op, s) {
            (Not, Scalar::Bool(b)) => Scalar::Bool(!b),
            (Not, Scalar::Int(v)) => Scalar::Int(!v),
            (_, Scalar::Float(v)) => Scalar::Float(match op {
                Neg => -v,
                Abs => v.abs(),
                Exp => v.exp(),
                Log => v.ln(),
                Sqrt => v.sqrt(),
                Rsqrt => 1.0 / v.sqrt(),
                Reciprocal => 1.0 / v,
                Tanh => v.tanh(),
                Sigmoid => sigmoid(v),
                Relu => {
                    if v > 0.0 || v.is_nan() {
                        v
                    } else {
                        0.0
                    }
                }
                Erf => erf(v),
                Sin => v.sin(),
                Cos => v.cos(),
                Floor => v.floor(),
                Ceil => v.ceil(),
                Round => v.round_ties_even(),
                Sign if v == 0.0 || v.is_nan() => v,
                Sign => v.signum(),
                Not => return Err(format!("is not defined on {dtype}")),
            }),
            // Results are wrapped to the dtype by `Literal::from_fn`.
            (Abs | Relu, Scalar::Int(v)) if unsigned => Scalar::Int(v),
            (Sign, Scalar::Int(v)) if unsigned => Scalar::Int((v != 0) as i64),
            (_, Scalar::Int(v)) => Scalar::Int(match op {
                Neg => v.wrapping_neg(),
                Abs => wrap(v.wrapping_abs(), width),
                Relu => v.max(0),
                Sign => v.signum(),
                _ => return Err(format!("is not defined on {dtype}")),
            }),
            (_, Scalar::Bool(_)) => return Err(format!("is not defined on {dtype}")),
        })
    };
    Literal::from_fn(dtype, x.shape(), |i| f(x.at(i)))
}

fn wrap(v: i64, width: u32) -> i64 {
    dlc_tensor::wrap_int(v, width)
}

/// The binary elementwise ops ([`binary`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Max,
    Min,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// A binary elementwise op with numpy broadcasting. Integer `Div` truncates toward zero and
/// `Rem` takes the dividend's sign (C semantics, numpy's `fmod`); a zero divisor is an error.
/// Unsigned integers divide, compare and shift right (`Shr`, logical) as unsigned, signed ones
/// shift right arithmetically; a shift by the width or more gives 0 (or −1 for a negative
/// signed value shifted right), as numpy's. Float `Max`/`Min` propagate NaN. On `i1` only
/// `And`, `Or`, `Xor`, `Max` (or) and `Min` (and) are defined.
pub fn binary(op: Binary, a: &Literal, b: &Literal) -> OpResult {
    same_dtype(a, b)?;
    let dtype = a.dtype();
    Literal::broadcast_map(&[a, b], dtype, |args| match (args[0], args[1]) {
        (Scalar::Float(x), Scalar::Float(y)) => float_binary(op, x, y).map(Scalar::Float),
        (Scalar::Int(x), Scalar::Int(y)) => int_binary(op, x, y, dtype).map(Scalar::Int),
        (Scalar::Bool(x), Scalar::Bool(y)) => match op {
            Binary::And | Binary::Min => Ok(Scalar::Bool(x && y)),
            Binary::Or | Binary::Max => Ok(Scalar::Bool(x || y)),
            Binary::Xor => Ok(Scalar::Bool(x != y)),
            _ => Err(format!("is not defined on {dtype}")),
        },
        _ => Err("operands of different element classes".into()),
    })
}

/// One element of a float binary op: the `arith` op it lowers to (`addf` ... `remf`,
/// `maximumf`, `minimumf`: [`FloatBinary`]'s one definition), or `powf`.
fn float_binary(op: Binary, x: f64, y: f64) -> Result<f64, String> {
    use Binary::*;
    let f = match op {
        Add => FloatBinary::Add,
        Sub => FloatBinary::Sub,
        Mul => FloatBinary::Mul,
        Div => FloatBinary::Div,
        Rem => FloatBinary::Rem,
        Max => FloatBinary::Maximum,
        Min => FloatBinary::Minimum,
        Pow => return Ok(x.powf(y)),
        And | Or | Xor | Shl | Shr => return Err("is not defined on floats".into()),
    };
    Ok(f.eval(x, y))
}

/// An integer's value for ordering: a `ui64` element is held as its bit pattern, so it is
/// read back unsigned; every other integer dtype holds its value.
pub fn int_key(dtype: DType, v: i64) -> i128 {
    if dtype == DType::U64 {
        v as u64 as i128
    } else {
        v as i128
    }
}

/// One element of an integer binary op of `dtype`; the caller wraps the result to the dtype.
fn int_binary(op: Binary, x: i64, y: i64, dtype: DType) -> Result<i64, String> {
    use Binary::*;
    let unsigned = dtype.is_unsigned();
    let width = dtype.int_width().unwrap_or(64);
    Ok(match op {
        Add => x.wrapping_add(y),
        Sub => x.wrapping_sub(y),
        Mul => x.wrapping_mul(y),
        Div | Rem if y == 0 => return Err("integer division by zero".into()),
        Div if unsigned => (x as u64 / y as u64) as i64,
        Rem if unsigned => (x as u64 % y as u64) as i64,
        Div => x.wrapping_div(y),
        Rem => x.wrapping_rem(y),
        Max => int_extreme(x, y, dtype, true),
        Min => int_extreme(x, y, dtype, false),
        Shl | Shr if int_key(dtype, y) < 0 || int_key(dtype, y) >= width as i128 => {
            if op == Shr && !unsigned && x < 0 {
                -1
            } else {
                0
            }
        }
        Shl => x.wrapping_shl(y as u32),
        // Narrow unsigned values are non-negative, so the arithmetic shift is logical there.
        Shr if dtype == DType::U64 => ((x as u64) >> y) as i64,
        Shr => x >> y,
        Xor => x ^ y,
        Pow if y < 0 && !unsigned => return Err("integer power with a negative exponent".into()),
        Pow => {
            let (mut base, mut exp, mut acc) = (x, y as u64, 1i64);
            while exp > 0 {
                if exp & 1 == 1 {
                    acc = acc.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                exp >>= 1;
            }
            acc
        }
        And => x & y,
        Or => x | y,
    })
}

/// The largest (`max`) or smallest value of integer (or `i1`) `dtype`, as it is held (a
/// `ui64`'s largest is all ones).
fn int_limit(dtype: DType, max: bool) -> i64 {
    if dtype.is_bool() {
        return max as i64;
    }
    let width = dtype.int_width().unwrap_or(64);
    match (dtype.is_unsigned(), max) {
        (true, true) => dtype.wrap(-1),
        (true, false) => 0,
        (false, true) => i64::MAX >> (64 - width),
        (false, false) => i64::MIN >> (64 - width),
    }
}

/// The larger (`max`) or smaller of two integers of `dtype`, by [`int_key`].
fn int_extreme(x: i64, y: i64, dtype: DType, max: bool) -> i64 {
    if (int_key(dtype, x) > int_key(dtype, y)) == max {
        x
    } else {
        y
    }
}

fn same_dtype(a: &Literal, b: &Literal) -> Result<(), String> {
    if a.dtype() == b.dtype() {
        Ok(())
    } else {
        Err(format!(
            "operands have different element types ({} and {})",
            a.dtype(),
            b.dtype()
        ))
    }
}

/// `graph.cmp`: an `i1` tensor, with numpy broadcasting. Comparisons with NaN are false except
/// `ne`; unsigned integers compare as unsigned.
pub fn cmp(predicate: &str, a: &Literal, b: &Literal) -> OpResult {
    same_dtype(a, b)?;
    let dtype = a.dtype();
    Literal::broadcast_map(&[a, b], DType::I1, |args| {
        let ordering = match (args[0], args[1]) {
            (Scalar::Float(x), Scalar::Float(y)) => x.partial_cmp(&y),
            (x, y) => Some(int_key(dtype, x.as_i64()).cmp(&int_key(dtype, y.as_i64()))),
        };
        use std::cmp::Ordering::*;
        let result = match predicate {
            "eq" => ordering == Some(Equal),
            "ne" => ordering != Some(Equal),
            "lt" => ordering == Some(Less),
            "le" => matches!(ordering, Some(Less | Equal)),
            "gt" => ordering == Some(Greater),
            "ge" => matches!(ordering, Some(Greater | Equal)),
            other => return Err(format!("unknown predicate '{other}'")),
        };
        Ok(Scalar::Bool(result))
    })
}

/// `graph.select`: `cond ? a : b` elementwise, the three broadcast together.
pub fn select(cond: &Literal, a: &Literal, b: &Literal) -> OpResult {
    if !cond.dtype().is_bool() {
        return Err(format!("condition must be i1, not {}", cond.dtype()));
    }
    same_dtype(a, b)?;
    Literal::broadcast_map(&[cond, a, b], a.dtype(), |args| {
        Ok(if args[0].as_bool() { args[1] } else { args[2] })
    })
}

/// `graph.broadcast_to`: numpy broadcasting to `target`; a −1 entry keeps the size of the
/// input's aligned dim (the `?` of the result type).
pub fn broadcast_to(x: &Literal, target: &[i64]) -> OpResult {
    if target.len() < x.rank() {
        return Err(format!(
            "cannot broadcast rank {} to rank {}",
            x.rank(),
            target.len()
        ));
    }
    let offset = target.len() - x.rank();
    let mut shape = Vec::with_capacity(target.len());
    for (axis, &t) in target.iter().enumerate() {
        let input = axis.checked_sub(offset).map(|a| x.shape()[a]);
        let size = match (t, input) {
            (-1, Some(n)) => n,
            (-1, None) => {
                return Err(format!(
                    "target dim {axis} is -1 but the input has no such axis"
                ))
            }
            (t, _) => usize::try_from(t).map_err(|_| format!("invalid target dim {t}"))?,
        };
        if input.is_some_and(|n| n != 1 && n != size) {
            return Err(format!(
                "cannot broadcast shape {:?} to {target:?}",
                x.shape()
            ));
        }
        shape.push(size);
    }
    Literal::from_fn(x.dtype(), &shape, |i| {
        Ok(x.get(broadcast_source(i, x.shape())))
    })
}

/// `graph.reshape`: the same elements in row-major order; one −1 entry is inferred.
pub fn reshape(x: &Literal, target: &[i64]) -> OpResult {
    let known = target
        .iter()
        .filter(|&&d| d >= 0)
        .fold(1usize, |n, &d| n.saturating_mul(d as usize));
    let inferred = target.iter().filter(|&&d| d == -1).count();
    if inferred > 1 || target.iter().any(|&d| d < -1) {
        return Err(format!("invalid reshape target {target:?}"));
    }
    let shape: Vec<usize> = target
        .iter()
        .map(|&d| {
            if d == -1 {
                x.len().checked_div(known).unwrap_or(0)
            } else {
                d as usize
            }
        })
        .collect();
    if num_elements(&shape) != x.len() {
        return Err(format!(
            "cannot reshape {:?} ({} elements) to {target:?}",
            x.shape(),
            x.len()
        ));
    }
    x.reshaped(shape)
}

/// `graph.transpose`: result dim `i` is input dim `perm[i]`.
pub fn transpose(x: &Literal, perm: &[i64]) -> OpResult {
    let rank = x.rank();
    let mut seen = vec![false; rank];
    let perm: Vec<usize> = perm
        .iter()
        .map(|&p| normalize_axis(p, rank))
        .collect::<Result<_, _>>()?;
    for &p in &perm {
        if std::mem::replace(&mut seen[p], true) {
            return Err(format!("{perm:?} is not a permutation"));
        }
    }
    if perm.len() != rank {
        return Err(format!(
            "permutation of length {} for rank {rank}",
            perm.len()
        ));
    }
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape()[p]).collect();
    Literal::from_fn(x.dtype(), &shape, |out| {
        let mut src = vec![0; rank];
        for (i, &p) in perm.iter().enumerate() {
            src[p] = out[i];
        }
        Ok(x.at(&src))
    })
}

/// `graph.slice`: numpy's `x[start:end:step]` per axis (negative bounds count from the end,
/// bounds are clamped, steps are positive).
pub fn slice(x: &Literal, starts: &[i64], ends: &[i64], steps: &[i64]) -> OpResult {
    let rank = x.rank();
    if starts.len() != rank || ends.len() != rank || steps.len() != rank {
        return Err(format!("starts, ends and steps must have {rank} entries"));
    }
    let mut first = Vec::with_capacity(rank);
    let mut shape = Vec::with_capacity(rank);
    for axis in 0..rank {
        let n = x.shape()[axis] as i64;
        let step = steps[axis];
        if step <= 0 {
            return Err(format!("step {step} on axis {axis} must be positive"));
        }
        let clamp = |b: i64| {
            if b < 0 {
                b.saturating_add(n).max(0)
            } else {
                b.min(n)
            }
        };
        let (start, end) = (clamp(starts[axis]), clamp(ends[axis]));
        let len = if end > start {
            (end - start - 1) / step + 1
        } else {
            0
        };
        first.push(start as usize);
        shape.push(len as usize);
    }
    Literal::from_fn(x.dtype(), &shape, |out| {
        let src: Vec<usize> = (0..rank)
            .map(|a| first[a] + out[a] * steps[a] as usize)
            .collect();
        Ok(x.at(&src))
    })
}

/// `graph.concat` along `axis`; the other dims must agree.
pub fn concat(inputs: &[&Literal], axis: i64) -> OpResult {
    let first = inputs.first().ok_or("needs at least one operand")?;
    let axis = normalize_axis(axis, first.rank())?;
    for t in inputs {
        same_dtype(first, t)?;
        let mismatch = t.rank() != first.rank()
            || (0..first.rank()).any(|a| a != axis && t.shape()[a] != first.shape()[a]);
        if mismatch {
            return Err(format!(
                "operand shapes {:?} and {:?} differ off axis {axis}",
                first.shape(),
                t.shape()
            ));
        }
    }
    let mut shape = first.shape().to_vec();
    shape[axis] = inputs.iter().map(|t| t.shape()[axis]).sum();
    Literal::from_fn(first.dtype(), &shape, |out| {
        let mut src = out.to_vec();
        for t in inputs {
            if src[axis] < t.shape()[axis] {
                return Ok(t.at(&src));
            }
            src[axis] -= t.shape()[axis];
        }
        Err("concat index past the end".to_string())
    })
}

/// `graph.pad`: `low[i]`/`high[i]` elements of `value` before/after axis `i`.
pub fn pad(x: &Literal, low: &[i64], high: &[i64], value: Scalar) -> OpResult {
    let rank = x.rank();
    if low.len() != rank || high.len() != rank {
        return Err(format!("low and high must have {rank} entries"));
    }
    if low.iter().chain(high).any(|&p| p < 0) {
        return Err("negative padding".into());
    }
    let shape: Vec<usize> = (0..rank)
        .map(|a| {
            (x.shape()[a] as u64)
                .checked_add(low[a] as u64)
                .and_then(|n| n.checked_add(high[a] as u64))
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| format!("padding on axis {a} is too large"))
        })
        .collect::<Result<_, _>>()?;
    let value = value.cast(x.dtype());
    Literal::from_fn(x.dtype(), &shape, |out| {
        let mut src = Vec::with_capacity(rank);
        for a in 0..rank {
            match out[a].checked_sub(low[a] as usize) {
                Some(i) if i < x.shape()[a] => src.push(i),
                _ => return Ok(value),
            }
        }
        Ok(x.at(&src))
    })
}

/// `graph.gather`: numpy `take(x, indices, axis)`. Indices in `[-n, n)` are valid (negative
/// count from the end, as in numpy); others are an error.
pub fn gather(x: &Literal, idx: &Literal, axis: i64) -> OpResult {
    if !matches!(idx.dtype(), DType::I32 | DType::I64) {
        return Err(format!("indices must be i32 or i64, not {}", idx.dtype()));
    }
    let axis = normalize_axis(axis, x.rank())?;
    let n = x.shape()[axis];
    let mut shape = x.shape()[..axis].to_vec();
    shape.extend(idx.shape());
    shape.extend(&x.shape()[axis + 1..]);
    Literal::from_fn(x.dtype(), &shape, |out| {
        let index_pos = &out[axis..axis + idx.rank()];
        let i = idx.at(index_pos).as_i64();
        let resolved = if i < 0 { i + n as i64 } else { i };
        if resolved < 0 || resolved >= n as i64 {
            return Err(format!(
                "index {i} is out of range for axis {axis} of size {n}"
            ));
        }
        let mut src = out[..axis].to_vec();
        src.push(resolved as usize);
        src.extend(&out[axis + idx.rank()..]);
        Ok(x.at(&src))
    })
}

/// The sum of `terms`, accumulated from `+0.0` as compiled kernels and numpy do, so an empty sum
/// (a reduction or matmul over a zero-size axis) is `+0`. Rust's `Sum for f64` starts from
/// `-0.0` instead, which `reciprocal` or a division would turn into `-inf`.
fn float_sum(terms: impl Iterator<Item = f64>) -> f64 {
    terms.fold(0.0, |sum, x| sum + x)
}

/// The reductions of `graph.reduce_*`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Reduction {
    Sum,
    Prod,
    Max,
    Min,
    Mean,
}

/// `graph.reduce_*` over `axes`. Floats: sum/prod/mean in `f64`, max/min propagate NaN.
/// Integers: wrapping sum/prod, mean truncates toward zero. `i1` reduces as 0/1 integers and
/// stores `result != 0` (sum/max = any, prod/min = all). Over no elements each gives its
/// identity: 0, 1, −∞ (or the integer minimum) for max, +∞ (the maximum) for min.
pub fn reduce(kind: Reduction, x: &Literal, axes: &[i64], keepdim: bool) -> OpResult {
    let rank = x.rank();
    let mut reduced = vec![false; rank];
    for &a in axes {
        reduced[normalize_axis(a, rank)?] = true;
    }
    let reduced_shape: Vec<usize> = (0..rank)
        .filter(|&a| reduced[a])
        .map(|a| x.shape()[a])
        .collect();
    let count = num_elements(&reduced_shape);
    let kept_shape: Vec<usize> = (0..rank)
        .map(|a| if reduced[a] { 1 } else { x.shape()[a] })
        .collect();
    // The flat offset, from an output's element, of each element it reduces, in row-major
    // order over the reduced axes (the order the terms are accumulated in).
    let mut strides = vec![1usize; rank];
    for a in (0..rank.saturating_sub(1)).rev() {
        strides[a] = strides[a + 1] * x.shape()[a + 1];
    }
    let reduced_strides: Vec<usize> = (0..rank)
        .filter(|&a| reduced[a])
        .map(|a| strides[a])
        .collect();
    let mut offsets = Vec::with_capacity(count);
    let mut r = vec![0; reduced_shape.len()];
    for _ in 0..count {
        offsets.push(r.iter().zip(&reduced_strides).map(|(i, s)| i * s).sum());
        next_index(&mut r, &reduced_shape);
    }
    let result = Literal::from_fn(x.dtype(), &kept_shape, |out| {
        // `out` is 0 on the reduced axes.
        let base: usize = out.iter().zip(&strides).map(|(i, s)| i * s).sum();
        let values = offsets.iter().map(|&o: &usize| x.get(base + o));
        if x.dtype().is_float() {
            let values: Vec<f64> = values.map(Scalar::as_f64).collect();
            Ok(Scalar::Float(match kind {
                Reduction::Sum => float_sum(values.iter().copied()),
                Reduction::Prod => values.iter().product(),
                Reduction::Mean => float_sum(values.iter().copied()) / count as f64,
                Reduction::Max | Reduction::Min if values.iter().any(|v| v.is_nan()) => f64::NAN,
                Reduction::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                Reduction::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            }))
        } else {
            let dtype = x.dtype();
            let values: Vec<i64> = values.map(Scalar::as_i64).collect();
            let sum = || values.iter().fold(0i64, |a, &v| a.wrapping_add(v));
            let key = |v: &&i64| int_key(dtype, **v);
            Ok(Scalar::Int(match kind {
                Reduction::Sum => sum(),
                Reduction::Prod => values.iter().fold(1i64, |a, &v| a.wrapping_mul(v)),
                Reduction::Mean if count == 0 => {
                    return Err("integer mean of no elements".to_string())
                }
                Reduction::Mean => int_binary(Binary::Div, sum(), count as i64, dtype)?,
                // Of no elements: the reduction's identity, the type's extreme.
                Reduction::Max => match values.iter().max_by_key(key) {
                    Some(v) => *v,
                    None => int_limit(dtype, false),
                },
                Reduction::Min => match values.iter().min_by_key(key) {
                    Some(v) => *v,
                    None => int_limit(dtype, true),
                },
            }))
        }
    })?;
    if keepdim {
        Ok(result)
    } else {
        let shape = (0..rank)
            .filter(|&a| !reduced[a])
            .map(|a| x.shape()[a])
            .collect();
        result.reshaped(shape)
    }
}

/// `graph.argmax` / `graph.argmin` (`max` selects which): the `i64` position of the first
/// extreme along `axis`; a NaN counts as the extreme (numpy's rule).
pub fn arg_reduce(max: bool, x: &Literal, axis: i64, keepdim: bool) -> OpResult {
    let axis = normalize_axis(axis, x.rank())?;
    let n = x.shape()[axis];
    if n == 0 {
        return Err(format!("arg reduction over empty axis {axis}"));
    }
    let mut kept = x.shape().to_vec();
    kept[axis] = 1;
    let result = Literal::from_fn(DType::I64, &kept, |out| {
        let mut src = out.to_vec();
        let mut best = 0;
        let mut best_value = x.at(&src);
        for i in 1..n {
            src[axis] = i;
            let v = x.at(&src);
            let better = match (v, best_value) {
                (_, Scalar::Float(b)) if b.is_nan() => false,
                (Scalar::Float(c), _) if c.is_nan() => true,
                (Scalar::Float(c), Scalar::Float(b)) => (max && c > b) || (!max && c < b),
                (c, b) => {
                    let dtype = x.dtype();
                    let (c, b) = (int_key(dtype, c.as_i64()), int_key(dtype, b.as_i64()));
                    (max && c > b) || (!max && c < b)
                }
            };
            if better {
                best = i;
                best_value = v;
            }
        }
        Ok(Scalar::Int(best as i64))
    })?;
    if keepdim {
        Ok(result)
    } else {
        let mut shape = x.shape().to_vec();
        shape.remove(axis);
        result.reshaped(shape)
    }
}

/// Whether `a` and `b` are both 8-bit integer tensors: the operands of a matmul or conv2d
/// that widen (each by its signedness) and accumulate in wrapping `i32`.
pub(crate) fn byte_operands(a: &Literal, b: &Literal) -> bool {
    let byte = |t: &Literal| matches!(t.dtype(), DType::I8 | DType::U8);
    byte(a) && byte(b)
}

/// `graph.matmul`: numpy `matmul` for operands of rank ≥ 2 (batch dims broadcast). Floats
/// accumulate in `f64`; integers wrap; `i1` is or-of-ands. Two 8-bit integer operands (`i8`,
/// `u8`, mixed or not) are widened by their signedness and accumulate in `i32`.
pub fn matmul(a: &Literal, b: &Literal) -> OpResult {
    if byte_operands(a, b) {
        return matmul(&a.cast(DType::I32), &b.cast(DType::I32));
    }
    same_dtype(a, b)?;
    if a.rank() < 2 || b.rank() < 2 {
        return Err("operands must have rank >= 2".into());
    }
    let (ra, rb) = (a.rank(), b.rank());
    let (m, k) = (a.shape()[ra - 2], a.shape()[ra - 1]);
    let (k2, n) = (b.shape()[rb - 2], b.shape()[rb - 1]);
    if k != k2 {
        return Err(format!(
            "inner dims differ: {:?} x {:?}",
            a.shape(),
            b.shape()
        ));
    }
    let batch =
        broadcast_shapes(&[&a.shape()[..ra - 2], &b.shape()[..rb - 2]]).ok_or_else(|| {
            format!(
                "batch dims of {:?} and {:?} do not broadcast",
                a.shape(),
                b.shape()
            )
        })?;
    let mut shape = batch.clone();
    shape.extend([m, n]);
    let float = a.dtype().is_float();
    Literal::from_fn(a.dtype(), &shape, |out| {
        let (batch_index, ij) = out.split_at(batch.len());
        let base_a = broadcast_source(batch_index, &a.shape()[..ra - 2]) * m * k;
        let base_b = broadcast_source(batch_index, &b.shape()[..rb - 2]) * k * n;
        let (i, j) = (ij[0], ij[1]);
        let terms = (0..k).map(|p| (a.get(base_a + i * k + p), b.get(base_b + p * n + j)));
        Ok(if float {
            Scalar::Float(float_sum(terms.map(|(x, y)| x.as_f64() * y.as_f64())))
        } else {
            Scalar::Int(terms.fold(0i64, |acc, (x, y)| {
                acc.wrapping_add(x.as_i64().wrapping_mul(y.as_i64()))
            }))
        })
    })
}

/// `graph.iota`: the index along `axis` at every position of `shape`.
pub fn iota(dtype: DType, shape: &[usize], axis: i64) -> OpResult {
    let axis = normalize_axis(axis, shape.len())?;
    Literal::from_fn(dtype, shape, |i| Ok(Scalar::Int(i[axis] as i64)))
}
