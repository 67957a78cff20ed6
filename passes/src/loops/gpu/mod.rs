//! Loop passes: the gpu group.

mod gpu_map;

use super::DifferentialCase;
use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;

/// Registers the passes of this group.
pub(super) fn register(registry: &mut PassRegistry) {
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
        pipeline: "gpu-map{reduce=block}",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "gpu-map{reduce=block},cross-thread-reduce",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "gpu-map{reduce=block block-size=4 max-blocks=2}",
        target: Target::Gpu,
    },
];
