//! Facts about `loop.for` ops: their operands and body ([`LoopParts`]), their kind (and so
//! whether a kernel is GPU-bound, [`is_gpu_kernel`]), bounds that are constants
//! ([`const_range`]), and the ranges induction variables and index values take
//! ([`loop_bounds`], [`value_range`]).

use crate::index_expr::{from_ir, from_ir_with, range_of, simplify, Bounds, FromIr, Symbol};
use crate::{ForOp, LoopKind, LoopOps};
use dlc_ir::{Block, Context, Op, Value};

/// The `(lb, ub, step)` operands of a `loop.for`, its body and its induction variable.
#[derive(Clone, Copy)]
pub struct LoopParts {
    /// The lower bound (operand 0).
    pub lb: Value,
    /// The upper bound, exclusive (operand 1).
    pub ub: Value,
    /// The step (operand 2).
    pub step: Value,
    /// The body block.
    pub body: Block,
    /// The induction variable, the body's argument.
    pub iv: Value,
}

/// The parts of `op` when it is a well-formed `loop.for`.
pub fn loop_parts(ctx: &Context, op: Op) -> Option<LoopParts> {
    let f = ctx.view::<ForOp>(op)?;
    let &[lb, ub, step] = ctx.operands(op) else {
        return None;
    };
    Some(LoopParts {
        lb,
        ub,
        step,
        body: f.body(ctx)?,
        iv: f.induction_var(ctx)?,
    })
}

/// The kind of a `loop.for`, `None` for other ops.
pub fn loop_kind(ctx: &Context, op: Op) -> Option<LoopKind> {
    ctx.view::<ForOp>(op)?.loop_kind(ctx)
}

/// True if `kernel` is GPU-bound: it has launch attributes or contains a block/thread loop.
pub fn is_gpu_kernel(ctx: &Context, kernel: Op) -> bool {
    if ctx.attr(kernel, "grid").is_some() || ctx.attr(kernel, "block").is_some() {
        return true;
    }
    let mut found = false;
    ctx.for_each_op(kernel, &mut |op| {
        found |= loop_kind(ctx, op).is_some_and(LoopKind::is_gpu);
    });
    found
}

/// The bounds of a `loop.for` whose bounds and step are constants, as [`const_range`] reads
/// them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ConstRange {
    /// The lower bound: the induction variable's first value.
    pub lb: i64,
    /// The number of iterations: `ceil((ub - lb) / step)`, 0 when `ub <= lb`.
    pub extent: i64,
    /// The step, positive.
    pub step: i64,
}

/// The constant bounds of the `loop.for` `op`, `None` when a bound or the step is not a
/// constant (index arithmetic on constants counts: it is folded), when the step is not
/// positive, or when the extent overflows.
pub fn const_range(ctx: &Context, op: Op) -> Option<ConstRange> {
    let operands = ctx.operands(op);
    if operands.len() != 3 {
        return None;
    }
    let lb = const_index(ctx, operands[0])?;
    let ub = const_index(ctx, operands[1])?;
    let step = const_index(ctx, operands[2])?;
    if step <= 0 {
        return None;
    }
    let extent = if ub > lb {
        (ub - lb).checked_add(step - 1)? / step
    } else {
        0
    };
    Some(ConstRange { lb, extent, step })
}

/// The value of `v` when it is an index constant (possibly through folded `arith` ops).
fn const_index(ctx: &Context, v: Value) -> Option<i64> {
    from_ir(ctx, v).as_constant()
}

/// The range of index value `v` under `bounds` (`i64::MIN`/`i64::MAX` for unbounded ends).
pub fn value_range(ctx: &Context, v: Value, bounds: &Bounds) -> (i64, i64) {
    let e = from_ir_with(
        ctx,
        v,
        FromIr {
            bounds: Some(bounds),
            assume_non_negative: true,
        },
    );
    range_of(&simplify(&e, bounds), bounds)
}

/// `bounds` extended with the ranges of every loop induction variable and schedule-block iter
/// var of `kernel`: `[lb, ub - 1]` of a loop over the ranges of its bounds, and the range of
/// the iter value an iter var is bound to.
pub fn loop_bounds(ctx: &Context, kernel: Op, mut bounds: Bounds) -> Bounds {
    ctx.for_each_op(kernel, &mut |op| match LoopOps::of(ctx, op) {
        Some(LoopOps::ForOp(f)) => {
            let operands = ctx.operands(op);
            let Some(iv) = f.induction_var(ctx) else {
                return;
            };
            if operands.len() != 3 {
                return;
            }
            let (lo, _) = value_range(ctx, operands[0], &bounds);
            let (_, hi) = value_range(ctx, operands[1], &bounds);
            if lo != i64::MIN && hi != i64::MAX && hi > lo {
                bounds.insert(Symbol::Value(iv), lo, hi - 1);
            }
        }
        Some(LoopOps::ScheduleBlockOp(_)) => {
            let ranges: Vec<(i64, i64)> = ctx
                .operands(op)
                .iter()
                .map(|&v| value_range(ctx, v, &bounds))
                .collect();
            for &region in ctx.regions(op) {
                for &block in ctx.blocks(region) {
                    for (&arg, &(lo, hi)) in ctx.block_args(block).iter().zip(&ranges) {
                        if lo != i64::MIN && hi != i64::MAX && hi >= lo {
                            bounds.insert(Symbol::Value(arg), lo, hi);
                        }
                    }
                }
            }
        }
        _ => {}
    });
    bounds
}
