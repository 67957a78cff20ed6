//! Removes the schedule blocks of a kernel whose stores no live computation reads, then the
//! scratch buffers and loops they leave unused.
//!
//! # Applies when
//! A fused kernel computes an intermediate nobody needs: a fusion output that the graph does
//! not use, a value recomputed by another block and no longer read, or what an earlier pass
//! (load rearrangement, cross-thread reduction) left behind. The blocks that compute it only
//! write kernel scratch (`local` or `shared` buffers), so dropping them cannot change what the
//! kernel writes to global memory. CINN runs the same clean-up (`EliminateDeadScheduleBlock`)
//! on every lowered function before its GPU passes.
//!
//! # Changes to the IR
//! The units are the outermost schedule blocks (a block nested in another one belongs to it).
//! A unit is *live* when it writes a buffer that is not kernel scratch (a kernel argument:
//! outputs are always live), when it contains an op with an unknown or synchronizing effect
//! (`loop.barrier`, an op of another dialect that is not pure), or when it writes a scratch
//! buffer that a live unit or an op outside every unit reads. A scratch buffer used other than
//! as the buffer of `loop.load`/`vload`/`store`/`vstore` counts as read. Liveness is computed to
//! a fixpoint, so a chain of blocks feeding only a dead block dies with it.
//!
//! Then, repeated until nothing changes:
//! - every unit that is not live is erased;
//! - every `loop.alloc` in the kernel whose buffer has no use left is erased;
//! - every `loop.for` whose body holds only its terminator, and every `loop.if` whose then and
//!   else regions do, is erased (innermost first, so a nest emptied from inside goes whole).
//!
//! Blocks are identified by op, never by their `name`. The pass counts the blocks and the
//! allocs it removed.
//!
//! # Risks and limitations
//! - Constants and index arithmetic that only the removed ops used stay; run `dce` after it.
//! - An empty loop is removed even when it was already empty before the pass (it does nothing).
//! - A nested schedule block is kept or removed with its enclosing block, never alone.
//!
//! # Examples
//! 1. A dead register chain: `a` feeds only `b`, and nothing reads `b`; both go (a single
//!    non-fixpoint sweep, as CINN's, would keep `a` because `b` reads it), with their buffers and
//!    the loop left empty:
//!    ```text
//!    loop.kernel @chain(%x: !loop.buffer<8xf32, global>, %y: !loop.buffer<8xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c8 = arith.constant 8 : index
//!      %a = loop.alloc : !loop.buffer<f32, local>
//!      %b = loop.alloc : !loop.buffer<f32, local>
//!      loop.for serial %i = %c0 to %c8 step %c1 {
//!        loop.schedule_block "a" (%i0 = %i) {
//!          %v = loop.load %x[%i0] : !loop.buffer<8xf32, global>
//!          loop.store %v, %a[] : !loop.buffer<f32, local>
//!          loop.yield
//!        }
//!        loop.schedule_block "b" (%i0 = %i) {
//!          %v = loop.load %a[] : !loop.buffer<f32, local>
//!          %e = math.exp %v : f32
//!          loop.store %e, %b[] : !loop.buffer<f32, local>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.for serial %i = %c0 to %c8 step %c1 {
//!        loop.schedule_block "out" (%i0 = %i) {
//!          %v = loop.load %x[%i0] : !loop.buffer<8xf32, global>
//!          loop.store %v, %y[%i0] : !loop.buffer<8xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @chain(%arg0: !loop.buffer<8xf32, global>, %arg1: !loop.buffer<8xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c8 = arith.constant 8 : index
//!      loop.for serial %arg2 = %c0 to %c8 step %c1 {
//!        loop.schedule_block "out" (%arg3 = %arg2) {
//!          %0 = loop.load %arg0[%arg3] : !loop.buffer<8xf32, global>
//!          loop.store %0, %arg1[%arg3] : !loop.buffer<8xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. A block whose local result a live block reads stays, and so does every block storing to
//!    a kernel argument, even when no later block of the kernel reads it: the host may.
//! 2. A block containing a `loop.barrier` stays: removing it would change how the threads of a
//!    GPU block synchronize.

use super::is_empty_block;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, Op, Value, WalkOrder, WalkResult};
use dlc_loop::analysis::access::accesses_of;
use dlc_loop::analysis::effects::{is_kernel_scratch, touch, Touch};
use dlc_loop::KernelOp;
use dlc_loop::{AllocOp, LoopOps, ScheduleBlockOp};
use rustc_hash::FxHashSet;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "schedule-block-dce",
    summary: "Removes the schedule blocks of a kernel whose stores no live computation reads, \
              then the scratch buffers and loops they leave unused.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[],
    statistics: &[
        ("blocks-removed", "Number of dead schedule blocks erased"),
        (
            "allocs-removed",
            "Number of unused scratch allocations erased",
        ),
    ],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(ScheduleBlockDce))
}

struct ScheduleBlockDce;

impl Pass for ScheduleBlockDce {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let (mut blocks, mut allocs, mut others) = (0, 0, 0);
        loop {
            let dead = dead_units(ctx, kernel);
            for &unit in &dead {
                ctx.erase_op(unit);
            }
            let removed_allocs = erase_unused_allocs(ctx, kernel);
            let removed_empty = erase_empty_control_flow(ctx, kernel);
            blocks += dead.len() as u64;
            allocs += removed_allocs;
            others += removed_empty;
            if dead.is_empty() && removed_allocs == 0 && removed_empty == 0 {
                break;
            }
        }
        run.add_stat("blocks-removed", blocks);
        run.add_stat("allocs-removed", allocs);
        if blocks + allocs + others == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// What one unit (an outermost schedule block) reads and writes.
struct Unit {
    op: Op,
    reads: Vec<Value>,
    writes: Vec<Value>,
    opaque: bool,
}

/// The units of `kernel` that are not live, in program order.
fn dead_units(ctx: &Context, kernel: Op) -> Vec<Op> {
    let mut units = Vec::new();
    // Buffers read outside every unit, or used other than as an access's buffer.
    let mut live_buffers: FxHashSet<Value> = FxHashSet::default();
    collect(ctx, kernel, &mut units, &mut live_buffers);
    let mut live = vec![false; units.len()];
    for (i, unit) in units.iter().enumerate() {
        live[i] = unit.opaque || unit.writes.iter().any(|&b| !is_kernel_scratch(ctx, b));
    }
    for (unit, _) in units.iter().zip(&live).filter(|(_, l)| **l) {
        live_buffers.extend(unit.reads.iter().copied());
    }
    // Propagate backwards along the reads of live units until nothing more becomes live.
    let mut changed = true;
    while changed {
        changed = false;
        for (i, unit) in units.iter().enumerate() {
            if !live[i] && unit.writes.iter().any(|b| live_buffers.contains(b)) {
                live[i] = true;
                live_buffers.extend(unit.reads.iter().copied());
                changed = true;
            }
        }
    }
    units
        .iter()
        .zip(&live)
        .filter(|(_, l)| !**l)
        .map(|(u, _)| u.op)
        .collect()
}

/// Walks `op`'s regions: each outermost schedule block becomes a unit; loads outside units and
/// non-access uses of scratch buffers make those buffers live.
fn collect(ctx: &Context, op: Op, units: &mut Vec<Unit>, live_buffers: &mut FxHashSet<Value>) {
    for &region in ctx.regions(op) {
        for &block in ctx.blocks(region) {
            for child in ctx.block_ops(block) {
                if ctx.view::<ScheduleBlockOp>(child).is_some() {
                    units.push(unit(ctx, child));
                    continue;
                }
                if let Touch::Read(b) = touch(ctx, child) {
                    live_buffers.insert(b);
                }
                if let Some(alloc) = ctx.view::<AllocOp>(child) {
                    let buffer = alloc.result(ctx);
                    if accesses_of(ctx, buffer).is_none() {
                        live_buffers.insert(buffer);
                    }
                }
                collect(ctx, child, units, live_buffers);
            }
        }
    }
}

/// The reads, writes and opaque effects of a unit and everything nested in it.
fn unit(ctx: &Context, op: Op) -> Unit {
    let mut u = Unit {
        op,
        reads: Vec::new(),
        writes: Vec::new(),
        opaque: false,
    };
    ctx.for_each_op(op, &mut |o| match touch(ctx, o) {
        Touch::Read(b) => u.reads.push(b),
        Touch::Write(b) => u.writes.push(b),
        Touch::Opaque => u.opaque = true,
        Touch::None => {
            // A scratch buffer allocated inside the unit and used other than by accesses
            // escapes somewhere the pass cannot see: keep the unit.
            if ctx
                .view::<AllocOp>(o)
                .is_some_and(|alloc| accesses_of(ctx, alloc.result(ctx)).is_none())
            {
                u.opaque = true;
            }
        }
    });
    u
}

/// Erases the `loop.alloc`s nested in `kernel` whose buffers are unused; returns how many.
fn erase_unused_allocs(ctx: &mut Context, kernel: Op) -> u64 {
    let mut unused = Vec::new();
    ctx.for_each_op(kernel, &mut |op| {
        if ctx
            .view::<AllocOp>(op)
            .is_some_and(|alloc| ctx.is_unused(alloc.result(ctx)))
        {
            unused.push(op);
        }
    });
    for &op in &unused {
        ctx.erase_op(op);
    }
    unused.len() as u64
}

/// Erases `loop.for`s with an empty body and `loop.if`s with empty branches, innermost first;
/// returns how many.
fn erase_empty_control_flow(ctx: &mut Context, kernel: Op) -> u64 {
    let mut erased = 0;
    ctx.walk(kernel, WalkOrder::PostOrder, &mut |ctx, op| {
        let empty = match LoopOps::of(ctx, op) {
            Some(LoopOps::ForOp(_) | LoopOps::IfOp(_)) => ctx
                .regions(op)
                .iter()
                .flat_map(|&r| ctx.blocks(r))
                .all(|&b| is_empty_block(ctx, b)),
            _ => false,
        };
        if empty && op != kernel {
            ctx.erase_op(op);
            erased += 1;
        }
        WalkResult::Advance
    });
    erased
}
