//! Loop passes: the simplify group — `simplify` (CINN's `ir_simplify`) and
//! `invariant-loop-elim` (CINN's `eliminate_invariant_loop`).

mod invariant_loop_elim;
#[allow(clippy::module_inception)]
mod simplify;

use super::DifferentialCase;
use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;

/// Registers the passes of this group.
pub(super) fn register(registry: &mut PassRegistry) {
    registry.register(&simplify::INFO);
    registry.register(&invariant_loop_elim::INFO);
}

/// The pipelines the loop differential test runs for this group.
pub(super) const CASES: &[DifferentialCase] = &[
    DifferentialCase {
        pipeline: "simplify",
        target: Target::Cpu,
    },
    // On GPU-mapped kernels, where thread and block ids make index arithmetic to simplify.
    DifferentialCase {
        pipeline: "gpu-map,simplify",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "invariant-loop-elim",
        target: Target::Cpu,
    },
];
