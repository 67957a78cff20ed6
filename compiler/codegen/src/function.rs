//! One `loop.kernel` as one LLVM function: the op walk, control flow and memory.
//!
//! The kernel becomes a function with typed parameters — for a buffer its data pointer then one
//! `i64` per dim, for a scalar its value — which the CPU entry thunk (`module.rs`) or the PTX
//! kernel signature wrap. The body is a straight translation:
//!
//! - `loop.for` becomes a header/body/latch CFG with the induction variable in a phi; vectorize
//!   and unroll kinds put their width or factor into `llvm.loop` metadata as hints. On the CPU an
//!   outermost `parallel` loop is outlined and run by the runtime's pool (`parallel.rs`); GPU
//!   loop kinds are mapped to thread and block ids (`gpu.rs`).
//! - `loop.if` is a diamond; a schedule block binds its iter vars to the iter values and runs its
//!   init region under "every reduce iter value is 0", as the interpreter does.
//! - Buffers are a pointer plus dims. Elements are addressed row-major with `nsw` index
//!   arithmetic; static dims are constants, so only dynamic dims cost a multiply by a value.
//! - Register and local buffers are `alloca`s in the entry block, zeroed where the `loop.alloc`
//!   stands (SROA promotes them); dynamic-size local buffers are stack allocations released at
//!   the end of their block. Shared buffers are `addrspace(3)` globals.

use crate::error::{CgError, CgResult};
use crate::memo::{id, Key, Memo};
use crate::types::{storage_type, value_type};
use dlc_ir::{Block, Context, Op, Type, Value, DYNAMIC};
use dlc_loop::math::ScalarOp;
use dlc_loop::{buffer_parts, Access, AccessKind, LoopKind, MemorySpace};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context as LlvmContext;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{AsTypeRef, BasicMetadataTypeEnum, BasicType, BasicTypeEnum, VectorType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue,
    VectorValue,
};
use inkwell::{AddressSpace, IntPredicate};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// Which machine the function is for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Machine {
    /// The host CPU: parallel loops go to the runtime's thread pool; GPU ops are errors.
    /// `avx512`: the target has AVX-512F, so math scales by powers of two with `vscalefps`;
    /// `vnni`: it has AVX-512 VNNI, so `loop.dot4` on 16 lanes is one `vpdpbusd`;
    /// `madd_bits`: the widest vector x86's `pmaddwd` takes there (128 with SSE2, 256 with
    /// AVX2, 512 with AVX-512BW; 0 off x86), so `loop.dot2` up to it is one instruction.
    Cpu {
        avx512: bool,
        vnni: bool,
        madd_bits: u32,
    },
    /// NVPTX: GPU loop kinds and ops map to PTX registers, barriers and shuffles.
    Nvptx,
}

/// A buffer in registers: where its elements start, and its dims.
#[derive(Clone, Debug)]
pub(crate) struct Buf<'ctx> {
    pub ptr: PointerValue<'ctx>,
    /// One `i64` per dim: a constant for static dims.
    pub dims: Vec<IntValue<'ctx>>,
    /// The dlc element type.
    pub elem: Type,
    /// How elements are stored (`i1` as `i8`).
    pub storage: BasicTypeEnum<'ctx>,
}

/// What code generation tells LLVM about a loop it emits (`llvm.loop` metadata). `vectorize`
/// loops carry explicit vector ops already (the vectorize pass made them), so they need none.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum LoopHint {
    /// No hint.
    None,
    /// Unroll by this factor (an `unroll` loop).
    Unroll(i64),
    /// Do not vectorize: the scalar remainder of a `vectorize` loop, which runs fewer
    /// iterations than a vector has lanes. LLVM's loop vectorizer would spend compile time
    /// (and code size) on it for nothing; loops dlc left scalar for other reasons (a padding
    /// copy, say) are still LLVM's to vectorize.
    NoVectorize,
}

/// Whether `op` (a `loop.for`) directly follows a `vectorize` loop in its block: the remainder
/// the vectorize pass keeps.
fn follows_vector_loop(ctx: &Context, op: Op) -> bool {
    ctx.prev_op(op)
        .and_then(|prev| ctx.view::<dlc_loop::ForOp>(prev))
        .and_then(|prev| prev.loop_kind(ctx))
        .is_some_and(|k| matches!(k, LoopKind::Vectorize(_)))
}

/// What is known about one buffer argument from every launch of the kernel (`host_facts.rs`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub(crate) struct ArgFacts {
    /// No other argument of any launch can reach this argument's bytes.
    pub noalias: bool,
    /// The data pointer is a multiple of this (0: only element alignment is known).
    pub align: u32,
}

/// The state of lowering one LLVM function.
pub(crate) struct FnLowering<'a, 'ctx> {
    pub ctx: &'a Context,
    pub llvm: &'ctx LlvmContext,
    pub module: &'a Module<'ctx>,
    pub builder: Builder<'ctx>,
    pub function: FunctionValue<'ctx>,
    pub machine: Machine,
    pub values: FxHashMap<Value, BasicValueEnum<'ctx>>,
    pub buffers: FxHashMap<Value, Buf<'ctx>>,
    /// Facts about buffer values (kernel arguments), carried into outlined functions.
    pub facts: FxHashMap<Value, ArgFacts>,
    /// The symbol prefix of functions this lowering creates (outlined loops, shared globals).
    pub name: String,
    /// Inside an outlined parallel body: nested parallel loops run serially.
    pub in_parallel: bool,
    /// Outlined functions and shared globals created so far (for unique names).
    pub created: u32,
    /// Dynamic stack allocations of the current dlc block, to release at its end.
    stack_marks: Vec<Option<PointerValue<'ctx>>>,
    /// Whether this function has emitted a streaming (non-temporal) store.
    streamed: bool,
    /// The thread block of an NVPTX kernel, when static (`None`: chosen at launch).
    pub block: Option<[i64; 3]>,
    /// Index arithmetic and element addresses emitted so far, for reuse where they dominate.
    memo: RefCell<Memo<'ctx>>,
}

/// Which dims of a buffer argument a function takes as `i64` parameters, after its pointer.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum DimParams {
    /// Every dim: the runtime's kernel ABI (an NVPTX kernel, a CPU kernel's entry thunk).
    All,
    /// Only the `?` dims: the functions code generation calls itself (a CPU kernel's body, an
    /// outlined parallel loop). A static dim is a constant in their code, so passing it would
    /// only cost instructions at every call: storing it into a parallel loop's captures,
    /// loading it back, passing it on. The quick tier compiles such code at `-O0`, where none
    /// of that is removed.
    Dynamic,
}

impl DimParams {
    /// Whether a dim of static size `size` (or [`DYNAMIC`]) is a parameter.
    pub(crate) fn passes(self, size: i64) -> bool {
        self == DimParams::All || size == DYNAMIC
    }
}

/// The LLVM parameter types of a function taking arguments of these types, its buffers' dims
/// as `dims` says.
pub(crate) fn kernel_param_types<'ctx>(
    llvm: &'ctx LlvmContext,
    ctx: &Context,
    arg_types: &[Type],
    dims: DimParams,
) -> CgResult<Vec<BasicMetadataTypeEnum<'ctx>>> {
    let mut params = Vec::new();
    for &ty in arg_types {
        match buffer_parts(ctx, ty) {
            Some((sizes, _, _)) => {
                params.push(llvm.ptr_type(AddressSpace::default()).into());
                params.extend(
                    sizes
                        .iter()
                        .filter(|&&size| dims.passes(size))
                        .map(|_| BasicMetadataTypeEnum::from(llvm.i64_type())),
                );
            }
            None => params.push(value_type(llvm, ctx, ty)?.into()),
        }
    }
    Ok(params)
}

impl<'a, 'ctx> FnLowering<'a, 'ctx> {
    /// A lowering of `function`, with the builder at the end of a new entry block.
    pub(crate) fn new(
        ctx: &'a Context,
        llvm: &'ctx LlvmContext,
        module: &'a Module<'ctx>,
        function: FunctionValue<'ctx>,
        machine: Machine,
        name: String,
    ) -> Self {
        let builder = llvm.create_builder();
        let entry = llvm.append_basic_block(function, "entry");
        builder.position_at_end(entry);
        FnLowering {
            ctx,
            llvm,
            module,
            builder,
            function,
            machine,
            values: FxHashMap::default(),
            buffers: FxHashMap::default(),
            facts: FxHashMap::default(),
            name,
            in_parallel: false,
            created: 0,
            stack_marks: Vec::new(),
            streamed: false,
            block: None,
            memo: RefCell::default(),
        }
    }

    /// Ends the function: `ret void`, after an `sfence` on x86 when it streamed stores.
    /// Streaming stores are weakly ordered, so without the fence the store that tells another
    /// thread the kernel is done (a plain `mov` for a release) could become visible before
    /// them. The CPU code is JIT-compiled for the host, so the host's architecture decides.
    pub(crate) fn finish(&mut self) -> CgResult<()> {
        if self.streamed && cfg!(target_arch = "x86_64") {
            self.call_intrinsic("llvm.x86.sse.sfence", &[], &[])?;
        }
        self.builder.build_return(None)?;
        Ok(())
    }

    /// Binds the kernel's entry block arguments to the function's parameters (in the layout of
    /// [`kernel_param_types`] with `dims`), marking buffer parameters with their facts.
    pub(crate) fn bind_kernel_args(
        &mut self,
        args: &[Value],
        facts: &[ArgFacts],
        dims: DimParams,
    ) -> CgResult<()> {
        let mut params = self.function.get_param_iter();
        for (i, &arg) in args.iter().enumerate() {
            let ty = self.ctx.value_type(arg);
            let missing = || CgError::from("kernel parameter list is shorter than its arguments");
            match buffer_parts(self.ctx, ty) {
                Some((sizes, elem, _)) => {
                    let ptr = params.next().ok_or_else(missing)?.into_pointer_value();
                    let mut dim_values = Vec::with_capacity(sizes.len());
                    for &size in &sizes {
                        let param = if dims.passes(size) {
                            Some(params.next().ok_or_else(missing)?.into_int_value())
                        } else {
                            None
                        };
                        dim_values.push(match param {
                            Some(p) if size == DYNAMIC => p,
                            _ => self.llvm.i64_type().const_int(size as u64, true),
                        });
                    }
                    let fact = facts.get(i).copied().unwrap_or_default();
                    self.mark_pointer_param(ptr, fact);
                    self.facts.insert(arg, fact);
                    let storage = storage_type(self.llvm, self.ctx, elem)?;
                    self.buffers.insert(
                        arg,
                        Buf {
                            ptr,
                            dims: dim_values,
                            elem,
                            storage,
                        },
                    );
                }
                None => {
                    let p = params.next().ok_or_else(missing)?;
                    self.values.insert(arg, p);
                }
            }
        }
        Ok(())
    }

    /// Puts `noalias` and `align` on the parameter `ptr` of this function.
    pub(crate) fn mark_pointer_param(&self, ptr: PointerValue<'ctx>, fact: ArgFacts) {
        let Some(index) = self
            .function
            .get_param_iter()
            .position(|p| p == BasicValueEnum::from(ptr))
        else {
            return;
        };
        let loc = inkwell::attributes::AttributeLoc::Param(index as u32);
        if fact.noalias {
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id("noalias");
            self.function
                .add_attribute(loc, self.llvm.create_enum_attribute(kind, 0));
        }
        if fact.align > 1 {
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id("align");
            self.function.add_attribute(
                loc,
                self.llvm.create_enum_attribute(kind, fact.align as u64),
            );
        }
    }

    // -----------------------------------------------------------------------------------------
    // The op walk.

    /// Lowers the ops of `block` (its arguments must be bound), up to its terminator.
    pub(crate) fn lower_block(&mut self, block: Block) -> CgResult<()> {
        self.stack_marks.push(None);
        let mut result = Ok(());
        for op in self.ctx.block_ops(block) {
            if let Err(e) = self.lower_op(op) {
                result = Err(e.at(self.ctx, op));
                break;
            }
        }
        if let Some(Some(mark)) = self.stack_marks.pop() {
            if result.is_ok() {
                self.call_intrinsic(
                    "llvm.stackrestore",
                    &[mark.get_type().into()],
                    &[mark.into()],
                )?;
            }
        }
        result
    }

    fn lower_op(&mut self, op: Op) -> CgResult<()> {
        use dlc_loop::LoopOps as L;
        let ctx = self.ctx;
        if let Some(scalar) = ScalarOp::of(ctx, op) {
            return self.lower_scalar(scalar);
        }
        if let Some(access) = dlc_loop::access(ctx, op) {
            return match access.kind {
                AccessKind::Read if access.padding.is_some() => self.lower_padded_load(access),
                AccessKind::Read => self.lower_load(access),
                AccessKind::Write => self.lower_store(op, access),
                AccessKind::Prefetch => self.lower_prefetch(access),
            };
        }
        match L::of(ctx, op) {
            Some(L::YieldOp(_) | L::ReturnOp(_)) => Ok(()),
            Some(L::ForOp(for_op)) => self.lower_for(for_op),
            Some(L::IfOp(if_op)) => self.lower_if(if_op),
            Some(L::ScheduleBlockOp(sb)) => self.lower_schedule_block(sb),
            Some(L::AllocOp(_)) => self.lower_alloc(op),
            Some(L::DimOp(dim)) => self.lower_dim(dim),
            Some(L::Dot4Op(_)) => self.lower_dot(op, 4),
            Some(L::Dot2Op(_)) => self.lower_dot(op, 2),
            Some(L::BroadcastOp(_)) => self.lower_broadcast(op),
            Some(
                gpu @ (L::BarrierOp(_)
                | L::ThreadIdOp(_)
                | L::BlockIdOp(_)
                | L::BlockDimOp(_)
                | L::WarpReduceOp(_)
                | L::BlockReduceOp(_)),
            ) => self.lower_gpu_op(gpu),
            // Every loop op is placed here (no catch-all), so that a new one does not build
            // until it has a rule: the accesses went to the access interface above; the rest
            // are host ops, which the runtime's host program runs, or kernels themselves.
            Some(
                L::LoadOp(_)
                | L::StoreOp(_)
                | L::VLoadOp(_)
                | L::VStoreOp(_)
                | L::LoadPaddedOp(_)
                | L::VLoadPaddedOp(_)
                | L::PrefetchOp(_)
                | L::KernelOp(_)
                | L::CompiledKernelOp(_)
                | L::LaunchOp(_)
                | L::ReadSizeOp(_)
                | L::CheckOp(_)
                | L::ConstantOp(_)
                | L::ViewOp(_)
                | L::ReshapeOp(_)
                | L::CallIfOp(_)
                | L::CallLoopOp(_),
            )
            | None => Err(format!(
                "'{}' cannot be code-generated inside a kernel",
                ctx.op_name(op)
            )
            .into()),
        }
    }

    /// `loop.broadcast`: its scalar operand [`splat`](Self::splat) to the result type.
    fn lower_broadcast(&mut self, op: Op) -> CgResult<()> {
        let ctx = self.ctx;
        let scalar = self.value(ctx.operand(op, 0))?;
        let ty = value_type(self.llvm, ctx, ctx.value_type(ctx.result(op, 0)))?;
        let BasicTypeEnum::VectorType(vty) = ty else {
            return Err("loop.broadcast to a non-vector type".into());
        };
        let splat = self.splat(scalar, vty)?;
        self.values.insert(ctx.result(op, 0), splat.into());
        Ok(())
    }

    /// `scalar` in every lane of a `vty`: inserted in lane 0 of a poison vector and shuffled
    /// to every lane, which LLVM selects as one broadcast instruction.
    fn splat(
        &self,
        scalar: BasicValueEnum<'ctx>,
        vty: VectorType<'ctx>,
    ) -> CgResult<VectorValue<'ctx>> {
        let i32t = self.llvm.i32_type();
        let first =
            self.builder
                .build_insert_element(vty.get_poison(), scalar, i32t.const_zero(), "")?;
        let zeros = VectorType::const_vector(&vec![i32t.const_zero(); vty.get_size() as usize]);
        Ok(self
            .builder
            .build_shuffle_vector(first, vty.get_poison(), zeros, "splat")?)
    }

    /// `loop.dot4` (`group` 4) and `loop.dot2` (2). `loop.dot4`: one `vpdpbusd` on 16 lanes
    /// with VNNI. `loop.dot2`: x86's `pmaddwd` (the pairs' sums) and an add, where the target
    /// has it at the accumulator's width. Elsewhere the operands widened to `i32` (`loop.dot4`'s
    /// `a` zero-extended, the rest sign-extended), multiplied, and the `group` products of
    /// each lane added to the accumulator ([`FnLowering::sum_groups`]). A quad or pair operand
    /// is broadcast first, as an `i32` to every lane.
    fn lower_dot(&mut self, op: Op, group: u32) -> CgResult<()> {
        let ctx = self.ctx;
        let [acc, a, b] = [0, 1, 2].map(|i| self.value(ctx.operand(op, i)));
        let acc = acc?.into_vector_value();
        let lanes = acc.get_type().get_size();
        let (a, b) = (
            self.groups(a?.into_vector_value(), group, lanes)?,
            self.groups(b?.into_vector_value(), group, lanes)?,
        );
        let bits = 32 * lanes;
        let madd = match bits {
            128 => Some("llvm.x86.sse2.pmadd.wd"),
            256 => Some("llvm.x86.avx2.pmadd.wd"),
            512 => Some("llvm.x86.avx512.pmaddw.d.512"),
            _ => None,
        };
        let value = match (self.machine, group, madd) {
            (Machine::Cpu { vnni: true, .. }, 4, _) if lanes == 16 => self
                .x86_call("llvm.x86.avx512.vpdpbusd.512", &[acc, a, b])?
                .into_vector_value(),
            (Machine::Cpu { madd_bits, .. }, 2, Some(name)) if bits <= madd_bits => {
                let sums = self.x86_call(name, &[a, b])?.into_vector_value();
                self.builder.build_int_add(acc, sums, "")?
            }
            _ => {
                let wide = self.llvm.i32_type().vec_type(group * lanes);
                let a = if group == 4 {
                    self.builder.build_int_z_extend(a, wide, "")?
                } else {
                    self.builder.build_int_s_extend(a, wide, "")?
                };
                let b = self.builder.build_int_s_extend(b, wide, "")?;
                self.sum_groups(acc, self.builder.build_int_mul(a, b, "")?, group)?
            }
        };
        self.values.insert(ctx.result(op, 0), value.into());
        Ok(())
    }

    /// A call of the x86 intrinsic `name` on `args`, each cast to the type the declaration
    /// takes (`vpdpbusd`'s byte operands are `<64 x i8>` since LLVM 21 and were `<16 x i32>`
    /// before).
    fn x86_call(&self, name: &str, args: &[VectorValue<'ctx>]) -> CgResult<BasicValueEnum<'ctx>> {
        let params = intrinsic(self.module, name, &[])?
            .get_type()
            .get_param_types();
        let mut cast = Vec::with_capacity(args.len());
        for (x, ty) in args.iter().zip(params.iter()) {
            let ty = BasicTypeEnum::try_from(*ty)
                .map_err(|_| format!("{name} takes a non-basic parameter"))?;
            cast.push(self.builder.build_bit_cast(*x, ty, "")?.into());
        }
        self.call_intrinsic(name, &[], &cast)?
            .ok_or_else(|| format!("{name} returned nothing").into())
    }

    /// `acc` plus, in each lane `i`, the `group` products `products[group·i + t]`: one
    /// shuffle of lanes `t, group + t, ...` and an add per `t`.
    fn sum_groups(
        &self,
        acc: VectorValue<'ctx>,
        products: VectorValue<'ctx>,
        group: u32,
    ) -> CgResult<VectorValue<'ctx>> {
        let lanes = acc.get_type().get_size();
        let mut sum = acc;
        for t in 0..group {
            let mask: Vec<_> = (0..lanes)
                .map(|i| {
                    self.llvm
                        .i32_type()
                        .const_int(u64::from(group * i + t), false)
                })
                .collect();
            let mask = VectorType::const_vector(&mask);
            let part = self
                .builder
                .build_shuffle_vector(products, products, mask, "")?;
            sum = self.builder.build_int_add(sum, part, "")?;
        }
        Ok(sum)
    }

    /// The `group·lanes`-element operand of a `loop.dot4` or `loop.dot2`: `values` itself, or a
    /// quad's or pair's 32 bits as one `i32` broadcast to `lanes` lanes (one `vpbroadcastd`,
    /// where building the vector element by element cost SelectionDAG four times the kernel's
    /// other code at `-O0`).
    fn groups(
        &self,
        values: VectorValue<'ctx>,
        group: u32,
        lanes: u32,
    ) -> CgResult<VectorValue<'ctx>> {
        if values.get_type().get_size() == group * lanes {
            return Ok(values);
        }
        let i32t = self.llvm.i32_type();
        let bits = self.builder.build_bit_cast(values, i32t, "")?;
        let splat = self.splat(bits, i32t.vec_type(lanes))?;
        let element = values.get_type().get_element_type();
        let ty = element.into_int_type().vec_type(group * lanes);
        Ok(self
            .builder
            .build_bit_cast(splat, ty, "")?
            .into_vector_value())
    }

    /// The LLVM value of a dlc scalar or vector value.
    pub(crate) fn value(&self, v: Value) -> CgResult<BasicValueEnum<'ctx>> {
        self.values
            .get(&v)
            .copied()
            .ok_or_else(|| "operand has no lowered value (a buffer used as a scalar?)".into())
    }

    /// The lowered buffer a dlc buffer value stands for.
    pub(crate) fn buffer(&self, v: Value) -> CgResult<&Buf<'ctx>> {
        self.buffers
            .get(&v)
            .ok_or_else(|| "operand is not a buffer this kernel can address".into())
    }

    pub(crate) fn index_value(&self, v: Value) -> CgResult<IntValue<'ctx>> {
        match self.value(v)? {
            BasicValueEnum::IntValue(i) if i.get_type().get_bit_width() == 64 => Ok(i),
            BasicValueEnum::IntValue(i) => self.memoized(Key::Sext(id(&i)), || {
                self.builder
                    .build_int_s_extend(i, self.llvm.i64_type(), "idx")
            }),
            _ => Err("an index operand is not an integer".into()),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Control flow.

    fn lower_for(&mut self, for_op: dlc_loop::ForOp) -> CgResult<()> {
        let ctx = self.ctx;
        let op = for_op.0;
        let kind = for_op
            .loop_kind(ctx)
            .ok_or("loop.for without a valid kind")?;
        let body = for_op.body(ctx).ok_or("loop.for without a body")?;
        let operands = ctx.operands(op);
        let [lb, ub, step] = operands[..] else {
            return Err("loop.for needs lb, ub and step".into());
        };
        let (lb, ub, step) = (
            self.index_value(lb)?,
            self.index_value(ub)?,
            self.index_value(step)?,
        );
        match kind {
            LoopKind::Parallel
                if matches!(self.machine, Machine::Cpu { .. }) && !self.in_parallel =>
            {
                self.lower_parallel_for(op, body, (lb, ub, step))
            }
            LoopKind::Block(_) | LoopKind::Thread(_) => {
                self.lower_gpu_for(kind, body, (lb, ub, step))
            }
            _ => {
                let body_arg = ctx.block_args(body).first().copied();
                let hint = match kind {
                    LoopKind::Unroll(factor) => LoopHint::Unroll(factor),
                    LoopKind::Serial if follows_vector_loop(ctx, op) => LoopHint::NoVectorize,
                    _ => LoopHint::None,
                };
                self.emit_counted_loop(lb, ub, step, hint, |this, iv| {
                    if let Some(arg) = body_arg {
                        this.values.insert(arg, iv.into());
                    }
                    this.lower_block(body)
                })
            }
        }
    }

    /// `for (iv = lb; iv < ub; iv += step) body(iv)` as a CFG, with `kind`'s loop metadata, in
    /// the rotated form LLVM's loop passes make: a guard `lb < ub` before the loop, and the
    /// test of the next `iv` at the end of the body, which branches back to its start. A body
    /// without branches is then one block: the quick tier's register allocator, which keeps
    /// no value in a register across blocks, stores and reloads the values the loop carries
    /// (a register tile's accumulators) once per iteration, where a header block of its own
    /// between the iterations had it copy them through two more stack slots.
    pub(crate) fn emit_counted_loop(
        &mut self,
        lb: IntValue<'ctx>,
        ub: IntValue<'ctx>,
        step: IntValue<'ctx>,
        hint: LoopHint,
        body: impl FnOnce(&mut Self, IntValue<'ctx>) -> CgResult<()>,
    ) -> CgResult<()> {
        let pre = self.current_block()?;
        let body_bb = self.llvm.append_basic_block(self.function, "loop.body");
        let exit = self.llvm.append_basic_block(self.function, "loop.exit");
        let any = self
            .builder
            .build_int_compare(IntPredicate::SLT, lb, ub, "any")?;
        self.builder.build_conditional_branch(any, body_bb, exit)?;
        self.builder.position_at_end(body_bb);
        let phi = self.builder.build_phi(self.llvm.i64_type(), "iv")?;
        let iv = phi.as_basic_value().into_int_value();
        self.in_scope(|this| body(this, iv))?;
        let latch = self.current_block()?;
        let next = self.builder.build_int_nsw_add(iv, step, "iv.next")?;
        let more = self
            .builder
            .build_int_compare(IntPredicate::SLT, next, ub, "more")?;
        let back = self.builder.build_conditional_branch(more, body_bb, exit)?;
        self.attach_loop_metadata(back, hint);
        phi.add_incoming(&[(&lb, pre), (&next, latch)]);
        self.builder.position_at_end(exit);
        Ok(())
    }

    /// Runs `emit` in a region whose code does not dominate what follows it (a loop body, a
    /// branch): what it emits is not reused after it.
    fn in_scope<R>(&mut self, emit: impl FnOnce(&mut Self) -> R) -> R {
        self.memo.get_mut().open();
        let result = emit(self);
        self.memo.get_mut().close();
        result
    }

    /// The value `key` was emitted as where it dominates the builder's position, or the one
    /// `emit` emits now (then recorded under `key`).
    fn memoized<V, E>(&self, key: Key, emit: impl FnOnce() -> Result<V, E>) -> CgResult<V>
    where
        V: Into<BasicValueEnum<'ctx>> + TryFrom<BasicValueEnum<'ctx>> + Copy,
        CgError: From<E>,
    {
        if let Some(v) = self
            .memo
            .borrow()
            .get(key)
            .and_then(|v| V::try_from(v).ok())
        {
            return Ok(v);
        }
        let v = emit()?;
        self.memo.borrow_mut().insert(key, v.into());
        Ok(v)
    }

    pub(crate) fn current_block(&self) -> CgResult<BasicBlock<'ctx>> {
        self.builder
            .get_insert_block()
            .ok_or_else(|| "builder has no position".into())
    }

    fn attach_loop_metadata(
        &self,
        branch: inkwell::values::InstructionValue<'ctx>,
        hint: LoopHint,
    ) {
        let (name, value) = match hint {
            LoopHint::None => return,
            LoopHint::Unroll(factor) => (
                "llvm.loop.unroll.count",
                self.llvm.i32_type().const_int(factor as u64, false),
            ),
            LoopHint::NoVectorize => (
                "llvm.loop.vectorize.enable",
                self.llvm.bool_type().const_zero(),
            ),
        };
        let property = self
            .llvm
            .metadata_node(&[self.llvm.metadata_string(name).into(), value.into()]);
        crate::loop_metadata::attach(self.llvm, branch, &[property.into()]);
    }

    fn lower_if(&mut self, if_op: dlc_loop::IfOp) -> CgResult<()> {
        let cond = self.value(if_op.condition(self.ctx))?.into_int_value();
        let then_block = if_op
            .then_block(self.ctx)
            .ok_or("loop.if without a then region")?;
        let else_block = if_op.else_block(self.ctx);
        self.emit_if(
            cond,
            |this| this.lower_block(then_block),
            else_block.map(|b| move |this: &mut Self| this.lower_block(b)),
        )
    }

    /// `if (cond) then() else otherwise()`.
    pub(crate) fn emit_if<T, E>(
        &mut self,
        cond: IntValue<'ctx>,
        then: T,
        otherwise: Option<E>,
    ) -> CgResult<()>
    where
        T: FnOnce(&mut Self) -> CgResult<()>,
        E: FnOnce(&mut Self) -> CgResult<()>,
    {
        let then_bb = self.llvm.append_basic_block(self.function, "if.then");
        let merge = self.llvm.append_basic_block(self.function, "if.end");
        let else_bb = match otherwise {
            Some(_) => self.llvm.append_basic_block(self.function, "if.else"),
            None => merge,
        };
        self.builder
            .build_conditional_branch(cond, then_bb, else_bb)?;
        self.builder.position_at_end(then_bb);
        self.in_scope(then)?;
        self.builder.build_unconditional_branch(merge)?;
        if let Some(otherwise) = otherwise {
            self.builder.position_at_end(else_bb);
            self.in_scope(otherwise)?;
            self.builder.build_unconditional_branch(merge)?;
        }
        self.builder.position_at_end(merge);
        Ok(())
    }

    fn lower_schedule_block(&mut self, sb: dlc_loop::ScheduleBlockOp) -> CgResult<()> {
        let ctx = self.ctx;
        let body = sb.body(ctx).ok_or("schedule block without a body")?;
        let iter_values = sb.iter_values(ctx);
        let kinds = sb.iter_kind_list(ctx);
        let bind = |this: &mut Self, block: Block| -> CgResult<()> {
            for (&arg, &v) in ctx.block_args(block).iter().zip(iter_values) {
                let value = this.value(v)?;
                this.values.insert(arg, value);
            }
            Ok(())
        };
        if let Some(init) = sb.init_block(ctx).filter(|&b| ctx.first_op(b).is_some()) {
            let zero = self.llvm.i64_type().const_zero();
            let mut first = self.llvm.bool_type().const_int(1, false);
            for (&v, kind) in iter_values.iter().zip(&kinds) {
                if *kind == dlc_loop::IterKind::Reduce {
                    let is_zero = self.builder.build_int_compare(
                        IntPredicate::EQ,
                        self.index_value(v)?,
                        zero,
                        "first",
                    )?;
                    first = self.builder.build_and(first, is_zero, "first")?;
                }
            }
            bind(self, init)?;
            self.emit_if(
                first,
                |this| this.lower_block(init),
                None::<fn(&mut Self) -> CgResult<()>>,
            )?;
        }
        bind(self, body)?;
        self.lower_block(body)
    }

    // -----------------------------------------------------------------------------------------
    // Memory.

    fn lower_alloc(&mut self, op: Op) -> CgResult<()> {
        let ctx = self.ctx;
        let result = ctx.result(op, 0);
        let (dims, elem, space) =
            buffer_parts(ctx, ctx.value_type(result)).ok_or("loop.alloc of a non-buffer type")?;
        let storage = storage_type(self.llvm, ctx, elem)?;
        let i64t = self.llvm.i64_type();
        let mut sizes = ctx.operands(op).iter();
        let mut dim_values = Vec::with_capacity(dims.len());
        for &d in &dims {
            dim_values.push(if d == DYNAMIC {
                let v = sizes.next().ok_or("loop.alloc has too few sizes")?;
                self.index_value(*v)?
            } else {
                i64t.const_int(d as u64, true)
            });
        }
        let static_count: Option<u64> = dims.iter().try_fold(1u64, |n, &d| {
            (d != DYNAMIC).then(|| n.saturating_mul(d.max(0) as u64))
        });
        let ptr = match (space, self.machine) {
            (MemorySpace::Shared, Machine::Nvptx) => {
                let count = static_count.ok_or(
                    "a shared buffer needs static dims for code generation (run check-shared-memory)",
                )?;
                self.shared_global(storage, count)?
            }
            (MemorySpace::Shared, Machine::Cpu { .. }) => {
                return Err("shared buffers exist only in GPU kernels".into())
            }
            (MemorySpace::Global, _) => {
                return Err("a global loop.alloc belongs in a host function, not a kernel".into())
            }
            (MemorySpace::Local, _) => {
                let ptr = match static_count {
                    Some(count) => self.entry_alloca(storage, count)?,
                    None => self.dynamic_alloca(storage, &dim_values)?,
                };
                let bytes = self.byte_size(storage, &dim_values)?;
                self.builder.build_memset(
                    ptr,
                    alignment_of(storage),
                    self.llvm.i8_type().const_zero(),
                    bytes,
                )?;
                ptr
            }
        };
        self.buffers.insert(
            result,
            Buf {
                ptr,
                dims: dim_values,
                elem,
                storage,
            },
        );
        Ok(())
    }

    /// An `alloca` of `count` elements in the entry block (so it is allocated once per call).
    fn entry_alloca(
        &mut self,
        storage: BasicTypeEnum<'ctx>,
        count: u64,
    ) -> CgResult<PointerValue<'ctx>> {
        let entry = self
            .function
            .get_first_basic_block()
            .ok_or("function has no entry block")?;
        let at = self.llvm.create_builder();
        match entry.get_first_instruction() {
            Some(first) => at.position_before(&first),
            None => at.position_at_end(entry),
        }
        let ty = storage.array_type(u32::try_from(count).map_err(|_| "local buffer too large")?);
        let ptr = at.build_alloca(ty, "local")?;
        if let Some(inst) = ptr.as_instruction() {
            inst.set_alignment(64.min(alignment_of(storage).max(16)))
                .map_err(|e| format!("{e}"))?;
        }
        Ok(ptr)
    }

    /// A stack allocation of a dynamic size, released at the end of the current dlc block.
    fn dynamic_alloca(
        &mut self,
        storage: BasicTypeEnum<'ctx>,
        dims: &[IntValue<'ctx>],
    ) -> CgResult<PointerValue<'ctx>> {
        if matches!(self.stack_marks.last(), Some(None)) {
            let ptr_ty = self.llvm.ptr_type(AddressSpace::default());
            let mark = self
                .call_intrinsic("llvm.stacksave", &[ptr_ty.into()], &[])?
                .ok_or("llvm.stacksave returned nothing")?
                .into_pointer_value();
            if let Some(slot) = self.stack_marks.last_mut() {
                *slot = Some(mark);
            }
        }
        let count = self.element_count(dims)?;
        Ok(self
            .builder
            .build_array_alloca(storage, count, "local.dyn")?)
    }

    fn element_count(&self, dims: &[IntValue<'ctx>]) -> CgResult<IntValue<'ctx>> {
        let mut n = self.llvm.i64_type().const_int(1, false);
        for &d in dims {
            n = self.mul_index(n, d, "n")?;
        }
        Ok(n)
    }

    fn byte_size(
        &self,
        storage: BasicTypeEnum<'ctx>,
        dims: &[IntValue<'ctx>],
    ) -> CgResult<IntValue<'ctx>> {
        let size = match scalar_bytes(storage) {
            Some(n) => self.llvm.i64_type().const_int(n, false),
            None => {
                let size = storage.size_of().ok_or("element type has no size")?;
                self.builder
                    .build_int_z_extend_or_bit_cast(size, self.llvm.i64_type(), "esize")?
            }
        };
        self.mul_index(self.element_count(dims)?, size, "bytes")
    }

    /// `a · b` of `i64` index values (`nsw`), without the instruction when an operand is the
    /// constant 1 (the builder folds two constants itself), and the product already emitted
    /// where it dominates (`memo.rs`). The quick tier's LLVM time grows
    /// with the instructions it is given: ppocr_det's kernels held 874 multiplications by 1,
    /// 3,961 additions of 0 and 3,984 address computations of element 0 (a ninth of their lines).
    pub(crate) fn mul_index(
        &self,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
        name: &str,
    ) -> CgResult<IntValue<'ctx>> {
        match other_than(a, b, 1) {
            Some(v) => Ok(v),
            None => self.memoized(Key::mul(&a, &b), || {
                self.builder.build_int_nsw_mul(a, b, name)
            }),
        }
    }

    /// `a + b` of `i64` index values (`nsw`), without the instruction when an operand is the
    /// constant 0 (see [`FnLowering::mul_index`]).
    pub(crate) fn add_index(
        &self,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
        name: &str,
    ) -> CgResult<IntValue<'ctx>> {
        match other_than(a, b, 0) {
            Some(v) => Ok(v),
            None => self.memoized(Key::add(&a, &b), || {
                self.builder.build_int_nsw_add(a, b, name)
            }),
        }
    }

    /// The address of element `indices` of `buf` (row-major), as the address of the part of
    /// the offset that varies, then the constant rest as a second `getelementptr`: the form
    /// LLVM's `instcombine` would give it, whose constant the instruction selector folds into
    /// the addressing mode (`[reg + 64]`), and whose first part the accesses of an unrolled
    /// tile share.
    pub(crate) fn element_ptr(
        &self,
        buf: &Buf<'ctx>,
        indices: &[Value],
    ) -> CgResult<PointerValue<'ctx>> {
        if indices.len() != buf.dims.len() {
            return Err(format!(
                "{} indices for a rank-{} buffer",
                indices.len(),
                buf.dims.len()
            )
            .into());
        }
        // The linear index is `var + konst`, with `var` absent for 0.
        let mut var: Option<IntValue<'ctx>> = None;
        let mut konst: i64 = 0;
        for (k, &i) in indices.iter().enumerate() {
            let i = self.index_value(i)?;
            if k > 0 {
                let dim = buf.dims[k];
                let scaled = dim
                    .get_sign_extended_constant()
                    .and_then(|d| konst.checked_mul(d));
                match scaled {
                    Some(scaled) => konst = scaled,
                    None => {
                        // A dynamic dim scales the constant part too: it joins the variable one.
                        var = self.plus_constant(var, konst)?;
                        konst = 0;
                    }
                }
                var = var.map(|v| self.mul_index(v, dim, "lin")).transpose()?;
            }
            match i
                .get_sign_extended_constant()
                .and_then(|c| konst.checked_add(c))
            {
                Some(sum) if i.is_const() => konst = sum,
                _ => {
                    var = Some(match var {
                        Some(v) => self.add_index(v, i, "lin")?,
                        None => i,
                    })
                }
            }
        }
        let base = match var {
            Some(v) => self.element_at(buf, buf.ptr, v)?,
            None => buf.ptr,
        };
        if konst == 0 {
            return Ok(base);
        }
        let konst = self.llvm.i64_type().const_int(konst as u64, true);
        self.element_at(buf, base, konst)
    }

    /// `var + konst` as a value (`None` for 0).
    fn plus_constant(
        &self,
        var: Option<IntValue<'ctx>>,
        konst: i64,
    ) -> CgResult<Option<IntValue<'ctx>>> {
        let k = self.llvm.i64_type().const_int(konst as u64, true);
        Ok(match var {
            Some(v) => Some(self.add_index(v, k, "lin")?),
            None if konst == 0 => None,
            None => Some(k),
        })
    }

    /// The address of element `offset` from `ptr`, an element of `buf` (emitted once where it
    /// dominates).
    fn element_at(
        &self,
        buf: &Buf<'ctx>,
        ptr: PointerValue<'ctx>,
        offset: IntValue<'ctx>,
    ) -> CgResult<PointerValue<'ctx>> {
        let key = Key::Element {
            base: id(&ptr),
            storage: buf.storage.as_type_ref() as usize,
            linear: id(&offset),
        };
        // SAFETY: the verifier and the runtime's shape checks keep indices inside the buffer the
        // kernel was given; `inbounds` only tells LLVM the address stays within that allocation.
        // Every part of an index is non-negative, so the address of its variable part lies
        // between the buffer's start and the element's.
        self.memoized(key, || unsafe {
            self.builder
                .build_in_bounds_gep(buf.storage, ptr, &[offset], "elt")
        })
    }

    fn lower_load(&mut self, load: Access<'_>) -> CgResult<()> {
        let buf = self.buffer(load.buffer)?.clone();
        let addr = self.element_ptr(&buf, load.indices)?;
        let result = load.value.ok_or("a load without a result")?;
        let value = self.load_at(&buf, addr, result)?;
        self.values.insert(result, value);
        Ok(())
    }

    /// The value of type `result`'s loaded from `addr`, an element (or a vector of elements)
    /// of `buf`: `i1` values are stored as bytes.
    fn load_at(
        &self,
        buf: &Buf<'ctx>,
        addr: PointerValue<'ctx>,
        result: Value,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let ctx = self.ctx;
        let result_ty = value_type(self.llvm, ctx, ctx.value_type(result))?;
        let is_bool = ctx.integer_width(buf.elem) == Some(1);
        let load_ty = if is_bool {
            self.bool_storage_type(result_ty)
        } else {
            result_ty
        };
        let loaded = self.builder.build_load(load_ty, addr, "ld")?;
        set_align(loaded, alignment_of(buf.storage))?;
        Ok(if is_bool {
            self.builder.build_cast(
                inkwell::values::InstructionOpcode::Trunc,
                loaded,
                result_ty,
                "b",
            )?
        } else {
            loaded
        })
    }

    /// `loop.load_padded` and `loop.vload_padded`: one `llvm.masked.load` of the access's
    /// lanes, the padding in every lane the mask leaves out. The mask holds lane `l` when the
    /// last index plus `l` is below the last dim ([`FnLowering::column_mask`], shared by the
    /// loads of one column); the leading indices are compared with their dims (unsigned, so
    /// a negative index is out) and, where one is out, taken as 0 for the address. Over dims
    /// that are all nonzero constants the element row 0 so addresses exists, and a `select`
    /// of the padding on the leading test follows the load (one blend per tap: a 5x5
    /// convolution's rows share their masks); over other dims the test joins the mask. The
    /// address may lie before or past the row, so it is computed without `inbounds`; a
    /// masked-off lane reads no memory, so nothing outside the buffer is touched. A scalar
    /// over nonzero constant dims is a plain load and a select
    /// ([`FnLowering::lower_selected_load`]).
    fn lower_padded_load(&mut self, load: Access<'_>) -> CgResult<()> {
        let ctx = self.ctx;
        let buf = self.buffer(load.buffer)?.clone();
        let result = load.value.ok_or("a load without a result")?;
        let padding = self.value(load.padding.ok_or("a padded load without its padding")?)?;
        let Some((last, leading)) = load.indices.split_last() else {
            return Err("a padded load of a rank-0 buffer".into());
        };
        if load.indices.len() != buf.dims.len() {
            return Err("a padded load whose indices do not match its buffer".into());
        }
        let nonempty = buf
            .dims
            .iter()
            .all(|d| d.get_zero_extended_constant().is_some_and(|n| n > 0));
        if load.lanes <= 1 && nonempty {
            return self.lower_selected_load(&buf, load.indices, padding, result);
        }
        let bool_t = self.llvm.bool_type();
        // Whether every leading index is inside its dim, and their part of the offset.
        let (inside, mut linear) = self.guarded_offset(&buf, leading)?;
        let last = self.index_value(*last)?;
        let last_dim = buf.dims[buf.dims.len() - 1];
        if !leading.is_empty() {
            linear = self.builder.build_int_mul(linear, last_dim, "lin")?;
        }
        linear = self.builder.build_int_add(linear, last, "lin")?;
        // SAFETY: a plain (not `inbounds`) address computation, which LLVM defines for any
        // offset; the masked load below reads only the lanes inside the buffer.
        let addr = unsafe {
            self.builder
                .build_gep(buf.storage, buf.ptr, &[linear], "padded")?
        };
        let lanes = load.lanes.max(1);
        let mut mask = self.column_mask(last, last_dim, lanes)?;
        let blend = nonempty && !leading.is_empty();
        if !blend {
            let everywhere = self.splat(inside.into(), bool_t.vec_type(lanes))?;
            mask = self.builder.build_and(mask, everywhere, "mask")?;
        }
        let is_bool = ctx.integer_width(buf.elem) == Some(1);
        let padding = if is_bool {
            let wide = self.bool_storage_type(padding.get_type());
            self.builder
                .build_cast(inkwell::values::InstructionOpcode::ZExt, padding, wide, "b")?
        } else {
            padding
        };
        let storage_vec = match buf.storage {
            BasicTypeEnum::IntType(t) => t.vec_type(lanes),
            BasicTypeEnum::FloatType(t) => t.vec_type(lanes),
            _ => return Err("a padded load of a buffer of neither integers nor floats".into()),
        };
        let passthru = self.splat(padding, storage_vec)?;
        let f = intrinsic(
            self.module,
            "llvm.masked.load",
            &[storage_vec.into(), addr.get_type().into()],
        )?;
        let call =
            self.builder
                .build_call(f, &[addr.into(), mask.into(), passthru.into()], "pld")?;
        let align = self.llvm.create_enum_attribute(
            inkwell::attributes::Attribute::get_named_enum_kind_id("align"),
            u64::from(alignment_of(buf.storage)),
        );
        call.add_attribute(inkwell::attributes::AttributeLoc::Param(0), align);
        let mut value = call
            .try_as_basic_value()
            .basic()
            .ok_or("llvm.masked.load without a result")?;
        if blend {
            value = self
                .builder
                .build_select(inside, value, passthru.into(), "pld")?;
        }
        let result_ty = value_type(self.llvm, ctx, ctx.value_type(result))?;
        if is_bool {
            let ty = match result_ty {
                BasicTypeEnum::VectorType(_) => result_ty,
                _ => bool_t.vec_type(lanes).into(),
            };
            value = self.builder.build_cast(
                inkwell::values::InstructionOpcode::Trunc,
                value,
                ty,
                "b",
            )?;
        }
        if !matches!(result_ty, BasicTypeEnum::VectorType(_)) {
            value = self.builder.build_extract_element(
                value.into_vector_value(),
                self.llvm.i32_type().const_zero(),
                "pld",
            )?;
        }
        self.values.insert(result, value);
        Ok(())
    }

    /// For the first `indices.len()` dims of `buf`: whether every index is below its dim
    /// (compared unsigned, so a negative one is out), and the row-major offset of those
    /// indices with every one taken as 0 when one is out.
    fn guarded_offset(
        &self,
        buf: &Buf<'ctx>,
        indices: &[Value],
    ) -> CgResult<(IntValue<'ctx>, IntValue<'ctx>)> {
        let i64t = self.llvm.i64_type();
        let mut inside = self.llvm.bool_type().const_all_ones();
        let mut idx = Vec::with_capacity(indices.len());
        for (&i, &dim) in indices.iter().zip(&buf.dims) {
            let i = self.index_value(i)?;
            let ok = self
                .builder
                .build_int_compare(IntPredicate::ULT, i, dim, "in")?;
            inside = self.builder.build_and(inside, ok, "in")?;
            idx.push(i);
        }
        let mut linear = i64t.const_zero();
        for (k, &i) in idx.iter().enumerate() {
            let i = self
                .builder
                .build_select(inside, i, i64t.const_zero(), "at")?
                .into_int_value();
            let scaled = if k > 0 {
                self.builder.build_int_mul(linear, buf.dims[k], "lin")?
            } else {
                linear
            };
            linear = self.builder.build_int_add(scaled, i, "lin")?;
        }
        Ok((inside, linear))
    }

    /// The lanes `l < lanes` with `0 <= last + l < dim`, as `first <= l < first + count`
    /// with `first = clamp(-last, 0, lanes)` and `count = clamp(dim - last, 0, lanes) - first`
    /// computed on scalars: one subtraction and one unsigned comparison of `i32` lanes
    /// (64-bit lanes took twice the registers and, on AVX2, emulated unsigned compares).
    /// Emitted once where it dominates for each `last` and `dim`.
    fn column_mask(
        &self,
        last: IntValue<'ctx>,
        dim: IntValue<'ctx>,
        lanes: u32,
    ) -> CgResult<VectorValue<'ctx>> {
        let key = Key::ColumnMask {
            last: id(&last),
            dim: id(&dim),
            lanes,
        };
        let b = &self.builder;
        let i64t = self.llvm.i64_type();
        let i32t = self.llvm.i32_type();
        self.memoized(key, || -> CgResult<VectorValue<'ctx>> {
            let wide = i64t.const_int(u64::from(lanes), false);
            let zero = i64t.const_zero();
            let clamp = |v: IntValue<'ctx>| -> CgResult<IntValue<'ctx>> {
                let neg = b.build_int_compare(IntPredicate::SLT, v, zero, "neg")?;
                let v = b.build_select(neg, zero, v, "lo")?.into_int_value();
                let big = b.build_int_compare(IntPredicate::SGT, v, wide, "big")?;
                Ok(b.build_select(big, wide, v, "hi")?.into_int_value())
            };
            let first = clamp(b.build_int_neg(last, "first")?)?;
            let end = clamp(b.build_int_sub(dim, last, "end")?)?;
            let count = b.build_int_sub(end, first, "count")?;
            let first = b.build_int_truncate(first, i32t, "first")?;
            let count = b.build_int_truncate(count, i32t, "count")?;
            let lane_ty = i32t.vec_type(lanes);
            let steps: Vec<IntValue<'ctx>> = (0..u64::from(lanes))
                .map(|l| i32t.const_int(l, false))
                .collect();
            let first = self.splat(first.into(), lane_ty)?;
            let offsets = b.build_int_sub(VectorType::const_vector(&steps), first, "lane")?;
            let count = self.splat(count.into(), lane_ty)?;
            Ok(b.build_int_compare(IntPredicate::ULT, offsets, count, "mask")?)
        })
    }

    /// A scalar padded load from a buffer of static, nonzero dims: the element at the indices
    /// where each is below its dim (compared unsigned), else at index 0 (so the load stays in
    /// the buffer), then a `select` of it or the padding. Branch-free and unmasked, so LLVM
    /// keeps optimizing around it: a `<1 x T>` masked load per tap became a branch each, and
    /// a 5x5 depthwise convolution over 14 columns (scalar, fewer than a vector's lanes) ran
    /// six times slower than over a padded copy.
    fn lower_selected_load(
        &mut self,
        buf: &Buf<'ctx>,
        indices: &[Value],
        padding: BasicValueEnum<'ctx>,
        result: Value,
    ) -> CgResult<()> {
        let (inside, linear) = self.guarded_offset(buf, indices)?;
        // SAFETY: every index is inside its dim (the selects put 0 where one is not, and every
        // dim is a nonzero constant), so the address is an element of the buffer.
        let addr = unsafe {
            self.builder
                .build_in_bounds_gep(buf.storage, buf.ptr, &[linear], "padded")?
        };
        let loaded = self.load_at(buf, addr, result)?;
        let value = self.builder.build_select(inside, loaded, padding, "pld")?;
        self.values.insert(result, value);
        Ok(())
    }

    /// `llvm.prefetch` of the element's address for reading into the L2 cache and below (x86
    /// `prefetcht1`: the L1 cache keeps the row being computed); nothing on the GPU.
    fn lower_prefetch(&mut self, prefetch: Access<'_>) -> CgResult<()> {
        if !matches!(self.machine, Machine::Cpu { .. }) {
            return Ok(());
        }
        let buf = self.buffer(prefetch.buffer)?.clone();
        let addr = self.element_ptr(&buf, prefetch.indices)?;
        let i32t = self.llvm.i32_type();
        let (read, keep_in_l2, data) = (0, 2, 1);
        self.call_intrinsic(
            "llvm.prefetch",
            &[addr.get_type().into()],
            &[
                addr.into(),
                i32t.const_int(read, false).into(),
                i32t.const_int(keep_in_l2, false).into(),
                i32t.const_int(data, false).into(),
            ],
        )?;
        Ok(())
    }

    fn lower_store(&mut self, op: Op, access: Access<'_>) -> CgResult<()> {
        let ctx = self.ctx;
        let value = self.value(access.value.ok_or("a store without a value")?)?;
        let buf = self.buffer(access.buffer)?.clone();
        let addr = self.element_ptr(&buf, access.indices)?;
        let value = if ctx.integer_width(buf.elem) == Some(1) {
            let ty = self.bool_storage_type(value.get_type());
            self.builder
                .build_cast(inkwell::values::InstructionOpcode::ZExt, value, ty, "b")?
        } else {
            value
        };
        let store = self.builder.build_store(addr, value)?;
        store
            .set_alignment(alignment_of(buf.storage))
            .map_err(|e| format!("{e}"))?;
        if let Some(align) = self.stream_alignment(op, access.buffer, value) {
            self.streamed = true;
            store.set_alignment(align).map_err(|e| format!("{e}"))?;
            let one = self.llvm.i32_type().const_int(1, false);
            let node = self.llvm.metadata_node(&[one.into()]);
            store
                .set_metadata(node, self.llvm.get_kind_id("nontemporal"))
                .map_err(|e| format!("{e}"))?;
        }
        Ok(())
    }

    /// The vector's size in bytes when `op` is a `nontemporal` `loop.vstore` of `value` into
    /// `buffer` at an address proven aligned to the vector's size: every launch aligns the
    /// buffer's base that much (`host_facts.rs`), and the element offset is a known multiple
    /// of the lanes (`dlc_loop::index_expr::divisor`). Only then can the store stream
    /// (`movntps` needs the alignment); a hint on an access not proven aligned becomes a plain
    /// store.
    fn stream_alignment(&self, op: Op, buffer: Value, value: BasicValueEnum<'ctx>) -> Option<u32> {
        let ctx = self.ctx;
        let BasicValueEnum::VectorValue(v) = value else {
            return None;
        };
        if !matches!(self.machine, Machine::Cpu { .. }) {
            return None;
        }
        let vstore = ctx
            .view::<dlc_loop::VStoreOp>(op)
            .filter(|s| s.is_nontemporal(ctx))?;
        let (dims, _, _) = dlc_loop::buffer_parts(ctx, ctx.value_type(buffer))?;
        let elem_bytes = u64::from(alignment_of(v.get_type().get_element_type()));
        let bytes = u64::from(v.get_type().get_size()) * elem_bytes;
        let offset = dlc_loop::index_expr::divisor::offset_divisor(ctx, &dims, vstore.indices(ctx));
        let aligned = bytes.is_power_of_two()
            && offset.saturating_mul(elem_bytes) >= bytes
            && self
                .facts
                .get(&buffer)
                .is_some_and(|f| u64::from(f.align) >= bytes);
        aligned.then(|| u32::try_from(bytes).ok()).flatten()
    }

    /// `i8`, or `<n x i8>` for an `<n x i1>` value.
    fn bool_storage_type(&self, ty: BasicTypeEnum<'ctx>) -> BasicTypeEnum<'ctx> {
        match ty {
            BasicTypeEnum::VectorType(v) => self.llvm.i8_type().vec_type(v.get_size()).into(),
            _ => self.llvm.i8_type().into(),
        }
    }

    fn lower_dim(&mut self, op: dlc_loop::DimOp) -> CgResult<()> {
        let axis = op.axis_index(self.ctx).ok_or("loop.dim without an axis")?;
        let buf = self.buffer(op.buffer(self.ctx))?;
        let dim = *buf.dims.get(axis).ok_or("loop.dim axis out of range")?;
        self.values.insert(op.result(self.ctx), dim.into());
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Intrinsics.

    /// Calls the intrinsic `name` overloaded on `types`; returns its result, if any.
    pub(crate) fn call_intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> CgResult<Option<BasicValueEnum<'ctx>>> {
        let f = intrinsic(self.module, name, types)?;
        let call = self.builder.build_call(f, args, "")?;
        Ok(call.try_as_basic_value().basic())
    }
}

/// The declaration of intrinsic `name` overloaded on `types`.
pub(crate) fn intrinsic<'ctx>(
    module: &Module<'ctx>,
    name: &str,
    types: &[BasicTypeEnum<'ctx>],
) -> CgResult<FunctionValue<'ctx>> {
    Intrinsic::find(name)
        .and_then(|i| i.get_declaration(module, types))
        .ok_or_else(|| format!("LLVM has no intrinsic '{name}' for these types").into())
}

/// The natural alignment of one stored element (its size, for power-of-two sizes).
pub(crate) fn alignment_of(storage: BasicTypeEnum<'_>) -> u32 {
    let bits = match storage {
        BasicTypeEnum::IntType(t) => t.get_bit_width(),
        BasicTypeEnum::FloatType(t) => match t.get_bit_width() {
            0 => 32,
            b => b,
        },
        _ => 64,
    };
    (bits / 8).max(1)
}

fn set_align(v: BasicValueEnum<'_>, align: u32) -> CgResult<()> {
    if let Some(inst) = v.as_instruction_value() {
        inst.set_alignment(align).map_err(|e| format!("{e}"))?;
    }
    Ok(())
}

/// The other operand of an operation of `a` and `b` when one of them is the constant
/// `identity` (1 for a product, 0 for a sum), so the operation is not needed.
fn other_than<'ctx>(a: IntValue<'ctx>, b: IntValue<'ctx>, identity: u64) -> Option<IntValue<'ctx>> {
    if a.get_zero_extended_constant() == Some(identity) {
        Some(b)
    } else if b.get_zero_extended_constant() == Some(identity) {
        Some(a)
    } else {
        None
    }
}

/// The bytes an element of `ty` takes in memory when that is its bit width over 8 (the
/// integers of 8 to 64 bits and the 16-, 32- and 64-bit floats), written as a constant so no
/// `sizeof` expression waits for the data layout; `None` for other types.
fn scalar_bytes(ty: BasicTypeEnum<'_>) -> Option<u64> {
    let bits = match ty {
        BasicTypeEnum::IntType(t) => t.get_bit_width(),
        BasicTypeEnum::FloatType(t) => {
            let llvm = t.get_context();
            match t {
                t if t == llvm.f16_type() || t == llvm.bf16_type() => 16,
                t if t == llvm.f32_type() => 32,
                t if t == llvm.f64_type() => 64,
                _ => return None,
            }
        }
        _ => return None,
    };
    matches!(bits, 8 | 16 | 32 | 64).then_some(u64::from(bits / 8))
}
