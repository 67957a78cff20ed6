//! A dlc module (kernels plus host functions) as one LLVM module.
//!
//! Every `loop.kernel` is lowered by `function.rs`; host functions are left to the runtime, which
//! runs them and calls the kernels. What wraps a kernel depends on the machine:
//! - **CPU**: the kernel body is an internal, always-inlined `<name>.body` with typed parameters
//!   (carrying the `noalias`/`align` facts of `host_facts.rs`, and `noalias` on every
//!   `loop.noalias` argument), called by the entry thunk
//!   `void <name>(ptr args)` that unpacks the runtime's argument slots (`dlc_runtime::KernelFn`):
//!   a buffer is its data pointer then one slot per dim, a scalar one slot.
//! - **NVPTX**: the kernel is `<name>` itself, with the `ptx_kernel` calling convention and the
//!   same typed parameters, since a CUDA launch passes parameters by value. A kernel whose static
//!   thread block exceeds CUDA's limits (1024 threads, 64 along z) is an error at the kernel.

use crate::error::{CgError, CgResult};
use crate::function::{kernel_param_types, ArgFacts, DimParams, FnLowering, Machine};
use crate::host_facts::{kernel_facts, KernelFacts};
use dlc_ir::{Context, Diagnostic, Op, Type};
use dlc_loop::analysis::kernel::static_block_dims;
use dlc_loop::{buffer_parts, MAX_BLOCK_THREADS};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context as LlvmContext;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, FunctionValue, InstructionOpcode};
use inkwell::AddressSpace;

/// LLVM's `ptx_kernel` calling convention.
const PTX_KERNEL_CC: u32 = 71;
/// The most threads a CUDA block may have along z.
const MAX_BLOCK_Z: i64 = 64;

/// Lowers every kernel of `module` into a new LLVM module named after `module_name`.
pub(crate) fn lower_module<'ctx>(
    ctx: &Context,
    llvm: &'ctx LlvmContext,
    module: Op,
    machine: Machine,
    module_name: &str,
) -> Result<Module<'ctx>, Diagnostic> {
    let out = llvm.create_module(module_name);
    let facts = kernel_facts(ctx, module);
    for kernel in dlc_loop::module_kernels(ctx, module) {
        let name = dlc_loop::KernelOp(kernel).name(ctx);
        lower_kernel(
            ctx,
            llvm,
            &out,
            kernel,
            name,
            &arg_facts(ctx, &facts, kernel),
            machine,
        )?;
    }
    Ok(out)
}

/// What is known about each argument of `kernel`: from its launches (`facts`, of the whole
/// module) and from its `loop.noalias` attributes, which hold in every launch.
pub(crate) fn arg_facts(ctx: &Context, facts: &KernelFacts, kernel: Op) -> Vec<ArgFacts> {
    let k = dlc_loop::KernelOp(kernel);
    let mut arg_facts = facts.get(k.name(ctx)).cloned().unwrap_or_default();
    let n = k.body(ctx).map_or(0, |b| ctx.block_args(b).len());
    if arg_facts.len() < n {
        arg_facts.resize(n, ArgFacts::default());
    }
    for (i, fact) in arg_facts.iter_mut().enumerate() {
        fact.noalias |= k.is_noalias(ctx, i);
    }
    arg_facts
}

/// Lowers `kernel`, whose arguments have `facts`, into `module` as the function `name`;
/// errors are at the kernel.
pub(crate) fn lower_kernel<'ctx>(
    ctx: &Context,
    llvm: &'ctx LlvmContext,
    module: &Module<'ctx>,
    kernel: Op,
    name: &str,
    facts: &[ArgFacts],
    machine: Machine,
) -> Result<(), Diagnostic> {
    lower_kernel_named(ctx, llvm, module, kernel, name, facts, machine)
        .map_err(|e| e.into_diagnostic(ctx, kernel))
}

fn lower_kernel_named<'ctx>(
    ctx: &Context,
    llvm: &'ctx LlvmContext,
    module: &Module<'ctx>,
    kernel: Op,
    name: &str,
    facts: &[ArgFacts],
    machine: Machine,
) -> CgResult<()> {
    if module.get_function(name).is_some()
        || name.starts_with("llvm.")
        || name == crate::parallel::PARALLEL_FOR
    {
        return Err(format!("kernel name '{name}' clashes with another LLVM symbol").into());
    }
    let body = dlc_loop::KernelOp(kernel)
        .body(ctx)
        .ok_or("kernel without a body")?;
    let args = ctx.block_args(body).to_vec();
    let arg_types: Vec<Type> = args.iter().map(|&a| ctx.value_type(a)).collect();
    // A CPU kernel's body is called by its entry thunk, which holds the ABI: it takes the `?`
    // dims only. An NVPTX kernel is the ABI.
    let dims = match machine {
        Machine::Cpu { .. } => DimParams::Dynamic,
        Machine::Nvptx => DimParams::All,
    };
    let params = kernel_param_types(llvm, ctx, &arg_types, dims)?;
    let fn_ty = llvm.void_type().fn_type(&params, false);
    let function = match machine {
        Machine::Cpu { .. } => {
            let f = module.add_function(&format!("{name}.body"), fn_ty, Some(Linkage::Internal));
            let inline = Attribute::get_named_enum_kind_id("alwaysinline");
            f.add_attribute(
                AttributeLoc::Function,
                llvm.create_enum_attribute(inline, 0),
            );
            f
        }
        Machine::Nvptx => {
            let f = module.add_function(name, fn_ty, Some(Linkage::External));
            f.set_call_conventions(PTX_KERNEL_CC);
            f
        }
    };
    let mut lowering = FnLowering::new(ctx, llvm, module, function, machine, name.to_string());
    if machine == Machine::Nvptx {
        lowering.block = launchable_block(ctx, kernel)?;
    }
    lowering.bind_kernel_args(&args, facts, dims)?;
    lowering.lower_block(body)?;
    lowering.finish()?;
    if matches!(machine, Machine::Cpu { .. }) {
        entry_thunk(ctx, llvm, module, name, &arg_types, function)?;
    }
    Ok(())
}

/// The static thread block of a GPU kernel (its `block` attribute, else the extents of its
/// `thread.*` loops, as the grid simulation launches it), or `None` when it is chosen at launch;
/// an error when no CUDA device can launch it.
fn launchable_block(ctx: &Context, kernel: Op) -> CgResult<Option<[i64; 3]>> {
    let Some(dims) = static_block_dims(ctx, kernel) else {
        return Ok(None);
    };
    let threads: i64 = dims.iter().product();
    if threads > MAX_BLOCK_THREADS || dims[2] > MAX_BLOCK_Z {
        let [x, y, z] = dims;
        return Err(format!(
            "the kernel needs a thread block of {x}x{y}x{z} = {threads} threads; CUDA blocks \
             have at most {MAX_BLOCK_THREADS} threads and {MAX_BLOCK_Z} along z"
        )
        .into());
    }
    Ok(Some(dims))
}

/// `void <name>(ptr args)`: loads each parameter from its 8-byte slot and calls the body.
fn entry_thunk<'ctx>(
    ctx: &Context,
    llvm: &'ctx LlvmContext,
    module: &Module<'ctx>,
    name: &str,
    arg_types: &[Type],
    body: FunctionValue<'ctx>,
) -> CgResult<()> {
    let ptr_t = llvm.ptr_type(AddressSpace::default());
    let i64t = llvm.i64_type();
    let thunk = module.add_function(name, llvm.void_type().fn_type(&[ptr_t.into()], false), None);
    let b = llvm.create_builder();
    b.position_at_end(llvm.append_basic_block(thunk, "entry"));
    let slots = thunk
        .get_nth_param(0)
        .ok_or("thunk without parameters")?
        .into_pointer_value();
    let mut next_slot = 0u64;
    let mut slot =
        |b: &inkwell::builder::Builder<'ctx>| -> CgResult<inkwell::values::PointerValue<'ctx>> {
            let index = i64t.const_int(next_slot, false);
            next_slot += 1;
            // SAFETY: the runtime passes one 8-byte slot per parameter word of this kernel.
            Ok(unsafe { b.build_in_bounds_gep(i64t, slots, &[index], "slot")? })
        };
    let param_types = body.get_type().get_param_types();
    let mut args: Vec<BasicMetadataValueEnum<'ctx>> = Vec::new();
    for &ty in arg_types {
        match buffer_parts(ctx, ty) {
            Some((sizes, _, _)) => {
                args.push(b.build_load(ptr_t, slot(&b)?, "data")?.into());
                // Every dim has its slot; the body takes the `?` ones.
                for &size in &sizes {
                    let dim = slot(&b)?;
                    if DimParams::Dynamic.passes(size) {
                        args.push(b.build_load(i64t, dim, "dim")?.into());
                    }
                }
            }
            None => {
                let word = b.build_load(i64t, slot(&b)?, "word")?.into_int_value();
                let param_ty = *param_types
                    .get(args.len())
                    .ok_or("kernel body has fewer parameters than arguments")?;
                args.push(scalar_from_word(&b, llvm, word, param_ty)?.into());
            }
        }
    }
    b.build_call(body, &args, "")?;
    b.build_return(None)?;
    Ok(())
}

/// A scalar parameter from its 64-bit slot: integers truncated, floats from their low bits.
fn scalar_from_word<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    llvm: &'ctx LlvmContext,
    word: inkwell::values::IntValue<'ctx>,
    ty: inkwell::types::BasicMetadataTypeEnum<'ctx>,
) -> CgResult<inkwell::values::BasicValueEnum<'ctx>> {
    let ty =
        BasicTypeEnum::try_from(ty).map_err(|_| CgError::from("unsupported scalar parameter"))?;
    Ok(match ty {
        BasicTypeEnum::IntType(t) if t.get_bit_width() == 64 => word.into(),
        BasicTypeEnum::IntType(t) => b.build_int_truncate(word, t, "")?.into(),
        BasicTypeEnum::FloatType(t) => {
            let bits = crate::types::int_type(llvm, t.get_bit_width())?;
            let narrow = if bits.get_bit_width() == 64 {
                word
            } else {
                b.build_int_truncate(word, bits, "")?
            };
            b.build_cast(InstructionOpcode::BitCast, narrow, t, "")?
        }
        _ => return Err("unsupported scalar parameter".into()),
    })
}
