//! Loop passes: the blocks group. Passes that work on schedule blocks and the structured
//! control flow around them: removing dead blocks (`schedule-block-dce`), dissolving blocks
//! into plain loop bodies (`remove-schedule-block`) and merging equal guards (`if-fusion`).

mod if_fusion;
mod remove_schedule_block;
mod schedule_block_dce;

use super::DifferentialCase;
use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;
use dlc_ir::{Block, Context, Traits};

/// Whether `block`'s only op is its terminator (or it has none).
fn is_empty_block(ctx: &Context, block: Block) -> bool {
    match ctx.first_op(block) {
        None => true,
        Some(first) => ctx.next_op(first).is_none() && ctx.has_trait(first, Traits::TERMINATOR),
    }
}

/// Registers the passes of this group.
pub(super) fn register(registry: &mut PassRegistry) {
    registry.register(&schedule_block_dce::INFO);
    registry.register(&remove_schedule_block::INFO);
    registry.register(&if_fusion::INFO);
}

/// The pipelines the loop differential test runs for this group.
pub(super) const CASES: &[DifferentialCase] = &[
    DifferentialCase {
        pipeline: "schedule-block-dce",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "schedule-block-dce",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "remove-schedule-block",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "remove-schedule-block",
        target: Target::Gpu,
    },
    DifferentialCase {
        pipeline: "if-fusion",
        target: Target::Cpu,
    },
];
