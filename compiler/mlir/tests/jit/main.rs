//! Exported modules lowered by MLIR's own pipeline, JIT-compiled by its ExecutionEngine and
//! run: the runtime's slot ABI, host calls (`loop.call_if`, `loop.call_loop`) and
//! `loop.read_size`. One test binary, as each links MLIR and LLVM (a link is about 1.7 s of
//! CPU, docs/testing.md).

mod host_calls;
mod read_size;
mod slots;
