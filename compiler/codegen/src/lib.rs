//! Code generation: dlc loop kernels to LLVM IR, run on this CPU through a JIT or printed as
//! PTX for NVIDIA GPUs.
//!
//! The input is a lowered module — `loop.kernel`s plus the host functions that launch them, as
//! `lower` and the `cpu-default` / `gpu-default` pipelines leave it. Kernels become LLVM
//! functions (`function.rs` walks the ops; `scalar.rs`, `math.rs`, `gpu.rs` and `parallel.rs`
//! lower the op families); host functions stay with `dlc-runtime`, which runs them and calls
//! the compiled kernels through [`CpuModule`]'s [`dlc_runtime::KernelTable`].
//!
//! - [`CpuModule::compile`]: JIT for the host CPU or an x86-64 level it supports ([`CpuTarget`]):
//!   kernels compiled in parallel with the [`LlvmOpt`] pipeline, through the persistent
//!   [`KernelCache`], linked by ORC; parallel loops run on the runtime's pool.
//! - [`emit_llvm_ir`]: the LLVM module as text, for `dlc-opt --emit=llvm`.
//! - [`emit_ptx`]: PTX for `sm_NN`, for `dlc-opt --emit=ptx`.
//!
//! This crate links LLVM; the IR core, dialects and passes do not, so they build without it.

mod cache;
mod error;
mod function;
mod gpu;
mod host_facts;
mod jit;
mod loop_metadata;
mod math;
mod memo;
mod module;
mod opt;
mod orc;
mod parallel;
mod ptx;
mod scalar;
mod target;
mod types;

pub use cache::{
    EntryKind, KernelCache, Key, KeyHasher, Lookup, CACHE_DIR_VAR, CACHE_MAX_VAR, CACHE_VAR,
    CODEGEN_FORMAT, DEFAULT_MAX_BYTES,
};
pub use host_facts::RUNTIME_ALIGNMENT;
pub use jit::{CacheStats, CompileOptions, CompileStats, CpuModule, TierUpStats};
pub use opt::{LlvmOpt, LEAN_PIPELINE};
pub use ptx::emit_ptx;
pub use target::{CpuTarget, Target, DEFAULT_SM};

use dlc_ir::{Context, Diagnostic, Op};
use inkwell::context::Context as LlvmContext;

/// The LLVM IR of `module`'s kernels for `target`, after LLVM's pipeline (the default
/// [`LlvmOpt`] for a CPU, O3 for NVPTX).
pub fn emit_llvm_ir(ctx: &Context, module: Op, target: Target) -> Result<String, Diagnostic> {
    let llvm = LlvmContext::create();
    let out = match target {
        Target::Cpu(cpu) => {
            let machine = function::Machine::Cpu {
                avx512: cpu.has_avx512f(),
                vnni: cpu.has_avx512vnni(),
                madd_bits: cpu.madd_bits(),
            };
            let out = module::lower_module(ctx, &llvm, module, machine, "dlc")?;
            let opt = LlvmOpt::default();
            target::CpuSpec::of(cpu)
                .and_then(|spec| {
                    let tm = spec.machine(opt.codegen_level())?;
                    jit::optimize(&out, &spec, &tm, opt)
                })
                .map_err(|m| Diagnostic::error(ctx.op_loc(module), m))?;
            out
        }
        Target::Nvptx { sm } => ptx::nvptx_module(ctx, &llvm, module, sm)?,
    };
    Ok(out.print_to_string().to_string())
}
