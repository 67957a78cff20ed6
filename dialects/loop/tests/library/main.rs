//! The loop dialect through its public API (`dlc_loop::...`), in one test binary. One module per
//! source file for its parts: the ops' builders, enums and reduction combiners (`ops`), the
//! custom syntax (`syntax`), the buffers schedule blocks read and write (`regions`) and the
//! buffer type (`types`); and the tests of the whole: the interpreter (`interp`), host programs
//! (`host`, their calls in `host_calls`, `loop.read_size` in `read_size`) and index expressions
//! (`index_expr`). One binary, not one per file: each costs cargo a build and a link, and unit
//! tests in the library would make it compile the crate a second time with `cfg(test)` (the
//! library is `test = false`; docs/testing.md).

mod host;
mod host_calls;
mod index_expr;
mod interp;
mod ops;
mod read_size;
mod regions;
mod syntax;
mod types;
