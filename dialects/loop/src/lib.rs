//! The `loop` dialect: dlc's loop-level IR, modelled on CINN's backend AST (for loops with a
//! kind, schedule blocks, buffers in memory spaces) but written as MLIR ops.
//!
//! A `loop.kernel` holds loop nests (`loop.for` with kinds serial, parallel, vectorize, unroll
//! and block/thread bindings), `loop.schedule_block`s that name a unit of computation with its
//! iter vars, loads and stores on `!loop.buffer` values, conditionals, and the GPU primitives
//! (thread/block ids, barriers, warp and block reductions). Scalar arithmetic uses `arith` and
//! the small [`math_dialect`] defined here. Host functions (plain `func.func`s) use the host
//! ops `loop.alloc` (global), `loop.constant`, `loop.view`, `loop.dim` and `loop.launch`, so one
//! interpreter runs a whole lowered program.
//!
//! Layout: [`types`] the buffer type, [`ops`] the op definitions, typed accessors and builders,
//! `syntax` the custom text form, [`verify`] the verifier rules, [`math`] the math dialect,
//! [`index_expr`] the index-expression library, [`regions`] the buffers each schedule block
//! reads and writes, and [`interp`] the interpreter.
//! docs/dialects/loop.md describes the ops and their rules.

pub mod index_expr;
pub mod interp;
pub mod math;
pub mod ops;
pub mod regions;
mod syntax;
pub mod types;
pub mod verify;

pub use math::math_dialect;
pub use ops::{
    before_terminator, build_alloc, build_barrier, build_constant, build_dim, build_for, build_if,
    build_kernel, build_launch, build_load, build_prefetch, build_schedule_block, build_store,
    build_view, gpu_dim, index_checks, launch_dims, module_kernels, reduce_kind, AllocOp,
    BarrierOp, BlockDimOp, BlockIdOp, BlockReduceOp, ConstantOp, Dim, DimOp, ForOp, IfOp,
    IndexCheck, IterKind, KernelOp, LaunchDim, LaunchOp, LoadOp, LoopKind, PrefetchOp, ReduceKind,
    ReduceMethod, ReturnOp, ScheduleBlockOp, StoreOp, ThreadIdOp, VLoadOp, VStoreOp, ViewOp,
    WarpReduceOp, YieldOp, INDEX_CHECKS,
};
pub use types::{buffer_parts, buffer_type, elem_size_bytes, is_buffer, MemorySpace};
pub use verify::{is_gpu_kernel, launch_compatible};

use dlc_ir::dialect::{ParseFn, PrintFn, VerifyFn};
use dlc_ir::{Dialect, OpDef};

/// The `loop` dialect, ready for [`dlc_ir::Context::register_dialect`].
pub fn dialect() -> Dialect {
    let defs = ops::all_defs()
        .into_iter()
        .map(|mut def| {
            let (parse, print, verify): (ParseFn, PrintFn, Option<VerifyFn>) = match def.name {
                "loop.kernel" => (
                    syntax::parse_kernel,
                    syntax::print_kernel,
                    Some(verify::verify_kernel),
                ),
                "loop.alloc" => (
                    syntax::parse_alloc,
                    syntax::print_alloc,
                    Some(verify::verify_alloc),
                ),
                "loop.for" => (
                    syntax::parse_for,
                    syntax::print_for,
                    Some(verify::verify_for),
                ),
                "loop.schedule_block" => (
                    syntax::parse_schedule_block,
                    syntax::print_schedule_block,
                    Some(verify::verify_schedule_block),
                ),
                "loop.load" => (
                    syntax::parse_load,
                    syntax::print_load,
                    Some(verify::verify_load),
                ),
                "loop.store" => (
                    syntax::parse_store,
                    syntax::print_store,
                    Some(verify::verify_store),
                ),
                "loop.vload" => (
                    syntax::parse_vload,
                    syntax::print_vload,
                    Some(verify::verify_vload),
                ),
                "loop.vstore" => (
                    syntax::parse_vstore,
                    syntax::print_vstore,
                    Some(verify::verify_vstore),
                ),
                "loop.prefetch" => (
                    syntax::parse_prefetch,
                    syntax::print_load,
                    Some(verify::verify_prefetch),
                ),
                "loop.if" => (syntax::parse_if, syntax::print_if, Some(verify::verify_if)),
                "loop.barrier" => (
                    syntax::parse_bare,
                    syntax::print_bare,
                    Some(verify::verify_barrier),
                ),
                "loop.thread_id" | "loop.block_id" | "loop.block_dim" => (
                    syntax::parse_gpu_index,
                    syntax::print_gpu_index,
                    Some(verify::verify_gpu_index),
                ),
                "loop.warp_reduce" | "loop.block_reduce" => (
                    syntax::parse_reduce,
                    syntax::print_reduce,
                    Some(verify::verify_reduce),
                ),
                "loop.dim" => (
                    syntax::parse_dim,
                    syntax::print_dim,
                    Some(verify::verify_dim),
                ),
                "loop.launch" => {
                    def.verify_symbols = Some(verify::verify_launch_symbols);
                    (
                        syntax::parse_launch,
                        syntax::print_launch,
                        Some(verify::verify_launch),
                    )
                }
                "loop.constant" => (
                    syntax::parse_constant,
                    syntax::print_constant,
                    Some(verify::verify_constant),
                ),
                "loop.view" => (
                    syntax::parse_view,
                    syntax::print_view,
                    Some(verify::verify_view),
                ),
                // loop.return, loop.yield
                _ => (syntax::parse_bare, syntax::print_bare, None),
            };
            def.parse = Some(parse);
            def.print = Some(print);
            def.verify = verify;
            set_parents(&mut def);
            def
        })
        .collect();
    let mut dialect = Dialect::new("loop", defs);
    dialect.parse_type = Some(types::parse_type);
    dialect.print_type = Some(types::print_type);
    dialect
}

fn set_parents(def: &mut OpDef) {
    match def.name {
        "loop.return" => def.parents = &["loop.kernel"],
        "loop.yield" => def.parents = &["loop.for", "loop.schedule_block", "loop.if"],
        _ => {}
    }
}
