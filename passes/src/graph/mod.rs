//! Passes on the `graph` dialect: tensor-level rewrites before lowering to loops.

pub mod decompose;
pub mod fuse;
pub mod grad;
mod horizontal;
pub mod lower;
mod sink_reshapes;

use dlc_ir::pass::PassRegistry;

/// Registers the graph passes.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&decompose::INFO);
    registry.register(&fuse::INFO);
    registry.register(&grad::INFO);
    registry.register(&lower::INFO);
}
