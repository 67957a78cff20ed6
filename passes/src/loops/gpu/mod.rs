//! Loop passes: the gpu group. Mapping kernels onto GPU blocks and threads: one thread per
//! point (`gpu-map`) or one block per point for row reductions (`gpu-block-reduce`), both on
//! the shared mapping engine (mapping/).

mod block_reduce;
mod gpu_map;
mod mapping;

use super::DifferentialCase;
use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;

/// Registers the passes of this group.
pub(super) fn register(registry: &mut PassRegistry) {
    registry.register(&block_reduce::INFO);
    registry.register(&gpu_map::INFO);
}

/// The pipelines the loop differential test runs for this group.
pub(super) const CASES: &[DifferentialCase] = &[
    DifferentialCase {
        pipeline: "gpu-map",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "gpu-map{block-size=32}",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "gpu-map{block-size=32 max-blocks=2}",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "gpu-block-reduce,gpu-map",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "gpu-block-reduce,gpu-map,cross-thread-reduce",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "gpu-block-reduce{block-size=4 max-blocks=2},gpu-map{block-size=4 max-blocks=2}",
        target: Target::Gpu,
    },
];
