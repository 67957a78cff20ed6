//! The runtime through its public API, in one test binary: host programs run with hand-written
//! kernels (`host`, their calls of other host functions in `calls`, `loop.read_size` in
//! `read_size`), the parallel-for pool (`pool`), tensors (`tensor`) and `.npy` files (`npy`).
//! One binary rather than one per file: each costs cargo a build and a link (docs/testing.md).

mod calls;
/// The Rust twins of tools/fixtures/host/kernels.mlir's kernels, shared by `host`, `calls` and
/// `read_size`.
#[path = "../../../../tools/fixtures/host/kernels.rs"]
mod fixture_kernels;
mod host;
mod npy;
mod pool;
mod read_size;
mod tensor;
