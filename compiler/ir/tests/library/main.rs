//! The library's modules tested through its public API (`dlc_ir::...`), one module per source
//! file of `src/` (the lexer, the pass pipeline parser, the rewriter, wide integers, ...). These
//! were the library's unit tests; kept in one integration test binary, they no longer make cargo
//! compile the whole crate a second time with `cfg(test)` (the library is `test = false`).

mod affine;
mod attributes;
mod conversion;
mod equivalence;
mod hex;
mod instrument;
mod ir;
mod lexer;
mod names;
mod pattern;
mod pipeline;
mod registry;
mod rewriter;
mod transplant;
mod types;
mod walk;
mod wide_int;
