//! `--check`: the compiled model against the reference interpreter.
//!
//! The reference is the graph interpreter on the program as written (for graph programs) or
//! the loop interpreter on it (for loop-level programs); both compute in f64 and round to the
//! result type per op. Each output is compared by dtype, shape and values: integers and `i1`
//! exactly, floats by the largest absolute difference, which must stay within
//! `atol + rtol * max|reference|` ([`tolerance`]). The bound is normwise because compiled
//! reductions accumulate in the element type in a different order (and `exp`/`tanh`/`erf` are
//! polynomial approximations, see docs/codegen.md), so an element that cancels to near zero
//! carries the rounding of its large terms. The same rule is the JIT differential test's.

use crate::Model;
use dlc_graph::interp::interpret;
use dlc_graph::ops::MatmulOp;
use dlc_ir::{Context, Op, Value};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_runtime::Tensor;
use dlc_tensor::{DType, Elements, Literal};

/// How one output compares with the reference.
#[derive(Clone, Debug)]
pub struct OutputReport {
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// The largest |compiled − reference| over the elements (0 for exact integer matches;
    /// infinite when a NaN or infinity does not match).
    pub max_abs: f64,
    /// `max_abs / max|reference|` (or `max_abs` when the reference is all zeros).
    pub max_rel: f64,
    /// Whether the output is within the tolerance of its dtype.
    pub ok: bool,
}

/// (rtol, atol) for a float dtype; integers and `i1` must match exactly.
pub fn tolerance(dtype: DType) -> Option<(f64, f64)> {
    match dtype {
        DType::F32 => Some((1e-4, 1e-5)),
        DType::F64 => Some((1e-10, 1e-10)),
        DType::F16 => Some((1e-2, 1e-2)),
        DType::BF16 => Some((6e-2, 6e-2)),
        _ => None,
    }
}

/// The reference interpreter's outputs for `inputs`.
pub fn reference(model: &Model, inputs: &[Tensor]) -> Result<Vec<Literal>, String> {
    let (ctx, func) = model.source()?;
    let inputs = inputs.iter().map(Tensor::to_literal);
    if model.graph_level {
        let inputs: Vec<Literal> = inputs.collect();
        interpret(ctx, func, &inputs).map_err(|d| format!("graph interpreter: {}", d.message))
    } else {
        let args = inputs.map(KernelArg::Buffer).collect();
        run_host(ctx, func, args)
            .map_err(|d| format!("loop interpreter: {}", d.message))?
            .into_iter()
            .map(|r| match r {
                KernelArg::Buffer(b) => Ok(b),
                KernelArg::Index(_) => {
                    Err("the function returns an index, not a tensor".to_string())
                }
            })
            .collect()
    }
}

/// The loosest (rtol, atol) of [`tolerance`] over every value `func` computes: an f32 result
/// cast from f16 math is only as precise as f16 (docs/testing.md). [`compare`] widens each
/// output's tolerance to it.
pub fn loosest(ctx: &Context, func: Op) -> (f64, f64) {
    let mut tol = (0.0f64, 0.0f64);
    let mut widen = |v: Value| {
        let dtype = DType::from_type(ctx, ctx.element_type(ctx.value_type(v)));
        if let Some((rtol, atol)) = dtype.and_then(tolerance) {
            tol = (tol.0.max(rtol), tol.1.max(atol));
        }
    };
    if let Some(&entry) = ctx
        .regions(func)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
    {
        ctx.block_args(entry).iter().for_each(|&v| widen(v));
    }
    ctx.for_each_op(func, &mut |op| ctx.results(op).for_each(&mut widen));
    tol
}

/// Compares `actual` outputs with `reference` ones, float tolerances widened to `floor`
/// (usually [`loosest`] of the source function). Count, dtype or shape differences are an
/// error; value differences are reported per output.
pub fn compare(
    reference: &[Literal],
    actual: &[Literal],
    floor: (f64, f64),
) -> Result<Vec<OutputReport>, String> {
    if reference.len() != actual.len() {
        return Err(format!(
            "{} outputs, but the reference has {}",
            actual.len(),
            reference.len()
        ));
    }
    reference
        .iter()
        .zip(actual)
        .enumerate()
        .map(|(i, (r, a))| {
            if r.dtype() != a.dtype() || r.shape() != a.shape() {
                return Err(format!(
                    "output {i}: {:?} {:?}, but the reference is {:?} {:?}",
                    a.dtype(),
                    a.shape(),
                    r.dtype(),
                    r.shape()
                ));
            }
            Ok(compare_one(r, a, floor))
        })
        .collect()
}

fn compare_one(r: &Literal, a: &Literal, floor: (f64, f64)) -> OutputReport {
    let (max_abs, scale) = match (r.elements(), a.elements()) {
        (Elements::Float(x), Elements::Float(y)) => float_error(x, y),
        (Elements::Int(x), Elements::Int(y)) => {
            let d = x
                .iter()
                .zip(y)
                .map(|(p, q)| (p - q).unsigned_abs() as f64)
                .fold(0.0, f64::max);
            (
                d,
                x.iter()
                    .map(|v| v.unsigned_abs() as f64)
                    .fold(0.0, f64::max),
            )
        }
        (Elements::Bool(x), Elements::Bool(y)) => (if x == y { 0.0 } else { 1.0 }, 1.0),
        _ => (f64::INFINITY, 1.0),
    };
    let max_rel = if scale > 0.0 {
        max_abs / scale
    } else {
        max_abs
    };
    let ok = match tolerance(r.dtype()) {
        Some((rtol, atol)) => max_abs <= atol.max(floor.1) + rtol.max(floor.0) * scale,
        None => max_abs == 0.0,
    };
    OutputReport {
        dtype: r.dtype(),
        shape: r.shape().to_vec(),
        max_abs,
        max_rel,
        ok,
    }
}

/// (max |a − r| over finite reference elements, max |r|); non-finite values must match.
fn float_error(r: &[f64], a: &[f64]) -> (f64, f64) {
    let mut max_abs: f64 = 0.0;
    let mut scale: f64 = 0.0;
    for (&x, &y) in r.iter().zip(a) {
        if x.is_finite() {
            scale = scale.max(x.abs());
            let d = (x - y).abs();
            max_abs = max_abs.max(if d.is_nan() { f64::INFINITY } else { d });
        } else if !(x.is_nan() && y.is_nan() || x == y) {
            max_abs = f64::INFINITY;
        }
    }
    (max_abs, scale)
}

/// The floating-point operations of the model's matmuls (2·M·N·K per batch), for GFLOP/s;
/// 0 for models without a static matmul, loop-level models, and models whose source cannot be
/// made again ([`Model::source`]).
pub fn matmul_flops(model: &Model) -> u64 {
    let Ok((ctx, func)) = model.source() else {
        return 0;
    };
    let mut flops = 0u64;
    ctx.for_each_op(func, &mut |op| {
        if ctx.view::<MatmulOp>(op).is_none() {
            return;
        }
        let (Some(&lhs), Some(&rhs)) = (ctx.operands(op).first(), ctx.operands(op).get(1)) else {
            return;
        };
        let result = ctx.result(op, 0);
        let (Some(a), Some(c)) = (
            ctx.shape(ctx.value_type(lhs)),
            ctx.shape(ctx.value_type(result)),
        ) else {
            return;
        };
        let _ = rhs;
        if a.iter().chain(c).any(|&d| d < 0) {
            return;
        }
        let k = a.last().copied().unwrap_or(1) as u64;
        let out: u64 = c.iter().map(|&d| d as u64).product();
        flops += 2 * out * k;
    });
    flops
}
