//! The compile API's caches and tiers, in one test binary (each binary links LLVM and MLIR,
//! about 1.7 s of CPU: docs/testing.md): the kernel and model caches (`kernel_cache`) and tiered
//! code generation (`tiers`). The memory soak (tests/soak.rs) stays a binary of its own: it
//! reads the process's resident memory, which other tests running beside it would move.

mod kernel_cache;
mod tiers;
