//! Data movement as index arithmetic: the element of a reshape, transpose, slice, concat, pad,
//! gather, iota or fill at an output point, loaded from the input buffers at the index the op
//! maps that point to. Each of these ops is a kernel of its own, its inputs global buffers and
//! its point the output index, or is read through by its consumers' kernels
//! (`read_through.rs`), its point then the index the consumer reads.
//!
//! Branches (`pad` outside the input, the operand of `concat` that covers a point) are
//! `loop.if`s writing one scratch register, so no load ever leaves its buffer.

use super::element::{cast, scalar_attr, slice_bound, Emit, Signs};
use super::kernel::{element_type, Kernel, Point};
use super::plan::{i64_array, int_attr, normalize_axis};
use super::read_through::constant_indices;
use dlc_arith::CmpIPredicate;
use dlc_graph::GraphOps;
use dlc_ir::{Context, DenseValue, Op, Type, Value};
use dlc_loop::{before_terminator, build_if, build_load, build_store};

impl Kernel<'_> {
    /// One element of movement op `op` at `point` (the output index).
    pub(super) fn movement(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        point: &Point,
    ) -> Result<Value, String> {
        let out: Vec<Value> = point
            .iter()
            .map(|p| p.ok_or("an output axis out of scope"))
            .collect::<Result<_, _>>()?;
        let elem = element_type(ctx, ctx.result(op, 0))?;
        match GraphOps::of(ctx, op) {
            Some(GraphOps::TransposeOp(_)) => {
                let perm = i64_array(ctx, op, "perm");
                let mut idx = vec![out[0]; out.len()];
                for (i, &p) in perm.iter().enumerate() {
                    *idx.get_mut(p as usize).ok_or("a bad permutation")? = out[i];
                }
                self.load_input(ctx, e, ctx.operand(op, 0), &idx)
            }
            Some(GraphOps::ReshapeOp(_)) => {
                let x = ctx.operand(op, 0);
                let idx = self.reshaped_index(ctx, e, op, &out);
                self.load_input(ctx, e, x, &idx)
            }
            Some(GraphOps::SliceOp(_)) => self.slice(ctx, e, op, &out),
            Some(GraphOps::PadOp(_)) => self.pad(ctx, e, op, &out, elem),
            Some(GraphOps::ConcatOp(_)) => self.concat(ctx, e, op, &out),
            Some(GraphOps::GatherOp(_)) => self.gather(ctx, e, op, &out),
            Some(GraphOps::IotaOp(_)) => {
                let axis = normalize_axis(int_attr(ctx, op, "axis").unwrap_or(0), out.len())?;
                let i = e.arith(ctx, "index_cast", &[out[axis]], Type::I64);
                Ok(cast(ctx, e, i, elem, Signs::default()))
            }
            Some(GraphOps::FillOp(_)) => {
                let v = scalar_attr(ctx, op, "value").ok_or("fill without a scalar value")?;
                Ok(self.constant(ctx, v, elem))
            }
            _ => Err(format!("'{}' is not a data-movement op", ctx.op_name(op))),
        }
    }

    /// The operand index of reshape `op` at its result index `out`: the dims that lead and
    /// trail both shapes unchanged keep their index, and the row-major offset of the dims
    /// between them is split over the operand's dims between them (`[1, 3, 51076]` of a
    /// `[1, 3, 226, 226]` divides by 226 once, not three times).
    fn reshaped_index(&mut self, ctx: &mut Context, e: Emit, op: Op, out: &[Value]) -> Vec<Value> {
        let x = ctx.operand(op, 0);
        let from = self.shapes.shape(x).map_or_else(Vec::new, <[_]>::to_vec);
        let to = self
            .shapes
            .shape(ctx.result(op, 0))
            .map_or_else(Vec::new, <[_]>::to_vec);
        let lead = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        let trail = from[lead..]
            .iter()
            .rev()
            .zip(to[lead..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        let (x_end, out_end) = (from.len() - trail, to.len() - trail);
        // The row-major offset of `out[lead..out_end]` in the result's dims there.
        let mut linear = None;
        for (axis, &i) in out.iter().enumerate().take(out_end).skip(lead) {
            linear = Some(match linear {
                None => i,
                Some(l) => {
                    let d = self.dim_of(ctx, ctx.result(op, 0), axis);
                    let scaled = e.arith(ctx, "muli", &[l, d], Type::INDEX);
                    e.arith(ctx, "addi", &[scaled, i], Type::INDEX)
                }
            });
        }
        let mut linear = linear.unwrap_or_else(|| self.index(ctx, 0));
        // Split over the operand's dims `lead..x_end`, the first taking what is left.
        let mut idx = out[..lead].to_vec();
        let mut middle = Vec::with_capacity(x_end - lead);
        for axis in (lead..x_end).rev() {
            if axis == lead {
                middle.push(linear);
            } else {
                let d = self.dim_of(ctx, x, axis);
                middle.push(e.arith(ctx, "remui", &[linear, d], Type::INDEX));
                linear = e.arith(ctx, "divui", &[linear, d], Type::INDEX);
            }
        }
        idx.extend(middle.into_iter().rev());
        idx.extend_from_slice(&out[out_end..]);
        idx
    }

    /// `graph.slice`: input index `start + i * step` per axis, the start clamped at run time
    /// as the shape rule does (negative counts from the end).
    fn slice(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        out: &[Value],
    ) -> Result<Value, String> {
        let x = ctx.operand(op, 0);
        let (starts, steps) = (i64_array(ctx, op, "starts"), i64_array(ctx, op, "steps"));
        let mut idx = Vec::with_capacity(out.len());
        for (axis, &i) in out.iter().enumerate() {
            let start = *starts.get(axis).ok_or("slice starts of the wrong length")?;
            let step = *steps.get(axis).ok_or("slice steps of the wrong length")?;
            let d = self.dim_of(ctx, x, axis);
            let s = self.index(ctx, start);
            let zero = self.index(ctx, 0);
            let b = slice_bound(ctx, e, s, d, zero);
            let step = self.index(ctx, step);
            let offset = e.arith(ctx, "muli", &[i, step], Type::INDEX);
            idx.push(e.arith(ctx, "addi", &[b, offset], Type::INDEX));
        }
        self.load_input(ctx, e, x, &idx)
    }

    /// `graph.pad`: the input element at `i - low` where that is inside the input, else the
    /// padding value.
    fn pad(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        out: &[Value],
        elem: Type,
    ) -> Result<Value, String> {
        let x = ctx.operand(op, 0);
        let reg = self.scratch(op).ok_or("pad without a scratch register")?;
        let value = scalar_attr(ctx, op, "value").unwrap_or(DenseValue::Int(0));
        let fill = self.constant(ctx, value, elem);
        let (inside, idx) = self.pad_source(ctx, e, op, out)?;
        let Some(cond) = inside else {
            // Rank 0: nothing to pad.
            return self.load_input(ctx, e, x, &[]);
        };
        let (_, then_block, else_block) = build_if(ctx, e.at, cond, true, e.loc);
        let then_at = before_terminator(ctx, then_block);
        let then_e = Emit {
            at: then_at,
            loc: e.loc,
        };
        let v = self.load_input(ctx, then_e, x, &idx)?;
        build_store(ctx, then_at, v, reg, &[], e.loc);
        let else_block = else_block.ok_or("an if without an else block")?;
        let else_at = before_terminator(ctx, else_block);
        build_store(ctx, else_at, fill, reg, &[], e.loc);
        Ok(build_load(ctx, e.at, reg, &[], e.loc))
    }

    /// For point `out` of pad `op`'s result (its first `out.len()` dims): whether it lies
    /// inside the padded input (`None` for no dims), and the input index there, `out - low`.
    pub(super) fn pad_source(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        out: &[Value],
    ) -> Result<(Option<Value>, Vec<Value>), String> {
        let x = ctx.operand(op, 0);
        let low = i64_array(ctx, op, "low");
        let mut inside = None;
        let mut idx = Vec::with_capacity(out.len());
        for (axis, &i) in out.iter().enumerate() {
            let l = self.index(ctx, *low.get(axis).ok_or("pad low of the wrong length")?);
            let j = e.arith(ctx, "subi", &[i, l], Type::INDEX);
            let d = self.dim_of(ctx, x, axis);
            let zero = self.index(ctx, 0);
            let ge = e.cmpi(ctx, CmpIPredicate::Sge, j, zero);
            let lt = e.cmpi(ctx, CmpIPredicate::Slt, j, d);
            let both = e.arith(ctx, "andi", &[ge, lt], Type::I1);
            inside = Some(match inside {
                Some(c) => e.arith(ctx, "andi", &[c, both], Type::I1),
                None => both,
            });
            idx.push(j);
        }
        Ok((inside, idx))
    }

    /// `graph.concat`: the operand whose range along the axis covers the point, at the point
    /// less that operand's offset.
    fn concat(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        out: &[Value],
    ) -> Result<Value, String> {
        let axis = normalize_axis(int_attr(ctx, op, "axis").unwrap_or(0), out.len())?;
        let reg = self
            .scratch(op)
            .ok_or("concat without a scratch register")?;
        let inputs = ctx.operands(op).to_vec();
        let mut at = e.at;
        let mut offset = self.index(ctx, 0);
        for (n, &x) in inputs.iter().enumerate() {
            let here = Emit { at, loc: e.loc };
            let local = here.arith(ctx, "subi", &[out[axis], offset], Type::INDEX);
            let mut idx = out.to_vec();
            idx[axis] = local;
            if n + 1 == inputs.len() {
                let v = self.load_input(ctx, here, x, &idx)?;
                build_store(ctx, at, v, reg, &[], e.loc);
                break;
            }
            let size = self.dim_of(ctx, x, axis);
            let cond = here.cmpi(ctx, CmpIPredicate::Slt, local, size);
            let (_, then_block, else_block) = build_if(ctx, at, cond, true, e.loc);
            let then_at = before_terminator(ctx, then_block);
            let then_e = Emit {
                at: then_at,
                loc: e.loc,
            };
            let v = self.load_input(ctx, then_e, x, &idx)?;
            build_store(ctx, then_at, v, reg, &[], e.loc);
            at = before_terminator(ctx, else_block.ok_or("an if without an else block")?);
            offset = Emit { at, loc: e.loc }.arith(ctx, "addi", &[offset, size], Type::INDEX);
        }
        Ok(build_load(ctx, e.at, reg, &[], e.loc))
    }

    /// `graph.gather`: `x[out[..axis], idx[out[axis..axis + r]], out[axis + r..]]`, a negative
    /// index counting from the end. Indices outside `[-n, n)` never reach the load: the kernel
    /// declares them a precondition (`index_checks`) that the runtime checks before launching,
    /// unless they are a constant all in range; constant indices none of which is negative
    /// are used without the test for one.
    fn gather(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        out: &[Value],
    ) -> Result<Value, String> {
        let (x, indices) = (ctx.operand(op, 0), ctx.operand(op, 1));
        let xrank = self.shapes.shape(x).map_or(0, <[_]>::len);
        let axis = normalize_axis(int_attr(ctx, op, "axis").unwrap_or(0), xrank)?;
        let r = self.shapes.shape(indices).map_or(0, <[_]>::len);
        let position = out
            .get(axis..axis + r)
            .ok_or("gather ranks do not add up")?;
        // The runtime checks every index against the dim before the launch, so the load below
        // stays in its buffer; constant indices all in range need no check (an im2col
        // convolution's window table: checking it on the host took as long as the gather), and
        // data read through has no buffer to check against.
        let known = constant_indices(ctx, self.shapes, op);
        let in_range = known.is_some_and(|k| k.in_range);
        if !in_range {
            if self.reads_through(x) {
                return Err("gather indices unchecked against data read through".into());
            }
            self.check_indices(ctx, indices, x, axis)?;
        }
        let i = self.load_input(ctx, e, indices, position)?;
        let i = e.arith(ctx, "index_cast", &[i], Type::INDEX);
        let i = if known.is_some_and(|k| k.in_range && k.non_negative) {
            i // none counts from the end
        } else {
            let n = self.dim_of(ctx, x, axis);
            let zero = self.index(ctx, 0);
            let negative = e.cmpi(ctx, CmpIPredicate::Slt, i, zero);
            let wrapped = e.arith(ctx, "addi", &[i, n], Type::INDEX);
            e.select(ctx, negative, wrapped, i)
        };
        let mut idx = out[..axis].to_vec();
        idx.push(i);
        idx.extend_from_slice(&out[axis + r..]);
        self.load_input(ctx, e, x, &idx)
    }
}
