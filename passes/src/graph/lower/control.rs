//! The control-flow side of `lower`: each region of a `graph.if` or `graph.loop` moves into a
//! graph function of its own, which `lower` lowers like any other, and the host calls it.
//!
//! A region's function (`@<func>_<n>_then`, `_else` or `_body`, private, placed before the
//! function it came from) takes the region's arguments (a loop body's iteration number,
//! condition and carried values), then the values from around the region that its ops read
//! (*captures*, in order of first use), and returns what the region yielded, in the types it
//! yielded them (which may be more static than the op's results). The op becomes
//! `loop.call_if` or `loop.call_loop` on the host buffers of its operands and captures (both
//! branches of an `if` take the captures of both, one call passing one list); a `?` dim of its
//! results is a `loop.dim` of the call's result.

use dlc_func::ReturnOp;
use dlc_graph::ops::YieldOp;
use dlc_ir::{Block, Context, Diagnostic, InsertPoint, Op, OpSpec, OpView, Region, Type, Value};
use rustc_hash::FxHashSet;

/// Moves region `index` of `op` into a new private graph function named `name`, placed before
/// `before`, taking `captures` (which hold every value from outside the region its ops read,
/// [`captures`]) after the region's own arguments.
pub(super) fn outline(
    ctx: &mut Context,
    op: Op,
    index: usize,
    name: String,
    before: Op,
    captures: &[Value],
) -> Result<Op, Diagnostic> {
    let loc = ctx.op_loc(op);
    let region = ctx.region(op, index);
    let [block] = ctx.blocks(region)[..] else {
        return Err(Diagnostic::error(
            loc,
            "a control-flow region of other than one block",
        ));
    };
    for &c in captures {
        let ty = ctx.value_type(c);
        let arg = ctx.add_block_arg(block, ty);
        let inner: Vec<(Op, u32)> = ctx
            .uses(c)
            .iter()
            .filter(|u| within(ctx, ctx.op_block(u.user), region))
            .map(|u| (u.user, u.operand))
            .collect();
        for (user, operand) in inner {
            ctx.set_operand(user, operand as usize, arg);
        }
    }
    let term = ctx
        .last_op(block)
        .filter(|t| ctx.view::<YieldOp>(*t).is_some())
        .ok_or_else(|| Diagnostic::error(loc, "a control-flow region without 'graph.yield'"))?;
    let results: Vec<Value> = ctx.operands(term).to_vec();
    let ret = OpSpec::new(ctx, ReturnOp::NAME, ctx.op_loc(term)).operands(&results);
    ctx.build(InsertPoint::Before(term), ret);
    ctx.erase_op(term);
    let inputs: Vec<Type> = ctx
        .block_args(block)
        .iter()
        .map(|v| ctx.value_type(*v))
        .collect();
    let outputs: Vec<Type> = results.iter().map(|v| ctx.value_type(*v)).collect();
    let fn_ty = ctx.function_type(&inputs, &outputs);
    let body = ctx.create_region();
    ctx.move_block(block, body);
    let (sym, ty, private) = (
        ctx.string_attr(&name),
        ctx.type_attr(fn_ty),
        ctx.string_attr("private"),
    );
    let spec = OpSpec::new(ctx, "func.func", loc)
        .attr(ctx, "sym_name", sym)
        .attr(ctx, "function_type", ty)
        .attr(ctx, "sym_visibility", private)
        .region(body);
    Ok(ctx.build(InsertPoint::Before(before), spec))
}

/// Whether `block` is `region`'s or nested in an op inside it.
fn within(ctx: &Context, mut block: Option<Block>, region: Region) -> bool {
    while let Some(b) = block {
        let Some(parent) = ctx.block_parent(b) else {
            return false;
        };
        if parent == region {
            return true;
        }
        block = ctx.region_parent(parent).and_then(|op| ctx.op_block(op));
    }
    false
}

/// The block `v` is defined in (its own block for a block argument).
fn defining_block(ctx: &Context, v: Value) -> Option<Block> {
    match ctx.defining_op(v) {
        Some(op) => ctx.op_block(op),
        None => ctx.value_block(v),
    }
}

/// Adds to `found` the values that ops in `region` (at any depth) read and that are defined
/// outside it, in order of first use.
pub(super) fn captures(ctx: &Context, region: Region, found: &mut Vec<Value>) {
    let mut seen: FxHashSet<Value> = found.iter().copied().collect();
    for &block in ctx.blocks(region) {
        for op in ctx.block_ops(block) {
            ctx.for_each_op(op, &mut |inner| {
                for &v in ctx.operands(inner) {
                    if !within(ctx, defining_block(ctx, v), region) && seen.insert(v) {
                        found.push(v);
                    }
                }
            });
        }
    }
}

/// A name for a new function: `base`, or `base_<k>` for the first `k` no symbol of `module`
/// has.
pub(super) fn fresh_name(ctx: &Context, module_block: Block, base: &str) -> String {
    let taken = |n: &str| {
        ctx.block_ops(module_block)
            .any(|op| dlc_ir::symbol::symbol_name(ctx, op) == Some(n))
    };
    if !taken(base) {
        return base.to_string();
    }
    (1..)
        .map(|k| format!("{base}_{k}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| base.to_string())
}
