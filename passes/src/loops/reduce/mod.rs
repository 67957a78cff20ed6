//! Loop passes: the reduce group — cross-thread reductions, shared-memory checks and 32-bit
//! index arithmetic (CINN's `replace_cross_thread_reduction`, `trans_buffer_with_dynamic_shape`
//! and `longlong2int`).

mod check_shared_memory;
mod cross_thread_reduce;
mod long_to_int;

use super::DifferentialCase;
use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;

/// Registers the passes of this group.
pub(super) fn register(registry: &mut PassRegistry) {
    registry.register(&cross_thread_reduce::INFO);
    registry.register(&check_shared_memory::INFO);
    registry.register(&long_to_int::INFO);
}

/// The pipelines the loop differential test runs for this group.
pub(super) const CASES: &[DifferentialCase] = &[
    DifferentialCase {
        pipeline: "cross-thread-reduce",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "check-shared-memory",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "long-to-int",
        target: Target::Cpu,
    },
];
