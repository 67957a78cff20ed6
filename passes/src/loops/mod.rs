//! Passes on the loop dialect: loop kernels and the host functions that launch them, grouped by
//! what they work on. Each group lists its passes ([`register`]) and the pipelines the loop
//! differential test (passes/tests/loop_differential.rs) runs on the lowered corpus
//! ([`differential_cases`]).

pub mod plan_memory;

use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;

/// One pipeline the loop differential test runs: lower the corpus for `target`, run
/// `pipeline`, and the host functions must compute what they computed before.
#[derive(Copy, Clone, Debug)]
pub struct DifferentialCase {
    /// Flat pipeline text, run after `lower`.
    pub pipeline: &'static str,
    /// The schedule `lower` gives the corpus.
    pub target: Target,
}

/// Registers the loop passes.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&plan_memory::INFO);
}

/// The names of the loop passes, as users type them.
pub fn pass_names() -> Vec<&'static str> {
    let mut registry = PassRegistry::new();
    register(&mut registry);
    registry.passes().iter().map(|p| p.argument).collect()
}

/// Every pipeline the loop differential test runs.
pub fn differential_cases() -> Vec<DifferentialCase> {
    vec![DifferentialCase {
        pipeline: "plan-memory",
        target: Target::Cpu,
    }]
}
