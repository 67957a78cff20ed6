//! Folding an op through a rewriter, and the test for ops that can simply be dropped.
//!
//! [`fold_op`] is MLIR's `Operation::fold` plus the greedy driver's use of its result: the op's
//! folder sees the constant value of each operand; a folded result that is an existing value
//! replaces the op's result, and one that is a constant is materialized by the op's dialect
//! just before the op; a folder that returns no results (or the op's own) changed the op in
//! place. When the folder declines, a commutative op still folds in place by moving
//! its constant operands to the end (MLIR's `IsCommutative` trait folder), which is what makes
//! `addi %c, %x` and `addi %x, %c` one canonical form.

use super::rewriter::Rewriter;
use crate::attributes::Attribute;
use crate::dialect::{FoldFn, FoldResult, Traits};
use crate::intern::Ident;
use crate::ir::{InsertPoint, Op, Value};
use crate::Context;
use smallvec::SmallVec;

/// What [`fold_op`] did.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FoldOutcome {
    /// The op did not fold; the IR is unchanged.
    Unchanged,
    /// The op was changed in place (and reported as modified).
    InPlace,
    /// The op's results were replaced (by existing values or new constants) and it was erased.
    Replaced,
}

/// True if `op` can be erased without changing what the program does: it is pure, neither a
/// terminator nor a symbol, and none of its results is used. Unregistered ops never are.
pub fn is_trivially_dead(ctx: &Context, op: Op) -> bool {
    dead_with(ctx, op, ctx.traits(op))
}

/// [`is_trivially_dead`] for an op whose traits the caller has looked up.
#[inline]
pub(crate) fn dead_with(ctx: &Context, op: Op, traits: Traits) -> bool {
    traits.contains(Traits::PURE)
        && !traits.intersects(Traits::TERMINATOR.union(Traits::SYMBOL))
        && ctx.results(op).all(|v| ctx.is_unused(v))
}

/// Folds `op` (see the module doc). Constant-like ops are left alone: folding one would only
/// rebuild it.
pub fn fold_op(rewriter: &mut Rewriter<'_>, op: Op) -> FoldOutcome {
    let value_name = rewriter.ctx().find_ident("value");
    fold_with(rewriter, op, value_name)
}

/// The constant held by `v`: the `value` attribute (interned as `value_name`) of a
/// constant-like defining op.
#[inline]
pub(crate) fn constant_of(ctx: &Context, v: Value, value_name: Option<Ident>) -> Option<Attribute> {
    let def = ctx.defining_op(v)?;
    if !ctx.has_trait(def, Traits::CONSTANT_LIKE) {
        return None;
    }
    ctx.attr_by_id(def, value_name?)
}

/// [`fold_op`] with the `value` identifier looked up once by the caller.
pub(crate) fn fold_with(
    rewriter: &mut Rewriter<'_>,
    op: Op,
    value_name: Option<Ident>,
) -> FoldOutcome {
    let Some(def) = rewriter.ctx().op_def(op) else {
        return FoldOutcome::Unchanged;
    };
    let (traits, fold) = (def.traits, def.fold);
    fold_with_def(rewriter, op, traits, fold, value_name)
}

/// [`fold_with`] for an op whose traits and folder the caller has looked up.
pub(crate) fn fold_with_def(
    rewriter: &mut Rewriter<'_>,
    op: Op,
    traits: Traits,
    fold: Option<FoldFn>,
    value_name: Option<Ident>,
) -> FoldOutcome {
    let ctx = rewriter.ctx();
    if traits.contains(Traits::CONSTANT_LIKE)
        || (fold.is_none() && !traits.contains(Traits::COMMUTATIVE))
    {
        return FoldOutcome::Unchanged;
    }
    let constants: SmallVec<[Option<Attribute>; 3]> = ctx
        .operands(op)
        .iter()
        .map(|v| constant_of(ctx, *v, value_name))
        .collect();
    if let Some(fold) = fold {
        if let Some(results) = fold(rewriter.ctx_mut(), op, &constants) {
            match apply_fold_results(rewriter, op, &results) {
                FoldOutcome::Unchanged => {}
                done => return done,
            }
        }
    }
    if traits.contains(Traits::COMMUTATIVE) {
        return move_constants_last(rewriter, op, &constants);
    }
    FoldOutcome::Unchanged
}

/// Replaces `op` by what its folder returned, materializing constants before it.
fn apply_fold_results(rewriter: &mut Rewriter<'_>, op: Op, results: &[FoldResult]) -> FoldOutcome {
    let ctx = rewriter.ctx();
    // No results, or the op's own: the folder changed the op in place (MLIR's convention).
    let own = |(i, r): (usize, &FoldResult)| *r == FoldResult::Value(ctx.result(op, i));
    if results.is_empty() || results.iter().enumerate().all(own) {
        rewriter.modify_in_place(op, |_| ());
        return FoldOutcome::InPlace;
    }
    if results.len() != ctx.num_results(op) {
        debug_assert!(
            false,
            "the folder of {} returned {} results for {}",
            ctx.op_name(op),
            results.len(),
            ctx.num_results(op)
        );
        return FoldOutcome::Unchanged;
    }
    let loc = ctx.op_loc(op);
    let saved = rewriter.insertion_point();
    rewriter.set_insertion_point(InsertPoint::Before(op));
    let mut replacements: SmallVec<[Value; 2]> = SmallVec::new();
    let mut created: SmallVec<[Op; 2]> = SmallVec::new();
    for (i, r) in results.iter().enumerate() {
        let ty = rewriter.ctx().value_type(rewriter.ctx().result(op, i));
        let value = match *r {
            FoldResult::Value(v) => Some(v),
            FoldResult::Constant(attr) => rewriter
                .ctx_mut()
                .materialize_constant(op, attr, ty, loc)
                .map(|spec| rewriter.create(spec))
                .and_then(|c| {
                    created.push(c);
                    let ok = rewriter.ctx().num_results(c) == 1
                        && rewriter.ctx().value_type(rewriter.ctx().result(c, 0)) == ty;
                    ok.then(|| rewriter.ctx().result(c, 0))
                }),
        };
        match value {
            Some(v) => replacements.push(v),
            None => {
                // The dialect cannot build this constant: undo and report no fold.
                for c in created {
                    rewriter.erase_op(c);
                }
                restore(rewriter, saved);
                return FoldOutcome::Unchanged;
            }
        }
    }
    restore(rewriter, saved);
    rewriter.replace_op(op, &replacements);
    FoldOutcome::Replaced
}

fn restore(rewriter: &mut Rewriter<'_>, saved: Option<InsertPoint>) {
    if let Some(at) = saved {
        rewriter.set_insertion_point(at);
    }
}

/// Moves the constant operands of a commutative op after the others, keeping the relative order
/// within each group (a stable partition).
fn move_constants_last(
    rewriter: &mut Rewriter<'_>,
    op: Op,
    constants: &[Option<Attribute>],
) -> FoldOutcome {
    let operands = rewriter.ctx().operands(op);
    let Some(first_constant) = constants.iter().position(Option::is_some) else {
        return FoldOutcome::Unchanged;
    };
    if operands.len() < 2 || constants[first_constant..].iter().all(Option::is_some) {
        return FoldOutcome::Unchanged;
    }
    let mut reordered: SmallVec<[Value; 3]> = SmallVec::new();
    for want_constant in [false, true] {
        reordered.extend(
            operands
                .iter()
                .zip(constants)
                .filter(|(_, c)| c.is_some() == want_constant)
                .map(|(v, _)| *v),
        );
    }
    rewriter.modify_in_place(op, |ctx| ctx.set_operands(op, &reordered));
    FoldOutcome::InPlace
}
