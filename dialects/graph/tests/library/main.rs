//! The graph dialect through its public API (`dlc_graph::...`), in one test binary. One module
//! per source file for its parts: shape and dtype inference and the verifier (`verify`), the
//! Rust builders (`builders`), the symbolic shape analysis (`shapes`) and its expressions
//! (`sym_expr`), the decompositions' shape helpers (`decompose`) and the unrolling of
//! `graph.rnn` (`unroll`); and the tests of the whole: the interpreter (`interp`, and against
//! stored fixtures in `interp_fixtures`), the composite decompositions against their reference
//! semantics (`decompose_differential`), `graph.if` and `graph.loop` (`control`), the random
//! graph generator (`generate`) and docs/dialects/graph.md's examples (`docs`). One binary,
//! not one per file: each costs cargo a build and a link, and unit tests in the library would
//! make it compile the crate a second time with `cfg(test)` (docs/testing.md).

mod builders;
mod control;
mod decompose;
mod decompose_differential;
mod docs;
mod generate;
mod interp;
mod interp_fixtures;
mod shapes;
mod sym_expr;
mod unroll;
mod verify;
