//! Loop kernels to upstream MLIR, built through melior.
//!
//! MLIR is the framework dlc's users know, and its own lowering is an independent second
//! backend against which the inkwell code generator can be checked. This crate converts a
//! lowered dlc module — `loop.kernel`s and host `func.func`s — into upstream dialects (`func`,
//! `scf`, `arith`, `math`, `memref`, `vector`, `gpu`, and `llvm` for the slot-ABI entries),
//! creating every op through melior's `OperationBuilder` rather than printing text, and checks
//! the result with MLIR's verifier. docs/mlir-interop.md has the op-by-op mapping; the files
//! here follow it: `program.rs` places functions, `function.rs` walks kernel bodies, `gpu.rs`
//! and `host.rs` convert the GPU and host ops, `slots.rs` adds the runtime entry points.

mod engine;
mod error;
mod function;
mod gpu;
mod host;
mod program;
mod slots;
mod types;

use dlc_ir::{Context, Diagnostic, Op};
use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use std::cell::RefCell;
use std::rc::Rc;

pub use engine::{MlirCompileStats, MlirCpuModule, LLVM_PIPELINE};
pub use program::GPU_MODULE;
pub use slots::SLOT_SUFFIX;

/// Options of the export.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Also emit, for every CPU kernel `@k`, `func.func @k_slots(%slots: !llvm.ptr)`: the
    /// kernel behind the dlc runtime's calling convention (`dlc_runtime::abi`).
    pub slot_entries: bool,
}

/// A melior context with every upstream dialect registered and loaded, and the LLVM IR
/// translations registered: what [`to_mlir`] builds in and an MLIR pass pipeline runs in.
///
/// Its multithreading is off: MLIR would start a thread pool per context (one thread per core)
/// to run passes on the functions of a module in parallel, so callers that compile several
/// models at once, each on a core of their own, would run twice as many threads as cores. The
/// modules dlc exports are a few kernels; their lowering gains little from threads.
pub fn mlir_context() -> melior::Context {
    let registry = DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    let context = melior::Context::new();
    context.enable_multi_threading(false);
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    melior::utility::register_all_llvm_translations(&context);
    context
}

/// Converts the dlc `module` (a `builtin.module` of `loop.kernel`s and host functions, after
/// lowering) into an MLIR module in `mlir` and verifies it. Dialects the export needs are
/// loaded into `mlir` if they are not yet. Errors are diagnostics at the dlc op that could not
/// be converted, or at `module` when MLIR's verifier rejects the result.
pub fn to_mlir<'c>(
    ctx: &Context,
    module: Op,
    mlir: &'c melior::Context,
    options: &ExportOptions,
) -> Result<Module<'c>, Diagnostic> {
    const NEEDED: [&str; 5] = [
        "scf.for",
        "memref.load",
        "vector.load",
        "gpu.func",
        "llvm.load",
    ];
    if !NEEDED.iter().all(|op| mlir.is_registered_operation(op)) {
        let registry = DialectRegistry::new();
        melior::utility::register_all_dialects(&registry);
        mlir.append_dialect_registry(&registry);
        mlir.load_all_available_dialects();
    }
    let exported = program::export_module(ctx, module, mlir, options)?;
    verify(ctx, module, mlir, &exported)?;
    Ok(exported)
}

/// Converts `module` as [`to_mlir`] does, in a fresh context, and prints the MLIR module.
pub fn emit_mlir(ctx: &Context, module: Op, options: &ExportOptions) -> Result<String, Diagnostic> {
    let mlir = mlir_context();
    let exported = to_mlir(ctx, module, &mlir, options)?;
    Ok(exported.as_operation().to_string())
}

/// Runs MLIR's verifier on `exported`, collecting its messages into one diagnostic.
fn verify(
    ctx: &Context,
    module: Op,
    mlir: &melior::Context,
    exported: &Module<'_>,
) -> Result<(), Diagnostic> {
    let messages = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&messages);
    let handler = mlir.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(format!("{}: {}", d.location(), d));
        true
    });
    let ok = exported.as_operation().verify();
    mlir.detach_diagnostic_handler(handler);
    if ok {
        return Ok(());
    }
    let text = messages.borrow().join("\n");
    Err(Diagnostic::error(
        ctx.op_loc(module),
        format!("the exported module fails MLIR's verifier:\n{text}"),
    ))
}
