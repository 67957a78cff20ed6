//! The dlc runtime: runs a lowered program whose kernels have been compiled to native code.
//!
//! Lowering turns a graph program into a *host function* (a straight-line `func.func` that
//! computes sizes, allocates buffers, makes constants and arena views, launches kernels and
//! reads back the sizes they count) plus `loop.kernel`s; `dlc-codegen` compiles the kernels.
//! This crate is the other half: it compiles the host function (and the host functions it
//! calls through `loop.call_if` and `loop.call_loop`) once into flat instruction lists
//! ([`HostProgram`]), runs it many times with reused memory ([`Session`]), and calls the
//! kernels through a fixed C ABI ([`KernelFn`], [`KernelTable`]). The reference for its
//! meaning is the host interpreter `dlc_loop::interp::run_host`; this is the fast version, with
//! the same checks.
//!
//! It also provides what compiled code and tools need around that: the thread pool parallel
//! loops run on ([`dlc_parallel_for`]), [`Tensor`]s with exact conversions to and from the
//! interpreters' values (`dlc_tensor::Literal`; it also uses that crate's `DType` and `.npy`
//! codec), and `.npy` input and output. It does not depend on LLVM: kernels arrive as function
//! pointers, so tests can supply hand-written ones.
//!
//! - `abi`: the kernel calling convention and the kernel table.
//! - `pool`: the thread pool and `dlc_parallel_for`.
//! - `libcalls`: the float conversions compiled code calls by name ([`float_libcalls`]).
//! - `tensor`: [`Tensor`], [`TensorView`], byte sizes and f16/bf16 conversions.
//! - `npy`: [`read_npy`] and [`write_npy`].
//! - `signature`: [`Signature`], the input checks.
//! - `program`: [`HostProgram`], compiling a host function.
//! - `session`: [`Session`], running it.
//! - `error`: [`RuntimeError`].

mod abi;
mod error;
mod libcalls;
mod npy;
pub mod pool;
mod program;
mod session;
mod signature;
pub mod tensor;

pub use abi::{KernelEntry, KernelFn, KernelTable};
pub use error::RuntimeError;
pub use libcalls::float_libcalls;
pub use npy::{read_npy, write_npy};
pub use pool::{dlc_parallel_for, num_threads, parse_num_threads, ParallelBody};
pub use program::HostProgram;
pub use session::{KernelTime, Outputs, Session};
pub use signature::{DimSpec, Signature, TensorSpec};
pub use tensor::{Tensor, TensorView, ALIGN};
