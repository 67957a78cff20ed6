//! Host-function ops as `memref` and `func` ops.
//!
//! - `loop.alloc` (global) is `memref.alloc`, zero-filled as the loop dialect promises;
//! - `loop.view` is `memref.view` on the `memref<?xi8>` arena, at the same byte offset;
//! - `loop.reshape` is `memref.reinterpret_cast` of the source to the result's sizes and
//!   row-major strides (computed on the host where a `?` dim follows);
//! - `loop.constant` is a private constant `memref.global` read with `memref.get_global`;
//! - `loop.launch` of a CPU kernel is `func.call`, with a `memref.cast` wherever the buffer's
//!   static shape differs from the kernel's parameter (a kernel `?` accepts any size); of a GPU
//!   kernel, `gpu.launch_func` with the kernel's `grid`/`block` attributes as launch sizes.

use crate::error::ExResult;
use crate::function::FnExport;
use crate::types::mlir_type;
use dlc_loop::{buffer_parts, LaunchDim, MemorySpace};
use melior::ir::attribute::{DenseI64ArrayAttribute, FlatSymbolRefAttribute};
use melior::ir::{
    Attribute as MAttribute, BlockLike, BlockRef, Type as MType, Value as MValue, ValueLike,
};

/// MLIR's marker of a dynamic size or stride in static lists (`ShapedType::kDynamic`).
const MLIR_DYNAMIC: i64 = i64::MIN;

/// The nested symbol of GPU kernel `name`: `@dlc_kernels::@name`.
fn gpu_kernel_symbol<'c>(mlir: &'c melior::Context, name: &str) -> ExResult<MAttribute<'c>> {
    let text = format!("@{}::@{}", crate::program::GPU_MODULE, quote_symbol(name));
    MAttribute::parse(mlir, &text).ok_or_else(|| format!("bad kernel symbol '{name}'").into())
}

/// A symbol name as MLIR's parser reads it: bare if it is an identifier, else quoted.
fn quote_symbol(name: &str) -> String {
    if dlc_ir::printer::is_bare_identifier(name) {
        name.to_string()
    } else {
        format!("\"{}\"", name.escape_default())
    }
}

impl<'c, 'm> FnExport<'c, 'm, '_> {
    pub(crate) fn lower_host_alloc(
        &mut self,
        op: dlc_ir::Op,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let result = ctx.result(op, 0);
        let (dims, elem, space) =
            buffer_parts(ctx, ctx.value_type(result)).ok_or("loop.alloc of a non-buffer type")?;
        if space != MemorySpace::Global {
            return Err("a loop.alloc outside kernels must be global".into());
        }
        let ty = self.ty(ctx.value_type(result))?;
        let sizes = ctx
            .operands(op)
            .iter()
            .map(|&v| self.value(v))
            .collect::<ExResult<Vec<_>>>()?;
        let segments = self.segments(&[sizes.len(), 0])?;
        let memref = self.emit1(block, "memref.alloc", &sizes, ty, &[segments])?;
        self.zero_fill(block, memref, elem, &dims, &sizes)?;
        self.values.insert(result, memref);
        Ok(())
    }

    pub(crate) fn lower_view(
        &mut self,
        view: dlc_loop::ViewOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let mut operands = vec![self.value(view.arena(ctx))?, self.value(view.offset(ctx))?];
        for &s in view.dynamic_sizes(ctx) {
            operands.push(self.value(s)?);
        }
        let result = view.result(ctx);
        let ty = self.ty(ctx.value_type(result))?;
        let v = self.emit1(block, "memref.view", &operands, ty, &[])?;
        self.values.insert(result, v);
        Ok(())
    }

    pub(crate) fn lower_reshape(
        &mut self,
        reshape: dlc_loop::ReshapeOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let result = reshape.result(ctx);
        let (dims, _, _) =
            buffer_parts(ctx, ctx.value_type(result)).ok_or("loop.reshape of a non-buffer type")?;
        // The sizes (static, or the `?` operands in order) and the row-major strides, each
        // static where the dims after it are.
        let mut dynamic = reshape.dynamic_sizes(ctx).iter();
        let mut sizes: Vec<Option<MValue<'c, 'm>>> = Vec::with_capacity(dims.len());
        for &d in &dims {
            sizes.push(if d == dlc_ir::DYNAMIC {
                let v = *dynamic.next().ok_or("loop.reshape has too few sizes")?;
                Some(self.value(v)?)
            } else {
                None
            });
        }
        let mut strides: Vec<(i64, Option<MValue<'c, 'm>>)> = vec![(1, None); dims.len()];
        for i in (0..dims.len().saturating_sub(1)).rev() {
            let (inner, inner_value) = strides[i + 1];
            strides[i] = match (inner_value, sizes[i + 1]) {
                (None, None) => (inner.saturating_mul(dims[i + 1]), None),
                (a, b) => {
                    let a = match a {
                        Some(a) => a,
                        None => self.const_index(block, inner)?,
                    };
                    let b = match b {
                        Some(b) => b,
                        None => self.const_index(block, dims[i + 1])?,
                    };
                    let ty = MType::index(self.mlir);
                    let product = self.emit1(block, "arith.muli", &[a, b], ty, &[])?;
                    (MLIR_DYNAMIC, Some(product))
                }
            };
        }
        let dynamic_sizes: Vec<MValue<'c, 'm>> = sizes.iter().flatten().copied().collect();
        let dynamic_strides: Vec<MValue<'c, 'm>> = strides.iter().filter_map(|s| s.1).collect();
        let mut operands = vec![self.value(reshape.source(ctx))?];
        operands.extend(&dynamic_sizes);
        operands.extend(&dynamic_strides);
        let static_strides: Vec<i64> = strides.iter().map(|s| s.0).collect();
        let static_sizes: Vec<i64> = dims
            .iter()
            .map(|&d| {
                if d == dlc_ir::DYNAMIC {
                    MLIR_DYNAMIC
                } else {
                    d
                }
            })
            .collect();
        let attrs = [
            self.segments(&[1, 0, dynamic_sizes.len(), dynamic_strides.len()])?,
            (
                "static_offsets",
                DenseI64ArrayAttribute::new(self.mlir, &[0]).into(),
            ),
            (
                "static_sizes",
                DenseI64ArrayAttribute::new(self.mlir, &static_sizes).into(),
            ),
            (
                "static_strides",
                DenseI64ArrayAttribute::new(self.mlir, &static_strides).into(),
            ),
        ];
        let ty = self.ty(ctx.value_type(result))?;
        let v = self.emit1(block, "memref.reinterpret_cast", &operands, ty, &attrs)?;
        self.values.insert(result, v);
        Ok(())
    }

    pub(crate) fn lower_constant(
        &mut self,
        constant: dlc_loop::ConstantOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let value = constant.value(ctx).ok_or("loop.constant without a value")?;
        let text = dlc_ir::Printer::new(ctx).attr_to_string(value);
        let initial = MAttribute::parse(self.mlir, &text)
            .ok_or_else(|| format!("MLIR cannot parse the constant '{text}'"))?;
        let result = constant.result(ctx);
        let ty = self.ty(ctx.value_type(result))?;
        let name = format!("__dlc_constant_{}", self.globals);
        let global = self.build_op(
            "memref.global",
            &[],
            &[],
            &[
                ("sym_name", self.string(&name)),
                ("sym_visibility", self.string("private")),
                ("type", self.type_attr(ty)),
                ("initial_value", initial),
                ("constant", MAttribute::unit(self.mlir)),
            ],
        )?;
        // Globals go first in the module, in the order they were made.
        let position = usize::try_from(self.globals).unwrap_or(0);
        self.module_body.insert_operation(position, global);
        self.globals += 1;
        let symbol = FlatSymbolRefAttribute::new(self.mlir, &name).into();
        let v = self.emit1(block, "memref.get_global", &[], ty, &[("name", symbol)])?;
        self.values.insert(result, v);
        Ok(())
    }

    pub(crate) fn lower_launch(
        &mut self,
        launch: dlc_loop::LaunchOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let callee = launch
            .callee_name(ctx)
            .ok_or("loop.launch without a callee")?;
        let kernels = self.kernels;
        let info = kernels
            .get(callee)
            .ok_or_else(|| format!("loop.launch of unknown kernel '{callee}'"))?;
        let dlc_args = launch.args(ctx);
        if dlc_args.len() != info.arg_types.len() {
            return Err("loop.launch passes the wrong number of arguments".into());
        }
        let mut args = Vec::with_capacity(dlc_args.len());
        for (&a, &expected) in dlc_args.iter().zip(&info.arg_types) {
            let v = self.value(a)?;
            let want = mlir_type(ctx, self.mlir, expected)?;
            args.push(if v.r#type() == want {
                v
            } else {
                self.emit1(block, "memref.cast", &[v], want, &[])?
            });
        }
        if !info.gpu {
            let symbol = FlatSymbolRefAttribute::new(self.mlir, callee).into();
            self.emit(block, "func.call", &args, &[], &[("callee", symbol)])?;
            return Ok(());
        }
        let (grid, threads) = match (info.grid, info.block) {
            (Some(g), Some(b)) => (g, b),
            _ => {
                return Err(format!(
                    "GPU kernel '{callee}' has no grid/block launch attributes (run gpu-map)"
                )
                .into())
            }
        };
        let mut operands = Vec::with_capacity(6 + args.len());
        for d in grid.iter().chain(threads.iter()) {
            operands.push(match *d {
                LaunchDim::Const(n) => self.const_index(block, n)?,
                LaunchDim::Arg(i) => *args
                    .get(i)
                    .ok_or("a launch dim names a missing kernel argument")?,
            });
        }
        operands.extend(args.iter().copied());
        let segments = self.segments(&[0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, args.len(), 0])?;
        let kernel = gpu_kernel_symbol(self.mlir, callee)?;
        self.emit(
            block,
            "gpu.launch_func",
            &operands,
            &[],
            &[("kernel", kernel), segments],
        )?;
        Ok(())
    }
}
