//! Maps each kernel whose points each reduce along one axis to one GPU block per point, its
//! threads splitting the reduce axis and combining their partial results with
//! `loop.block_reduce`.
//!
//! # Applies when
//! A kernel from `lower{target=gpu}` that is not yet GPU-bound, whose outermost nest of
//! mappable loops (as `gpu-map` finds it) has a point body holding only local allocs, pure ops,
//! schedule blocks and reduce nests `loop.for serial k = 0 to K step 1` (one reduce axis: every
//! nest has the same `K`, no loop inside) with at least one plain reduction (`acc =
//! combine(load acc, x)` into a local register, its init storing the combiner's identity).
//! Row reductions (softmax, layer norm, mean) lower to this shape. With one thread per point
//! (`gpu-map`) a long reduction runs serially in one thread while few points leave most of the
//! GPU idle; CINN schedules such reductions onto a block (`BlockReduce`).
//!
//! # Changes to the IR
//! - The nest is collapsed as `gpu-map` does (same `loops`, `max-blocks`, guards and host grid
//!   computation), but each point is one block: `grid` = number of points (or the
//!   `max-blocks` cap with a block-stride loop), the linear index is `block_id`, and the bound
//!   guard `block_id < total` is uniform per block.
//! - `block = [B, 1, 1]`, `B` the next power of two `>= K` capped at `block-size`
//!   (`block-size` for a symbolic `K`).
//! - Every reduce nest becomes `for k = thread_id to K step B`; each reduction's init moves
//!   before its nest (every thread starts at the identity), and after the nest
//!   `loop.block_reduce` of the thread's partial (kind from the combiner: `addf` -> `add`,
//!   `maximumf` -> `max`, ..., as `dlc_loop::ReduceKind` defines it) is stored back into the
//!   register, so later code reads the total in every thread.
//! - Outside the nests, every store to a global buffer runs in thread 0 only (`loop.if
//!   thread_id == 0` around the store, inside its schedule block); the rest of the schedule
//!   block runs in every thread, so registers it writes hold the same value in all of them.
//! - Local buffers then lose the axes every access indexes alike, as in `gpu-map`.
//! - Kernels that do not fit (several reduce axes, no reduction, an init that is not the
//!   identity, a global buffer both read and written, a per-iteration local read outside its
//!   nest, a kernel without loops, ...) are left unmapped for `gpu-map`: the GPU pipeline runs
//!   `gpu-block-reduce,gpu-map`.
//!
//! # Performance impact
//! A point's reduction is split over up to `block-size` threads (coalesced loads along the
//! reduce axis) and combined in a log-depth tree: small point counts with long reductions gain
//! most; many points with short reductions may lose (each point holds a whole block).
//!
//! # Risks and limitations
//! - Reassociates reductions (tree order), changing float results' last bits.
//! - `loops=serial` (or unroll, vectorize) asserts that those loops' iterations are
//!   independent; the pass does not check it.
//!
//! # TODO
//! - Several reduce axes (flatten them) or a non-identity init.
//!
//! # Examples
//! 1. A row sum of 4 rows x 100: 4 blocks of 128 threads, the global store of the write-back
//!    in thread 0:
//!    ```text
//!    loop.for parallel %i = %c0 to %c4 step %c1 {
//!      %acc = loop.alloc : !loop.buffer<1xf32, local>
//!      loop.for serial %k = %c0 to %c100 step %c1 {
//!        loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init { ... store 0.0 to %acc ... } {
//!          ... %acc[%c0] = %acc[%c0] + %x[%i0, %k0] ...
//!        }
//!        loop.yield
//!      }
//!      loop.schedule_block "write" (%i0 = %i) { ... store %acc[%c0] to %y[%i0] ... }
//!      loop.yield
//!    }
//!    ```
//!    becomes (`block = [128, 1, 1]`, `grid = [4, 1, 1]`)
//!    ```text
//!    %0 = loop.block_id x
//!    %1 = loop.thread_id x
//!    %2 = loop.alloc : !loop.buffer<1xf32, local>
//!    %c128 = arith.constant 128 : index
//!    %cst = arith.constant 0.000000e+00 : f32
//!    loop.store %cst, %2[%c0] : !loop.buffer<1xf32, local>
//!    loop.for serial %arg2 = %1 to %c100 step %c128 {
//!      loop.schedule_block "sum" (%arg3 = %0, %arg4 = %arg2 reduce) { ... }
//!      loop.yield
//!    }
//!    %3 = loop.load %2[%c0] : !loop.buffer<1xf32, local>
//!    %4 = loop.block_reduce %3 {kind = "add"} : f32
//!    loop.store %4, %2[%c0] : !loop.buffer<1xf32, local>
//!    loop.schedule_block "write" (%arg2 = %0) {
//!      %5 = loop.load %2[%c0] : !loop.buffer<1xf32, local>
//!      %c0_0 = arith.constant 0 : index
//!      %6 = arith.cmpi eq, %1, %c0_0 : index
//!      loop.if %6 {
//!        loop.store %5, %arg1[%arg2] : !loop.buffer<4xf32, global>
//!        loop.yield
//!      }
//!      loop.yield
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. A kernel with two nested reduce loops (two reduce axes) is left unmapped (`gpu-map` then
//!    maps it one thread per point).
//! 2. A kernel without a reduction (an elementwise nest) is left unmapped.

mod rewrite;

use super::mapping::{
    shrink_local_buffers, unmapped_kernels, MapStats, Mapper, Plan, OPTIONS, STATISTICS,
};
use dlc_ir::builtin::ModuleOp;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "gpu-block-reduce",
    summary: "Maps each kernel whose points each reduce along one axis to one GPU block per \
              point, its threads splitting the reduce axis and combining their partial results \
              with `loop.block_reduce`.",
    anchor: Anchor::op::<ModuleOp>(),
    options: OPTIONS,
    statistics: &[
        STATISTICS[0],
        STATISTICS[1],
        STATISTICS[2],
        STATISTICS[3],
        (
            "block-reduces-inserted",
            "Number of loop.block_reduce ops inserted",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(GpuBlockReduce {
        mapper: Mapper::new(options)?,
    }))
}

struct GpuBlockReduce {
    mapper: Mapper,
}

impl Pass for GpuBlockReduce {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let mut stats = MapStats::default();
        let mut block_reduces = 0;
        for kernel in unmapped_kernels(ctx, module) {
            let Some(Plan::Nest(nest)) = self.mapper.plan(ctx, kernel) else {
                continue;
            };
            let Some(plan) = nest
                .levels
                .last()
                .and_then(|l| rewrite::plan(ctx, &l.ops, self.mapper.block_size))
            else {
                continue;
            };
            let threads = Some(plan.threads);
            let Some(thread) = self
                .mapper
                .map_nest(ctx, module, kernel, nest, threads, &mut stats)
            else {
                continue;
            };
            let loc = ctx.op_loc(kernel);
            block_reduces += rewrite::apply(ctx, &plan, thread, loc);
            shrink_local_buffers(ctx, kernel, &mut stats);
        }
        stats.report(run);
        run.add_stat("block-reduces-inserted", block_reduces);
        if stats.mapped == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}
