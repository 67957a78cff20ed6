//! PTX for GPU-mapped kernels: the module lowered for NVPTX, optimized, and printed as PTX
//! assembly by LLVM's NVPTX backend.

use crate::function::Machine;
use crate::module::lower_module;
use crate::target::nvptx_machine;
use dlc_ir::{Context, Diagnostic, Op};
use inkwell::context::Context as LlvmContext;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::FileType;

/// The PTX of every kernel of `module` for `sm_<sm>`.
pub fn emit_ptx(ctx: &Context, module: Op, sm: u32) -> Result<String, Diagnostic> {
    let llvm = LlvmContext::create();
    let out = nvptx_module(ctx, &llvm, module, sm)?;
    let fail = |msg: String| Diagnostic::error(ctx.op_loc(module), msg);
    let machine = nvptx_machine(sm).map_err(fail)?;
    let buffer = machine
        .write_to_memory_buffer(&out, FileType::Assembly)
        .map_err(|e| fail(format!("NVPTX backend: {e}")))?;
    Ok(String::from_utf8_lossy(buffer.as_slice()).into_owned())
}

/// The optimized NVPTX LLVM module of `module`.
pub(crate) fn nvptx_module<'ctx>(
    ctx: &Context,
    llvm: &'ctx LlvmContext,
    module: Op,
    sm: u32,
) -> Result<inkwell::module::Module<'ctx>, Diagnostic> {
    let fail = |msg: String| Diagnostic::error(ctx.op_loc(module), msg);
    let out = lower_module(ctx, llvm, module, Machine::Nvptx, "dlc")?;
    let machine = nvptx_machine(sm).map_err(fail)?;
    out.set_triple(&machine.get_triple());
    out.set_data_layout(&machine.get_target_data().get_data_layout());
    out.verify().map_err(|e| {
        fail(format!(
            "code generation produced invalid LLVM IR (a dlc bug): {e}"
        ))
    })?;
    out.run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| fail(format!("LLVM O3 pipeline: {e}")))?;
    Ok(out)
}
