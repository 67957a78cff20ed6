//! Host-function ops as `memref` and `func` ops.
//!
//! - `loop.alloc` (global) is `memref.alloc`, zero-filled as the loop dialect promises;
//! - `loop.read_size` is a `memref.load` of the one element and an `arith.index_cast` to
//!   `index`; a negative size is not checked (the interpreter and the runtime check it);
//! - `loop.check` is dropped: like a negative size, a failed check is the interpreter's and
//!   the runtime's to report;
//! - `loop.view` is `memref.view` on the `memref<?xi8>` arena, at the same byte offset;
//! - `loop.reshape` is `memref.reinterpret_cast` of the source to the result's sizes and
//!   row-major strides (computed on the host where a `?` dim follows);
//! - `loop.constant` is a private constant `memref.global` read with `memref.get_global`;
//! - `loop.launch` of a CPU kernel is `func.call`, with a `memref.cast` wherever the buffer's
//!   static shape differs from the kernel's parameter (a kernel `?` accepts any size); of a GPU
//!   kernel, `gpu.launch_func` with the kernel's `grid`/`block` attributes as launch sizes;
//! - `loop.call_if` is a `memref.load` of the condition and an `scf.if` whose branches
//!   `func.call` the two callees and yield their results; a call's types only fit its callee's
//!   (a `?` dim may stand for a static one), so arguments and results get a `memref.cast` where
//!   the types differ (this holds for `loop.call_loop`'s body too);
//! - `loop.call_loop` is an `scf.while` over the iteration number, the condition and the carried
//!   values: it continues while `i < max_trip` and the condition holds, and its body calls the
//!   loop body on rank-0 memrefs of both and copies the carried results into fresh memrefs
//!   (`memref.alloc` + `memref.copy`), so no iteration's body writes a buffer the loop keeps,
//!   then frees the memrefs it made for the iteration before. A loop with scan outputs is not
//!   exported: they grow by an element per iteration, which would need a buffer that grows.

use crate::error::ExResult;
use crate::function::first_block;
use crate::function::FnExport;
use crate::types::{memref_type, mlir_type};
use dlc_func::FuncOp;
use dlc_ir::symbol::SymbolTables;
use dlc_ir::{Op, Type};
use dlc_loop::{buffer_parts, LaunchDim, MemorySpace};
use melior::ir::attribute::{DenseI64ArrayAttribute, FlatSymbolRefAttribute};
use melior::ir::r#type::IntegerType;
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

    /// `loop.read_size` as a `memref.load` of the one element and an `arith.index_cast` of it
    /// to `index` (signed, as the loop dialect reads it). A negative value is not checked here
    /// (the interpreter and the runtime report it): it reaches what it sizes as it is.
    pub(crate) fn lower_read_size(
        &mut self,
        read: dlc_loop::ReadSizeOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let element = self.load_single(block, read.buffer(ctx))?;
        let index = MType::index(self.mlir);
        let size = self.emit1(block, "arith.index_cast", &[element], index, &[])?;
        self.values.insert(read.result(ctx), size);
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

    pub(crate) fn lower_call_if(
        &mut self,
        call: dlc_loop::CallIfOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let op = call.0;
        let (Some(then_fn), Some(else_fn)) = (call.then_callee(ctx), call.else_callee(ctx)) else {
            return Err("loop.call_if without its callees".into());
        };
        let cond = *ctx
            .operands(op)
            .first()
            .ok_or("loop.call_if without a condition")?;
        let cond = self.load_single(block, cond)?;
        let args = self.values_of(call.args(ctx))?;
        let results = ctx
            .result_types(op)
            .iter()
            .map(|&t| self.ty(t))
            .collect::<ExResult<Vec<_>>>()?;
        let no_args: &[MType<'c>] = &[];
        let (branch_op, blocks) = self.emit_with_regions_and_results(
            block,
            "scf.if",
            &[cond],
            &results,
            &[],
            &[Some(no_args), Some(no_args)],
        )?;
        for (i, callee) in [then_fn, else_fn].into_iter().enumerate() {
            let branch = first_block(&blocks, i)?;
            let outs = self.call_function(branch, op, callee, &args, &results)?;
            self.emit(branch, "scf.yield", &outs, &[], &[])?;
        }
        for (k, r) in ctx.results(op).enumerate() {
            self.values.insert(r, branch_op.result(k)?.into());
        }
        Ok(())
    }

    pub(crate) fn lower_call_loop(
        &mut self,
        call: dlc_loop::CallLoopOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let mlir = self.mlir;
        let op = call.0;
        let n = call
            .num_carried(ctx)
            .ok_or("loop.call_loop whose 'num_carried' does not fit its operands")?;
        let body = call.callee(ctx).ok_or("loop.call_loop without a callee")?;
        if ctx.num_results(op) > n {
            return Err("a loop.call_loop with scan outputs has no MLIR export: a scan output grows by one element per iteration, and scf.while has no buffer that grows".into());
        }
        let i64t: MType<'c> = IntegerType::new(mlir, 64).into();
        let i1: MType<'c> = IntegerType::new(mlir, 1).into();
        let max_trip = self.load_single(block, call.max_trip(ctx))?;
        let cond = self.load_single(block, call.cond(ctx))?;
        let carried: Vec<Type> = call
            .carried(ctx)
            .iter()
            .map(|&v| ctx.value_type(v))
            .collect();
        let mut inits = vec![self.const_int(block, i64t, 0)?, cond];
        for (&v, &ty) in call.carried(ctx).iter().zip(&carried) {
            let value = self.value(v)?;
            inits.push(self.fresh_copy(block, value, ty)?);
        }
        let captures = self.values_of(call.captures(ctx))?;
        let mut types = vec![i64t, i1];
        for &ty in &carried {
            types.push(self.ty(ty)?);
        }
        let (while_op, blocks) = self.emit_with_regions_and_results(
            block,
            "scf.while",
            &inits,
            &types,
            &[],
            &[Some(&types), Some(&types)],
        )?;

        // Before each iteration: go on while i < max_trip and the condition holds.
        let before = first_block(&blocks, 0)?;
        let state = block_arguments(before, types.len())?;
        // MLIR's CmpIPredicate: slt = 2.
        let below = self.cmpi(before, 2, state[0], max_trip)?;
        let go = self.emit1(before, "arith.andi", &[below, state[1]], i1, &[])?;
        let mut operands = vec![go];
        operands.extend(&state);
        self.emit(before, "scf.condition", &operands, &[], &[])?;

        // An iteration: the body on rank-0 buffers of i and the condition, the carried values
        // and the captures; the carried results copied out.
        let after = first_block(&blocks, 1)?;
        let state = block_arguments(after, types.len())?;
        let iteration = self.scalar_memref(after, state[0], Type::I64)?;
        let condition = self.scalar_memref(after, state[1], Type::I1)?;
        let mut args = vec![iteration, condition];
        args.extend(&state[2..]);
        args.extend(&captures);
        let mut body_results = vec![memref_type(ctx, mlir, &[], Type::I1, MemorySpace::Global)?];
        body_results.extend(&types[2..]);
        let outs = self.call_function(after, op, body, &args, &body_results)?;
        let next_cond = self.emit1(after, "memref.load", &[outs[0]], i1, &[])?;
        let one = self.const_int(after, i64t, 1)?;
        let next_i = self.emit1(after, "arith.addi", &[state[0], one], i64t, &[])?;
        let mut next = vec![next_i, next_cond];
        for (k, &ty) in carried.iter().enumerate() {
            next.push(self.fresh_copy(after, outs[1 + k], ty)?);
        }
        // What this iteration was given and the loop made is copied out now: free it.
        let owned = [iteration, condition].into_iter().chain(
            carried
                .iter()
                .zip(&state[2..])
                .filter_map(|(&ty, &v)| buffer_parts(ctx, ty).map(|_| v)),
        );
        for buffer in owned {
            self.emit(after, "memref.dealloc", &[buffer], &[], &[])?;
        }
        self.emit(after, "scf.yield", &next, &[], &[])?;
        for (k, r) in ctx.results(op).enumerate() {
            self.values.insert(r, while_op.result(2 + k)?.into());
        }
        Ok(())
    }

    /// `func.call @callee(args)` from call op `site`, returning `results`; its results. The
    /// call op's types only fit the callee's (`?` dims may stand for static ones either way),
    /// so arguments and results whose memref types differ get a `memref.cast`.
    fn call_function(
        &self,
        block: BlockRef<'c, 'm>,
        site: Op,
        callee: &str,
        args: &[MValue<'c, 'm>],
        results: &[MType<'c>],
    ) -> ExResult<Vec<MValue<'c, 'm>>> {
        let (params, outs) = self.callee_signature(site, callee)?;
        if params.len() != args.len() || outs.len() != results.len() {
            return Err(format!("the call of '{callee}' does not match its signature").into());
        }
        let mut passed = Vec::with_capacity(args.len());
        for (&a, &p) in args.iter().zip(&params) {
            let want = self.ty(p)?;
            passed.push(if a.r#type() == want {
                a
            } else {
                self.emit1(block, "memref.cast", &[a], want, &[])?
            });
        }
        let declared = outs
            .iter()
            .map(|&t| self.ty(t))
            .collect::<ExResult<Vec<_>>>()?;
        let symbol = FlatSymbolRefAttribute::new(self.mlir, callee).into();
        let call = self.emit(
            block,
            "func.call",
            &passed,
            &declared,
            &[("callee", symbol)],
        )?;
        let mut values = Vec::with_capacity(results.len());
        for (k, (&have, &want)) in declared.iter().zip(results).enumerate() {
            let v: MValue<'c, 'm> = call.result(k)?.into();
            values.push(if have == want {
                v
            } else {
                self.emit1(block, "memref.cast", &[v], want, &[])?
            });
        }
        Ok(values)
    }

    /// The input and result types of host function `callee`, resolved from `site` as the
    /// verifier resolves it.
    fn callee_signature(&self, site: Op, callee: &str) -> ExResult<(Vec<Type>, Vec<Type>)> {
        let ctx = self.ctx;
        ctx.find_ident(callee)
            .and_then(|name| SymbolTables::new().resolve(ctx, site, name))
            .and_then(|f| ctx.view::<FuncOp>(f))
            .and_then(|f| f.signature(ctx))
            .ok_or_else(|| format!("no host function '{callee}' to call").into())
    }

    /// The one element of the one-element buffer `v` (every dim 1), loaded.
    fn load_single(&self, block: BlockRef<'c, 'm>, v: dlc_ir::Value) -> ExResult<MValue<'c, 'm>> {
        let ctx = self.ctx;
        let (dims, elem, _) =
            buffer_parts(ctx, ctx.value_type(v)).ok_or("expected a one-element buffer")?;
        let mut operands = vec![self.value(v)?];
        if !dims.is_empty() {
            let zero = self.const_index(block, 0)?;
            operands.extend(std::iter::repeat_n(zero, dims.len()));
        }
        let elem = self.ty(elem)?;
        self.emit1(block, "memref.load", &operands, elem, &[])
    }

    /// A new rank-0 memref of `elem` holding `v`.
    fn scalar_memref(
        &self,
        block: BlockRef<'c, 'm>,
        v: MValue<'c, 'm>,
        elem: Type,
    ) -> ExResult<MValue<'c, 'm>> {
        let ty = memref_type(self.ctx, self.mlir, &[], elem, MemorySpace::Global)?;
        let segments = self.segments(&[0, 0])?;
        let memref = self.emit1(block, "memref.alloc", &[], ty, &[segments])?;
        self.emit(block, "memref.store", &[v, memref], &[], &[])?;
        Ok(memref)
    }

    /// A copy of `v`, a value of dlc type `ty`, in a new memref (`?` sizes read off `v`); a
    /// scalar is its own copy.
    fn fresh_copy(
        &self,
        block: BlockRef<'c, 'm>,
        v: MValue<'c, 'm>,
        ty: Type,
    ) -> ExResult<MValue<'c, 'm>> {
        let Some((dims, _, _)) = buffer_parts(self.ctx, ty) else {
            return Ok(v);
        };
        let mut sizes = Vec::new();
        for (axis, &d) in dims.iter().enumerate() {
            if d == dlc_ir::DYNAMIC {
                let axis = i64::try_from(axis).map_err(|_| "axis too large")?;
                let axis = self.const_index(block, axis)?;
                let index = MType::index(self.mlir);
                sizes.push(self.emit1(block, "memref.dim", &[v, axis], index, &[])?);
            }
        }
        let segments = self.segments(&[sizes.len(), 0])?;
        let copy = self.emit1(block, "memref.alloc", &sizes, self.ty(ty)?, &[segments])?;
        self.emit(block, "memref.copy", &[v, copy], &[], &[])?;
        Ok(copy)
    }
}

/// The first `n` arguments of `block`.
fn block_arguments<'c, 'm>(block: BlockRef<'c, 'm>, n: usize) -> ExResult<Vec<MValue<'c, 'm>>> {
    (0..n).map(|k| Ok(block.argument(k)?.into())).collect()
}
