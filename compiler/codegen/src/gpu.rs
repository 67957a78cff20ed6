//! GPU ops and GPU-bound loops on NVPTX.
//!
//! - `loop.thread_id` / `block_id` / `block_dim` read the PTX special registers `tid`, `ctaid`,
//!   `ntid` (zero-extended to `index`).
//! - A `thread.*` (`block.*`) loop that is still in the kernel runs with the interpreter's
//!   meaning: thread `t` of `n` takes iterations `lb + t*step`, `lb + (t+n)*step`, ... — a loop
//!   from `lb + t*step` with stride `n*step`.
//! - `loop.barrier` is `bar.sync 0`.
//! - `loop.warp_reduce` combines over the lanes of the warp that exist. When every warp is
//!   full (a static block of a multiple of 32 threads) it is five butterfly shuffles
//!   (`shfl.sync.bfly`, full mask); a static block of `n < 32` threads, `n` a power of two,
//!   shuffles with offsets below `n` among lanes `0..n` (mask `(1 << n) - 1`); otherwise (a
//!   partial last warp, or a block sized at launch) each warp counts its lanes at run time and
//!   reduces with guarded `shfl.sync.down` steps among exactly those lanes, then broadcasts
//!   lane 0's total with `shfl.sync.idx`. A `shfl.sync` whose mask names a lane that does not
//!   exist is undefined behaviour. 64-bit values are shuffled as two 32-bit halves, narrower
//!   ones widened to 32 bits.
//! - `loop.block_reduce` (when `cross-thread-reduce` has not expanded it) reduces in each warp,
//!   passes the warp results through a 32-element shared buffer and reduces them in warp 0.
//!
//! On the CPU every one of these is an error: GPU kernels run there only in the interpreter.

use crate::error::CgResult;
use crate::function::{alignment_of, FnLowering, LoopHint, Machine};
use dlc_ir::{Block, DenseValue};
use dlc_loop::{Dim, LoopKind, LoopOps, ReduceKind, ReduceScalar};
use inkwell::module::Linkage;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicValueEnum, InstructionOpcode as Opc, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

impl<'ctx> FnLowering<'_, 'ctx> {
    pub(crate) fn lower_gpu_op(&mut self, gpu: LoopOps) -> CgResult<()> {
        use LoopOps as L;
        let ctx = self.ctx;
        let op = gpu.op();
        let name = ctx.op_name(op);
        if self.machine != Machine::Nvptx {
            return Err(format!(
                "'{name}' is a GPU op: this kernel can only be compiled for NVPTX (--target=nvptx64)"
            )
            .into());
        }
        match gpu {
            L::BarrierOp(_) => self.barrier(),
            L::ThreadIdOp(_) | L::BlockIdOp(_) | L::BlockDimOp(_) => {
                let dim = dlc_loop::gpu_dim(ctx, op).ok_or("missing or invalid 'dim'")?;
                let register = match gpu {
                    L::ThreadIdOp(_) => "tid",
                    L::BlockIdOp(_) => "ctaid",
                    _ => "ntid",
                };
                let v = self.special_register(register, dim)?;
                self.values.insert(ctx.result(op, 0), v.into());
                Ok(())
            }
            L::WarpReduceOp(_) | L::BlockReduceOp(_) => {
                let kind = dlc_loop::reduce_kind(ctx, op).ok_or("missing or invalid 'kind'")?;
                let x = self.value(ctx.operand(op, 0))?;
                let r = if let L::WarpReduceOp(_) = gpu {
                    self.warp_reduce(kind, x)?
                } else {
                    self.block_reduce(kind, x)?
                };
                self.values.insert(ctx.result(op, 0), r);
                Ok(())
            }
            _ => Err(format!("'{name}' is not a GPU op").into()),
        }
    }

    pub(crate) fn lower_gpu_for(
        &mut self,
        kind: LoopKind,
        body: Block,
        (lb, ub, step): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
    ) -> CgResult<()> {
        if self.machine != Machine::Nvptx {
            return Err(format!(
                "a '{}' loop is GPU-bound: this kernel can only be compiled for NVPTX (--target=nvptx64)",
                kind.name()
            )
            .into());
        }
        let (index, count) = match kind {
            LoopKind::Thread(d) => (
                self.special_register("tid", d)?,
                self.special_register("ntid", d)?,
            ),
            LoopKind::Block(d) => (
                self.special_register("ctaid", d)?,
                self.special_register("nctaid", d)?,
            ),
            _ => return Err("not a GPU loop".into()),
        };
        let b = &self.builder;
        let start = b.build_int_nsw_add(lb, b.build_int_nsw_mul(index, step, "")?, "")?;
        let stride = b.build_int_nsw_mul(count, step, "")?;
        let body_arg = self.ctx.block_args(body).first().copied();
        self.emit_counted_loop(start, ub, stride, LoopHint::None, |this, iv| {
            if let Some(arg) = body_arg {
                this.values.insert(arg, iv.into());
            }
            this.lower_block(body)
        })
    }

    /// `llvm.nvvm.read.ptx.sreg.<register>.<dim>` as an `i64`.
    fn special_register(&self, register: &str, dim: Dim) -> CgResult<IntValue<'ctx>> {
        let name = format!("llvm.nvvm.read.ptx.sreg.{register}.{}", dim.keyword());
        let v = self
            .call_intrinsic(&name, &[], &[])?
            .ok_or("special register read returned nothing")?
            .into_int_value();
        Ok(self
            .builder
            .build_int_z_extend(v, self.llvm.i64_type(), register)?)
    }

    fn barrier(&self) -> CgResult<()> {
        let zero = self.llvm.i32_type().const_zero();
        self.call_intrinsic(
            "llvm.nvvm.barrier.cta.sync.aligned.all",
            &[],
            &[zero.into()],
        )?;
        Ok(())
    }

    /// Combines `x` over the lanes of the warp that exist; every lane gets the result.
    fn warp_reduce(
        &self,
        kind: ReduceKind,
        x: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let full = self.llvm.i32_type().const_all_ones();
        let threads = self.block.map(|d| d.iter().product::<i64>());
        match threads {
            Some(n) if n % WARP == 0 => self.butterfly(kind, x, WARP as u64, full),
            Some(n) if (1..WARP).contains(&n) && n & (n - 1) == 0 => {
                // The one warp has lanes 0..n: the mask names them, and xor offsets below n
                // stay inside them.
                let mask = self.llvm.i32_type().const_int((1u64 << n) - 1, false);
                self.butterfly(kind, x, n as u64, mask)
            }
            _ => self.partial_warp_reduce(kind, x),
        }
    }

    /// Butterfly shuffles with offsets `width/2`, ..., 1 among the lanes of `mask`, which are
    /// lanes `0..width` of every warp.
    fn butterfly(
        &self,
        kind: ReduceKind,
        x: BasicValueEnum<'ctx>,
        width: u64,
        mask: IntValue<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let mut acc = x;
        let mut offset = width / 2;
        while offset > 0 {
            let other = self.shuffle(Shuffle::Bfly, acc, offset, mask)?;
            acc = self.combine(kind, acc, other)?;
            offset /= 2;
        }
        Ok(acc)
    }

    /// A warp reduction where a warp may have fewer than 32 lanes: the last warp of a block
    /// whose size is not a multiple of 32, or any warp of a block sized at launch. A warp of
    /// `live` lanes (`min(32, threads - 32 * warp)`, the same in all of its lanes) shuffles
    /// among exactly those lanes (mask `(1 << live) - 1`): a tree of `shfl.sync.down` steps
    /// where lane `l` combines lane `l + offset`'s value only if that lane exists, which leaves
    /// the total in lane 0 for any `live`, then `shfl.sync.idx` hands it to every lane. (A
    /// butterfly is only right when `live` is a power of two; `activemask` would be wrong
    /// inside a branch that some live lanes skip.)
    fn partial_warp_reduce(
        &self,
        kind: ReduceKind,
        x: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let b = &self.builder;
        let (i32t, i64t) = (self.llvm.i32_type(), self.llvm.i64_type());
        let c32 = i64t.const_int(WARP as u64, false);
        let tid = self.linear_thread_id()?;
        let threads = match self.block {
            Some(d) => i64t.const_int(d.iter().product::<i64>() as u64, false),
            None => self.block_size()?,
        };
        let lane = b.build_int_unsigned_rem(tid, c32, "lane")?;
        let rest = b.build_int_sub(threads, b.build_int_sub(tid, lane, "")?, "")?;
        let short = b.build_int_compare(IntPredicate::ULT, rest, c32, "")?;
        let live = b.build_select(short, rest, c32, "live")?.into_int_value();
        let live = b.build_int_truncate(live, i32t, "")?;
        let lane = b.build_int_truncate(lane, i32t, "")?;
        // `live` is in 1..=32, so the shift is in 0..=31.
        let unused = b.build_int_sub(i32t.const_int(WARP as u64, false), live, "")?;
        let mask = b.build_right_shift(i32t.const_all_ones(), unused, false, "mask")?;
        let mut acc = x;
        for offset in [16u64, 8, 4, 2, 1] {
            let other = self.shuffle(Shuffle::Down, acc, offset, mask)?;
            let from = b.build_int_add(lane, i32t.const_int(offset, false), "")?;
            let exists = b.build_int_compare(IntPredicate::ULT, from, live, "")?;
            let combined = self.combine(kind, acc, other)?;
            acc = b.build_select(exists, combined, acc, "")?;
        }
        self.shuffle(Shuffle::Idx, acc, 0, mask)
    }

    /// `shfl.sync.<mode>` among the lanes of `mask` of any scalar up to 64 bits; `operand` is
    /// the lane offset (`bfly`, `down`) or source lane (`idx`).
    fn shuffle(
        &self,
        mode: Shuffle,
        x: BasicValueEnum<'ctx>,
        operand: u64,
        mask: IntValue<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let i32t = self.llvm.i32_type();
        let b = &self.builder;
        let intrinsic = format!("llvm.nvvm.shfl.sync.{}.i32", mode.name());
        let shfl = |v: IntValue<'ctx>| -> CgResult<IntValue<'ctx>> {
            // The last operand packs the segment mask (0: the whole warp) and the clamp lane.
            let args = [
                mask.into(),
                v.into(),
                i32t.const_int(operand, false).into(),
                i32t.const_int(31, false).into(),
            ];
            Ok(self
                .call_intrinsic(&intrinsic, &[], &args)?
                .ok_or("shuffle returned nothing")?
                .into_int_value())
        };
        let ty = x.get_type();
        let bits = match ty {
            BasicTypeEnum::IntType(t) => t.get_bit_width(),
            BasicTypeEnum::FloatType(t) => t.get_bit_width(),
            _ => return Err("warp shuffles take scalars".into()),
        };
        let is_float = ty.is_float_type();
        let as_int = crate::types::int_type(self.llvm, bits)?;
        let raw = if is_float {
            b.build_cast(Opc::BitCast, x, as_int, "")?.into_int_value()
        } else {
            x.into_int_value()
        };
        let shuffled = match bits {
            64 => {
                let i64t = self.llvm.i64_type();
                let lo = b.build_int_truncate(raw, i32t, "")?;
                let hi = b.build_int_truncate(
                    b.build_right_shift(raw, i64t.const_int(32, false), false, "")?,
                    i32t,
                    "",
                )?;
                let (lo, hi) = (shfl(lo)?, shfl(hi)?);
                let lo = b.build_int_z_extend(lo, i64t, "")?;
                let hi = b.build_left_shift(
                    b.build_int_z_extend(hi, i64t, "")?,
                    i64t.const_int(32, false),
                    "",
                )?;
                b.build_or(lo, hi, "")?
            }
            32 => shfl(raw)?,
            _ => {
                let wide = b.build_int_z_extend(raw, i32t, "")?;
                b.build_int_truncate(shfl(wide)?, as_int, "")?
            }
        };
        Ok(if is_float {
            b.build_cast(Opc::BitCast, shuffled, ty, "")?
        } else {
            shuffled.into()
        })
    }

    /// `a <kind> b` for reductions.
    fn combine(
        &self,
        kind: ReduceKind,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let float = a.get_type().is_float_type();
        let bld = &self.builder;
        Ok(match (kind, float) {
            (ReduceKind::Add, true) => bld.build_binop(Opc::FAdd, a, b, "")?,
            (ReduceKind::Add, false) => bld.build_binop(Opc::Add, a, b, "")?,
            (ReduceKind::Mul, true) => bld.build_binop(Opc::FMul, a, b, "")?,
            (ReduceKind::Mul, false) => bld.build_binop(Opc::Mul, a, b, "")?,
            (ReduceKind::Max, true) => self.intrinsic_call("llvm.maximum", &[a, b])?,
            (ReduceKind::Max, false) => self.intrinsic_call("llvm.smax", &[a, b])?,
            (ReduceKind::Min, true) => self.intrinsic_call("llvm.minimum", &[a, b])?,
            (ReduceKind::Min, false) => self.intrinsic_call("llvm.smin", &[a, b])?,
            (ReduceKind::And, false) => bld.build_binop(Opc::And, a, b, "")?,
            (ReduceKind::Or, false) => bld.build_binop(Opc::Or, a, b, "")?,
            _ => return Err("this reduction kind does not apply to floats".into()),
        })
    }

    /// Combines `x` over all threads of the block through a 32-slot shared buffer.
    fn block_reduce(
        &mut self,
        kind: ReduceKind,
        x: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let ty = x.get_type();
        let i64t = self.llvm.i64_type();
        // One slot per warp, and slot 32 for the block's total.
        let slots = self.shared_global(ty, 33)?;
        let tid = self.linear_thread_id()?;
        let c32 = i64t.const_int(32, false);
        let lane = self.builder.build_int_unsigned_rem(tid, c32, "lane")?;
        let warp = self.builder.build_int_unsigned_div(tid, c32, "warp")?;
        let partial = self.warp_reduce(kind, x)?;
        let zero = i64t.const_zero();
        let is_lane0 = self
            .builder
            .build_int_compare(IntPredicate::EQ, lane, zero, "")?;
        self.emit_if(
            is_lane0,
            |this| this.store_slot(slots, ty, warp, partial),
            None::<fn(&mut Self) -> CgResult<()>>,
        )?;
        self.barrier()?;
        // Warp 0 combines the warp results (identity past the last warp) and lane 0 stores the
        // total. Warp 0 has a lane for every warp's slot (a block of more than 32 threads fills
        // it); a partial last warp does not, so it cannot combine the slots itself.
        let threads = self.block_size()?;
        let warps = self.builder.build_int_unsigned_div(
            self.builder
                .build_int_add(threads, i64t.const_int(31, false), "")?,
            c32,
            "warps",
        )?;
        let is_warp0 = self
            .builder
            .build_int_compare(IntPredicate::EQ, warp, zero, "")?;
        self.emit_if(
            is_warp0,
            |this| {
                let have = this
                    .builder
                    .build_int_compare(IntPredicate::ULT, lane, warps, "")?;
                let addr = this.slot_ptr(slots, ty, lane)?;
                let loaded = this.builder.build_load(ty, addr, "")?;
                let v = this
                    .builder
                    .build_select(have, loaded, identity(kind, ty)?, "")?;
                let total = this.warp_reduce(kind, v)?;
                this.emit_if(
                    is_lane0,
                    |this| this.store_slot(slots, ty, c32, total),
                    None::<fn(&mut Self) -> CgResult<()>>,
                )
            },
            None::<fn(&mut Self) -> CgResult<()>>,
        )?;
        // Every thread reads the total; the next block_reduce's first barrier keeps its stores
        // from overtaking these reads.
        self.barrier()?;
        let addr = self.slot_ptr(slots, ty, c32)?;
        Ok(self.builder.build_load(ty, addr, "total")?)
    }

    fn store_slot(
        &mut self,
        slots: PointerValue<'ctx>,
        ty: BasicTypeEnum<'ctx>,
        i: IntValue<'ctx>,
        v: BasicValueEnum<'ctx>,
    ) -> CgResult<()> {
        let addr = self.slot_ptr(slots, ty, i)?;
        self.builder.build_store(addr, v)?;
        Ok(())
    }

    fn slot_ptr(
        &self,
        slots: PointerValue<'ctx>,
        ty: BasicTypeEnum<'ctx>,
        i: IntValue<'ctx>,
    ) -> CgResult<PointerValue<'ctx>> {
        // SAFETY: `i` is a lane number (< 32) or 32, and the shared buffer has 33 slots.
        Ok(unsafe { self.builder.build_in_bounds_gep(ty, slots, &[i], "slot")? })
    }

    /// `tid.x + ntid.x * (tid.y + ntid.y * tid.z)` (`tid.x` in a static one-dimensional block).
    fn linear_thread_id(&self) -> CgResult<IntValue<'ctx>> {
        if let Some([_, 1, 1]) = self.block {
            return self.special_register("tid", Dim::X);
        }
        let b = &self.builder;
        let (tx, ty, tz) = (
            self.special_register("tid", Dim::X)?,
            self.special_register("tid", Dim::Y)?,
            self.special_register("tid", Dim::Z)?,
        );
        let (nx, ny) = (
            self.special_register("ntid", Dim::X)?,
            self.special_register("ntid", Dim::Y)?,
        );
        let inner = b.build_int_add(ty, b.build_int_mul(ny, tz, "")?, "")?;
        Ok(b.build_int_add(tx, b.build_int_mul(nx, inner, "")?, "tid")?)
    }

    fn block_size(&self) -> CgResult<IntValue<'ctx>> {
        let b = &self.builder;
        let (nx, ny, nz) = (
            self.special_register("ntid", Dim::X)?,
            self.special_register("ntid", Dim::Y)?,
            self.special_register("ntid", Dim::Z)?,
        );
        Ok(b.build_int_mul(nx, b.build_int_mul(ny, nz, "")?, "threads")?)
    }

    /// A new `addrspace(3)` global of `count` elements, as a generic pointer.
    pub(crate) fn shared_global(
        &mut self,
        storage: BasicTypeEnum<'ctx>,
        count: u64,
    ) -> CgResult<PointerValue<'ctx>> {
        let ty = storage.array_type(u32::try_from(count).map_err(|_| "shared buffer too large")?);
        let name = format!("{}.shared{}", self.name, self.created);
        self.created += 1;
        let g = self
            .module
            .add_global(ty, Some(AddressSpace::from(3u16)), &name);
        g.set_linkage(Linkage::Internal);
        g.set_initializer(&ty.get_undef());
        g.set_alignment(alignment_of(storage).max(4));
        let generic = self.llvm.ptr_type(AddressSpace::default());
        Ok(self
            .builder
            .build_address_space_cast(g.as_pointer_value(), generic, "shared")?)
    }
}

/// Threads per warp.
const WARP: i64 = 32;

/// A `shfl.sync` mode.
#[derive(Copy, Clone)]
enum Shuffle {
    /// From lane `lane ^ offset`.
    Bfly,
    /// From lane `lane + offset`.
    Down,
    /// From a given lane.
    Idx,
}

impl Shuffle {
    fn name(self) -> &'static str {
        match self {
            Shuffle::Bfly => "bfly",
            Shuffle::Down => "down",
            Shuffle::Idx => "idx",
        }
    }
}

/// The identity of `kind` for values of type `ty` ([`ReduceKind::identity_of`]).
fn identity(kind: ReduceKind, ty: BasicTypeEnum<'_>) -> CgResult<BasicValueEnum<'_>> {
    let scalar = match ty {
        BasicTypeEnum::FloatType(_) => ReduceScalar::Float,
        BasicTypeEnum::IntType(t) => ReduceScalar::Int(t.get_bit_width()),
        _ => return Err("a reduction over a type that is not a scalar".into()),
    };
    let value = kind
        .identity_of(scalar)
        .ok_or("this reduction kind has no identity on this type")?;
    Ok(match (ty, value) {
        (BasicTypeEnum::FloatType(t), DenseValue::Float(x)) => t.const_float(x).into(),
        (BasicTypeEnum::IntType(t), DenseValue::Int(x)) => t.const_int(x as u64, true).into(),
        _ => return Err("a reduction identity of the wrong class".into()),
    })
}
