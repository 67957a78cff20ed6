//! GPU ops and GPU-bound loops as the `gpu` dialect, inside a `gpu.func`.
//!
//! - `loop.thread_id` / `block_id` / `block_dim` are `gpu.thread_id` / `gpu.block_id` /
//!   `gpu.block_dim` (already `index`).
//! - A `thread.*` (`block.*`) loop keeps the interpreter's meaning, as in the code generator:
//!   thread `t` of `n` takes iterations `lb + t*step`, `lb + (t+n)*step`, ... — an `scf.for`
//!   from `lb + t*step` with stride `n*step` (`n` is `gpu.block_dim`, or `gpu.grid_dim`).
//! - `loop.barrier` is `gpu.barrier`.
//! - `loop.warp_reduce` is five `gpu.shuffle xor` steps (offsets 16 to 1, width 32); 64-bit
//!   values are shuffled as two 32-bit halves and narrower ones widened to 32 bits, because
//!   NVVM's shuffle moves 32 bits.
//! - `loop.block_reduce` reduces in each warp, passes the warp results through a 32-element
//!   workgroup buffer (a workgroup attribution of the `gpu.func`) and reduces them again.
//! - Shared buffers are workgroup attributions too: they must have static dims.
//!
//! In a CPU kernel every one of these is an error, as in the code generator.

use crate::error::ExResult;
use crate::function::{FnExport, FnKind};
use dlc_ir::{Context, DenseValue, Op, Type, TypeKind};
use dlc_loop::{buffer_parts, Dim, LoopKind, LoopOps, MemorySpace, ReduceKind};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute as MAttribute, BlockRef, Type as MType, Value as MValue, ValueLike};
use melior::Context as MContext;

/// A workgroup buffer a GPU kernel needs: the `loop.alloc` or `loop.block_reduce` it serves and
/// its dlc element type and dims.
#[derive(Clone, Debug)]
pub(crate) struct WorkgroupBuffer {
    /// The `loop.alloc` or `loop.block_reduce`.
    pub op: Op,
    /// The dlc element type.
    pub elem: Type,
    /// The static dims.
    pub dims: Vec<i64>,
}

/// The workgroup buffers of a GPU kernel, in program order: one per static shared `loop.alloc`
/// and one 33-slot buffer per `loop.block_reduce` (a slot per warp, and one for the total).
pub(crate) fn workgroup_buffers(ctx: &Context, kernel: Op) -> Vec<WorkgroupBuffer> {
    let mut found = Vec::new();
    ctx.for_each_op(kernel, &mut |op| match LoopOps::of(ctx, op) {
        Some(LoopOps::AllocOp(alloc)) => {
            let ty = ctx.value_type(alloc.result(ctx));
            if let Some((dims, elem, MemorySpace::Shared)) = buffer_parts(ctx, ty) {
                if dims.iter().all(|&d| d >= 0) {
                    found.push(WorkgroupBuffer { op, elem, dims });
                }
            }
        }
        Some(LoopOps::BlockReduceOp(reduce)) => {
            let elem = ctx.value_type(reduce.result(ctx));
            found.push(WorkgroupBuffer {
                op,
                elem,
                dims: vec![33],
            });
        }
        _ => {}
    });
    found
}

/// True when `kernel` must become a `gpu.func`: GPU-bound by the loop dialect's rule, or using
/// a GPU op.
pub(crate) fn is_gpu(ctx: &Context, kernel: Op) -> bool {
    if dlc_loop::is_gpu_kernel(ctx, kernel) {
        return true;
    }
    let mut gpu_op = false;
    ctx.for_each_op(kernel, &mut |op| {
        gpu_op |= LoopOps::of(ctx, op).is_some_and(is_gpu_op);
    });
    gpu_op
}

/// True for the loop dialect's GPU ops: barrier, thread and block indices, warp and block
/// reductions.
pub(crate) fn is_gpu_op(op: LoopOps) -> bool {
    matches!(
        op,
        LoopOps::BarrierOp(_)
            | LoopOps::ThreadIdOp(_)
            | LoopOps::BlockIdOp(_)
            | LoopOps::BlockDimOp(_)
            | LoopOps::WarpReduceOp(_)
            | LoopOps::BlockReduceOp(_)
    )
}

/// `#gpu<dim x>`.
fn dim_attr(mlir: &MContext, dim: Dim) -> ExResult<MAttribute<'_>> {
    MAttribute::parse(mlir, &format!("#gpu<dim {}>", dim.keyword()))
        .ok_or_else(|| "the gpu dialect is not loaded in the MLIR context".into())
}

impl<'c, 'm> FnExport<'c, 'm, '_> {
    pub(crate) fn lower_gpu_op(&mut self, gpu: LoopOps, block: BlockRef<'c, 'm>) -> ExResult<()> {
        use LoopOps as L;
        let ctx = self.ctx;
        let op = gpu.op();
        if self.kind != FnKind::GpuKernel {
            return Err(format!(
                "'{}' is a GPU op: it needs a GPU-bound kernel",
                ctx.op_name(op)
            )
            .into());
        }
        match gpu {
            L::BarrierOp(_) => {
                self.emit(block, "gpu.barrier", &[], &[], &[])?;
                Ok(())
            }
            L::ThreadIdOp(_) | L::BlockIdOp(_) | L::BlockDimOp(_) => {
                let dim = dlc_loop::gpu_dim(ctx, op).ok_or("missing or invalid 'dim'")?;
                let gpu_name = match gpu {
                    L::ThreadIdOp(_) => "gpu.thread_id",
                    L::BlockIdOp(_) => "gpu.block_id",
                    _ => "gpu.block_dim",
                };
                let v = self.gpu_index(block, gpu_name, dim)?;
                self.values.insert(ctx.result(op, 0), v);
                Ok(())
            }
            L::WarpReduceOp(_) | L::BlockReduceOp(_) => {
                let kind = dlc_loop::reduce_kind(ctx, op).ok_or("missing or invalid 'kind'")?;
                let elem = ctx.value_type(ctx.result(op, 0));
                let x = self.value(ctx.operand(op, 0))?;
                let r = if let L::WarpReduceOp(_) = gpu {
                    self.warp_reduce(block, kind, elem, x)?
                } else {
                    self.block_reduce(block, op, kind, elem, x)?
                };
                self.values.insert(ctx.result(op, 0), r);
                Ok(())
            }
            _ => Err(format!("'{}' is not a GPU op", ctx.op_name(op)).into()),
        }
    }

    /// `gpu.<name> <dim>`, an `index`.
    fn gpu_index(&self, block: BlockRef<'c, 'm>, name: &str, dim: Dim) -> ExResult<MValue<'c, 'm>> {
        let attr = dim_attr(self.mlir, dim)?;
        self.emit1(
            block,
            name,
            &[],
            MType::index(self.mlir),
            &[("dimension", attr)],
        )
    }

    /// The body block of the strided `scf.for` a `block.*`/`thread.*` loop becomes.
    pub(crate) fn gpu_strided_loop(
        &self,
        block: BlockRef<'c, 'm>,
        kind: LoopKind,
        lb: MValue<'c, 'm>,
        ub: MValue<'c, 'm>,
        step: MValue<'c, 'm>,
    ) -> ExResult<BlockRef<'c, 'm>> {
        if self.kind != FnKind::GpuKernel {
            return Err(format!("a '{}' loop needs a GPU-bound kernel", kind.name()).into());
        }
        let (index, count) = match kind {
            LoopKind::Thread(d) => (
                self.gpu_index(block, "gpu.thread_id", d)?,
                self.gpu_index(block, "gpu.block_dim", d)?,
            ),
            LoopKind::Block(d) => (
                self.gpu_index(block, "gpu.block_id", d)?,
                self.gpu_index(block, "gpu.grid_dim", d)?,
            ),
            _ => return Err("not a GPU loop".into()),
        };
        let index_ty = MType::index(self.mlir);
        let offset = self.emit1(block, "arith.muli", &[index, step], index_ty, &[])?;
        let start = self.emit1(block, "arith.addi", &[lb, offset], index_ty, &[])?;
        let stride = self.emit1(block, "arith.muli", &[count, step], index_ty, &[])?;
        self.scf_for(block, start, ub, stride)
    }

    /// Combines `x` over the 32 lanes of the warp; every lane gets the result.
    fn warp_reduce(
        &self,
        block: BlockRef<'c, 'm>,
        kind: ReduceKind,
        elem: Type,
        x: MValue<'c, 'm>,
    ) -> ExResult<MValue<'c, 'm>> {
        let mut acc = x;
        for offset in [16, 8, 4, 2, 1] {
            let other = self.shuffle_xor(block, elem, acc, offset)?;
            acc = self.combine(block, kind, elem, acc, other)?;
        }
        Ok(acc)
    }

    /// `gpu.shuffle xor` of a scalar of any width up to 64 bits.
    fn shuffle_xor(
        &self,
        block: BlockRef<'c, 'm>,
        elem: Type,
        x: MValue<'c, 'm>,
        offset: i64,
    ) -> ExResult<MValue<'c, 'm>> {
        let ctx = self.ctx;
        let mlir = self.mlir;
        let ty = x.r#type();
        let (bits, is_float, is_index) = match ctx.type_kind(elem) {
            TypeKind::Integer { width } => (*width, false, false),
            TypeKind::Float(f) => (f.width(), true, false),
            TypeKind::Index => (64, false, true),
            _ => return Err("warp shuffles take scalars".into()),
        };
        let int = |w: u32| -> MType<'c> { IntegerType::new(mlir, w).into() };
        let (i32t, i64t) = (int(32), int(64));
        let raw = if is_float {
            self.emit1(block, "arith.bitcast", &[x], int(bits), &[])?
        } else if is_index {
            self.emit1(block, "arith.index_cast", &[x], i64t, &[])?
        } else {
            x
        };
        let off = self.const_int(block, i32t, offset)?;
        let width = self.const_int(block, i32t, 32)?;
        let mode = MAttribute::parse(mlir, "#gpu<shuffle_mode xor>")
            .ok_or("the gpu dialect is not loaded in the MLIR context")?;
        let shfl = |v: MValue<'c, 'm>| -> ExResult<MValue<'c, 'm>> {
            let i1 = int(1);
            let op = self.emit(
                block,
                "gpu.shuffle",
                &[v, off, width],
                &[i32t, i1],
                &[("mode", mode)],
            )?;
            Ok(op.result(0)?.into())
        };
        let shuffled = match bits {
            64 => {
                let c32 = self.const_int(block, i64t, 32)?;
                let lo = self.emit1(block, "arith.trunci", &[raw], i32t, &[])?;
                let high = self.emit1(block, "arith.shrui", &[raw, c32], i64t, &[])?;
                let hi = self.emit1(block, "arith.trunci", &[high], i32t, &[])?;
                let (lo, hi) = (shfl(lo)?, shfl(hi)?);
                let lo = self.emit1(block, "arith.extui", &[lo], i64t, &[])?;
                let hi = self.emit1(block, "arith.extui", &[hi], i64t, &[])?;
                let hi = self.emit1(block, "arith.shli", &[hi, c32], i64t, &[])?;
                self.emit1(block, "arith.ori", &[lo, hi], i64t, &[])?
            }
            32 => shfl(raw)?,
            _ if bits < 32 => {
                let wide = self.emit1(block, "arith.extui", &[raw], i32t, &[])?;
                let s = shfl(wide)?;
                self.emit1(block, "arith.trunci", &[s], int(bits), &[])?
            }
            _ => return Err("warp shuffles take scalars of at most 64 bits".into()),
        };
        if is_float {
            self.emit1(block, "arith.bitcast", &[shuffled], ty, &[])
        } else if is_index {
            self.emit1(block, "arith.index_cast", &[shuffled], ty, &[])
        } else {
            Ok(shuffled)
        }
    }

    /// `a <kind> b`, as the code generator combines reductions (NaN-propagating float max/min).
    fn combine(
        &self,
        block: BlockRef<'c, 'm>,
        kind: ReduceKind,
        elem: Type,
        a: MValue<'c, 'm>,
        b: MValue<'c, 'm>,
    ) -> ExResult<MValue<'c, 'm>> {
        let name = if matches!(self.ctx.type_kind(elem), TypeKind::Float(_)) {
            kind.float_combiner()
                .ok_or("this reduction kind does not apply to floats")?
        } else {
            kind.int_combiner()
        };
        self.emit1(block, name, &[a, b], a.r#type(), &[])
    }

    /// Combines `x` over all threads of the block through the op's 33-slot workgroup buffer.
    fn block_reduce(
        &self,
        block: BlockRef<'c, 'm>,
        op: Op,
        kind: ReduceKind,
        elem: Type,
        x: MValue<'c, 'm>,
    ) -> ExResult<MValue<'c, 'm>> {
        let slots = *self
            .reduce_slots
            .get(&op)
            .ok_or("loop.block_reduce has no workgroup buffer")?;
        let index = MType::index(self.mlir);
        let (tx, ty, tz) = (
            self.gpu_index(block, "gpu.thread_id", Dim::X)?,
            self.gpu_index(block, "gpu.thread_id", Dim::Y)?,
            self.gpu_index(block, "gpu.thread_id", Dim::Z)?,
        );
        let (nx, ny, nz) = (
            self.gpu_index(block, "gpu.block_dim", Dim::X)?,
            self.gpu_index(block, "gpu.block_dim", Dim::Y)?,
            self.gpu_index(block, "gpu.block_dim", Dim::Z)?,
        );
        let bin = |name: &str, a, b| self.emit1(block, name, &[a, b], index, &[]);
        // tid = tx + nx * (ty + ny * tz)
        let inner = bin("arith.addi", ty, bin("arith.muli", ny, tz)?)?;
        let tid = bin("arith.addi", tx, bin("arith.muli", nx, inner)?)?;
        let c32 = self.const_index(block, 32)?;
        let lane = bin("arith.remui", tid, c32)?;
        let warp = bin("arith.divui", tid, c32)?;
        let partial = self.warp_reduce(block, kind, elem, x)?;
        let c0 = self.const_index(block, 0)?;
        let is_lane0 = self.cmpi(block, 0, lane, c0)?;
        let no_args: &[MType<'c>] = &[];
        let (_, blocks) =
            self.emit_with_regions(block, "scf.if", &[is_lane0], &[], &[Some(no_args), None])?;
        let then = crate::function::first_block(&blocks, 0)?;
        self.emit(then, "memref.store", &[partial, slots, warp], &[], &[])?;
        self.scf_yield(then)?;
        self.emit(block, "gpu.barrier", &[], &[], &[])?;
        // Warp 0 combines the warp results (the identity past the last warp) and lane 0 stores
        // the total in slot 32. Warp 0 has a lane for every warp's slot; a partial last warp
        // does not, so it cannot combine the slots itself.
        let threads = bin("arith.muli", nx, bin("arith.muli", ny, nz)?)?;
        let c31 = self.const_index(block, 31)?;
        let warps = bin("arith.divui", bin("arith.addi", threads, c31)?, c32)?;
        let is_warp0 = self.cmpi(block, 0, warp, c0)?;
        let (_, blocks) =
            self.emit_with_regions(block, "scf.if", &[is_warp0], &[], &[Some(no_args), None])?;
        let first = crate::function::first_block(&blocks, 0)?;
        let have = self.cmpi(first, 6, lane, warps)?; // ult
        let loaded = self.emit1(first, "memref.load", &[slots, lane], x.r#type(), &[])?;
        let identity = self.identity(first, kind, elem, x.r#type())?;
        let v = self.emit1(
            first,
            "arith.select",
            &[have, loaded, identity],
            x.r#type(),
            &[],
        )?;
        let total = self.warp_reduce(first, kind, elem, v)?;
        let (_, blocks) =
            self.emit_with_regions(first, "scf.if", &[is_lane0], &[], &[Some(no_args), None])?;
        let store = crate::function::first_block(&blocks, 0)?;
        self.emit(store, "memref.store", &[total, slots, c32], &[], &[])?;
        self.scf_yield(store)?;
        self.scf_yield(first)?;
        // Every thread reads the total; the next block_reduce's first barrier keeps its stores
        // from overtaking these reads.
        self.emit(block, "gpu.barrier", &[], &[], &[])?;
        self.emit1(block, "memref.load", &[slots, c32], x.r#type(), &[])
    }

    /// The identity of `kind` for values of the dlc type `elem` (MLIR type `ty`):
    /// [`ReduceKind::identity`].
    fn identity(
        &self,
        block: BlockRef<'c, 'm>,
        kind: ReduceKind,
        elem: Type,
        ty: MType<'c>,
    ) -> ExResult<MValue<'c, 'm>> {
        match kind.identity(self.ctx, elem) {
            Some(DenseValue::Float(x)) => self.const_float(block, ty, x),
            Some(DenseValue::Int(x)) => self.const_int(block, ty, x as i64),
            None => Err("this reduction kind has no identity on this type".into()),
        }
    }
}
