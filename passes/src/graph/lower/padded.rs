//! Padding written by the producer: a kernel whose result is only padded (`graph.pad`, maybe
//! through one `graph.reshape`) writes each element straight into the padded tensor's
//! buffer, at its place inside the padding, and fills the border with the pad value in a
//! second loop nest of its own, so the pad is no kernel. The convolutions `decompose` leaves
//! direct read a padded input: with this, the kernel before them writes it, and the pad's
//! copy of the whole tensor goes away.
//!
//! Only on the CPU (`gpu-map` maps one nest per kernel) and over static shapes.

use super::element::{scalar_attr, Emit};
use super::kernel::{element_type, Kernel, Point};
use super::plan::i64_array;
use dlc_arith::CmpIPredicate;
use dlc_graph::ops::{PadOp, ReshapeOp};
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_ir::{Block, Context, DenseValue, Op, Type, Value};
use dlc_loop::{
    before_terminator, build_for, build_if, build_schedule_block, build_store, IterKind, LoopKind,
};

/// Where a kernel result goes when its only consumer pads it.
#[derive(Clone, Debug)]
pub(super) struct Padded {
    /// The `graph.pad` op; its result's buffer is the kernel's output argument.
    pub pad: Op,
    /// The `graph.reshape` between the result and the pad, if any.
    pub reshape: Option<Op>,
}

impl Padded {
    /// The padding of `v`, a value computed by a kernel, if its one use is a constant-value
    /// `graph.pad`, directly or through a `graph.reshape` used only there, all over static
    /// shapes.
    pub(super) fn of(ctx: &Context, shapes: &SymbolicShapes, v: Value) -> Option<Padded> {
        let only_user = |v: Value| match ctx.uses(v) {
            [u] => Some(u.user),
            _ => None,
        };
        let mut user = only_user(v)?;
        let mut reshape = None;
        if ctx.view::<ReshapeOp>(user).is_some() {
            reshape = Some(user);
            user = only_user(ctx.result(user, 0))?;
        }
        ctx.view::<PadOp>(user)?;
        scalar_attr(ctx, user, "value")?;
        let values = [
            Some(v),
            reshape.map(|r| ctx.result(r, 0)),
            Some(ctx.result(user, 0)),
        ];
        let all_static = values
            .into_iter()
            .flatten()
            .all(|x| static_shape(shapes, x).is_some());
        all_static.then_some(Padded { pad: user, reshape })
    }

    /// The ops whose work the producing kernel takes over: the reshape and the pad.
    pub(super) fn absorbed(&self) -> impl Iterator<Item = Op> {
        self.reshape.into_iter().chain([self.pad])
    }
}

fn static_shape(shapes: &SymbolicShapes, v: Value) -> Option<Vec<i64>> {
    shapes
        .shape(v)?
        .iter()
        .map(|d| match d {
            DimExpr::Static(n) => Some(*n),
            DimExpr::Symbol(_) => None,
        })
        .collect()
}

impl Kernel<'_> {
    /// The index in the padded buffer of element `idx` of the kernel's result `r`: through
    /// the reshape (row-major order kept), then shifted by the padding before it.
    pub(super) fn padded_index(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        r: Value,
        padded: &Padded,
        idx: Vec<Value>,
    ) -> Result<Vec<Value>, String> {
        let shape = |v| static_shape(self.shapes, v).ok_or("a padded output of dynamic shape");
        let mut idx = idx;
        if let Some(reshape) = padded.reshape {
            let from = shape(r)?;
            let to = shape(ctx.result(reshape, 0))?;
            let mut linear = self.index(ctx, 0);
            for (&i, &d) in idx.iter().zip(&from) {
                let dv = self.index(ctx, d);
                let scaled = e.arith(ctx, "muli", &[linear, dv], Type::INDEX);
                linear = e.arith(ctx, "addi", &[scaled, i], Type::INDEX);
            }
            let mut out = vec![linear; to.len()];
            for (axis, &d) in to.iter().enumerate().rev() {
                let dv = self.index(ctx, d);
                out[axis] = e.arith(ctx, "remui", &[linear, dv], Type::INDEX);
                linear = e.arith(ctx, "divui", &[linear, dv], Type::INDEX);
            }
            idx = out;
        }
        let low = i64_array(ctx, padded.pad, "low");
        idx.iter()
            .zip(&low)
            .map(|(&i, &l)| {
                if l == 0 {
                    return Ok(i);
                }
                let lv = self.index(ctx, l);
                Ok(e.arith(ctx, "addi", &[i, lv], Type::INDEX))
            })
            .collect()
    }

    /// A loop nest after the kernel's own that stores the pad value everywhere in `out`
    /// outside the part the kernel writes.
    pub(super) fn fill_border(
        &mut self,
        ctx: &mut Context,
        entry: Block,
        out: Value,
        padded: &Padded,
    ) -> Result<(), String> {
        let pad = padded.pad;
        let result = ctx.result(pad, 0);
        let dims = static_shape(self.shapes, result).ok_or("a padded output of dynamic shape")?;
        let inner = static_shape(self.shapes, ctx.operand(pad, 0))
            .ok_or("a padded output of dynamic shape")?;
        let low = i64_array(ctx, pad, "low");
        let elem = element_type(ctx, result)?;
        let value = scalar_attr(ctx, pad, "value").unwrap_or(DenseValue::Int(0));
        let mut body = entry;
        let mut ivs = Vec::with_capacity(dims.len());
        for (n, &d) in dims.iter().enumerate() {
            // As the kernel's own nest: parallel but the innermost loop.
            let kind = if n > 0 && n + 1 == dims.len() {
                LoopKind::Serial
            } else {
                LoopKind::Parallel
            };
            let bounds = (self.index(ctx, 0), self.index(ctx, d), self.index(ctx, 1));
            let at = before_terminator(ctx, body);
            let (_, b, iv) = build_for(ctx, at, bounds, kind, self.loc);
            body = b;
            ivs.push(iv);
        }
        let iters: Vec<(Value, IterKind)> = ivs.iter().map(|&v| (v, IterKind::Spatial)).collect();
        let at = before_terminator(ctx, body);
        let name = format!("pad_border_{}", self.blocks);
        let (_, sb, _) = build_schedule_block(ctx, at, &name, &iters, false, self.loc);
        self.blocks += 1;
        let point: Point = ctx.block_args(sb).iter().map(|&a| Some(a)).collect();
        let e = Emit {
            at: before_terminator(ctx, sb),
            loc: ctx.op_loc(pad),
        };
        let mut outside = None;
        for (axis, i) in point.iter().enumerate() {
            let (l, n) = (low[axis], inner[axis]);
            if l == 0 && n == dims[axis] {
                continue;
            }
            let i = i.ok_or("a border axis out of scope")?;
            let (lv, hv) = (self.index(ctx, l), self.index(ctx, l + n));
            let before = e.cmpi(ctx, CmpIPredicate::Ult, i, lv);
            let after = e.cmpi(ctx, CmpIPredicate::Uge, i, hv);
            let here = e.arith(ctx, "ori", &[before, after], Type::I1);
            outside = Some(match outside {
                Some(c) => e.arith(ctx, "ori", &[c, here], Type::I1),
                None => here,
            });
        }
        let Some(cond) = outside else {
            return Ok(()); // no padding: the kernel wrote every element
        };
        let fill = self.constant(ctx, value, elem);
        let idx: Vec<Value> = point.into_iter().flatten().collect();
        let (_, then_block, _) = build_if(ctx, e.at, cond, false, e.loc);
        build_store(
            ctx,
            before_terminator(ctx, then_block),
            fill,
            out,
            &idx,
            e.loc,
        );
        Ok(())
    }
}
