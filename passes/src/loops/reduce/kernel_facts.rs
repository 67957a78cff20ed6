//! Facts about a kernel that the reduce passes share: constant index values, loop extents and
//! the static thread-block shape.

use dlc_ir::{Context, Op, Value};
use dlc_loop::index_expr::{from_ir, from_ir_with, range_of, simplify, Bounds, FromIr, Symbol};
use dlc_loop::{ForOp, KernelOp, LaunchDim, LoopKind, LoopOps};

/// The value of `v` when it is an index constant (possibly through folded `arith` ops).
pub(super) fn const_index(ctx: &Context, v: Value) -> Option<i64> {
    from_ir(ctx, v).as_constant()
}

/// `(lb, extent)` of a `loop.for` whose bounds and step are constants (step > 0).
pub(super) fn const_range(ctx: &Context, op: Op) -> Option<(i64, i64, i64)> {
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
    Some((lb, extent, step))
}

/// The kind of a `loop.for`, `None` for other ops.
pub(super) fn loop_kind(ctx: &Context, op: Op) -> Option<LoopKind> {
    ctx.view::<ForOp>(op)?.loop_kind(ctx)
}

/// The threads per block along x, y, z when they are known at compile time: the constant
/// `block` launch attribute, or (without launch attributes) the largest constant extent of the
/// `thread.*` loops along each axis, as the interpreter and `gpu-map` define it.
pub(super) fn static_block_dims(ctx: &Context, kernel: Op) -> Option<[i64; 3]> {
    let k = ctx.view::<KernelOp>(kernel)?;
    if ctx.attr(kernel, "grid").is_some() || ctx.attr(kernel, "block").is_some() {
        let Some(dims) = k.block_dims(ctx) else {
            return Some([1; 3]);
        };
        let mut out = [1; 3];
        for (slot, d) in out.iter_mut().zip(dims) {
            match d {
                LaunchDim::Const(n) => *slot = n,
                LaunchDim::Arg(_) => return None,
            }
        }
        return Some(out);
    }
    let mut out = [1i64; 3];
    let mut known = true;
    ctx.for_each_op(kernel, &mut |op| {
        if let Some(LoopKind::Thread(d)) = loop_kind(ctx, op) {
            match const_range(ctx, op) {
                Some((_, extent, _)) => {
                    out[d.index()] = out[d.index()].max(extent);
                }
                None => known = false,
            }
        }
    });
    known.then_some(out)
}

/// The range of index value `v` under `bounds` (`i64::MIN`/`i64::MAX` for unbounded ends).
pub(super) fn value_range(ctx: &Context, v: Value, bounds: &Bounds) -> (i64, i64) {
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
pub(super) fn loop_bounds(ctx: &Context, kernel: Op, mut bounds: Bounds) -> Bounds {
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
