//! Tests of the library's modules through its public API (`dlc_graph::...`), one module per
//! source file: shape and dtype inference and the verifier (`verify.rs`), the Rust builders
//! (`builders.rs`), the symbolic shape analysis (`shapes.rs`) and its expressions
//! (`sym_expr.rs`), the decompositions' shape helpers (`decompose.rs`) and the unrolling of
//! `graph.rnn` (`autodiff/unroll.rs`). They are one test binary, not one per file, so the crate
//! links one binary for them and is not compiled a second time for unit tests.

mod builders;
mod decompose;
mod shapes;
mod sym_expr;
mod unroll;
mod verify;
