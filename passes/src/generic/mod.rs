//! Passes that work on any dialect through the IR core's generic interfaces (traits, folders,
//! symbol tables): the cleanups every pipeline uses.

pub mod strip_debuginfo;

use dlc_ir::pass::PassRegistry;

/// Registers the generic passes.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&strip_debuginfo::INFO);
}
