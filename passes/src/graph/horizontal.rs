//! Horizontal fusion, the last step of `fuse`: independent `graph.fusion`s that read a common
//! input over the same loop nest merge into one multi-output fusion, so one kernel reads the
//! shared input once (softmax and log_softmax of one tensor; two activations of one input).
//!
//! Two fusions have the same loop nest when their anchors agree, compared with symbolic shapes
//! (a `?` matches only the same symbol): a reduction's input shape and axes, or, for
//! elementwise groups, the shape of every result. The later fusion must not depend on the
//! earlier one; the merge takes the later one's place, so it is only done when no op between
//! them uses the earlier one's results.
//!
//! Fusions holding a matmul (or a convolution) never merge: the merged kernel would run several reductions in one
//! `k` loop, which `tile` cannot register-block, so it would run scalar. A matmul is bound by
//! its `B` operand and its FLOPs, not by the shared `A` that merging reads once (the q, k and v
//! projections of a GPT-2-sized block, S=256, E=768: one merged kernel took 692 ms, three tiled
//! ones a few ms each; `dlc-run --bench 5 --profile`).

use dlc_graph::ops::{FusionOp, YieldOp};
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_graph::{family_of, Family};
use dlc_ir::pass::Analysis;
use dlc_ir::{AttrKind, Block, Context, InsertPoint, Op, OpSpec, Type, Value};

/// What a fusion's loop nest is keyed by.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Nest {
    /// The reduction's input shape and (normalized) axes.
    Reduce(Vec<DimExpr>, Vec<i64>),
    /// The shapes of the results.
    Elementwise(Vec<Vec<DimExpr>>),
}

/// Merges fusions of `block` (in `func`) horizontally; returns how many merges were made.
pub(super) fn fuse_horizontally(
    ctx: &mut Context,
    func: Op,
    block: Block,
    max_group_size: usize,
) -> u64 {
    let shapes = SymbolicShapes::compute(ctx, func);
    let mut merges = 0;
    // Fusions seen so far, in order, with their nest; merged ones are replaced in place.
    let mut seen: Vec<(Op, Nest)> = Vec::new();
    let ops: Vec<Op> = ctx.block_ops(block).collect();
    for op in ops {
        if ctx.view::<FusionOp>(op).is_none() {
            continue;
        }
        let Some(nest) = nest_of(ctx, op, &shapes) else {
            continue;
        };
        let mut current = op;
        // Most recent first: the nearer the partner, the fewer ops in between.
        let mut i = seen.len();
        while i > 0 {
            i -= 1;
            let (earlier, ref other) = seen[i];
            if *other == nest
                && shares_input(ctx, earlier, current)
                && body_size(ctx, earlier) + body_size(ctx, current) <= max_group_size
                && !used_before(ctx, earlier, current)
            {
                current = merge(ctx, earlier, current);
                seen.remove(i);
                merges += 1;
            }
        }
        seen.push((current, nest));
    }
    merges
}

fn body(ctx: &Context, fusion: Op) -> Option<Block> {
    let region = *ctx.regions(fusion).first()?;
    ctx.blocks(region).first().copied()
}

fn body_size(ctx: &Context, fusion: Op) -> usize {
    body(ctx, fusion).map_or(0, |b| ctx.block_ops(b).count().saturating_sub(1))
}

fn shares_input(ctx: &Context, a: Op, b: Op) -> bool {
    ctx.operands(a).iter().any(|v| ctx.operands(b).contains(v))
}

/// True if an op after `a`, up to and including `b`, uses a result of `a`.
fn used_before(ctx: &Context, a: Op, b: Op) -> bool {
    let mut cur = ctx.next_op(a);
    while let Some(op) = cur {
        if ctx
            .operands(op)
            .iter()
            .any(|v| ctx.defining_op(*v) == Some(a))
        {
            return true;
        }
        if op == b {
            return false;
        }
        cur = ctx.next_op(op);
    }
    false
}

/// The loop nest key of `fusion`, if it may merge at all.
fn nest_of(ctx: &Context, fusion: Op, shapes: &SymbolicShapes) -> Option<Nest> {
    let body = body(ctx, fusion)?;
    let shape = |v: Value| shapes.shape(v).map(<[DimExpr]>::to_vec);
    let mut reduce = None;
    for op in ctx.block_ops(body) {
        match family_of(ctx, op) {
            // See the module doc: a merged matmul nest cannot be tiled.
            Some(Family::Matmul | Family::Conv2d | Family::ArgReduce(_)) => return None,
            Some(Family::Reduce(_)) if reduce.is_none() => {
                let input = shape(ctx.operand(op, 0))?;
                let rank = input.len() as i64;
                let mut axes: Vec<i64> = match ctx.attr(op, "axes").map(|a| ctx.attr_kind(a)) {
                    Some(AttrKind::DenseArray { values, .. }) => values
                        .iter()
                        .map(|&a| if a < 0 { a + rank } else { a })
                        .collect(),
                    _ => return None,
                };
                axes.sort_unstable();
                reduce = Some(Nest::Reduce(input, axes));
            }
            _ => {}
        }
    }
    if reduce.is_some() {
        return reduce;
    }
    let results: Option<Vec<Vec<DimExpr>>> = ctx.results(fusion).map(shape).collect();
    Some(Nest::Elementwise(results?))
}

/// Merges fusion `a` into fusion `b` (which comes later): one fusion at `b`'s place whose
/// operands are both operand lists (shared ones once), whose body is `a`'s ops then `b`'s, and
/// whose results are `a`'s then `b`'s.
fn merge(ctx: &mut Context, a: Op, b: Op) -> Op {
    let mut operands: Vec<Value> = ctx.operands(a).to_vec();
    for &v in ctx.operands(b) {
        if !operands.contains(&v) {
            operands.push(v);
        }
    }
    let types: Vec<Type> = operands.iter().map(|v| ctx.value_type(*v)).collect();
    let (region, merged_body) = ctx.create_region_with_block(&types);
    let new_args = ctx.block_args(merged_body).to_vec();
    let mut yielded = Vec::new();
    for fusion in [a, b] {
        let Some(old_body) = body(ctx, fusion) else {
            continue;
        };
        for (i, &arg) in ctx.block_args(old_body).to_vec().iter().enumerate() {
            let outer = ctx.operand(fusion, i);
            let pos = operands
                .iter()
                .position(|v| *v == outer)
                .expect("every operand is in the merged list");
            ctx.replace_all_uses(arg, new_args[pos]);
        }
        for op in ctx.block_ops(old_body).collect::<Vec<_>>() {
            if ctx.view::<YieldOp>(op).is_some() {
                yielded.extend_from_slice(ctx.operands(op));
                ctx.erase_op(op);
            } else {
                ctx.move_op(op, InsertPoint::End(merged_body));
            }
        }
    }
    let loc = ctx.op_loc(b);
    let spec = OpSpec::new(ctx, "graph.yield", loc).operands(&yielded);
    ctx.build(InsertPoint::End(merged_body), spec);
    let result_types: Vec<Type> = ctx
        .result_types(a)
        .into_iter()
        .chain(ctx.result_types(b))
        .collect();
    let spec = OpSpec::new(ctx, "graph.fusion", loc)
        .operands(&operands)
        .results(&result_types)
        .region(region);
    let merged = ctx.build(InsertPoint::Before(b), spec);
    let old: Vec<Value> = ctx.results(a).chain(ctx.results(b)).collect();
    for (i, v) in old.into_iter().enumerate() {
        let new = ctx.result(merged, i);
        ctx.replace_all_uses(v, new);
    }
    ctx.erase_op(a);
    ctx.erase_op(b);
    merged
}
