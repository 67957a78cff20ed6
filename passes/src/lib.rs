//! dlc's passes, one file per pass, grouped by the level of IR they work on.
//!
//! [`register_all`] adds every pass and named pipeline to a registry; tools call it once.

pub mod generic;
pub mod graph;
pub mod levels;
pub mod loops;

use dlc_ir::pass::PassRegistry;

/// Registers every pass of this crate.
pub fn register_all(registry: &mut PassRegistry) {
    generic::register(registry);
    graph::register(registry);
    loops::register(registry);
}
