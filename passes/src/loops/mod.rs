//! Passes on the loop dialect: loop kernels and the host functions that launch them, grouped by
//! what they work on. Each group lists its passes ([`register`]) and the pipelines the loop
//! differential test (passes/tests/loop_differential.rs) runs on the lowered corpus
//! ([`differential_cases`]). The analyses the groups share (accesses, memory effects, loop and
//! kernel facts) are public in [`dlc_loop::analysis`].

pub mod blocks;
pub mod cpu;
pub mod gpu;
pub mod memory;
pub mod merge_kernels;
pub mod plan_memory;
pub mod reduce;
pub mod simplify;

use crate::graph::lower::Target;
use dlc_ir::pass::{NamedPipeline, PassRegistry};

/// The default CPU pipeline after `lower`: merge the kernels that are copies of each other,
/// then, in each kernel, clean up, cache repeated reads, register-tile
/// matmul-like reductions, schedule the loops for the CPU (parallel outer loop with a grain
/// size, vectors, the next row prefetched, small loops unrolled), dissolve
/// the schedule blocks, narrow index math, and plan the host's memory. docs/pipelines.md gives
/// the reasons for the order.
///
/// Written nested: every kernel runs its whole list in one nested pipeline, so the parallel
/// pass manager copies each kernel into a worker's context and back once, not once per run of
/// passes of one anchor (flat, `simplify` and `cse` between the kernel passes split it into
/// five such segments). Kernels and host functions are isolated from each other, so the
/// result is the flat order's (the same IR for PaddleOCR det, in 0.45 s instead of 0.63–0.78 s).
pub const CPU_DEFAULT: &str = "merge-kernels,loop.kernel(schedule-block-dce,simplify,invariant-loop-elim,\
common-read-elim,tile,tile-transpose,parallelize,vectorize,prefetch,unroll,remove-schedule-block,forward-stores,\
simplify,cse,long-to-int),func.func(simplify,cse,plan-memory)";

/// The default GPU pipeline after `lower{target=gpu}`, in the order of CINN's default GPU pass
/// pipeline where a pass applies (docs/pipelines.md maps each step): map loops to blocks and
/// threads (a reduction's axis to the threads of a block), shrink local/shared buffers, lower
/// cross-thread reductions to warp shuffles and shared memory, bound shared memory,
/// then the late cleanups, and plan the host's memory.
pub const GPU_DEFAULT: &str =
    "merge-kernels,schedule-block-dce,simplify,invariant-loop-elim,gpu-block-reduce,gpu-map,\
update-buffer-axis,local-index-factor-elim,cross-thread-reduce,check-shared-memory,simplify,\
if-fusion,rearrange-loads,remove-schedule-block,simplify,cse,long-to-int,plan-memory";

/// One pipeline the loop differential test runs: lower the corpus for `target`, run
/// `pipeline`, and the host functions must compute what they computed before.
#[derive(Copy, Clone, Debug)]
pub struct DifferentialCase {
    /// Flat pipeline text, run after `lower`.
    pub pipeline: &'static str,
    /// The schedule `lower` gives the corpus.
    pub target: Target,
}

/// Registers the loop passes.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&plan_memory::INFO);
    registry.register(&merge_kernels::INFO);
    blocks::register(registry);
    cpu::register(registry);
    gpu::register(registry);
    memory::register(registry);
    reduce::register(registry);
    simplify::register(registry);
    registry.register_pipeline(NamedPipeline {
        name: "cpu-default",
        summary: "The default loop pipeline for CPU kernels (after lower)",
        pipeline: CPU_DEFAULT,
    });
    registry.register_pipeline(NamedPipeline {
        name: "gpu-default",
        summary: "The default loop pipeline for GPU kernels (after lower{target=gpu})",
        pipeline: GPU_DEFAULT,
    });
}

/// The names of the loop passes, as users type them.
pub fn pass_names() -> Vec<&'static str> {
    let mut registry = PassRegistry::new();
    register(&mut registry);
    registry.passes().iter().map(|p| p.argument).collect()
}

/// Every pipeline the loop differential test runs.
pub fn differential_cases() -> Vec<DifferentialCase> {
    [
        &[
            DifferentialCase {
                pipeline: "plan-memory",
                target: Target::Cpu,
            },
            DifferentialCase {
                pipeline: "merge-kernels",
                target: Target::Cpu,
            },
            DifferentialCase {
                pipeline: "cpu-default",
                target: Target::Cpu,
            },
            DifferentialCase {
                pipeline: "gpu-default",
                target: Target::Gpu,
            },
        ],
        blocks::CASES,
        cpu::CASES,
        gpu::CASES,
        memory::CASES,
        reduce::CASES,
        simplify::CASES,
    ]
    .concat()
}
