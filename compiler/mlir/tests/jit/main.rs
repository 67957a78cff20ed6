//! Exported modules lowered by MLIR's own pipeline, JIT-compiled by its ExecutionEngine and
//! run: the runtime's slot ABI, host calls (`loop.call_if`, `loop.call_loop`) and
//! `loop.read_size`. One test binary, as each links MLIR and LLVM (a link is about 1.7 s of
//! CPU, docs/testing.md).

mod host_calls;
mod read_size;
mod slots;

use dlc_ir::{parse_source, Context, Op};
use dlc_mlir::{to_mlir, ExportOptions, LLVM_PIPELINE};
use melior::pass::PassManager;
use melior::ExecutionEngine;

/// `text` parsed (as `name`) and verified, with every dlc dialect registered.
fn parse(text: &str, name: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let module = parse_source(&mut ctx, text, name, 1).expect("parses");
    dlc_ir::verify(&ctx, module).expect("verifies");
    (ctx, module)
}

/// The symbol `name` of `module`.
fn symbol(ctx: &Context, module: Op, name: &str) -> Op {
    let mut found = None;
    ctx.for_each_op(module, &mut |op| {
        if dlc_ir::symbol::symbol_name(ctx, op) == Some(name) {
            found = Some(op);
        }
    });
    found.unwrap_or_else(|| panic!("no symbol @{name}"))
}

/// `module` exported into `mlir` with `options`, lowered by MLIR's LLVM pipeline (the one an
/// MLIR execution backend runs) and JIT-compiled (the engine translates the module when made).
fn engine(
    ctx: &Context,
    module: Op,
    mlir: &melior::Context,
    options: &ExportOptions,
) -> ExecutionEngine {
    melior::utility::register_all_passes();
    let mut exported = to_mlir(ctx, module, mlir, options).expect("exports");
    let pm = PassManager::new(mlir);
    melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), LLVM_PIPELINE)
        .expect("pipeline parses");
    pm.run(&mut exported).expect("lowers to the LLVM dialect");
    ExecutionEngine::new(&exported, 2, &[], false, false)
}
