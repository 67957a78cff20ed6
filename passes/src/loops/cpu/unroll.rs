//! Unrolls small constant loops fully and `unroll(f)`-marked loops by their factor.
//!
//! # Applies when
//! A `serial` loop with constant bounds and step runs at most `max-extent` iterations (the short
//! reduction and point loops a lowered kernel is full of: 16-wide rows, 3x3 windows), or a loop
//! is marked `unroll(f)` by a schedule. Unrolling removes the loop overhead (compare, branch,
//! induction update) and exposes the copies of the body to scheduling and `cse`.
//!
//! # Changes to the IR
//! - Full unroll: a `serial` loop with a constant trip count `t <= max-extent` whose `t` copies
//!   hold at most `max-ops` ops (nested ops counted), or an `unroll(f)`
//!   loop with a constant trip count `t <= max(f, factor)`, is replaced by `t` copies of its body
//!   (without the `loop.yield`), placed where the loop was; copy `k` uses an `arith.constant`
//!   `lb + k*step` instead of the induction variable. A loop with no iteration is erased.
//! - Partial unroll: any other `unroll(f)` loop (`f >= 2`) with a constant positive step `s`
//!   becomes a `serial` main loop with step `f*s` from `lb` to the end of the whole groups of `f`
//!   iterations, whose body holds `f` copies of the original body (copy `k` at `iv + k*s`), and a
//!   `serial` remainder loop with the original body from there to `ub`. The remainder is left out
//!   when the bounds are constants and the groups cover every iteration.
//! - Nested loops are unrolled innermost first, so an outer loop copies already unrolled bodies.
//!   `parallel`, `vectorize` and GPU-bound loops are never touched.
//!
//! The pass counts the loops it unrolled (fully or partially).
//!
//! # Performance impact
//! Saves the per-iteration loop overhead and lets later passes fold the constant indices; the
//! cost is code size, bounded by `max-extent` copies and `max-ops` ops for unmarked loops. The
//! op bound keeps big bodies as loops: `tile`'s loop over 4 reduction blocks of a 1024³ matmul
//! (packing and the register tiles, about 800 ops) tripled its LLVM compile time (44 to 128
//! ms) when unrolled, for no speed. A register tile's epilogue (the rows of a matmul's result
//! through bias and activation, a vectorized sigmoid in each) is the other big body: its loop
//! runs once per output row block, so its overhead is nothing beside the body's, while at a bound
//! of 512 ops its four copies made nudenet_320n's loop IR 75% larger (54k to 94k lines) and the
//! passes after it slower. At the default 128 (63k lines) `dlc-run --no-cache` gave the first
//! result 8–15% sooner on ppocr_cls, ppocr_det and ppocr_rec, with the steady state of those
//! models, nudenet_320n and the matmul, mlp and GPT-2 block benchmark workloads within this VM's
//! noise (docs/benchmarks.md, "Nineteenth session").
//!
//! # Risks and limitations
//! - Loops with symbolic bounds are only unrolled when marked, and then partially.
//! - Unrolling a loop that holds a `loop.alloc` gives each copy its own buffer, as each iteration
//!   had before.
//!
//! # Examples
//! 1. A 2-iteration serial loop:
//!    ```text
//!    loop.kernel @k(%a: !loop.buffer<2xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c2 = arith.constant 2 : index
//!      %cst = arith.constant 1.000000e+00 : f32
//!      loop.for serial %i = %c0 to %c2 step %c1 {
//!        loop.store %cst, %a[%i] : !loop.buffer<2xf32, global>
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    %c0_0 = arith.constant 0 : index
//!    loop.store %cst, %arg0[%c0_0] : !loop.buffer<2xf32, global>
//!    %c1_1 = arith.constant 1 : index
//!    loop.store %cst, %arg0[%c1_1] : !loop.buffer<2xf32, global>
//!    ```
//!
//! # Counter-examples
//! 1. `loop.for serial %i = %c0 to %n step %c1` with a symbolic `%n` and no `unroll` mark: the
//!    trip count is unknown, so the loop stays.

use super::util::{
    clone_body_at, const_int, const_trip_count, index_binary, index_const, whole_groups_end,
};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, InsertPoint, Op};
use dlc_loop::analysis::loops::{loop_parts, LoopParts};
use dlc_loop::{before_terminator, build_for, ForOp, KernelOp, LoopKind};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "unroll",
    summary: "Unrolls small constant loops fully and `unroll(f)`-marked loops by their factor.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[
        OptionSpec::new(
            "max-extent",
            OptionKind::Int,
            "4",
            "Serial loops with a constant trip count up to this are fully unrolled",
        ),
        OptionSpec::new(
            "factor",
            OptionKind::Int,
            "4",
            "unroll(f) loops with a constant trip count up to max(f, factor) are fully unrolled",
        ),
        OptionSpec::new(
            "max-ops",
            OptionKind::Int,
            "128",
            "Unmarked loops whose copies would hold more ops than this in all are kept",
        ),
    ],
    statistics: &[(
        "loops-unrolled",
        "Number of loops unrolled fully or partially",
    )],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let max_extent = options.int("max-extent");
    let factor = options.int("factor");
    let max_ops = options.int("max-ops");
    if max_extent < 0 || factor < 0 || max_ops < 0 {
        return Err("options 'max-extent', 'factor' and 'max-ops' must not be negative".into());
    }
    Ok(Box::new(Unroll {
        max_extent,
        factor,
        max_ops,
    }))
}

struct Unroll {
    /// The largest trip count of an unmarked serial loop that is fully unrolled.
    max_extent: i64,
    /// The largest trip count of a marked loop that is fully unrolled (at least its own factor).
    factor: i64,
    /// The most ops (nested ones included) the copies of an unmarked loop's body may hold.
    max_ops: i64,
}

/// The ops nested in `op`, itself excluded.
fn body_size(ctx: &Context, op: Op) -> i64 {
    let mut n = -1;
    ctx.for_each_op(op, &mut |_| n += 1);
    n
}

/// What to do with one loop.
enum Plan {
    Full(i64),
    Partial(i64, i64),
}

impl Pass for Unroll {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let mut loops = Vec::new();
        ctx.for_each_op(run.op(), &mut |op| {
            if ctx.view::<ForOp>(op).is_some() {
                loops.push(op);
            }
        });
        // Reversed pre-order puts every loop after the loops nested in it.
        let mut unrolled = 0;
        for &op in loops.iter().rev() {
            let Some(parts) = loop_parts(ctx, op) else {
                continue;
            };
            match self.plan(ctx, op, &parts) {
                Some(Plan::Full(trips)) => {
                    unroll_fully(ctx, op, &parts, trips);
                    unrolled += 1;
                }
                Some(Plan::Partial(step, factor)) => {
                    unroll_partially(ctx, op, &parts, step, factor);
                    unrolled += 1;
                }
                None => {}
            }
        }
        run.add_stat("loops-unrolled", unrolled);
        if unrolled == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

impl Unroll {
    /// Whether and how `op` is unrolled.
    fn plan(&self, ctx: &Context, op: Op, parts: &LoopParts) -> Option<Plan> {
        let trips = const_trip_count(ctx, parts);
        match ForOp(op).loop_kind(ctx)? {
            LoopKind::Serial => trips
                .filter(|&t| t <= self.max_extent && t * body_size(ctx, op) <= self.max_ops)
                .map(Plan::Full),
            LoopKind::Unroll(f) => match trips {
                Some(t) if t <= f.max(self.factor) => Some(Plan::Full(t)),
                _ => {
                    let step = const_int(ctx, parts.step).filter(|&s| s > 0)?;
                    (f >= 2).then_some(Plan::Partial(step, f))
                }
            },
            _ => None,
        }
    }
}

/// Replaces `op` by `trips` copies of its body.
fn unroll_fully(ctx: &mut Context, op: Op, parts: &LoopParts, trips: i64) {
    let (Some(lb), Some(step)) = (const_int(ctx, parts.lb), const_int(ctx, parts.step)) else {
        return;
    };
    let loc = ctx.op_loc(op);
    let at = InsertPoint::Before(op);
    for k in 0..trips {
        let iv = index_const(ctx, at, lb + k * step, loc);
        clone_body_at(ctx, parts.body, parts.iv, iv, at);
    }
    ctx.erase_op(op);
}

/// Replaces `op` by a main loop of `factor` body copies per iteration and a remainder loop.
fn unroll_partially(ctx: &mut Context, op: Op, parts: &LoopParts, step: i64, factor: i64) {
    let loc = ctx.op_loc(op);
    let at = InsertPoint::Before(op);
    let main_end = whole_groups_end(ctx, at, parts, step, factor, loc);
    let main_step = index_const(ctx, at, step * factor, loc);
    let (_, main_body, main_iv) = build_for(
        ctx,
        at,
        (parts.lb, main_end, main_step),
        LoopKind::Serial,
        loc,
    );
    for k in 0..factor {
        let inner = before_terminator(ctx, main_body);
        let iv = if k == 0 {
            main_iv
        } else {
            let offset = index_const(ctx, inner, k * step, loc);
            index_binary(ctx, inner, "arith.addi", main_iv, offset, loc)
        };
        clone_body_at(ctx, parts.body, parts.iv, iv, inner);
    }
    let covered = const_trip_count(ctx, parts).is_some_and(|t| t % factor == 0);
    if !covered {
        let (_, rest_body, rest_iv) = build_for(
            ctx,
            at,
            (main_end, parts.ub, parts.step),
            LoopKind::Serial,
            loc,
        );
        clone_body_at(
            ctx,
            parts.body,
            parts.iv,
            rest_iv,
            before_terminator(ctx, rest_body),
        );
    }
    ctx.erase_op(op);
}
