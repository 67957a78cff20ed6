//! The MLIR backend: dlc kernels compiled by MLIR's own lowering and execution engine.
//!
//! A second, independent way from loop IR to machine code: the module is exported to upstream
//! MLIR (`to_mlir`, with the slot-ABI entries), lowered by MLIR's conversion passes
//! ([`LLVM_PIPELINE`]: `scf` to `cf`, `math` to LLVM intrinsics or libm calls, then everything
//! to the `llvm` dialect), and JIT-compiled by MLIR's `ExecutionEngine` at O3. The kernels'
//! `_slots` entries have the same C type as the inkwell backend's entries, so the same runtime
//! runs both ([`MlirCpuModule`] is a [`KernelTable`]). What differs is everything the twin test
//! wants to differ: the lowering code, the transcendental functions (libm, not dlc's
//! polynomials) and reductions (sequential, no `reassoc`); `scf.parallel` runs sequentially.

use crate::{mlir_context, to_mlir, ExportOptions, SLOT_SUFFIX};
use dlc_ir::{Context, Diagnostic, Op};
use dlc_runtime::{KernelFn, KernelTable};
use melior::pass::PassManager;
use melior::ExecutionEngine;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// MLIR's lowering from the exported dialects to the LLVM dialect.
pub const LLVM_PIPELINE: &str = "builtin.module(convert-vector-to-scf,convert-scf-to-cf,\
convert-math-to-llvm,convert-math-to-libm,convert-to-llvm,reconcile-unrealized-casts)";

/// Where an MLIR compilation's time went.
#[derive(Clone, Debug, Default)]
pub struct MlirCompileStats {
    /// Kernels compiled.
    pub kernels: usize,
    /// dlc loop IR to upstream MLIR (built and verified).
    pub export: Duration,
    /// MLIR's pass pipeline to the LLVM dialect.
    pub lower: Duration,
    /// Translation to LLVM IR, O3 and machine code in the execution engine.
    pub codegen: Duration,
}

/// The CPU kernels of a dlc module compiled through MLIR.
pub struct MlirCpuModule {
    kernels: FxHashMap<String, KernelFn>,
    stats: MlirCompileStats,
    // Field order is drop order: the engine (and its machine code) before the context.
    _engine: ExecutionEngine,
    _context: melior::Context,
}

// SAFETY: after `compile` the engine and the context are never used again, only dropped (the
// engine first, from whichever thread drops the module: neither has thread affinity), and the
// kernels are plain function pointers into the engine's code, which run on any thread (the
// runtime's pool calls them from its workers). Moving the module moves owning handles only.
unsafe impl Send for MlirCpuModule {}
// SAFETY: `&MlirCpuModule` reaches only `kernels` and `stats`, immutable plain data; the
// engine and context are private and not reachable through a shared reference.
unsafe impl Sync for MlirCpuModule {}

impl MlirCpuModule {
    /// Compiles every `loop.kernel` of `module` through MLIR. Errors are diagnostics at the
    /// dlc op that could not be exported, or at `module` when MLIR's pipeline fails.
    pub fn compile(ctx: &Context, module: Op) -> Result<MlirCpuModule, Diagnostic> {
        let fail = |msg: String| Diagnostic::error(ctx.op_loc(module), msg);
        let mut stats = MlirCompileStats::default();
        melior::utility::register_all_passes();
        let context = mlir_context();
        let start = Instant::now();
        let options = ExportOptions { slot_entries: true };
        let mut exported = to_mlir(ctx, module, &context, &options)?;
        stats.export = start.elapsed();
        let start = Instant::now();
        let pm = PassManager::new(&context);
        melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), LLVM_PIPELINE)
            .map_err(|e| fail(format!("MLIR pipeline: {e}")))?;
        pm.run(&mut exported)
            .map_err(|e| fail(format!("MLIR lowering to the LLVM dialect failed: {e}")))?;
        stats.lower = start.elapsed();
        let start = Instant::now();
        let engine = ExecutionEngine::new(&exported, 3, &[], false, false);
        for (name, address) in dlc_runtime::float_libcalls() {
            // SAFETY: each address is a function of the C signature LLVM's call of `name`
            // expects (dlc_runtime's `libcalls` module), living as long as the process.
            unsafe { engine.register_symbol(name, address as *mut ()) };
        }
        let mut kernels = FxHashMap::default();
        for op in dlc_loop::module_kernels(ctx, module) {
            let kernel = dlc_loop::KernelOp(op).name(ctx).to_string();
            let symbol = format!("{kernel}{SLOT_SUFFIX}");
            let address = engine.lookup(&symbol);
            if address.is_null() {
                return Err(fail(format!("MLIR's execution engine has no '{symbol}'")));
            }
            // SAFETY: `symbol` is the slot-ABI entry the export generated for this kernel, a
            // `void (ptr)` function after lowering, i.e. `KernelFn`; its code lives as long as
            // `engine`, which the returned struct owns.
            let entry = unsafe { std::mem::transmute::<*mut (), KernelFn>(address) };
            kernels.insert(kernel, entry);
        }
        stats.codegen = start.elapsed();
        stats.kernels = kernels.len();
        // The engine translated the module into its own LLVM module; the MLIR module can go
        // before the context it lives in is moved.
        drop(exported);
        Ok(MlirCpuModule {
            kernels,
            stats,
            _engine: engine,
            _context: context,
        })
    }

    /// Where the compile time went.
    pub fn stats(&self) -> &MlirCompileStats {
        &self.stats
    }
}

impl KernelTable for MlirCpuModule {
    fn kernel(&self, name: &str) -> Option<KernelFn> {
        self.kernels.get(name).copied()
    }
}
