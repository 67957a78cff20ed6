//! The IR core through its public API (`dlc_ir::...`), in one test binary. One module per
//! source file of `src/` (the lexer, the pass pipeline parser, the rewriter, wide integers,
//! ...), which were the library's unit tests, and the tests of the whole: round trips of the
//! generic and custom forms (`roundtrip`, `format`, and `property_roundtrip` on random IR), the
//! fuzzer's regressions (`fuzz_regressions`), the pattern driver (`rewrite`, `work_queue`), the
//! pass instrumentations (`instrumentations`), op name ids (`op_ids`) and typed attributes
//! (`attr_values`). One binary, not one per file: each costs cargo a build and a link, and unit
//! tests in the library would make it compile the crate a second time with `cfg(test)` (the
//! library is `test = false`; docs/testing.md).

mod affine;
mod attr_values;
mod attributes;
mod conversion;
mod equivalence;
mod format;
mod fuzz_regressions;
mod hex;
mod instrument;
mod instrumentations;
mod ir;
mod lexer;
mod names;
mod op_ids;
mod pattern;
mod pipeline;
mod property_roundtrip;
mod registry;
mod rewrite;
mod rewriter;
mod roundtrip;
mod transplant;
mod types;
mod walk;
mod wide_int;
mod work_queue;
