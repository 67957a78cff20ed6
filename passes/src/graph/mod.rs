//! Passes on the `graph` dialect: tensor-level rewrites before lowering to loops.

pub mod decompose;
pub mod fuse;
mod horizontal;
pub mod lower;
mod sink_reshapes;

use dlc_graph::ops::ConstantOp;
use dlc_ir::pass::PassRegistry;
use dlc_ir::{AttrKind, Context, DenseValue, Op};

/// Registers the graph passes.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&decompose::INFO);
    registry.register(&fuse::INFO);
    registry.register(&lower::INFO);
}

/// True if every index of `graph.gather` op `gather` is a constant inside `[-n, n)`, `n` the
/// static size of the gathered axis. A kernel that computes the gathered tensor itself (a
/// data-movement chain, `fuse` rule 8) has no buffer for the runtime to check its indices
/// against, so it needs them known in range.
pub(crate) fn gather_indices_known_in_range(ctx: &Context, gather: Op) -> bool {
    let (data, indices) = (ctx.operand(gather, 0), ctx.operand(gather, 1));
    let Some(t) = dlc_graph::tensor_parts(ctx, ctx.value_type(data)) else {
        return false;
    };
    let rank = t.shape.len() as i64;
    let axis = ctx
        .attr(gather, "axis")
        .and_then(|a| ctx.attr_as_int(a))
        .map_or(0, |a| a as i64);
    let axis = if axis < 0 { axis + rank } else { axis };
    let Some(&n) = usize::try_from(axis).ok().and_then(|a| t.shape.get(a)) else {
        return false;
    };
    let Some(value) = ctx
        .defining_op(indices)
        .filter(|&d| ctx.view::<ConstantOp>(d).is_some())
        .and_then(|d| ctx.attr(d, "value"))
    else {
        return false;
    };
    let AttrKind::DenseElements(dense) = ctx.attr_kind(value) else {
        return false;
    };
    let Some(count) = dlc_graph::tensor_parts(ctx, ctx.value_type(indices)).and_then(|t| {
        t.shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))
    }) else {
        return false;
    };
    n >= 0
        && ctx
            .dense_values(dense, count)
            .all(|v| matches!(v, DenseValue::Int(i) if -(n as i128) <= i && i < n as i128))
}
