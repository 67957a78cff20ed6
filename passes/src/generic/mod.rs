//! Passes that work on any dialect through the IR core's generic interfaces (traits, folders,
//! symbol tables): the cleanups every pipeline uses.

pub mod canonicalize;
pub mod cse;
pub mod dce;
pub mod inline;
pub mod strip_debuginfo;
pub mod symbol_dce;

use dlc_ir::pass::PassRegistry;

/// Registers the generic passes.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&canonicalize::INFO);
    registry.register(&cse::INFO);
    registry.register(&dce::INFO);
    registry.register(&inline::INFO);
    registry.register(&strip_debuginfo::INFO);
    registry.register(&symbol_dce::INFO);
}
