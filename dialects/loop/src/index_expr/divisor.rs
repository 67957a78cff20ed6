//! Known power-of-two divisors of index values and of element offsets, for alignment proofs.
//!
//! [`known_divisor`] follows `arith.constant`, `addi`, `subi` and `muli` and the block arguments
//! that index ops bind: the induction variable of a loop (`loop.for`, or any [`LoopLike`] op) is
//! a multiple of whatever divides both its lower bound and its step, and a schedule block's iter
//! var is its iter value. Anything
//! else (a kernel argument, a load, a division) is only known to be a multiple of 1.
//! [`offset_divisor`] combines the indices of an access with the buffer's row-major strides.
//! Code generation uses it to prove that a vector access is aligned to its size.

use crate::ScheduleBlockOp;
use dlc_arith::ArithOps;
use dlc_ir::{Context, LoopLike, Value, ValueDef, DYNAMIC};

/// The largest divisor reported: enough for any vector or cache-line alignment.
pub const MAX_DIVISOR: u64 = 1 << 16;

/// The largest power of two, up to [`MAX_DIVISOR`], that provably divides the index `v`.
pub fn known_divisor(ctx: &Context, v: Value) -> u64 {
    divisor(ctx, v, 0)
}

/// The largest power of two, up to [`MAX_DIVISOR`], that provably divides the row-major
/// element offset `sum(indices[k] * prod(dims[k+1..]))` of an access to a buffer with `dims`.
/// A dynamic dim contributes a factor of 1 to the strides it is part of.
pub fn offset_divisor(ctx: &Context, dims: &[i64], indices: &[Value]) -> u64 {
    let mut stride = 1u64;
    let mut result = MAX_DIVISOR;
    for (k, &index) in indices.iter().enumerate().rev() {
        result = result.min(known_divisor(ctx, index).saturating_mul(stride));
        let dim = dims.get(k).copied().unwrap_or(DYNAMIC);
        let dim_divisor = if dim == DYNAMIC { 1 } else { pow2_divisor(dim) };
        stride = stride.saturating_mul(dim_divisor).min(MAX_DIVISOR);
    }
    result
}

/// The power of two dividing `c` (capped; every power divides 0).
fn pow2_divisor(c: i64) -> u64 {
    if c == 0 {
        MAX_DIVISOR
    } else {
        (1u64 << c.trailing_zeros().min(16)).min(MAX_DIVISOR)
    }
}

fn divisor(ctx: &Context, v: Value, depth: u32) -> u64 {
    // Index computations are shallow; the limit only bounds pathological chains.
    if depth > 32 {
        return 1;
    }
    let next = |w: Value| divisor(ctx, w, depth + 1);
    match ctx.value_def(v) {
        ValueDef::Result { op, .. } => {
            let operands = ctx.operands(op);
            match (ArithOps::of(ctx, op), operands) {
                (Some(ArithOps::ConstantOp(c)), _) => c
                    .value(ctx)
                    .and_then(|a| ctx.attr_as_int(a))
                    .and_then(|c| i64::try_from(c).ok())
                    .map_or(1, pow2_divisor),
                (Some(ArithOps::AddIOp(_) | ArithOps::SubIOp(_)), &[a, b]) => next(a).min(next(b)),
                (Some(ArithOps::MulIOp(_)), &[a, b]) => {
                    next(a).saturating_mul(next(b)).min(MAX_DIVISOR)
                }
                _ => 1,
            }
        }
        ValueDef::BlockArg { block, index } => {
            let Some(owner) = ctx.block_parent_op(block) else {
                return 1;
            };
            if let Some(sb) = ctx.view::<ScheduleBlockOp>(owner) {
                return sb
                    .iter_values(ctx)
                    .get(index as usize)
                    .map_or(1, |&w| next(w));
            }
            match ctx.interface::<dyn LoopLike>(owner) {
                Some(l) if l.induction_var(ctx, owner) == v => {
                    let [lower, _, step] = l.bounds(ctx, owner);
                    next(lower).min(next(step))
                }
                _ => 1,
            }
        }
        ValueDef::Placeholder => 1,
    }
}
