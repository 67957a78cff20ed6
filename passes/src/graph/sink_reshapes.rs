//! Rule 0 of `fuse`: reshapes sink below their elementwise consumers, so the elementwise ops
//! run at the shape of the value before the reshape and can join its producer's group.
//!
//! An elementwise op reading a `graph.reshape` of `y` (shape `S`) at the reshape's own result
//! shape `T` computes the same elements whether it runs before or after the reshape, since a
//! reshape keeps row-major order. Its other operands are broadcasts against `T`; each is
//! re-expressed against `S` through the *groups* of the reshape: the shortest runs of dims of
//! `S` and of `T` with equal products (`[1, 1, 128, 784] → [1, 128, 28, 28]` has the groups
//! `[1]~[1]`, `[1, 128]~[128]`, `[784]~[28, 28]`). Within a group an operand must be all ones
//! (it broadcasts there, and stays 1 on `S`'s side) or all `T`'s dims (it is then `S`'s dims on
//! that side). So a bias `[1, 128, 1, 1]` becomes `[1, 1, 128, 1]` and the op runs on `y`; the
//! reshape moves to its result, where the next elementwise op meets it again.
//!
//! This is what an im2col convolution needs: `decompose` leaves `matmul → reshape to NCHW`, and
//! the bias, activation and (for QDQ models) requantization after it run in the matmul's
//! epilogue instead of a kernel of their own. A reshape between kernels costs nothing
//! (`lower` makes it a `loop.reshape`), so nothing is lost where no fusion follows.
//!
//! Only static shapes are rewritten, and only reshapes of values a kernel computes (an
//! elementwise op, a reduction or a matmul): a reshape of an argument or a constant gains
//! nothing from it.
//!
//! Before that, a `graph.transpose` that moves only dims of size 1 (the other dims keep their
//! order, so the elements keep their row-major order: `[1, 1, 256, 1] → [1, 1, 1, 256]`) becomes
//! the `graph.reshape` it is, and a reshape of a reshape one reshape of the first's source. A
//! squeeze-excitation block's 1x1 convolutions over a pooled `[N, C, 1, 1]` decompose to such
//! transposes around a narrow matmul: as copy kernels they cost a kernel each, as reshapes
//! nothing, and the bias and activation after the matmul then sink into its epilogue.
//!
//! Last, a `graph.pad` of a reshape of a computed value moves above the reshape when every dim
//! it pads is a group of one dim on both sides (`[1, 1, 128, 784] → [1, 128, 784]`, padded by
//! one element at the end of the last dim: the padding `decompose` gives an im2col window
//! gather): the pad is then the kernel's own result padded, which `lower` has the kernel write
//! into the padded buffer (its padded outputs) instead of a pad kernel copying it.

use super::fuse::{kind, Kind};
use dlc_graph::decompose::GraphBuilder;
use dlc_graph::ops::{ConstantOp, PadOp, ReshapeOp, TransposeOp};
use dlc_graph::{family_of, Family};
use dlc_ir::attributes::{AttrKind, DenseElements};
use dlc_ir::{Attribute, Block, Context, FoldResult, InsertPoint, Op, Value, ValueMap, DYNAMIC};

/// Sinks every reshape of `block` below the elementwise ops that read it, in program order
/// (the moved reshape meets the next consumer again); returns the number of ops moved above a
/// reshape.
pub(super) fn sink_reshapes(ctx: &mut Context, block: Block) -> u64 {
    let mut moved = unit_transposes_to_reshapes(ctx, block);
    for op in ctx.block_ops(block).collect::<Vec<_>>() {
        if let Some(plan) = plan(ctx, op) {
            rewrite(ctx, op, plan);
            moved += 1;
        }
    }
    for op in ctx.block_ops(block).collect::<Vec<_>>() {
        if pad_above_reshape(ctx, op) {
            moved += 1;
        }
    }
    moved
}

/// Moves pad `op` above the reshapes it reads, back to the computed value they start from,
/// when each dim it pads is a group of one dim, of the same size, on both sides (see the module
/// comment); true if it did.
fn pad_above_reshape(ctx: &mut Context, op: Op) -> bool {
    if ctx.view::<PadOp>(op).is_none() {
        return false;
    }
    let reshaped = ctx.operand(op, 0);
    let mut source = reshaped;
    while let Some(r) = ctx
        .defining_op(source)
        .filter(|&d| ctx.view::<ReshapeOp>(d).is_some())
    {
        source = ctx.operand(r, 0);
    }
    if source == reshaped || !computed(ctx, source) {
        return false;
    }
    let (Some(s), Some(t), Some(padded)) = (
        static_shape(ctx, source),
        static_shape(ctx, reshaped),
        static_shape(ctx, ctx.result(op, 0)),
    ) else {
        return false;
    };
    let loc = ctx.op_loc(op);
    let mut b = GraphBuilder::new(ctx, InsertPoint::Before(op), loc);
    let int_array = |name: &str| b.array_attr(op, name).filter(|a| a.len() == t.len());
    let (Some(low), Some(high), Some(value)) =
        (int_array("low"), int_array("high"), b.ctx.attr(op, "value"))
    else {
        return false;
    };
    let Some(groups) = groups(&s, &t) else {
        return false;
    };
    let (mut new_low, mut new_high) = (vec![0; s.len()], vec![0; s.len()]);
    for (sg, tg) in &groups {
        let pads = tg.clone().any(|d| low[d] != 0 || high[d] != 0);
        if !pads {
            continue;
        }
        if sg.len() != 1 || tg.len() != 1 || s[sg.start] != t[tg.start] {
            return false;
        }
        (new_low[sg.start], new_high[sg.start]) = (low[tg.start], high[tg.start]);
    }
    let old = b.ctx.result(op, 0);
    let low_attr = b.i64_array(&new_low);
    let high_attr = b.i64_array(&new_high);
    let shape: Vec<i64> = s
        .iter()
        .zip(new_low.iter().zip(&new_high))
        .map(|(d, (l, h))| d + l + h)
        .collect();
    let ty = b.ctx.tensor_type(&shape, b.elem(source));
    let attrs = vec![("low", low_attr), ("high", high_attr), ("value", value)];
    let moved = b.build_one("graph.pad", &[source], attrs, ty);
    let r = b.reshape(moved, &padded);
    ctx.replace_all_uses(old, r);
    ctx.erase_op(op);
    // The reshapes it read go with their last use.
    let mut v = reshaped;
    while v != source && ctx.uses(v).is_empty() {
        let Some(d) = ctx.defining_op(v) else {
            break;
        };
        v = ctx.operand(d, 0);
        ctx.erase_op(d);
    }
    true
}

/// Rewrites every transpose of `block` that keeps the row-major order of its elements into a
/// reshape, then every reshape of a reshape into one reshape; returns the number of ops
/// rewritten.
fn unit_transposes_to_reshapes(ctx: &mut Context, block: Block) -> u64 {
    let mut rewritten = 0;
    for op in ctx.block_ops(block).collect::<Vec<_>>() {
        if ctx.view::<TransposeOp>(op).is_none() || !keeps_order(ctx, op) {
            continue;
        }
        let (x, old) = (ctx.operand(op, 0), ctx.result(op, 0));
        let Some(t) = static_shape(ctx, old) else {
            continue;
        };
        let loc = ctx.op_loc(op);
        let r = GraphBuilder::new(ctx, InsertPoint::Before(op), loc).reshape(x, &t);
        ctx.replace_all_uses(old, r);
        ctx.erase_op(op);
        rewritten += 1;
    }
    for op in ctx.block_ops(block).collect::<Vec<_>>() {
        let inner = ctx
            .view::<ReshapeOp>(op)
            .and_then(|_| ctx.defining_op(ctx.operand(op, 0)))
            .filter(|&d| ctx.view::<ReshapeOp>(d).is_some());
        let Some(inner) = inner else {
            continue;
        };
        // The graph folder's rule: the pair becomes one reshape of the inner one's source (in
        // place), and a reshape that is then the identity goes.
        // Anything else (a constant, when the chain starts at a graph.constant) stays.
        loop {
            match ctx.fold(op).as_deref() {
                Some([]) => {}
                Some(&[FoldResult::Value(v)]) => {
                    ctx.replace_all_uses(ctx.result(op, 0), v);
                    ctx.erase_op(op);
                    break;
                }
                _ => break,
            }
        }
        if ctx.uses(ctx.result(inner, 0)).is_empty() {
            ctx.erase_op(inner);
        }
        rewritten += 1;
    }
    rewritten
}

/// Whether transpose `op` (static input shape) leaves every dim larger than 1 in its order.
fn keeps_order(ctx: &Context, op: Op) -> bool {
    let Some(s) = static_shape(ctx, ctx.operand(op, 0)) else {
        return false;
    };
    let perm = ctx.view::<TransposeOp>(op).and_then(|t| t.perm(ctx));
    let Some(AttrKind::DenseArray { values: perm, .. }) = perm.map(|a| ctx.attr_kind(a)) else {
        return false;
    };
    let moved: Vec<i64> = perm
        .iter()
        .filter(|&&p| s.get(p as usize).is_some_and(|&d| d != 1))
        .copied()
        .collect();
    moved.windows(2).all(|w| w[0] < w[1])
}

/// How to run elementwise `op` before the reshape it reads.
struct Sink {
    /// The reshape's result, which `op` reads at its own shape.
    reshaped: Value,
    /// The reshape's source.
    source: Value,
    /// Per operand of `op`: `None` to keep it (or to read `source` for `reshaped`), else the
    /// shape to reshape it to.
    operands: Vec<Option<Vec<i64>>>,
}

/// The shape of `v`, when static and free of zero-size dims.
fn static_shape(ctx: &Context, v: Value) -> Option<Vec<i64>> {
    let shape = ctx.shape(ctx.value_type(v))?.to_vec();
    shape
        .iter()
        .all(|&d| d != DYNAMIC && d > 0)
        .then_some(shape)
}

/// An elementwise op whose result has its operands' broadcast shape (a `broadcast_to`, whose
/// attribute names the shape, is not one to move).
fn is_elementwise(ctx: &Context, op: Op) -> bool {
    kind(ctx, op) == Kind::Elementwise && family_of(ctx, op) != Some(Family::BroadcastTo)
}

/// Whether `v` is computed by an op whose group its consumers could join: an elementwise op
/// (as above), a reduction or a `graph.matmul`.
fn computed(ctx: &Context, v: Value) -> bool {
    ctx.defining_op(v).is_some_and(|d| {
        is_elementwise(ctx, d)
            || matches!(family_of(ctx, d), Some(Family::Reduce(_) | Family::Matmul))
    })
}

fn plan(ctx: &Context, op: Op) -> Option<Sink> {
    if !is_elementwise(ctx, op) || ctx.num_results(op) != 1 {
        return None;
    }
    let t = static_shape(ctx, ctx.result(op, 0))?;
    let operands = ctx.operands(op);
    let reshaped = *operands.iter().find(|&&v| {
        ctx.defining_op(v)
            .is_some_and(|d| ctx.view::<ReshapeOp>(d).is_some())
            && static_shape(ctx, v).as_ref() == Some(&t)
    })?;
    let source = ctx.operand(ctx.defining_op(reshaped)?, 0);
    let s = static_shape(ctx, source)?;
    if !computed(ctx, source) {
        return None;
    }
    let groups = groups(&s, &t)?;
    let mut shapes = Vec::with_capacity(operands.len());
    for &v in operands {
        if v == reshaped {
            shapes.push(None);
            continue;
        }
        let c = static_shape(ctx, v)?;
        if c.len() > t.len() {
            return None;
        }
        let mut padded = vec![1; t.len() - c.len()];
        padded.extend(&c);
        if padded.iter().all(|&d| d == 1) && c.len() <= s.len() {
            shapes.push(None); // broadcasts against `S` as it is
            continue;
        }
        let mut shape = Vec::with_capacity(s.len());
        for (sg, tg) in &groups {
            let part = &padded[tg.clone()];
            if part.iter().all(|&d| d == 1) {
                shape.extend(std::iter::repeat_n(1, sg.len()));
            } else if part == &t[tg.clone()] {
                shape.extend(&s[sg.clone()]);
            } else {
                return None;
            }
        }
        shapes.push(Some(shape));
    }
    Some(Sink {
        reshaped,
        source,
        operands: shapes,
    })
}

type Range = std::ops::Range<usize>;

/// The groups of a reshape from `s` to `t` (static, no zero dims, equal element counts): pairs
/// of dim ranges with equal products, covering both shapes in order. Trailing ones of either
/// side form a group whose other side is empty.
fn groups(s: &[i64], t: &[i64]) -> Option<Vec<(Range, Range)>> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < s.len() && j < t.len() {
        let (i0, j0) = (i, j);
        let (mut ps, mut pt) = (s[i], t[j]);
        while ps != pt {
            if ps < pt {
                i += 1;
                ps = ps.checked_mul(*s.get(i)?)?;
            } else {
                j += 1;
                pt = pt.checked_mul(*t.get(j)?)?;
            }
        }
        i += 1;
        j += 1;
        out.push((i0..i, j0..j));
    }
    let (rest_s, rest_t) = (&s[i..], &t[j..]);
    if rest_s.iter().chain(rest_t).any(|&d| d != 1) {
        return None;
    }
    if i < s.len() || j < t.len() {
        out.push((i..s.len(), j..t.len()));
    }
    Some(out)
}

/// Replaces `op` by the same op on the reshape's source (its other operands reshaped as
/// planned) followed by the reshape; erases the old reshape when nothing else reads it.
fn rewrite(ctx: &mut Context, op: Op, sink: Sink) {
    let loc = ctx.op_loc(op);
    let old = ctx.result(op, 0);
    let t = ctx.shape(ctx.value_type(old)).unwrap_or(&[]).to_vec();
    let s = ctx
        .shape(ctx.value_type(sink.source))
        .unwrap_or(&[])
        .to_vec();
    let ty = ctx.tensor_type(&s, ctx.element_type(ctx.value_type(old)));
    let operands = ctx.operands(op).to_vec();
    let mut map = ValueMap::new();
    let mut b = GraphBuilder::new(ctx, InsertPoint::Before(op), loc);
    for (&v, shape) in operands.iter().zip(&sink.operands) {
        if v == sink.reshaped {
            map.map(v, sink.source);
        } else if let Some(shape) = shape {
            // A reshape of a value of the wanted shape (the other operand of `x · f(x)` when
            // both came through one reshape) reads that value; a constant is refolded.
            let unreshaped = b
                .ctx
                .defining_op(v)
                .filter(|&d| b.ctx.view::<ReshapeOp>(d).is_some())
                .map(|d| b.ctx.operand(d, 0))
                .filter(|&x| static_shape(b.ctx, x).as_deref() == Some(&shape[..]));
            let r = match (unreshaped, reshaped_constant(b.ctx, v, shape)) {
                (Some(x), _) => x,
                (None, Some(value)) => {
                    let elem = b.ctx.element_type(b.ctx.value_type(v));
                    let ty = b.ctx.tensor_type(shape, elem);
                    b.build_one("graph.constant", &[], vec![("value", value)], ty)
                }
                (None, None) => b.reshape(v, shape),
            };
            map.map(v, r);
        }
    }
    let moved = ctx.clone_op(op, &mut map);
    ctx.insert_op(InsertPoint::Before(op), moved);
    let result = ctx.result(moved, 0);
    ctx.set_value_type(result, ty);
    let back = GraphBuilder::new(ctx, InsertPoint::Before(op), loc).reshape(result, &t);
    ctx.replace_all_uses(old, back);
    ctx.erase_op(op);
    // The reshapes (the sunk one among them) and constants this op alone read are dead now;
    // an operand read twice names its op twice.
    let mut dead: Vec<Op> = Vec::new();
    for d in operands.iter().filter_map(|&v| ctx.defining_op(v)) {
        let foldable = ctx.view::<ConstantOp>(d).is_some() || ctx.view::<ReshapeOp>(d).is_some();
        if foldable && !dead.contains(&d) && ctx.uses(ctx.result(d, 0)).is_empty() {
            dead.push(d);
        }
    }
    for d in dead {
        ctx.erase_op(d);
    }
}

/// The value of `v` in `shape` when `v` is a `graph.constant`: a new constant rather than a
/// reshape of one (the same row-major elements under the new type).
fn reshaped_constant(ctx: &mut Context, v: Value, shape: &[i64]) -> Option<Attribute> {
    let def = ctx.defining_op(v)?;
    let value = ctx.view::<ConstantOp>(def)?.value(ctx)?;
    let AttrKind::DenseElements(dense) = ctx.attr_kind(value).clone() else {
        return None;
    };
    let ty = ctx.tensor_type(shape, ctx.element_type(dense.ty));
    Some(ctx.intern_attr(AttrKind::DenseElements(DenseElements { ty, ..dense })))
}
