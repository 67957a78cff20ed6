//! Maps each kernel's outermost nest of parallel loops to GPU blocks and threads.
//!
//! # Applies when
//! A kernel from `lower{target=gpu}` is not yet GPU-bound (no `grid`/`block` attributes, no
//! `block.*`/`thread.*` loop): its point loops are `parallel`, its reduce nests `serial`, its
//! registers `local` allocs in the innermost point body. Every such kernel needs a launch shape
//! before code generation, so the pass fires on every lowered GPU program. CINN does this in
//! `transform_gpu_forloop` (bind, then `RemoveGpuForLoops` and the local-axis visitor).
//!
//! # Changes to the IR
//! - The outermost perfect nest of loops whose kind is in `loops` (between the loops only pure
//!   ops; bounds defined outside the nest; constant positive steps) is collapsed into one linear
//!   index `i = block_id.x * B + thread_id.x` over `total`, the product of the extents
//!   (`max(ub - lb, 0)` over the step, rounded up). The loops are removed: `i` is split back
//!   into the induction variables by `remsi`/`divsi` by the extents (innermost fastest), plus
//!   `lb` and times the step, and the loop bodies (pure ops between levels first) are inlined.
//! - The kernel gets `block = [B, 1, 1]` and `grid = [G, 1, 1]`, `G = max(ceil(total / B), 1)`.
//!   The top level of the kernel may hold only that nest and pure ops, else it is left alone.
//! - When `total` is not a static multiple of `B`, the body is wrapped in
//!   `loop.if i < total` (a bound guard); a static divisible total has no guard.
//! - A symbolic `total`: `G` becomes a new trailing `index` argument of the kernel (`grid`
//!   names it `"argN"`), and every `loop.launch` of the kernel in the module computes `G` with
//!   `arith` ops before the launch, from the launch operands that the extents use (index
//!   arguments, or `loop.dim` of buffer arguments), and passes it.
//! - With `max-blocks` > 0 and a grid that would be larger (always, for a symbolic total), the
//!   grid is capped and the body runs in a block-stride loop
//!   `loop.for serial %i = i0 to total step G * B`.
//! - A kernel with no loop at all (rank-0 work) gets `grid = block = [1, 1, 1]`.
//! - Local buffers (each thread has its own): an axis that every access indexes with the same
//!   expression (schedule-block iter vars read as the values bound to them) holds one element
//!   per thread; its index becomes 0 and the dim 1. This is `update-buffer-axis`'s rule, which
//!   for `local` buffers also takes thread-indexed axes (CINN's LocalAxisVisitor). Shared
//!   buffers do not occur before mapping, so CINN's shared-axis rule has nothing to do here.
//! - Kernels already bound to a grid (by `gpu-block-reduce`, or by hand) are left alone, so
//!   `gpu-block-reduce,gpu-map` maps the kernels that fit one block per point that way and the
//!   rest one thread per point.
//!
//! # Performance impact
//! One thread per point, consecutive threads on consecutive innermost indices, so global
//! accesses along the innermost point axis coalesce. Reductions run serially in the thread of
//! their point (`gpu-block-reduce` splits them over a block instead). A shrunk local buffer
//! fits in registers.
//!
//! # Risks and limitations
//! - `loops=serial` (or unroll, vectorize) asserts that those loops' iterations are
//!   independent; the pass does not check it.
//! - A kernel whose top level holds other work than the nest (several nests, stores, allocs)
//!   or whose symbolic extents the host cannot compute is left unmapped.

//!
//! # TODO
//! - Use the y and z grid dimensions for nests whose total overflows the x dimension.
//!
//! # Examples
//! 1. A static nest of 4 x 64 points is one block of 256 threads, without a guard:
//!    ```text
//!    loop.kernel @scale(%x: !loop.buffer<4x64xf32, global>, %y: !loop.buffer<4x64xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c64 = arith.constant 64 : index
//!      loop.for parallel %i = %c0 to %c4 step %c1 {
//!        loop.for parallel %j = %c0 to %c64 step %c1 {
//!          %v = loop.load %x[%i, %j] : !loop.buffer<4x64xf32, global>
//!          %s = arith.addf %v, %v : f32
//!          loop.store %s, %y[%i, %j] : !loop.buffer<4x64xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @scale(%arg0: !loop.buffer<4x64xf32, global>, %arg1: !loop.buffer<4x64xf32, global>) attributes {block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
//!      ...
//!      %c64 = arith.constant 64 : index
//!      %0 = loop.block_id x
//!      %1 = loop.thread_id x
//!      %c256 = arith.constant 256 : index
//!      %2 = arith.muli %0, %c256 : index
//!      %3 = arith.addi %2, %1 : index
//!      %4 = arith.remsi %3, %c64 : index
//!      %5 = arith.divsi %3, %c64 : index
//!      %6 = loop.load %arg0[%5, %4] : !loop.buffer<4x64xf32, global>
//!      %7 = arith.addf %6, %6 : f32
//!      loop.store %7, %arg1[%5, %4] : !loop.buffer<4x64xf32, global>
//!      loop.return
//!    }
//!    ```
//! 2. A symbolic extent: a guard, and the host computes the grid size:
//!    ```text
//!    loop.kernel @rows(%x: !loop.buffer<?x8xf32, global>, %y: !loop.buffer<?x8xf32, global>, %n: index) {
//!      ...
//!      loop.for parallel %i = %c0 to %n step %c1 {
//!        loop.for parallel %j = %c0 to %c8 step %c1 { ... }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    func.func @main(%x: !loop.buffer<?x8xf32, global>) -> !loop.buffer<?x8xf32, global> {
//!      %n = loop.dim %x, 0 : !loop.buffer<?x8xf32, global>
//!      %y = loop.alloc(%n) : !loop.buffer<?x8xf32, global>
//!      loop.launch @rows(%x, %y, %n) : (!loop.buffer<?x8xf32, global>, !loop.buffer<?x8xf32, global>, index) -> ()
//!      return %y : !loop.buffer<?x8xf32, global>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @rows(..., %arg2: index, %arg3: index) attributes {block = [256 : index, 1 : index, 1 : index], grid = ["arg3", 1 : index, 1 : index]} {
//!      ...
//!      %0 = arith.maxsi %c0_0, %arg2 : index
//!      %1 = arith.muli %0, %c8_1 : index
//!      ...
//!      %6 = arith.cmpi slt, %5, %1 : index
//!      loop.if %6 {
//!        %7 = arith.remsi %5, %c8 : index
//!        %8 = arith.divsi %5, %c8 : index
//!        ...
//!      }
//!      loop.return
//!    }
//!    func.func @main(%arg0: !loop.buffer<?x8xf32, global>) -> !loop.buffer<?x8xf32, global> {
//!      ...
//!      %4 = arith.addi %3, %c255 : index
//!      %5 = arith.divsi %4, %c256 : index
//!      %6 = arith.maxsi %c1, %5 : index
//!      loop.launch @rows(%arg0, %1, %0, %6) : (..., index, index) -> ()
//!      ...
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. A kernel with a `thread.x` loop (already GPU-bound) is left alone.
//! 2. A kernel whose loops are all `serial` is left alone under `loops=parallel`: its
//!    iterations may depend on each other.

use super::mapping::{
    map_single_thread, shrink_local_buffers, unmapped_kernels, MapStats, Mapper, Plan, OPTIONS,
    STATISTICS,
};
use dlc_ir::builtin::ModuleOp;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "gpu-map",
    summary: "Maps each kernel's outermost nest of parallel loops to GPU blocks and threads.",
    anchor: Anchor::op::<ModuleOp>(),
    options: OPTIONS,
    statistics: &STATISTICS,
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(GpuMap {
        mapper: Mapper::new(options)?,
    }))
}

struct GpuMap {
    mapper: Mapper,
}

impl Pass for GpuMap {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let mut stats = MapStats::default();
        for kernel in unmapped_kernels(ctx, module) {
            match self.mapper.plan(ctx, kernel) {
                Some(Plan::SingleThread) => map_single_thread(ctx, kernel, &mut stats),
                Some(Plan::Nest(nest)) => {
                    let mapped = self
                        .mapper
                        .map_nest(ctx, module, kernel, nest, None, &mut stats);
                    if mapped.is_some() {
                        shrink_local_buffers(ctx, kernel, &mut stats);
                    }
                }
                None => {}
            }
        }
        stats.report(run);
        if stats.mapped == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}
