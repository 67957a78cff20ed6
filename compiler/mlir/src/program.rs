//! A whole dlc module as an MLIR module: kernels, host functions and their placement.
//!
//! CPU kernels become `func.func`s at the top of the module, GPU-bound kernels `gpu.func ...
//! kernel`s inside one `gpu.module @dlc_kernels` (and the module gets `gpu.container_module`),
//! host functions `func.func`s. With [`ExportOptions::slot_entries`](crate::ExportOptions) every
//! CPU kernel also gets its slot-ABI entry (`slots.rs`). Nothing else may stand at the top of a
//! dlc module that is exported: graph-level programs must be lowered first.

use crate::error::ExportError;
use crate::function::{first_block, FnExport, FnKind};
use crate::gpu::{is_gpu, workgroup_buffers};
use crate::types::{memref_type, mlir_type, mlir_types};
use crate::ExportOptions;
use dlc_func::FuncOp;
use dlc_ir::{Context, Diagnostic, Location, Op, Type};
use dlc_loop::{AllocOp, KernelOp, LaunchDim, MemorySpace};
use melior::ir::attribute::{DenseI32ArrayAttribute, IntegerAttribute};
use melior::ir::operation::OperationMutLike;
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute as MAttribute, BlockLike, BlockRef, Location as MLoc, Module, Type as MType,
};
use melior::Context as MContext;
use rustc_hash::FxHashMap;

/// The symbol of the `gpu.module` holding the GPU kernels.
pub const GPU_MODULE: &str = "dlc_kernels";

/// What a host function's `loop.launch` needs to know about a kernel.
#[derive(Clone, Debug)]
pub(crate) struct KernelInfo {
    /// The kernel's argument types.
    pub arg_types: Vec<Type>,
    /// True for a GPU kernel (`gpu.func`), launched by `gpu.launch_func`.
    pub gpu: bool,
    /// The `grid` launch attribute.
    pub grid: Option<[LaunchDim; 3]>,
    /// The `block` launch attribute.
    pub block: Option<[LaunchDim; 3]>,
}

/// The MLIR location of a dlc location (file, line and column; anything else is unknown).
pub(crate) fn mlir_loc<'c>(ctx: &Context, mlir: &'c MContext, loc: Location) -> MLoc<'c> {
    match loc {
        Location::FileLineCol { file, line, col } => {
            MLoc::new(mlir, ctx.ident_str(file), line as usize, col as usize)
        }
        _ => MLoc::unknown(mlir),
    }
}

/// Converts `module` (a `builtin.module` of kernels and host functions) into a new MLIR module.
pub(crate) fn export_module<'c>(
    ctx: &Context,
    module: Op,
    mlir: &'c MContext,
    options: &ExportOptions,
) -> Result<Module<'c>, Diagnostic> {
    let at_module = |m: &str| Diagnostic::error(ctx.op_loc(module), m.to_string());
    let body = ctx
        .regions(module)
        .first()
        .and_then(|&r| ctx.blocks(r).first().copied())
        .ok_or_else(|| at_module("the module has no body"))?;
    let mut kernels = FxHashMap::default();
    for op in ctx.block_ops(body) {
        if ctx.view::<FuncOp>(op).is_some() {
            continue;
        }
        if ctx.view::<dlc_loop::CompiledKernelOp>(op).is_some() {
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                "a 'loop.compiled_kernel' has no body to export (compile the source, not a model-cache entry)",
            ));
        }
        if ctx.view::<dlc_ir::builtin::ModuleOp>(op).is_some() {
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                "nested modules are not exported to MLIR (export each module on its own)",
            ));
        }
        let Some(k) = ctx.view::<KernelOp>(op) else {
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                format!("'{}' cannot be exported to MLIR: only loop kernels and host functions can (lower graph programs first)", ctx.op_name(op)),
            ));
        };
        let arg_types = k
            .argument_types(ctx)
            .ok_or_else(|| Diagnostic::error(ctx.op_loc(op), "kernel without a type"))?;
        let info = KernelInfo {
            arg_types,
            gpu: is_gpu(ctx, op),
            grid: k.grid_dims(ctx),
            block: k.block_dims(ctx),
        };
        kernels.insert(k.name(ctx).to_string(), info);
    }
    let any_gpu = kernels.values().any(|k| k.gpu);
    let mut mlir_module = Module::new(mlir_loc(ctx, mlir, ctx.op_loc(module)));
    {
        let top = mlir_module.body();
        let mut exp = FnExport {
            ctx,
            mlir,
            kind: FnKind::Host,
            values: FxHashMap::default(),
            entry: top,
            module_body: top,
            reduce_slots: FxHashMap::default(),
            kernels: &kernels,
            globals: 0,
            loc: mlir_loc(ctx, mlir, ctx.op_loc(module)),
        };
        let gpu_block = if any_gpu {
            let name = exp.string(GPU_MODULE);
            let (_, blocks) = exp
                .emit_with_regions(top, "gpu.module", &[], &[("sym_name", name)], &[Some(&[])])
                .map_err(|e| e.at(ctx, module))?;
            Some(first_block(&blocks, 0).map_err(|e| e.at(ctx, module))?)
        } else {
            None
        };
        for op in ctx.block_ops(body) {
            exp.values.clear();
            exp.reduce_slots.clear();
            exp.loc = mlir_loc(ctx, mlir, ctx.op_loc(op));
            if ctx.view::<FuncOp>(op).is_some() {
                export_host(&mut exp, op, top)?;
                continue;
            }
            let name = KernelOp(op).name(ctx);
            let gpu = kernels.get(name).is_some_and(|k| k.gpu);
            match gpu_block {
                Some(gpu_block) if gpu => export_gpu_kernel(&mut exp, op, gpu_block)?,
                _ => {
                    export_cpu_kernel(&mut exp, op, top)?;
                    if options.slot_entries {
                        let arg_types = kernels.get(name).map(|k| k.arg_types.clone());
                        exp.slot_entry(top, name, &arg_types.unwrap_or_default())
                            .map_err(|e| e.at(ctx, op))?;
                    }
                }
            }
        }
    }
    if any_gpu {
        mlir_module
            .as_operation_mut()
            .set_attribute("gpu.container_module", MAttribute::unit(mlir));
    }
    Ok(mlir_module)
}

/// The MLIR types of a function's entry block arguments.
fn arg_types<'c>(
    ctx: &Context,
    mlir: &'c MContext,
    entry: dlc_ir::Block,
) -> Result<Vec<MType<'c>>, ExportError> {
    let types: Vec<Type> = ctx
        .block_args(entry)
        .iter()
        .map(|&a| ctx.value_type(a))
        .collect();
    mlir_types(ctx, mlir, &types)
}

/// The body of a function-like op, which must be one block (kernels always are; host
/// functions are straight-line code).
fn entry_block(ctx: &Context, op: Op) -> Result<dlc_ir::Block, Diagnostic> {
    let blocks = ctx
        .regions(op)
        .first()
        .map(|&r| ctx.blocks(r))
        .unwrap_or(&[]);
    match blocks {
        [entry] => Ok(*entry),
        [] => Err(Diagnostic::error(ctx.op_loc(op), "function without a body")),
        _ => Err(Diagnostic::error(
            ctx.op_loc(op),
            "functions with several blocks cannot be exported to MLIR",
        )),
    }
}

/// Converts the dlc body of `op` into `entry` with `exp`, binding the first arguments.
fn lower_body<'c, 'm>(
    exp: &mut FnExport<'c, 'm, '_>,
    op: Op,
    dlc_entry: dlc_ir::Block,
    entry: BlockRef<'c, 'm>,
) -> Result<(), Diagnostic> {
    let ctx = exp.ctx;
    exp.entry = entry;
    for (i, &a) in ctx.block_args(dlc_entry).iter().enumerate() {
        let v = entry
            .argument(i)
            .map_err(|e| ExportError::from(e).at(ctx, op))?;
        exp.values.insert(a, v.into());
    }
    exp.lower_block(dlc_entry, entry)
}

/// The `function_type` of a function-like op, converted.
fn function_type<'c>(exp: &FnExport<'c, '_, '_>, op: Op) -> Result<MType<'c>, Diagnostic> {
    let ctx = exp.ctx;
    let ty = ctx
        .attr(op, "function_type")
        .and_then(|a| ctx.attr_as_type(a))
        .ok_or_else(|| Diagnostic::error(ctx.op_loc(op), "function without a function_type"))?;
    mlir_type(ctx, exp.mlir, ty).map_err(|e| e.at(ctx, op))
}

/// A host `func.func`: same signature with buffers as memrefs, its ops converted one by one
/// (`func.return` included).
fn export_host<'c, 'm>(
    exp: &mut FnExport<'c, 'm, '_>,
    op: Op,
    top: BlockRef<'c, 'm>,
) -> Result<(), Diagnostic> {
    exp.kind = FnKind::Host;
    let name = dlc_ir::symbol::symbol_name(exp.ctx, op).unwrap_or("");
    export_func(exp, op, name, top).map(|_| ())
}

/// A CPU kernel: `func.func` ending in `func.return`.
fn export_cpu_kernel<'c, 'm>(
    exp: &mut FnExport<'c, 'm, '_>,
    op: Op,
    top: BlockRef<'c, 'm>,
) -> Result<(), Diagnostic> {
    let ctx = exp.ctx;
    exp.kind = FnKind::CpuKernel;
    let entry = export_func(exp, op, KernelOp(op).name(ctx), top)?;
    exp.emit(entry, "func.return", &[], &[], &[])
        .map_err(|e| e.at(ctx, op))?;
    Ok(())
}

/// `func.func @name` in `top` with `op`'s signature (buffers as memrefs) and its body
/// converted; returns the entry block.
fn export_func<'c, 'm>(
    exp: &mut FnExport<'c, 'm, '_>,
    op: Op,
    name: &str,
    top: BlockRef<'c, 'm>,
) -> Result<BlockRef<'c, 'm>, Diagnostic> {
    let ctx = exp.ctx;
    let fn_type = function_type(exp, op)?;
    let dlc_entry = entry_block(ctx, op)?;
    let args = arg_types(ctx, exp.mlir, dlc_entry).map_err(|e| e.at(ctx, op))?;
    let (_, blocks) = exp
        .emit_with_regions(
            top,
            "func.func",
            &[],
            &[
                ("sym_name", exp.string(name)),
                ("function_type", exp.type_attr(fn_type)),
            ],
            &[Some(&args)],
        )
        .map_err(|e| e.at(ctx, op))?;
    let entry = first_block(&blocks, 0).map_err(|e| e.at(ctx, op))?;
    lower_body(exp, op, dlc_entry, entry)?;
    Ok(entry)
}

/// A GPU kernel: `gpu.func ... kernel` with its shared buffers (and `loop.block_reduce`
/// scratch) as workgroup attributions, and `known_block_size` when the block is static.
fn export_gpu_kernel<'c, 'm>(
    exp: &mut FnExport<'c, 'm, '_>,
    op: Op,
    gpu_block: BlockRef<'c, 'm>,
) -> Result<(), Diagnostic> {
    let ctx = exp.ctx;
    let mlir = exp.mlir;
    exp.kind = FnKind::GpuKernel;
    let kernel = KernelOp(op);
    let name = kernel.name(ctx);
    let fn_type = function_type(exp, op)?;
    let dlc_entry = entry_block(ctx, op)?;
    let mut args = arg_types(ctx, mlir, dlc_entry).map_err(|e| e.at(ctx, op))?;
    let nargs = args.len();
    let workgroup = workgroup_buffers(ctx, op);
    for w in &workgroup {
        let ty = memref_type(ctx, mlir, &w.dims, w.elem, MemorySpace::Shared)
            .map_err(|e| e.at(ctx, w.op))?;
        args.push(ty);
    }
    let i64t: MType<'c> = IntegerType::new(mlir, 64).into();
    let count = i64::try_from(workgroup.len()).unwrap_or(i64::MAX);
    let mut attrs = vec![
        ("sym_name", exp.string(name)),
        ("function_type", exp.type_attr(fn_type)),
        ("gpu.kernel", MAttribute::unit(mlir)),
        (
            "workgroup_attributions",
            IntegerAttribute::new(i64t, count).into(),
        ),
    ];
    if let Some(block) = kernel.block_dims(ctx) {
        let sizes: Option<Vec<i32>> = block
            .iter()
            .map(|d| match *d {
                LaunchDim::Const(n) => i32::try_from(n).ok(),
                LaunchDim::Arg(_) => None,
            })
            .collect();
        if let Some(sizes) = sizes {
            attrs.push((
                "known_block_size",
                DenseI32ArrayAttribute::new(mlir, &sizes).into(),
            ));
        }
    }
    let (_, blocks) = exp
        .emit_with_regions(gpu_block, "gpu.func", &[], &attrs, &[Some(&args)])
        .map_err(|e| e.at(ctx, op))?;
    let entry = first_block(&blocks, 0).map_err(|e| e.at(ctx, op))?;
    for (j, w) in workgroup.iter().enumerate() {
        let v = entry
            .argument(nargs + j)
            .map_err(|e| ExportError::from(e).at(ctx, w.op))?
            .into();
        if ctx.view::<AllocOp>(w.op).is_some() {
            exp.values.insert(ctx.result(w.op, 0), v);
        } else {
            exp.reduce_slots.insert(w.op, v);
        }
    }
    lower_body(exp, op, dlc_entry, entry)?;
    exp.emit(entry, "gpu.return", &[], &[], &[])
        .map_err(|e| e.at(ctx, op))?;
    Ok(())
}
