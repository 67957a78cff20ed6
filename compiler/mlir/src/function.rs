//! One dlc function body as MLIR: the op walk, control flow, memory and scalar ops.
//!
//! A [`FnExport`] converts the ops of one `loop.kernel` (into a `func.func` or `gpu.func`) or one
//! host `func.func`, block by block, into MLIR blocks that already sit in the module: every op is
//! built with `OperationBuilder` and appended at once, and ops with regions are appended with
//! empty blocks that the walk then fills. Values therefore all borrow the module, and one map
//! from dlc values to MLIR values serves every nesting level.
//!
//! The mapping mirrors the LLVM code generator (`compiler/codegen/src/function.rs`):
//! - `loop.for` becomes `scf.for` (`serial`, `unroll`, `vectorize`: the vectorize pass already
//!   wrote explicit vector ops), `scf.parallel` for `parallel` in CPU kernels, and a
//!   thread/block-strided `scf.for` for GPU bindings (`gpu.rs`);
//! - `loop.if` is `scf.if`; a schedule block is inlined with its iter vars bound to the iter
//!   values, its init region under `scf.if` "every reduce iter value is 0";
//! - loads and stores are `memref.load/store`, `vector.load/store`;
//! - local buffers are `memref.alloca`s — static ones hoisted to the function entry so a loop
//!   does not grow the stack, as the code generator does — zero-filled where the `loop.alloc`
//!   stands by an `scf.for` nest;
//! - `arith` and `math` ops have the same names, operands and attributes in MLIR and are copied.

use crate::error::{ExResult, ExportError};
use crate::gpu::is_gpu_op;
use crate::types::{memref_type, mlir_type};
use dlc_ir::{Block, Context, Diagnostic, Op, Type, TypeKind, Value, DYNAMIC};
use dlc_loop::math::MathOps;
use dlc_loop::{buffer_parts, Access, AccessKind, LoopKind, MemorySpace};
use melior::ir::attribute::{
    DenseI32ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::r#type::IntegerType;
use melior::ir::{
    Attribute as MAttribute, Block as MBlock, BlockLike, BlockRef, Identifier, Location as MLoc,
    Operation, OperationRef, Region, RegionLike, Type as MType, Value as MValue,
};
use melior::Context as MContext;
use rustc_hash::FxHashMap;

/// What kind of function is being converted: it decides how loops and allocations lower.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum FnKind {
    /// A CPU `loop.kernel` (`func.func`).
    CpuKernel,
    /// A GPU-bound `loop.kernel` (`gpu.func`).
    GpuKernel,
    /// A host `func.func`.
    Host,
}

/// The state of converting one function.
pub(crate) struct FnExport<'c, 'm, 'd> {
    /// The dlc context the function lives in.
    pub ctx: &'d Context,
    /// The MLIR context ops are built in.
    pub mlir: &'c MContext,
    /// What the function is, which decides how loops and allocations lower.
    pub kind: FnKind,
    /// The MLIR value of every converted dlc value.
    pub values: FxHashMap<Value, MValue<'c, 'm>>,
    /// The function's entry block, where static local buffers are allocated.
    pub entry: BlockRef<'c, 'm>,
    /// The module body, where host constants become `memref.global`s.
    pub module_body: BlockRef<'c, 'm>,
    /// The workgroup buffer of each `loop.block_reduce` (GPU kernels).
    pub reduce_slots: FxHashMap<Op, MValue<'c, 'm>>,
    /// The kernels of the module by name, for `loop.launch`.
    pub kernels: &'d FxHashMap<String, crate::program::KernelInfo>,
    /// How many `memref.global`s the module has so far (for unique names).
    pub globals: u32,
    /// The location of the op being converted.
    pub loc: MLoc<'c>,
}

impl<'c, 'm, 'd> FnExport<'c, 'm, 'd> {
    // -----------------------------------------------------------------------------------------
    // Building MLIR ops.

    /// Builds op `name` and appends it to `block`.
    pub(crate) fn emit(
        &self,
        block: BlockRef<'c, 'm>,
        name: &str,
        operands: &[MValue<'c, 'm>],
        results: &[MType<'c>],
        attrs: &[(&str, MAttribute<'c>)],
    ) -> ExResult<OperationRef<'c, 'm>> {
        let op = self.builder(name, operands, results, attrs).build()?;
        Ok(block.append_operation(op))
    }

    /// Builds op `name` with one result and appends it to `block`; returns the result.
    pub(crate) fn emit1(
        &self,
        block: BlockRef<'c, 'm>,
        name: &str,
        operands: &[MValue<'c, 'm>],
        result: MType<'c>,
        attrs: &[(&str, MAttribute<'c>)],
    ) -> ExResult<MValue<'c, 'm>> {
        let op = self.emit(block, name, operands, &[result], attrs)?;
        Ok(op.result(0)?.into())
    }

    /// Builds op `name` with one region per entry of `regions` — a block with these argument
    /// types, or `None` for an empty region — appends it, and returns it with the blocks.
    pub(crate) fn emit_with_regions(
        &self,
        block: BlockRef<'c, 'm>,
        name: &str,
        operands: &[MValue<'c, 'm>],
        attrs: &[(&str, MAttribute<'c>)],
        regions: &[Option<&[MType<'c>]>],
    ) -> ExResult<(OperationRef<'c, 'm>, Vec<Option<BlockRef<'c, 'm>>>)> {
        self.emit_with_regions_and_results(block, name, operands, &[], attrs, regions)
    }

    /// [`Self::emit_with_regions`] for an op with results of types `results` (`scf.if` and
    /// `scf.while` yielding values).
    pub(crate) fn emit_with_regions_and_results(
        &self,
        block: BlockRef<'c, 'm>,
        name: &str,
        operands: &[MValue<'c, 'm>],
        results: &[MType<'c>],
        attrs: &[(&str, MAttribute<'c>)],
        regions: &[Option<&[MType<'c>]>],
    ) -> ExResult<(OperationRef<'c, 'm>, Vec<Option<BlockRef<'c, 'm>>>)> {
        let mut owned = Vec::with_capacity(regions.len());
        for spec in regions {
            let region = Region::new();
            if let Some(args) = spec {
                let args: Vec<_> = args.iter().map(|&t| (t, self.loc)).collect();
                region.append_block(MBlock::new(&args));
            }
            owned.push(region);
        }
        let op = self
            .builder(name, operands, results, attrs)
            .add_regions_vec(owned)
            .build()?;
        let op = block.append_operation(op);
        let mut blocks = Vec::with_capacity(regions.len());
        for i in 0..regions.len() {
            blocks.push(op.region(i)?.first_block());
        }
        Ok((op, blocks))
    }

    /// Builds op `name` without placing it.
    pub(crate) fn build_op(
        &self,
        name: &str,
        operands: &[MValue<'c, 'm>],
        results: &[MType<'c>],
        attrs: &[(&str, MAttribute<'c>)],
    ) -> ExResult<Operation<'c>> {
        Ok(self.builder(name, operands, results, attrs).build()?)
    }

    fn builder(
        &self,
        name: &str,
        operands: &[MValue<'c, 'm>],
        results: &[MType<'c>],
        attrs: &[(&str, MAttribute<'c>)],
    ) -> OperationBuilder<'c> {
        let attrs: Vec<_> = attrs
            .iter()
            .map(|(n, a)| (Identifier::new(self.mlir, n), *a))
            .collect();
        OperationBuilder::new(name, self.loc)
            .add_operands(operands)
            .add_results(results)
            .add_attributes(&attrs)
    }

    /// `arith.constant <v> : index`.
    pub(crate) fn const_index(&self, block: BlockRef<'c, 'm>, v: i64) -> ExResult<MValue<'c, 'm>> {
        self.const_int(block, MType::index(self.mlir), v)
    }

    /// `arith.constant <v> : <ty>` for an integer or index type.
    pub(crate) fn const_int(
        &self,
        block: BlockRef<'c, 'm>,
        ty: MType<'c>,
        v: i64,
    ) -> ExResult<MValue<'c, 'm>> {
        let value = IntegerAttribute::new(ty, v).into();
        self.emit1(block, "arith.constant", &[], ty, &[("value", value)])
    }

    /// `arith.constant <v> : <ty>` for a float type.
    pub(crate) fn const_float(
        &self,
        block: BlockRef<'c, 'm>,
        ty: MType<'c>,
        v: f64,
    ) -> ExResult<MValue<'c, 'm>> {
        let value = FloatAttribute::new(self.mlir, ty, v).into();
        self.emit1(block, "arith.constant", &[], ty, &[("value", value)])
    }

    /// The zero of the dlc scalar type `elem`, as a constant.
    pub(crate) fn zero(&self, block: BlockRef<'c, 'm>, elem: Type) -> ExResult<MValue<'c, 'm>> {
        let ty = mlir_type(self.ctx, self.mlir, elem)?;
        match self.ctx.type_kind(elem) {
            TypeKind::Float(_) => self.const_float(block, ty, 0.0),
            _ => self.const_int(block, ty, 0),
        }
    }

    /// `scf.for %iv = lb to ub step step`: the op's body block (its terminator still missing).
    pub(crate) fn scf_for(
        &self,
        block: BlockRef<'c, 'm>,
        lb: MValue<'c, 'm>,
        ub: MValue<'c, 'm>,
        step: MValue<'c, 'm>,
    ) -> ExResult<BlockRef<'c, 'm>> {
        let index = [MType::index(self.mlir)];
        let (_, blocks) =
            self.emit_with_regions(block, "scf.for", &[lb, ub, step], &[], &[Some(&index)])?;
        first_block(&blocks, 0)
    }

    /// Appends `scf.yield` with no operands.
    pub(crate) fn scf_yield(&self, block: BlockRef<'c, 'm>) -> ExResult<()> {
        self.emit(block, "scf.yield", &[], &[], &[])?;
        Ok(())
    }

    /// `operandSegmentSizes = array<i32: ...>`.
    pub(crate) fn segments(&self, sizes: &[usize]) -> ExResult<(&'static str, MAttribute<'c>)> {
        let sizes = sizes
            .iter()
            .map(|&s| i32::try_from(s).map_err(|_| "too many operands"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((
            "operandSegmentSizes",
            DenseI32ArrayAttribute::new(self.mlir, &sizes).into(),
        ))
    }

    /// A string attribute.
    pub(crate) fn string(&self, s: &str) -> MAttribute<'c> {
        StringAttribute::new(self.mlir, s).into()
    }

    /// A type attribute.
    pub(crate) fn type_attr(&self, ty: MType<'c>) -> MAttribute<'c> {
        TypeAttribute::new(ty).into()
    }

    /// The MLIR type of a dlc type.
    pub(crate) fn ty(&self, ty: Type) -> ExResult<MType<'c>> {
        mlir_type(self.ctx, self.mlir, ty)
    }

    /// The MLIR value a dlc value was converted to.
    pub(crate) fn value(&self, v: Value) -> ExResult<MValue<'c, 'm>> {
        self.values
            .get(&v)
            .copied()
            .ok_or_else(|| "an operand has no converted value (defined after its use?)".into())
    }

    /// The MLIR values of dlc values.
    pub(crate) fn values_of(&self, vs: &[Value]) -> ExResult<Vec<MValue<'c, 'm>>> {
        vs.iter().map(|&v| self.value(v)).collect()
    }

    // -----------------------------------------------------------------------------------------
    // The op walk.

    /// Converts the ops of `dlc` (its arguments must be bound) into `into`, up to the
    /// terminator: the caller appends the MLIR terminator its op needs.
    pub(crate) fn lower_block(
        &mut self,
        dlc: Block,
        into: BlockRef<'c, 'm>,
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        for op in ctx.block_ops(dlc) {
            self.loc = crate::program::mlir_loc(ctx, self.mlir, ctx.op_loc(op));
            self.lower_op(op, into).map_err(|e| e.at(ctx, op))?;
        }
        Ok(())
    }

    fn lower_op(&mut self, op: Op, block: BlockRef<'c, 'm>) -> ExResult<()> {
        use dlc_arith::ArithOps as A;
        use dlc_loop::LoopOps as L;
        let ctx = self.ctx;
        if let Some(access) = dlc_loop::access(ctx, op) {
            return match access.kind {
                AccessKind::Read if access.padding.is_some() => {
                    self.lower_padded_load(access, block)
                }
                AccessKind::Read => self.lower_load(op, access, block),
                AccessKind::Write => self.lower_store(op, access, block),
                // A cache hint: the exported code is the same without it.
                AccessKind::Prefetch => Ok(()),
            };
        }
        if let Some(arith) = A::of(ctx, op) {
            return match arith {
                A::DivSIOp(_) | A::DivUIOp(_) | A::RemSIOp(_) | A::RemUIOp(_) => {
                    self.lower_guarded_division(arith, block)
                }
                _ => self.copy_op(op, block),
            };
        }
        if MathOps::of(ctx, op).is_some() || (self.kind == FnKind::Host && is_func_op(ctx, op)) {
            return self.copy_op(op, block);
        }
        match L::of(ctx, op) {
            Some(L::YieldOp(_) | L::ReturnOp(_)) => Ok(()),
            Some(L::ForOp(for_op)) => self.lower_for(for_op, block),
            Some(L::IfOp(if_op)) => self.lower_if(if_op, block),
            Some(L::ScheduleBlockOp(sb)) => self.lower_schedule_block(sb, block),
            Some(L::AllocOp(_)) if self.kind == FnKind::Host => self.lower_host_alloc(op, block),
            Some(L::AllocOp(_)) => self.lower_alloc(op, block),
            Some(L::DimOp(dim)) => self.lower_dim(dim, block),
            Some(L::ReadSizeOp(read)) => self.lower_read_size(read, block),
            // Not checked in the export (as a negative `read_size`): the interpreter and the
            // runtime stop at it.
            Some(L::CheckOp(_)) => Ok(()),
            Some(L::ViewOp(view)) => self.lower_view(view, block),
            Some(L::ReshapeOp(reshape)) => self.lower_reshape(reshape, block),
            Some(L::ConstantOp(constant)) => self.lower_constant(constant, block),
            Some(L::LaunchOp(launch)) => self.lower_launch(launch, block),
            Some(L::CallIfOp(call)) => self.lower_call_if(call, block),
            Some(L::CallLoopOp(call)) => self.lower_call_loop(call, block),
            Some(L::Dot4Op(_)) => self.lower_dot(op, block, (4, "arith.extui")),
            Some(L::Dot2Op(_)) => self.lower_dot(op, block, (2, "arith.extsi")),
            Some(L::BroadcastOp(_)) => {
                let ctx = self.ctx;
                let ty = self.ty(ctx.value_type(ctx.result(op, 0)))?;
                let scalar = self.value(ctx.operand(op, 0))?;
                let splat = self.emit1(block, "vector.broadcast", &[scalar], ty, &[])?;
                self.values.insert(ctx.result(op, 0), splat);
                Ok(())
            }
            Some(gpu) if is_gpu_op(gpu) => self.lower_gpu_op(gpu, block),
            _ => Err(format!("'{}' has no MLIR export", ctx.op_name(op)).into()),
        }
    }

    /// `loop.dot4` (`group` 4, `a` widened by `arith.extui`) and `loop.dot2` (2, `arith.extsi`)
    /// in upstream ops: the operands widened to `i32` (`b` by `arith.extsi`), multiplied, and
    /// the `group` products of each lane (`vector.shuffle`s of lanes `t, group + t, ...`)
    /// added to the accumulator, as `dlc-codegen` does without VNNI or `pmaddwd`. A quad or
    /// pair operand is first repeated to every group (a `vector.shuffle`).
    fn lower_dot(
        &mut self,
        op: Op,
        block: BlockRef<'c, 'm>,
        (group, a_ext): (i64, &str),
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let acc_ty = ctx.value_type(ctx.result(op, 0));
        let lanes = ctx
            .shape(acc_ty)
            .and_then(|s| s.first().copied())
            .ok_or("a dot product on a non-vector")?;
        let acc_mty = self.ty(acc_ty)?;
        let vector = |n: i64, bits: u32| {
            MType::parse(self.mlir, &format!("vector<{n}xi{bits}>"))
                .ok_or("cannot build a vector type")
        };
        let bits = match ctx.type_kind(ctx.element_type(ctx.value_type(ctx.operand(op, 2)))) {
            TypeKind::Integer { width } => *width,
            _ => return Err("a dot product of non-integers".into()),
        };
        let wide = vector(group * lanes, 32)?;
        let full = vector(group * lanes, bits)?;
        let [acc, a, b] = [0, 1, 2].map(|i| self.value(ctx.operand(op, i)));
        let [a, b] = [(1, a?), (2, b?)].map(|(i, x)| {
            let one = ctx.shape(ctx.value_type(ctx.operand(op, i))) == Some(&[group][..]);
            if !one || lanes == 1 {
                return Ok(x);
            }
            let mask: Vec<String> = (0..group * lanes)
                .map(|i| (i % group).to_string())
                .collect();
            let mask = MAttribute::parse(self.mlir, &format!("array<i64: {}>", mask.join(", ")))
                .ok_or("cannot build a vector.shuffle mask")?;
            self.emit1(block, "vector.shuffle", &[x, x], full, &[("mask", mask)])
        });
        let a = self.emit1(block, a_ext, &[a?], wide, &[])?;
        let b = self.emit1(block, "arith.extsi", &[b?], wide, &[])?;
        let product = self.emit1(block, "arith.muli", &[a, b], wide, &[])?;
        let mut sum = acc?;
        for t in 0..group {
            let mask: Vec<String> = (0..lanes).map(|i| (group * i + t).to_string()).collect();
            let mask = MAttribute::parse(self.mlir, &format!("array<i64: {}>", mask.join(", ")))
                .ok_or("cannot build a vector.shuffle mask")?;
            let part = self.emit1(
                block,
                "vector.shuffle",
                &[product, product],
                acc_mty,
                &[("mask", mask)],
            )?;
            sum = self.emit1(block, "arith.addi", &[sum, part], acc_mty, &[])?;
        }
        self.values.insert(ctx.result(op, 0), sum);
        Ok(())
    }

    /// Integer division or remainder with dlc's semantics, the ones `dlc-codegen` gives it: a
    /// zero divisor, and `INT_MIN / -1` for the signed ops, yield 0 instead of the hardware trap
    /// (SIGFPE) MLIR's `arith.divsi` lowers to. A divisor that is a constant other than 0 and -1
    /// needs no guard. As in `dlc-codegen`, vectors are refused unless their divisor is such a
    /// constant.
    fn lower_guarded_division(
        &mut self,
        division: dlc_arith::ArithOps,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        use dlc_arith::ArithOps as A;
        let ctx = self.ctx;
        let op = division.op();
        let divisor = ctx.operand(op, 1);
        if dlc_arith::constant_int(ctx, divisor).is_some_and(|c| c != 0 && c != -1) {
            return self.copy_op(op, block);
        }
        let ty = ctx.value_type(ctx.result(op, 0));
        let width = match ctx.type_kind(ty) {
            TypeKind::Integer { width } => *width,
            TypeKind::Index => 64,
            _ => {
                return Err(
                    "integer division of vectors is not supported by the MLIR export".into(),
                )
            }
        };
        let signed = matches!(division, A::DivSIOp(_) | A::RemSIOp(_));
        let (a, d) = (self.value(ctx.operand(op, 0))?, self.value(divisor)?);
        let mty = self.ty(ty)?;
        let i1 = IntegerType::new(self.mlir, 1).into();
        let zero = self.const_int(block, mty, 0)?;
        let one = self.const_int(block, mty, 1)?;
        // MLIR's CmpIPredicate: eq = 0.
        let mut bad = self.cmpi(block, 0, d, zero)?;
        if signed {
            let min = self.const_int(block, mty, i64::MIN >> (64 - width.clamp(1, 64)))?;
            let minus_one = self.const_int(block, mty, -1)?;
            let is_min = self.cmpi(block, 0, a, min)?;
            let is_minus_one = self.cmpi(block, 0, d, minus_one)?;
            let overflow = self.emit1(block, "arith.andi", &[is_min, is_minus_one], i1, &[])?;
            bad = self.emit1(block, "arith.ori", &[bad, overflow], i1, &[])?;
        }
        let safe = self.emit1(block, "arith.select", &[bad, one, d], mty, &[])?;
        // The upstream op of the same name (`arith.divsi`, ...), now on a safe divisor.
        let quotient = self.emit1(block, ctx.op_name(op), &[a, safe], mty, &[])?;
        let result = self.emit1(block, "arith.select", &[bad, zero, quotient], mty, &[])?;
        self.values.insert(ctx.result(op, 0), result);
        Ok(())
    }

    /// Copies an op whose dlc and MLIR forms agree: same name, operands, result types and
    /// attributes (the attributes go through their text form, which both sides share).
    fn copy_op(&mut self, op: Op, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        if !ctx.regions(op).is_empty() {
            return Err("ops with regions cannot be copied to MLIR".into());
        }
        let operands = self.values_of(ctx.operands(op))?;
        let results = ctx
            .result_types(op)
            .iter()
            .map(|&t| self.ty(t))
            .collect::<ExResult<Vec<_>>>()?;
        let printer = dlc_ir::Printer::new(ctx);
        let mut attrs = Vec::new();
        for a in ctx.attrs(op) {
            let text = printer.attr_to_string(a.value);
            let parsed = MAttribute::parse(self.mlir, &text)
                .ok_or_else(|| format!("MLIR cannot parse attribute '{text}'"))?;
            attrs.push((ctx.ident_str(a.name), parsed));
        }
        let name = ctx.op_name(op);
        if self.mlir.is_registered_operation(name) {
            let built = self.emit(block, name, &operands, &results, &attrs)?;
            for (i, r) in ctx.results(op).enumerate() {
                self.values.insert(r, built.result(i)?.into());
            }
            Ok(())
        } else {
            Err(format!("'{name}' is not an op of upstream MLIR").into())
        }
    }

    // -----------------------------------------------------------------------------------------
    // Control flow.

    fn lower_for(&mut self, for_op: dlc_loop::ForOp, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        let kind = for_op
            .loop_kind(ctx)
            .ok_or("loop.for without a valid kind")?;
        let body = for_op.body(ctx).ok_or("loop.for without a body")?;
        let [lb, ub, step] = ctx.operands(for_op.0)[..] else {
            return Err("loop.for needs lb, ub and step".into());
        };
        let (lb, ub, step) = (self.value(lb)?, self.value(ub)?, self.value(step)?);
        let (inner, is_parallel) = match kind {
            LoopKind::Block(_) | LoopKind::Thread(_) => {
                (self.gpu_strided_loop(block, kind, lb, ub, step)?, false)
            }
            LoopKind::Parallel if self.kind == FnKind::CpuKernel => {
                let index = [MType::index(self.mlir)];
                let segments = self.segments(&[1, 1, 1, 0])?;
                let (_, blocks) = self.emit_with_regions(
                    block,
                    "scf.parallel",
                    &[lb, ub, step],
                    &[segments],
                    &[Some(&index)],
                )?;
                (first_block(&blocks, 0)?, true)
            }
            _ => (self.scf_for(block, lb, ub, step)?, false),
        };
        if let Some(&iv) = ctx.block_args(body).first() {
            self.values.insert(iv, inner.argument(0)?.into());
        }
        self.lower_block(body, inner)?;
        let terminator = if is_parallel {
            "scf.reduce"
        } else {
            "scf.yield"
        };
        self.emit(inner, terminator, &[], &[], &[])?;
        Ok(())
    }

    fn lower_if(&mut self, if_op: dlc_loop::IfOp, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        let cond = self.value(if_op.condition(ctx))?;
        let then_block = if_op
            .then_block(ctx)
            .ok_or("loop.if without a then region")?;
        let else_block = if_op.else_block(ctx);
        let no_args: &[MType<'c>] = &[];
        let (_, blocks) = self.emit_with_regions(
            block,
            "scf.if",
            &[cond],
            &[],
            &[Some(no_args), else_block.map(|_| no_args)],
        )?;
        let then_mlir = first_block(&blocks, 0)?;
        self.lower_block(then_block, then_mlir)?;
        self.scf_yield(then_mlir)?;
        if let Some(else_block) = else_block {
            let else_mlir = first_block(&blocks, 1)?;
            self.lower_block(else_block, else_mlir)?;
            self.scf_yield(else_mlir)?;
        }
        Ok(())
    }

    fn lower_schedule_block(
        &mut self,
        sb: dlc_loop::ScheduleBlockOp,
        block: BlockRef<'c, 'm>,
    ) -> ExResult<()> {
        let ctx = self.ctx;
        let body = sb.body(ctx).ok_or("schedule block without a body")?;
        let iter_values = sb.iter_values(ctx);
        let kinds = sb.iter_kind_list(ctx);
        let bind = |this: &mut Self, b: Block| -> ExResult<()> {
            for (&arg, &v) in ctx.block_args(b).iter().zip(iter_values) {
                let value = this.value(v)?;
                this.values.insert(arg, value);
            }
            Ok(())
        };
        if let Some(init) = sb.init_block(ctx).filter(|&b| ctx.first_op(b).is_some()) {
            let i1 = IntegerType::new(self.mlir, 1).into();
            let mut first = self.const_int(block, i1, 1)?;
            let zero = self.const_index(block, 0)?;
            for (&v, kind) in iter_values.iter().zip(&kinds) {
                if *kind == dlc_loop::IterKind::Reduce {
                    let is_zero = self.cmpi(block, 0, self.value(v)?, zero)?;
                    first = self.emit1(block, "arith.andi", &[first, is_zero], i1, &[])?;
                }
            }
            bind(self, init)?;
            let no_args: &[MType<'c>] = &[];
            let (_, blocks) =
                self.emit_with_regions(block, "scf.if", &[first], &[], &[Some(no_args), None])?;
            let then_mlir = first_block(&blocks, 0)?;
            self.lower_block(init, then_mlir)?;
            self.scf_yield(then_mlir)?;
        }
        bind(self, body)?;
        self.lower_block(body, block)?;
        Ok(())
    }

    /// `arith.cmpi <predicate>, a, b` (predicate numbered as MLIR's `CmpIPredicate`).
    pub(crate) fn cmpi(
        &self,
        block: BlockRef<'c, 'm>,
        predicate: i64,
        a: MValue<'c, 'm>,
        b: MValue<'c, 'm>,
    ) -> ExResult<MValue<'c, 'm>> {
        let i1 = IntegerType::new(self.mlir, 1).into();
        let i64t = IntegerType::new(self.mlir, 64).into();
        let p = IntegerAttribute::new(i64t, predicate).into();
        self.emit1(block, "arith.cmpi", &[a, b], i1, &[("predicate", p)])
    }

    // -----------------------------------------------------------------------------------------
    // Memory.

    fn lower_alloc(&mut self, op: Op, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        let result = ctx.result(op, 0);
        let (dims, elem, space) =
            buffer_parts(ctx, ctx.value_type(result)).ok_or("loop.alloc of a non-buffer type")?;
        match space {
            // Shared buffers are workgroup attributions of the gpu.func, bound before the walk.
            MemorySpace::Shared if self.kind == FnKind::GpuKernel => {
                if self.values.contains_key(&result) {
                    Ok(())
                } else {
                    Err("a shared buffer needs static dims to become workgroup memory".into())
                }
            }
            MemorySpace::Shared => Err("shared buffers exist only in GPU kernels".into()),
            MemorySpace::Global => {
                Err("a global loop.alloc belongs in a host function, not a kernel".into())
            }
            MemorySpace::Local => {
                let ty = memref_type(ctx, self.mlir, &dims, elem, MemorySpace::Local)?;
                let sizes = self.values_of(ctx.operands(op))?;
                let memref = if sizes.is_empty() {
                    // Static: allocated once at the function entry, as the code generator does.
                    let segments = self.segments(&[0, 0])?;
                    let alloca = self.build_op("memref.alloca", &[], &[ty], &[segments])?;
                    self.entry.insert_operation(0, alloca).result(0)?.into()
                } else {
                    let segments = self.segments(&[sizes.len(), 0])?;
                    self.emit1(block, "memref.alloca", &sizes, ty, &[segments])?
                };
                self.zero_fill(block, memref, elem, &dims, &sizes)?;
                self.values.insert(result, memref);
                Ok(())
            }
        }
    }

    /// Stores zero into every element of `memref`, whose `?` dims are `sizes` in order.
    pub(crate) fn zero_fill(
        &self,
        block: BlockRef<'c, 'm>,
        memref: MValue<'c, 'm>,
        elem: Type,
        dims: &[i64],
        sizes: &[MValue<'c, 'm>],
    ) -> ExResult<()> {
        let zero = self.zero(block, elem)?;
        let c0 = self.const_index(block, 0)?;
        let c1 = self.const_index(block, 1)?;
        let mut dynamic = sizes.iter();
        let mut bounds = Vec::with_capacity(dims.len());
        for &d in dims {
            bounds.push(if d == DYNAMIC {
                *dynamic.next().ok_or("loop.alloc has too few sizes")?
            } else {
                self.const_index(block, d)?
            });
        }
        let mut bodies = Vec::with_capacity(dims.len());
        let mut ivs: Vec<MValue<'c, 'm>> = Vec::with_capacity(dims.len());
        let mut at = block;
        for ub in bounds {
            let body = self.scf_for(at, c0, ub, c1)?;
            ivs.push(body.argument(0)?.into());
            bodies.push(body);
            at = body;
        }
        let mut operands = vec![zero, memref];
        operands.extend(ivs);
        self.emit(at, "memref.store", &operands, &[], &[])?;
        for body in bodies {
            self.scf_yield(body)?;
        }
        Ok(())
    }

    fn lower_load(&mut self, op: Op, load: Access<'_>, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        let buffer = self.value(load.buffer)?;
        let indices = self.values_of(load.indices)?;
        let result = load.value.ok_or("a load without a result")?;
        let ty = self.ty(ctx.value_type(result))?;
        if let Some(lanes) = self.bool_vector_lanes(ctx.value_type(result)) {
            // LLVM packs `vector<Nxi1>` into bits, but i1 buffers hold one byte per element:
            // read the lanes one by one.
            let i1 = IntegerType::new(self.mlir, 1).into();
            let mut elements = Vec::with_capacity(lanes);
            for l in 0..lanes {
                let mut args = vec![buffer];
                args.extend(self.lane_indices(block, &indices, l)?);
                elements.push(self.emit1(block, "memref.load", &args, i1, &[])?);
            }
            let v = self.emit1(block, "vector.from_elements", &elements, ty, &[])?;
            self.values.insert(result, v);
            return Ok(());
        }
        let name = if ctx.view::<dlc_loop::VLoadOp>(op).is_some() {
            "vector.load"
        } else {
            "memref.load"
        };
        let mut operands = vec![buffer];
        operands.extend(indices);
        let v = self.emit1(block, name, &operands, ty, &[])?;
        self.values.insert(result, v);
        Ok(())
    }

    /// `loop.load_padded` and `loop.vload_padded`, lane by lane: an `scf.if` on the lane's
    /// indices all being below their dims (compared unsigned, so a negative one is out)
    /// yields the `memref.load` or the padding; a vector's lanes are then
    /// `vector.from_elements`. Out-of-bounds lanes read nothing.
    fn lower_padded_load(&mut self, load: Access<'_>, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        let buffer = self.value(load.buffer)?;
        let indices = self.values_of(load.indices)?;
        let padding = self.value(load.padding.ok_or("a padded load without its padding")?)?;
        let result = load.value.ok_or("a load without a result")?;
        let result_ty = ctx.value_type(result);
        let vector = ctx.shape(result_ty).is_some();
        let elem = self.ty(ctx.element_type(result_ty))?;
        let index = MType::index(self.mlir);
        let mut dims = Vec::with_capacity(indices.len());
        for axis in 0..indices.len() {
            let axis = self.const_index(block, axis as i64)?;
            dims.push(self.emit1(block, "memref.dim", &[buffer, axis], index, &[])?);
        }
        const ULT: i64 = 6; // arith::CmpIPredicate::ult
        let mut elements = Vec::with_capacity(load.lanes as usize);
        for lane in 0..load.lanes.max(1) as usize {
            let at = self.lane_indices(block, &indices, lane)?;
            let mut inside = None;
            for (&i, &d) in at.iter().zip(&dims) {
                let ok = self.cmpi(block, ULT, i, d)?;
                inside = Some(match inside {
                    None => ok,
                    Some(prev) => {
                        let i1 = IntegerType::new(self.mlir, 1).into();
                        self.emit1(block, "arith.andi", &[prev, ok], i1, &[])?
                    }
                });
            }
            let inside = inside.ok_or("a padded load of a rank-0 buffer")?;
            let no_args: &[MType<'c>] = &[];
            let (op, blocks) = self.emit_with_regions_and_results(
                block,
                "scf.if",
                &[inside],
                &[elem],
                &[],
                &[Some(no_args), Some(no_args)],
            )?;
            let then_block = first_block(&blocks, 0)?;
            let mut args = vec![buffer];
            args.extend(at);
            let read = self.emit1(then_block, "memref.load", &args, elem, &[])?;
            self.emit(then_block, "scf.yield", &[read], &[], &[])?;
            let else_block = first_block(&blocks, 1)?;
            self.emit(else_block, "scf.yield", &[padding], &[], &[])?;
            elements.push(op.result(0)?.into());
        }
        let v = if vector {
            let ty = self.ty(result_ty)?;
            self.emit1(block, "vector.from_elements", &elements, ty, &[])?
        } else {
            elements[0]
        };
        self.values.insert(result, v);
        Ok(())
    }

    fn lower_store(&mut self, op: Op, store: Access<'_>, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        let stored = store.value.ok_or("a store without a value")?;
        let value = self.value(stored)?;
        let buffer = self.value(store.buffer)?;
        let indices = self.values_of(store.indices)?;
        if let Some(lanes) = self.bool_vector_lanes(ctx.value_type(stored)) {
            // One byte per element, as in `lower_load`.
            let i1 = IntegerType::new(self.mlir, 1).into();
            for l in 0..lanes {
                let position = MAttribute::parse(self.mlir, &format!("array<i64: {l}>"))
                    .ok_or("cannot build a vector.extract position")?;
                let lane = self.emit1(
                    block,
                    "vector.extract",
                    &[value],
                    i1,
                    &[("static_position", position)],
                )?;
                let mut args = vec![lane, buffer];
                args.extend(self.lane_indices(block, &indices, l)?);
                self.emit(block, "memref.store", &args, &[], &[])?;
            }
            return Ok(());
        }
        let name = if ctx.view::<dlc_loop::VStoreOp>(op).is_some() {
            "vector.store"
        } else {
            "memref.store"
        };
        let mut operands = vec![value, buffer];
        operands.extend(indices);
        self.emit(block, name, &operands, &[], &[])?;
        Ok(())
    }

    /// The lane count of a `vector<Nxi1>` type, `None` for any other type.
    fn bool_vector_lanes(&self, ty: Type) -> Option<usize> {
        match self.ctx.type_kind(ty) {
            dlc_ir::TypeKind::Vector { shape, element }
                if self.ctx.integer_width(*element) == Some(1) =>
            {
                shape.first().and_then(|&n| usize::try_from(n).ok())
            }
            _ => None,
        }
    }

    /// `indices` with `lane` added to the last one.
    fn lane_indices(
        &self,
        block: BlockRef<'c, 'm>,
        indices: &[MValue<'c, 'm>],
        lane: usize,
    ) -> ExResult<Vec<MValue<'c, 'm>>> {
        let mut out = indices.to_vec();
        if let Some(last) = out.last_mut() {
            let offset = self.const_index(block, lane as i64)?;
            *last = self.emit1(
                block,
                "arith.addi",
                &[*last, offset],
                MType::index(self.mlir),
                &[],
            )?;
        }
        Ok(out)
    }

    fn lower_dim(&mut self, dim: dlc_loop::DimOp, block: BlockRef<'c, 'm>) -> ExResult<()> {
        let ctx = self.ctx;
        let axis = dim.axis_index(ctx).ok_or("loop.dim without an axis")?;
        let buf = self.value(dim.buffer(ctx))?;
        let axis = self.const_index(block, i64::try_from(axis).map_err(|_| "axis too large")?)?;
        let v = self.emit1(
            block,
            "memref.dim",
            &[buf, axis],
            MType::index(self.mlir),
            &[],
        )?;
        self.values.insert(dim.result(ctx), v);
        Ok(())
    }
}

/// True for the ops of the `func` dialect, which a host function's body copies as they are.
fn is_func_op(ctx: &Context, op: Op) -> bool {
    ctx.view::<dlc_func::FuncOp>(op).is_some()
        || ctx.view::<dlc_func::ReturnOp>(op).is_some()
        || ctx.view::<dlc_func::CallOp>(op).is_some()
}

/// Block `i` of an `emit_with_regions` result.
pub(crate) fn first_block<'c, 'm>(
    blocks: &[Option<BlockRef<'c, 'm>>],
    i: usize,
) -> ExResult<BlockRef<'c, 'm>> {
    blocks
        .get(i)
        .copied()
        .flatten()
        .ok_or_else(|| ExportError::from("an MLIR region has no block"))
}
