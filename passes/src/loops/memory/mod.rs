//! Loop passes: the memory group. Passes that change how kernels use memory: reading a global
//! element once (`common-read-elim`), keeping values out of kernel-local buffers
//! (`forward-stores`), issuing global loads early (`rearrange-loads`), and
//! shrinking kernel-local buffers (`local-index-factor-elim`, `update-buffer-axis`). They read
//! accesses, effects and loops through [`dlc_loop::analysis`].

mod common_read_elim;
mod forward_stores;
mod local_index_factor_elim;
mod rearrange_loads;
mod update_buffer_axis;

pub(crate) use update_buffer_axis::shrink_local_buffers;

use super::DifferentialCase;
use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;

/// Registers the passes of this group.
pub(super) fn register(registry: &mut PassRegistry) {
    registry.register(&common_read_elim::INFO);
    registry.register(&forward_stores::INFO);
    registry.register(&rearrange_loads::INFO);
    registry.register(&local_index_factor_elim::INFO);
    registry.register(&update_buffer_axis::INFO);
}

/// The pipelines the loop differential test runs for this group.
pub(super) const CASES: &[DifferentialCase] = &[
    DifferentialCase {
        pipeline: "common-read-elim",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "gpu-map,common-read-elim{max-local-elements=64}",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "forward-stores",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "vectorize,unroll,remove-schedule-block,forward-stores",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "rearrange-loads",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "local-index-factor-elim",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "update-buffer-axis",
        target: Target::Cpu,
    },
];
