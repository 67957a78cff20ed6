//! dlc's compile API, the driver every front end shares: compile a model for this CPU, feed it
//! inputs, check it against the reference interpreter and time it. The `dlc-run` binary
//! (tools/dlc-run), the benchmarks (`tools/bench`), the fuzzers, the JIT differential tests and
//! the Python package (`python/`) all go through [`Model`], so they measure and test the same
//! path.
//!
//! - [`Model::compile`]: parse, verify, run the pass pipeline (`decompose,fuse,lower,cpu-default`
//!   for graph programs), JIT the kernels and prepare the host program. With a cache, the
//!   module after the pipeline is kept too (`model_cache.rs`), so a warm compile skips it.
//! - [`inputs`]: random inputs for a signature, or `.npy` files.
//! - [`onnx`]: ONNX models: import (specializing inputs that must be constant), a compile that
//!   skips the import when the model cache holds the model, and the comparison with reference
//!   outputs (`--expected`).
//! - [`check`]: the reference run (graph interpreter, or the loop interpreter on the program
//!   as written) and the error report.

mod byte_reader;
pub mod check;
mod import_plan;
pub mod inputs;
mod model;
mod model_cache;
mod model_entry;
pub mod onnx;

pub use dlc_codegen::{CpuTarget, KernelCache, LlvmOpt, TierUpStats};
pub use model::{Backend, Model, ModelOptions, Recreate, Timings};

// The code generator's alignment facts assume the runtime's: inputs read in place
// (`Session::run_views`) are checked against the one, compiled code relies on the other.
const _: () = assert!(dlc_codegen::RUNTIME_ALIGNMENT as usize == dlc_runtime::ALIGN);
