//! Shapes a CPU kernel's parallel loops for threads: collapses perfect parallel nests into one
//! parallel loop and makes parallel loops with too little work serial.
//!
//! # Applies when
//! A CPU kernel (no GPU binding) has `parallel` loops, as every lowered CPU kernel does over its
//! outer spatial dims. A thread pool wants one flat parallel loop with enough work per task:
//! a nest `parallel i { parallel j { ... } }` splits into `N*M` equal tasks only once collapsed,
//! and a parallel loop over a handful of elements costs more to dispatch than to run.
//!
//! # Changes to the IR
//! The rule, for each outermost `parallel` loop of the kernel (one not nested in another
//! parallel loop):
//! 1. Collapse: while its body is exactly one `parallel` loop (plus the `loop.yield`, and
//!    constants, which move before the outer loop), both loops
//!    run from 0 with step 1, and the inner upper bound is defined outside the outer loop, the two
//!    become one `parallel` loop from 0 to `ub_outer * ub_inner` (an `arith.muli` before it);
//!    its body recovers `i = f / ub_inner` and `j = f % ub_inner` (`arith.divui`, `arith.remui`)
//!    and holds the inner body with `i`, `j` in place of the two induction variables.
//! 2. Grain size: the work of a loop is its trip count times the work of its body, the work of a
//!    body the sum of the work of its ops (1 for a plain op, the work of a nested loop, the work
//!    of the regions of a schedule block or `loop.if`). When every trip count involved is a
//!    constant and the total work of the parallel loop is below `grain-size`, it becomes
//!    `serial`: one thread does it faster than a pool. Symbolic trip counts count as large.
//! 3. `parallel` loops nested inside a parallel loop become `serial`: only the outermost one is
//!    spread over threads.
//!
//! The pass counts the loops merged away by collapsing and the loops made serial.
//!
//! # Performance impact
//! Fewer, better balanced parallel tasks: a collapsed `[B, S]` nest gives `B*S` tasks instead of
//! `B` tasks each looping over `S`; tiny kernels skip the thread pool.
//!
//! # Risks and limitations
//! - The work estimate counts ops, not cycles; a body of a few expensive ops (`math.exp`) is
//!   under-counted.
//! - Chunking a large parallel loop into tasks of `grain-size` work is left to the runtime.
//!
//! # Examples
//! 1. A perfect nest over symbolic extents:
//!    ```text
//!    loop.kernel @k(%a: !loop.buffer<?x?xf32, global>, %m: index, %n: index) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %cst = arith.constant 1.000000e+00 : f32
//!      loop.for parallel %i = %c0 to %m step %c1 {
//!        loop.for parallel %j = %c0 to %n step %c1 {
//!          loop.store %cst, %a[%i, %j] : !loop.buffer<?x?xf32, global>
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    %0 = arith.muli %arg1, %arg2 : index
//!    loop.for parallel %arg3 = %c0 to %0 step %c1 {
//!      %1 = arith.divui %arg3, %arg2 : index
//!      %2 = arith.remui %arg3, %arg2 : index
//!      loop.store %cst, %arg0[%1, %2] : !loop.buffer<?x?xf32, global>
//!    ```
//! 2. A parallel loop of 8 stores (8 < 1024) becomes `loop.for serial`.
//!
//! # Counter-examples
//! 1. `parallel %i { %t = loop.alloc ...; parallel %j { ... } }`: the outer body holds more than
//!    the inner loop, so the nest is not perfect and is not collapsed.

use super::util::{const_int, const_trip_count, index_binary};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, InsertPoint, Op, Traits};
use dlc_loop::analysis::loops::{loop_parts, LoopParts};
use dlc_loop::{before_terminator, build_for, is_gpu_kernel, ForOp, KernelOp, LoopKind};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "parallelize",
    summary: "Shapes a CPU kernel's parallel loops for threads: collapses perfect parallel nests \
              into one parallel loop and makes parallel loops with too little work serial.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[OptionSpec::new(
        "grain-size",
        OptionKind::Int,
        "1024",
        "Parallel loops with less total work (ops executed, all trip counts constant) become serial",
    )],
    statistics: &[
        ("loops-collapsed", "Number of parallel loops merged into their parent"),
        ("loops-serialized", "Number of parallel loops made serial"),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(Parallelize {
        grain_size: options.int("grain-size"),
    }))
}

struct Parallelize {
    /// The least work a parallel loop must have to stay parallel.
    grain_size: i64,
}

impl Pass for Parallelize {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        let (mut collapsed, mut serialized) = (0, 0);
        for outer in outermost_parallel_loops(ctx, kernel) {
            let mut top = outer;
            while let Some(merged) = collapse_once(ctx, top) {
                top = merged;
                collapsed += 1;
            }
            if work(ctx, top).is_some_and(|w| w < self.grain_size) {
                set_serial(ctx, top);
                serialized += 1;
            }
            let mut nested = Vec::new();
            ctx.for_each_op(top, &mut |op| {
                if op != top && is_parallel(ctx, op) {
                    nested.push(op);
                }
            });
            for op in nested {
                set_serial(ctx, op);
                serialized += 1;
            }
        }
        run.add_stat("loops-collapsed", collapsed);
        run.add_stat("loops-serialized", serialized);
        if collapsed + serialized == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

fn is_parallel(ctx: &Context, op: Op) -> bool {
    ctx.view::<ForOp>(op)
        .is_some_and(|f| f.loop_kind(ctx) == Some(LoopKind::Parallel))
}

/// The parallel loops of `kernel` with no parallel loop around them.
fn outermost_parallel_loops(ctx: &Context, kernel: Op) -> Vec<Op> {
    let mut all = Vec::new();
    ctx.for_each_op(kernel, &mut |op| {
        if is_parallel(ctx, op) {
            all.push(op);
        }
    });
    all.iter()
        .copied()
        .filter(|&op| !all.iter().any(|&o| o != op && ctx.is_ancestor(o, op)))
        .collect()
}

/// Merges `outer` with the one parallel loop its body holds; returns the merged loop.
fn collapse_once(ctx: &mut Context, outer: Op) -> Option<Op> {
    let op_parts = loop_parts(ctx, outer)?;
    // Constants beside the inner loop (the bounds `tile` builds for its blocks of rows) move
    // out of the way first.
    let (constants, ops): (Vec<Op>, Vec<Op>) = ctx
        .block_ops(op_parts.body)
        .partition(|&op| ctx.has_trait(op, Traits::CONSTANT_LIKE) && ctx.operands(op).is_empty());
    let [inner, term] = ops[..] else {
        return None;
    };
    if !ctx.has_trait(term, Traits::TERMINATOR) || !is_parallel(ctx, inner) {
        return None;
    }
    let in_parts = loop_parts(ctx, inner)?;
    let zero_one =
        |p: &LoopParts| const_int(ctx, p.lb) == Some(0) && const_int(ctx, p.step) == Some(1);
    if !zero_one(&op_parts) || !zero_one(&in_parts) {
        return None;
    }
    // The inner bound must be available before the outer loop (once its constants moved).
    if let Some(def) = ctx.defining_op(in_parts.ub) {
        if ctx.is_ancestor(outer, def) && !constants.contains(&def) {
            return None;
        }
    } else if ctx
        .value_block(in_parts.ub)
        .and_then(|b| ctx.block_parent_op(b))
        .is_some_and(|p| ctx.is_ancestor(outer, p))
    {
        return None;
    }
    for c in constants {
        ctx.move_op(c, InsertPoint::Before(outer));
    }
    let loc = ctx.op_loc(outer);
    let at = InsertPoint::Before(outer);
    let total = index_binary(ctx, at, "arith.muli", op_parts.ub, in_parts.ub, loc);
    let (merged, body, iv) = build_for(
        ctx,
        at,
        (op_parts.lb, total, op_parts.step),
        LoopKind::Parallel,
        loc,
    );
    let inside = before_terminator(ctx, body);
    let i = index_binary(ctx, inside, "arith.divui", iv, in_parts.ub, loc);
    let j = index_binary(ctx, inside, "arith.remui", iv, in_parts.ub, loc);
    // The inner body moves into the merged loop (no copy of what may be a large nest).
    ctx.replace_all_uses(op_parts.iv, i);
    ctx.replace_all_uses(in_parts.iv, j);
    let inner_ops: Vec<Op> = ctx.block_ops(in_parts.body).collect();
    for op in inner_ops {
        if !ctx.has_trait(op, Traits::TERMINATOR) {
            ctx.move_op(op, inside);
        }
    }
    ctx.erase_op(outer);
    Some(merged.0)
}

/// The ops `op` executes, when every trip count on the way is a constant.
fn work(ctx: &Context, op: Op) -> Option<i64> {
    let mut body = 0i64;
    for &region in ctx.regions(op) {
        for &block in ctx.blocks(region) {
            for inner in ctx.block_ops(block) {
                body = body.saturating_add(work(ctx, inner)?);
            }
        }
    }
    if ctx.view::<ForOp>(op).is_some() {
        let trips = const_trip_count(ctx, &loop_parts(ctx, op)?)?;
        Some(trips.saturating_mul(body))
    } else {
        Some(body.saturating_add(1))
    }
}

/// Makes `op` a serial loop.
fn set_serial(ctx: &mut Context, op: Op) {
    let kind = ctx.string_attr(LoopKind::Serial.name());
    ctx.set_attr(op, "kind", kind);
}
