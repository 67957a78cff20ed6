//! The `loop` dialect: dlc's loop-level IR, modelled on CINN's backend AST (for loops with a
//! kind, schedule blocks, buffers in memory spaces) but written as MLIR ops.
//!
//! A `loop.kernel` holds loop nests (`loop.for` with kinds serial, parallel, vectorize, unroll
//! and block/thread bindings), `loop.schedule_block`s that name a unit of computation with its
//! iter vars, loads and stores on `!loop.buffer` values, conditionals, and the GPU primitives
//! (thread/block ids, barriers, warp and block reductions). Scalar arithmetic uses `arith` and
//! the small [`math_dialect`] defined here. Host functions (plain `func.func`s) use the host
//! ops `loop.alloc` (global), `loop.constant`, `loop.view`, `loop.reshape`, `loop.dim`,
//! `loop.read_size` (a size a kernel wrote, read back) and `loop.launch`, and call other host
//! functions with `loop.call_if` and `loop.call_loop` (the outlined regions of graph `If` and
//! `Loop` ops), so one interpreter runs a whole lowered program.
//!
//! Layout: [`types`] the buffer type, [`ops`] the op definitions (each op's hooks and
//! interfaces in its `define_op!`), typed accessors and builders, [`compiled`] the
//! `loop.compiled_kernel` that stands for a kernel compiled and left out, [`interfaces`] the memory
//! access interface and the ops' interface implementations, `syntax` the custom text form, [`verify`] the verifier rules, [`math`] the math dialect,
//! [`index_expr`] the index-expression library, [`regions`] the buffers each schedule block
//! reads and writes, [`analysis`] the analyses loop passes share (accesses, memory effects,
//! loop and kernel facts), and [`interp`] the interpreter.
//! docs/dialects/loop.md describes the ops and their rules.

pub mod analysis;
pub mod compiled;
pub mod index_expr;
pub mod interfaces;
pub mod interp;
pub mod math;
pub mod ops;
pub mod regions;
mod syntax;
pub mod types;
pub mod verify;

pub use analysis::loops::is_gpu_kernel;
pub use compiled::{may_use_pool, replace_with_compiled, CompiledKernelOp, KernelSymbol, SERIAL};
pub use interfaces::{access, Access, AccessKind, MemoryAccess};
pub use math::math_dialect;
pub use ops::{
    before_terminator, build_alloc, build_barrier, build_call_if, build_call_loop, build_check,
    build_constant, build_dim, build_for, build_if, build_kernel, build_launch, build_load,
    build_load_padded, build_prefetch, build_read_size, build_reshape, build_schedule_block,
    build_store, build_view, gpu_dim, host_functions, index_checks, launch_dims, module_kernels,
    reduce_kind, reshape_root, source_dtypes, AllocOp, BarrierOp, BlockDimOp, BlockIdOp,
    BlockReduceOp, BroadcastOp, CallIfOp, CallLoopOp, CheckOp, ConstantOp, Dim, DimOp, ForOp, IfOp,
    IndexCheck, IterKind, KernelOp, LaunchDim, LaunchOp, LoadOp, LoadPaddedOp, LoopKind, LoopOps,
    PrefetchOp, ReadSizeOp, ReduceKind, ReduceMethod, ReduceScalar, ReshapeOp, ReturnOp,
    ScheduleBlockOp, SourceDTypes, StoreOp, ThreadIdOp, VLoadOp, VLoadPaddedOp, VStoreOp, ViewOp,
    WarpReduceOp, YieldOp, DIM_SYMBOLS, INDEX_CHECKS, MAX_BLOCK_THREADS, NOALIAS, SOURCE_TYPE,
};
pub use types::{buffer_parts, buffer_type, elem_size_bytes, is_buffer, MemorySpace};
pub use verify::launch_compatible;

use dlc_ir::Dialect;

/// The `loop` dialect, ready for [`dlc_ir::Context::register_dialect`] (which registers the
/// `arith` and `math` dialects its kernels use first).
pub fn dialect() -> Dialect {
    let mut dialect = Dialect::new("loop", LoopOps::defs());
    dialect.parse_type = Some(types::parse_type);
    dialect.print_type = Some(types::print_type);
    dialect.dependencies = vec![dlc_arith::dialect, math_dialect];
    dialect
}
