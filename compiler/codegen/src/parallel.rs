//! Outlining of parallel loops for the runtime's thread pool.
//!
//! An outermost `loop.for parallel` on the CPU becomes three pieces:
//! - a *body* function taking the loop's live-in values as typed parameters (buffers as pointer
//!   plus their `?` dims, with the kernel argument's `noalias`/`align` facts) and an iteration range
//!   `[begin, end)`; it runs `iv = lb + i * step` for `i` in the range;
//! - a *thunk* `void(ptr captures, i64 begin, i64 end)` that unpacks the live-ins from a struct
//!   and calls the body (which LLVM inlines, turning the parameter facts into alias scopes);
//! - at the loop's place, the captures struct on the stack and a call
//!   `dlc_parallel_for(thunk, captures, trip_count)`, which splits the iterations over the pool.
//!
//! Parallel loops nested in an outlined body run serially: one level of parallelism saturates
//! the pool, and `parallelize` already collapsed perfect nests into one loop.

use crate::error::CgResult;
use crate::function::{kernel_param_types, Buf, DimParams, FnLowering, LoopHint};
use dlc_ir::{Block, Context, Op, Value};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue};
use inkwell::AddressSpace;
use rustc_hash::FxHashSet;

/// The name of the runtime entry point compiled parallel loops call.
pub(crate) const PARALLEL_FOR: &str = "dlc_parallel_for";

impl<'a, 'ctx> FnLowering<'a, 'ctx> {
    pub(crate) fn lower_parallel_for(
        &mut self,
        op: Op,
        body: Block,
        (lb, ub, step): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
    ) -> CgResult<()> {
        let ctx = self.ctx;
        // Constants are not captured: the body sees them as constants, so its loops keep
        // compile-time bounds and steps (which the vectorizer needs).
        let (constants, live_ins): (Vec<Value>, Vec<Value>) = live_ins(ctx, op)
            .into_iter()
            .partition(|v| self.values.get(v).is_some_and(|x| is_constant(*x)));
        let name = format!("{}.par{}", self.name, self.created);
        self.created += 1;

        // The body function: live-ins, then lb, step, begin, end.
        let live_types: Vec<_> = live_ins.iter().map(|&v| ctx.value_type(v)).collect();
        let mut params = kernel_param_types(self.llvm, ctx, &live_types, DimParams::Dynamic)?;
        let i64t = self.llvm.i64_type();
        params.extend([BasicMetadataTypeEnum::from(i64t); 4]);
        let body_fn = self.module.add_function(
            &format!("{name}.body"),
            self.llvm.void_type().fn_type(&params, false),
            Some(Linkage::Internal),
        );
        let inline = Attribute::get_named_enum_kind_id("alwaysinline");
        body_fn.add_attribute(
            AttributeLoc::Function,
            self.llvm.create_enum_attribute(inline, 0),
        );
        let mut inner = FnLowering::new(
            ctx,
            self.llvm,
            self.module,
            body_fn,
            self.machine,
            name.clone(),
        );
        inner.in_parallel = true;
        let facts: Vec<_> = live_ins
            .iter()
            .map(|v| self.facts.get(v).copied().unwrap_or_default())
            .collect();
        inner.bind_kernel_args(&live_ins, &facts, DimParams::Dynamic)?;
        for v in constants {
            inner.values.insert(v, self.value(v)?);
        }
        let n = body_fn.count_params();
        let param = |i: u32| -> CgResult<IntValue<'ctx>> {
            Ok(body_fn
                .get_nth_param(i)
                .ok_or("outlined body has too few parameters")?
                .into_int_value())
        };
        let (begin, end) = (param(n - 2)?, param(n - 1)?);
        let p_lb = if lb.is_const() { lb } else { param(n - 4)? };
        let p_step = if step.is_const() { step } else { param(n - 3)? };
        let one = i64t.const_int(1, false);
        let body_arg = ctx.block_args(body).first().copied();
        inner.emit_counted_loop(begin, end, one, LoopHint::None, |this, i| {
            let scaled = this.mul_index(i, p_step, "")?;
            let iv = this.add_index(p_lb, scaled, "iv")?;
            if let Some(arg) = body_arg {
                this.values.insert(arg, iv.into());
            }
            this.lower_block(body)
        })?;
        inner.finish()?;

        // The thunk: unpack the captures struct and call the body.
        let ptr_t = self.llvm.ptr_type(AddressSpace::default());
        let field_types: Vec<BasicTypeEnum<'ctx>> = params[..params.len() - 2]
            .iter()
            .map(|t| BasicTypeEnum::try_from(*t).map_err(|_| "non-basic capture type"))
            .collect::<Result<_, _>>()?;
        let caps_ty = self.llvm.struct_type(&field_types, false);
        let thunk = self.module.add_function(
            &name,
            self.llvm
                .void_type()
                .fn_type(&[ptr_t.into(), i64t.into(), i64t.into()], false),
            Some(Linkage::Internal),
        );
        {
            let b = self.llvm.create_builder();
            b.position_at_end(self.llvm.append_basic_block(thunk, "entry"));
            let caps = thunk
                .get_nth_param(0)
                .ok_or("thunk without captures")?
                .into_pointer_value();
            let mut args: Vec<BasicMetadataValueEnum<'ctx>> = Vec::new();
            for (i, &ty) in field_types.iter().enumerate() {
                let field = b.build_struct_gep(caps_ty, caps, i as u32, "")?;
                args.push(b.build_load(ty, field, "")?.into());
            }
            for i in 1..3 {
                args.push(
                    thunk
                        .get_nth_param(i)
                        .ok_or("thunk without a range")?
                        .into(),
                );
            }
            b.build_call(body_fn, &args, "")?;
            b.build_return(None)?;
        }

        // At the loop: fill the captures and hand the loop to the pool.
        let caps = self.builder.build_alloca(caps_ty, "captures")?;
        let mut values: Vec<BasicValueEnum<'ctx>> = Vec::new();
        for &v in &live_ins {
            match self.buffers.get(&v) {
                Some(Buf { ptr, dims, .. }) => {
                    values.push((*ptr).into());
                    let sizes = dlc_loop::buffer_parts(ctx, ctx.value_type(v))
                        .map(|(sizes, _, _)| sizes)
                        .ok_or("a captured buffer without a buffer type")?;
                    values.extend(
                        dims.iter()
                            .zip(&sizes)
                            .filter(|&(_, &size)| DimParams::Dynamic.passes(size))
                            .map(|(&d, _)| BasicValueEnum::from(d)),
                    );
                }
                None => values.push(self.value(v)?),
            }
        }
        values.extend([BasicValueEnum::from(lb), BasicValueEnum::from(step)]);
        for (i, v) in values.into_iter().enumerate() {
            let field = self.builder.build_struct_gep(caps_ty, caps, i as u32, "")?;
            self.builder.build_store(field, v)?;
        }
        let trips = self.trip_count(lb, ub, step)?;
        let runtime = self.parallel_for_decl();
        let thunk_ptr = thunk.as_global_value().as_pointer_value();
        self.builder
            .build_call(runtime, &[thunk_ptr.into(), caps.into(), trips.into()], "")?;
        Ok(())
    }

    /// `ceil((ub - lb) / step)`, or 0 when the range is empty or the step is not positive.
    fn trip_count(
        &self,
        lb: IntValue<'ctx>,
        ub: IntValue<'ctx>,
        step: IntValue<'ctx>,
    ) -> CgResult<IntValue<'ctx>> {
        let b = &self.builder;
        let i64t = self.llvm.i64_type();
        let zero = i64t.const_zero();
        let one = i64t.const_int(1, false);
        let span = b.build_int_sub(ub, lb, "span")?;
        let positive_step = b.build_int_compare(inkwell::IntPredicate::SGT, step, zero, "")?;
        let nonempty = b.build_int_compare(inkwell::IntPredicate::SGT, span, zero, "")?;
        let ok = b.build_and(positive_step, nonempty, "")?;
        let safe_step = b
            .build_select(positive_step, step, one, "")?
            .into_int_value();
        let rounded = b.build_int_add(span, b.build_int_sub(safe_step, one, "")?, "")?;
        let trips = b.build_int_signed_div(rounded, safe_step, "trips")?;
        Ok(b.build_select(ok, trips, zero, "")?.into_int_value())
    }

    /// `void dlc_parallel_for(ptr body, ptr captures, i64 iterations)`.
    fn parallel_for_decl(&self) -> inkwell::values::FunctionValue<'ctx> {
        self.module.get_function(PARALLEL_FOR).unwrap_or_else(|| {
            let ptr_t = self.llvm.ptr_type(AddressSpace::default());
            let ty = self.llvm.void_type().fn_type(
                &[ptr_t.into(), ptr_t.into(), self.llvm.i64_type().into()],
                false,
            );
            self.module
                .add_function(PARALLEL_FOR, ty, Some(Linkage::External))
        })
    }
}

fn is_constant(v: BasicValueEnum<'_>) -> bool {
    match v {
        BasicValueEnum::IntValue(i) => i.is_const(),
        BasicValueEnum::FloatValue(f) => f.is_const(),
        BasicValueEnum::VectorValue(x) => x.is_const(),
        _ => false,
    }
}

/// The values used inside `op` but defined outside it, in first-use order.
fn live_ins(ctx: &Context, op: Op) -> Vec<Value> {
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    ctx.for_each_op(op, &mut |inner| {
        if inner == op {
            return;
        }
        for &v in ctx.operands(inner) {
            let inside = ctx
                .value_block(v)
                .and_then(|b| ctx.block_parent_op(b))
                .is_some_and(|owner| owner == op || ctx.is_ancestor(op, owner));
            if !inside && seen.insert(v) {
                out.push(v);
            }
        }
    });
    out
}
