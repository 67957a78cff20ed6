//! The library's modules tested through its public API (`dlc_loop::...`), one module per source
//! file of `src/`: the ops' builders, enums and reduction combiners (`ops.rs`), the custom
//! syntax (`syntax.rs`), the buffers schedule blocks read and write (`regions.rs`) and the
//! buffer type (`types.rs`). These were the library's unit tests; kept in one integration test
//! binary, they no longer make cargo compile the whole crate a second time with `cfg(test)`
//! (the library is `test = false`).

mod ops;
mod regions;
mod syntax;
mod types;
