//! Helpers the cpu loop passes share: constant bounds, trip counts, cloning a loop body with the
//! induction variable replaced, and building `index` arithmetic.

use dlc_arith::{build_index_constant, splat_attr, ArithOps, ConstantOp};
use dlc_ir::{
    AttrKind, Attribute, Block, Context, DenseValue, InsertPoint, Location, Op, OpSpec, Traits,
    Type, Value, ValueMap,
};
use dlc_loop::analysis::loops::LoopParts;
use dlc_loop::math::MathOps;

/// The value of `v` when an `arith.constant` integer (or index) that fits `i64` defines it.
pub(super) fn const_int(ctx: &Context, v: Value) -> Option<i64> {
    dlc_arith::constant_int(ctx, v).and_then(|x| i64::try_from(x).ok())
}

/// The number of iterations of a loop whose bounds and (positive) step are constants. Stricter
/// than [`dlc_loop::analysis::loops::const_range`], which also folds index arithmetic: the cpu
/// passes only read bounds that are `arith.constant`s ([`const_int`]).
pub(super) fn const_trip_count(ctx: &Context, parts: &LoopParts) -> Option<i64> {
    let (lb, ub, step) = (
        const_int(ctx, parts.lb)?,
        const_int(ctx, parts.ub)?,
        const_int(ctx, parts.step)?,
    );
    if step <= 0 {
        return None;
    }
    let n = ub.checked_sub(lb)?.max(0);
    Some(n / step + i64::from(n % step != 0))
}

/// Clones every op of `body` but its terminator to `at`, with `iv` replaced by `value`.
pub(super) fn clone_body_at(
    ctx: &mut Context,
    body: Block,
    iv: Value,
    value: Value,
    at: InsertPoint,
) {
    let mut map = ValueMap::new();
    map.map(iv, value);
    let ops: Vec<Op> = ctx.block_ops(body).collect();
    for op in ops {
        if ctx.has_trait(op, Traits::TERMINATOR) {
            continue;
        }
        let new = ctx.clone_op(op, &mut map);
        ctx.insert_op(at, new);
    }
}

/// Builds an `index` constant at `at`.
pub(super) fn index_const(ctx: &mut Context, at: InsertPoint, value: i64, loc: Location) -> Value {
    let op = build_index_constant(ctx, at, value, loc);
    ctx.result(op, 0)
}

/// Builds the binary `arith` op `name` on two `index` values at `at`.
pub(super) fn index_binary(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Value {
    let spec = OpSpec::new(ctx, name, loc)
        .operands(&[lhs, rhs])
        .results(&[Type::INDEX]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// The end of the iterations of `[lb, ub)` by `step` that fill whole groups of `group`
/// iterations: `lb + ((max(ub - lb, 0) + step - 1) / step / group) * group * step`, folded
/// to a constant when the bounds are constants. Built at `at`.
pub(super) fn whole_groups_end(
    ctx: &mut Context,
    at: InsertPoint,
    parts: &LoopParts,
    step: i64,
    group: i64,
    loc: Location,
) -> Value {
    whole_groups_end_of(ctx, at, (parts.lb, parts.ub), step, group, loc)
}

/// [`whole_groups_end`] of the bounds `(lb, ub)`.
pub(super) fn whole_groups_end_of(
    ctx: &mut Context,
    at: InsertPoint,
    (lb, ub): (Value, Value),
    step: i64,
    group: i64,
    loc: Location,
) -> Value {
    if let (Some(l), Some(u)) = (const_int(ctx, lb), const_int(ctx, ub)) {
        if let Some(n) = u.checked_sub(l) {
            let n = n.max(0);
            let trips = n / step + i64::from(n % step != 0);
            return index_const(ctx, at, l + trips / group * group * step, loc);
        }
    }
    let zero = index_const(ctx, at, 0, loc);
    let diff = index_binary(ctx, at, "arith.subi", ub, lb, loc);
    let n = index_binary(ctx, at, "arith.maxsi", diff, zero, loc);
    let trips = if step == 1 {
        n
    } else {
        ceil_div(ctx, at, n, step, loc)
    };
    let g = index_const(ctx, at, group, loc);
    let groups = index_binary(ctx, at, "arith.divsi", trips, g, loc);
    let span = index_const(ctx, at, group * step, loc);
    let len = index_binary(ctx, at, "arith.muli", groups, span, loc);
    index_binary(ctx, at, "arith.addi", lb, len, loc)
}

/// `ceil(n / d)` for a non-negative index `n` and a positive constant `d`, built at `at`.
pub(super) fn ceil_div(
    ctx: &mut Context,
    at: InsertPoint,
    n: Value,
    d: i64,
    loc: Location,
) -> Value {
    let bump = index_const(ctx, at, d - 1, loc);
    let up = index_binary(ctx, at, "arith.addi", n, bump, loc);
    let d = index_const(ctx, at, d, loc);
    index_binary(ctx, at, "arith.divsi", up, d, loc)
}

/// The splat attribute of vector type `ty` when `scalar` is an `arith.constant`.
pub(super) fn constant_splat(ctx: &mut Context, scalar: Value, ty: Type) -> Option<Attribute> {
    let constant = ctx.view::<ConstantOp>(ctx.defining_op(scalar)?)?;
    let attr = constant.value(ctx)?;
    let value = match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => DenseValue::Int(*value),
        AttrKind::Float { bits, .. } => DenseValue::Float(f64::from_bits(*bits)),
        _ => return None,
    };
    splat_attr(ctx, ty, value)
}

/// True for an `arith` or `math` op with one result and no regions: scalar computation that
/// the vector rewrites apply lane by lane.
pub(super) fn is_scalar_compute(ctx: &Context, op: Op) -> bool {
    (ArithOps::of(ctx, op).is_some() || MathOps::of(ctx, op).is_some())
        && ctx.regions(op).is_empty()
        && ctx.num_results(op) == 1
}

/// True when `v` is defined inside `op` (by an op in it, or as an argument of one of its blocks).
pub(super) fn defined_inside(ctx: &Context, op: Op, v: Value) -> bool {
    match ctx.defining_op(v) {
        Some(def) => ctx.is_ancestor(op, def),
        None => ctx
            .value_block(v)
            .and_then(|b| ctx.block_parent_op(b))
            .is_some_and(|p| ctx.is_ancestor(op, p)),
    }
}

/// `scalar` in every lane of a vector of type `ty`, built at `at`: a splat constant when
/// `scalar` is a constant, else a `loop.broadcast`.
pub(super) fn splat(
    ctx: &mut Context,
    scalar: Value,
    ty: Type,
    at: InsertPoint,
    loc: Location,
) -> Value {
    let spec = match constant_splat(ctx, scalar, ty) {
        Some(attr) => dlc_arith::constant_spec(ctx, attr, ty, loc),
        None => OpSpec::new(ctx, "loop.broadcast", loc)
            .operands(&[scalar])
            .results(&[ty]),
    };
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}
