//! The CPU JIT: a lowered module compiled for the host CPU and loaded into this process.
//!
//! The LLVM module is tuned for the host, or for an x86-64 level the host supports
//! ([`CpuTarget`]): its `target-cpu` and `target-features` on every function, so AVX-512 machines
//! get 512-bit vectors and `x86-64-v3` gets AVX2's 256-bit ones. It is optimized with LLVM's `default<O3>`
//! pipeline, and handed to MCJIT. Parallel loops call back into `dlc_runtime::dlc_parallel_for`,
//! whose address is mapped into the JIT. The result implements `dlc_runtime::KernelTable`, so
//! the runtime's host program can launch the kernels.

use crate::function::Machine;
use crate::module::lower_module;
use crate::parallel::PARALLEL_FOR;
use crate::target::{cpu_machine, CpuTarget};
use dlc_ir::{Context, Diagnostic, Op};
use dlc_runtime::{KernelFn, KernelTable};
use inkwell::attributes::AttributeLoc;
use inkwell::context::Context as LlvmContext;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::OptimizationLevel;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// Where the time of one compilation went.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// Kernels compiled.
    pub kernels: usize,
    /// dlc loop IR to LLVM IR.
    pub lower: Duration,
    /// LLVM's O3 pipeline.
    pub optimize: Duration,
    /// Machine code generation and loading.
    pub codegen: Duration,
}

impl CompileStats {
    /// The whole compilation.
    pub fn total(&self) -> Duration {
        self.lower + self.optimize + self.codegen
    }
}

struct Jit<'ctx> {
    _module: Module<'ctx>,
    _engine: ExecutionEngine<'ctx>,
}

self_cell::self_cell!(
    struct JitCell {
        owner: LlvmContext,
        #[not_covariant]
        dependent: Jit,
    }
);

/// The kernels of a module, compiled for this CPU and callable through [`KernelTable`].
pub struct CpuModule {
    /// Keeps the machine code (and the LLVM context it came from) alive.
    _jit: JitCell,
    kernels: FxHashMap<String, KernelFn>,
    stats: CompileStats,
}

impl CpuModule {
    /// Compiles every `loop.kernel` of `module` (a `builtin.module` after `lower` and a CPU
    /// pipeline) for `cpu`. Kernels that use GPU ops or loops are reported as errors at the op;
    /// a `cpu` this host cannot run is an error at `module`.
    pub fn compile(ctx: &Context, module: Op, cpu: CpuTarget) -> Result<CpuModule, Diagnostic> {
        let fail = |msg: String| Diagnostic::error(ctx.op_loc(module), msg);
        let mut stats = CompileStats::default();
        let mut names = Vec::new();
        let mut addresses = Vec::new();
        let jit = JitCell::try_new(
            LlvmContext::create(),
            |llvm| -> Result<Jit<'_>, Diagnostic> {
                let start = Instant::now();
                let machine = Machine::Cpu {
                    avx512: cpu.has_avx512f(),
                };
                let out = lower_module(ctx, llvm, module, machine, "dlc")?;
                stats.lower = start.elapsed();
                let start = Instant::now();
                optimize_for_cpu(&out, cpu).map_err(fail)?;
                stats.optimize = start.elapsed();
                let start = Instant::now();
                let engine = out
                    .create_jit_execution_engine(OptimizationLevel::Aggressive)
                    .map_err(|e| fail(format!("LLVM JIT: {e}")))?;
                if let Some(decl) = out.get_function(PARALLEL_FOR) {
                    engine.add_global_mapping(
                        &decl,
                        dlc_runtime::dlc_parallel_for as *const () as usize,
                    );
                }
                for kernel in dlc_loop::module_kernels(ctx, module) {
                    let name = dlc_loop::KernelOp(kernel).name(ctx).to_string();
                    let address = engine
                        .get_function_address(&name)
                        .map_err(|e| fail(format!("LLVM JIT lost kernel '{name}': {e}")))?;
                    names.push(name);
                    addresses.push(address);
                }
                stats.codegen = start.elapsed();
                Ok(Jit {
                    _module: out,
                    _engine: engine,
                })
            },
        )?;
        stats.kernels = names.len();
        let kernels = names
            .into_iter()
            .zip(addresses)
            .map(|(name, address)| {
                // SAFETY: `address` is the entry thunk `module.rs` generated for this kernel,
                // of type `void(ptr)`, i.e. `KernelFn`; the machine code lives as long as `jit`,
                // which this struct owns.
                let entry = unsafe { std::mem::transmute::<usize, KernelFn>(address) };
                (name, entry)
            })
            .collect();
        Ok(CpuModule {
            _jit: jit,
            kernels,
            stats,
        })
    }

    /// Where the compile time went.
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }
}

impl KernelTable for CpuModule {
    fn kernel(&self, name: &str) -> Option<KernelFn> {
        self.kernels.get(name).copied()
    }
}

/// Tunes `module` for `cpu`, verifies it and runs LLVM's O3 pipeline.
pub(crate) fn optimize_for_cpu(module: &Module<'_>, cpu: CpuTarget) -> Result<(), String> {
    let (machine, cpu, features) = cpu_machine(cpu, OptimizationLevel::Aggressive)?;
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let llvm = module.get_context();
    for f in module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
    {
        f.add_attribute(
            AttributeLoc::Function,
            llvm.create_string_attribute("target-cpu", &cpu),
        );
        f.add_attribute(
            AttributeLoc::Function,
            llvm.create_string_attribute("target-features", &features),
        );
    }
    module
        .verify()
        .map_err(|e| format!("code generation produced invalid LLVM IR (a dlc bug): {e}"))?;
    module
        .run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| format!("LLVM O3 pipeline: {e}"))
}
