//! The passes' tests that are not the two large differential suites, in one test binary:
//! random func + arith programs before and after the generic passes (`differential`), `fuse`
//! on random graphs (`fuse`), CSE cases the lit tests cannot reach (`cse`), the numerical
//! gradient check of `grad` (`grad_check`), `plan-memory` on a lowered model (`plan_memory`),
//! the helpers tools build on (`levels_and_targets`) and docs/passes.md against the passes'
//! template docs (`pass_docs`). The graph and loop differential suites (graph_differential.rs,
//! loop_differential.rs) stay binaries of their own, each run on its own. One binary rather
//! than one per file: each costs cargo a build and a link (docs/testing.md).

mod cse;
mod differential;
mod fuse;
mod grad_check;
mod levels_and_targets;
mod pass_docs;
#[allow(dead_code)] // shared plumbing; these tests run pipelines and read diagnostics
#[path = "../support/pipeline.rs"]
mod pipeline;
mod plan_memory;
#[path = "../support/mod.rs"]
mod support;
