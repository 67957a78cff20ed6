//! Control flow in the graph dialect: `graph.if` and `graph.loop`, their verifier and builders.
//!
//! Both ops hold regions that see the values of the enclosing regions (they are not isolated
//! from above, as ONNX subgraphs capture outer values by name) and end in `graph.yield`.
//!
//! ```text
//! %r = graph.if %c : tensor<i1> -> tensor<?xf32> {
//!   graph.yield %a : tensor<2xf32>
//! } else {
//!   graph.yield %b : tensor<3xf32>
//! }
//! %x, %s = graph.loop (%m, %c, %x0) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
//! ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %x: tensor<4xf32>):
//!   ...
//!   graph.yield %next, %x2, %elem : tensor<i1>, tensor<4xf32>, tensor<4xf32>
//! }
//! ```
//!
//! **`graph.if`** reads the one element of `cond` (an `i1` tensor whose dims are all 1) and runs
//! its first region when it is true, its second otherwise; the results are what that region
//! yields. The regions take no arguments.
//!
//! **`graph.loop`** has ONNX `Loop`'s semantics: operands `max_trip` (`i64`, one element),
//! `cond` (`i1`, one element) and the initial values of `n` carried values. The body takes the
//! iteration number (`tensor<i64>`), the condition (`tensor<i1>`) and the carried values, and
//! yields the next condition, the next carried values and any number of *scan elements*. It
//! runs `while i < max_trip && cond`; the results are the final carried values (the initial ones
//! when no iteration runs), then per scan element the elements of all iterations stacked along
//! a new leading axis. Every iteration's element must have the same dims (a run-time error
//! otherwise); with no iteration the leading dim is 0, and so is any `?` dim of the result type.
//!
//! **Types.** A yielded value *fits* a declared type when it has its element type and rank and
//! the declared type's static dims (a `?` accepts any size): branches may yield different sizes
//! under a `?` result dim, and a carried value may change size between iterations under a `?`
//! dim of its type. A carried value's body argument has exactly its result's type; a scan
//! result is its element's type with one more (leading) dim.
//!
//! `lower` outlines the regions into functions of their own and calls them from the host
//! (`loop.call_if`, `loop.call_loop`).

use crate::ops::{IfOp, LoopOp, YieldOp};
use crate::verify::tensor_parts;
use dlc_ir::{
    op_error, Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, OpView, Printer, Type,
    Value, DYNAMIC,
};

/// Whether a value of type `value` fits declared type `declared` (see the module docs).
pub fn fits(ctx: &Context, value: Type, declared: Type) -> bool {
    match (tensor_parts(ctx, value), tensor_parts(ctx, declared)) {
        (Some(v), Some(d)) => {
            v.element == d.element
                && v.shape.len() == d.shape.len()
                && v.shape
                    .iter()
                    .zip(&d.shape)
                    .all(|(&a, &b)| b == DYNAMIC || a == b)
        }
        _ => value == declared,
    }
}

/// Whether `ty` is a tensor of element type `element` holding one element (all dims 1).
fn is_one(ctx: &Context, ty: Type, element: Type) -> bool {
    tensor_parts(ctx, ty).is_some_and(|t| t.element == element && t.shape.iter().all(|&d| d == 1))
}

fn type_str(ctx: &Context, ty: Type) -> String {
    Printer::new(ctx).type_to_string(ty)
}

/// The single block of region `index` of `op` and its `graph.yield`.
fn body(ctx: &Context, op: Op, index: usize, what: &str) -> Result<(Block, Op), Diagnostic> {
    let region = ctx.region(op, index);
    let [block] = ctx.blocks(region) else {
        return Err(op_error(
            ctx,
            op,
            format!("expects its {what} to be one block"),
        ));
    };
    let term = ctx
        .last_op(*block)
        .filter(|t| ctx.view::<YieldOp>(*t).is_some())
        .ok_or_else(|| {
            op_error(
                ctx,
                op,
                format!("expects its {what} to end with 'graph.yield'"),
            )
        })?;
    Ok((*block, term))
}

/// Checks that `yielded` (operands of `term`) fit `declared`, one each.
fn check_yield(
    ctx: &Context,
    term: Op,
    yielded: &[Value],
    declared: &[Type],
) -> Result<(), Diagnostic> {
    for (i, (v, &d)) in yielded.iter().zip(declared).enumerate() {
        let ty = ctx.value_type(*v);
        if !fits(ctx, ty, d) {
            return Err(op_error(
                ctx,
                term,
                format!(
                    "operand #{i} has type '{}', which does not fit '{}'",
                    type_str(ctx, ty),
                    type_str(ctx, d)
                ),
            ));
        }
    }
    Ok(())
}

/// Verifies a `graph.if`.
pub(crate) fn verify_if(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let cond = ctx.value_type(IfOp(op).cond(ctx));
    if !is_one(ctx, cond, Type::I1) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects an i1 condition of one element, not '{}'",
                type_str(ctx, cond)
            ),
        ));
    }
    if ctx.regions(op).len() != 2 {
        return Err(op_error(ctx, op, "expects two regions (then, else)"));
    }
    let results = ctx.result_types(op);
    for (index, what) in [(0, "then region"), (1, "else region")] {
        let (block, term) = body(ctx, op, index, what)?;
        if !ctx.block_args(block).is_empty() {
            return Err(op_error(
                ctx,
                op,
                format!("expects its {what} to take no arguments"),
            ));
        }
        let yielded = ctx.operands(term);
        if yielded.len() != results.len() {
            return Err(op_error(
                ctx,
                term,
                format!(
                    "yields {} values, but the parent '{}' has {} results",
                    yielded.len(),
                    IfOp::NAME,
                    results.len()
                ),
            ));
        }
        check_yield(ctx, term, yielded, &results)?;
    }
    Ok(())
}

/// Verifies a `graph.loop`.
pub(crate) fn verify_loop(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let operands = ctx.operands(op);
    let [max_trip, cond, init @ ..] = operands else {
        return Err(op_error(
            ctx,
            op,
            "expects operands (max_trip, cond, carried...)",
        ));
    };
    for (v, element, what) in [(max_trip, Type::I64, "max_trip"), (cond, Type::I1, "cond")] {
        let ty = ctx.value_type(*v);
        if !is_one(ctx, ty, element) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "expects '{what}' to be one {} element, not '{}'",
                    type_str(ctx, element),
                    type_str(ctx, ty)
                ),
            ));
        }
    }
    let results = ctx.result_types(op);
    let n = init.len();
    if results.len() < n {
        return Err(op_error(
            ctx,
            op,
            format!("carries {n} values but has {} results", results.len()),
        ));
    }
    let (block, term) = body(ctx, op, 0, "body")?;
    let args: Vec<Type> = ctx
        .block_args(block)
        .iter()
        .map(|a| ctx.value_type(*a))
        .collect();
    let scalar = |ty: Type, element: Type| {
        tensor_parts(ctx, ty).is_some_and(|t| t.element == element && t.shape.is_empty())
    };
    let fits_args = args.len() == n + 2
        && scalar(args[0], Type::I64)
        && scalar(args[1], Type::I1)
        && args[2..] == results[..n];
    if !fits_args {
        let list = |ts: &[Type]| {
            ts.iter()
                .map(|t| type_str(ctx, *t))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects its body to take (tensor<i64>, tensor<i1>{}{}), not ({})",
                if n > 0 { ", " } else { "" },
                list(&results[..n]),
                list(&args)
            ),
        ));
    }
    for (i, (v, &r)) in init.iter().zip(&results[..n]).enumerate() {
        let ty = ctx.value_type(*v);
        if !fits(ctx, ty, r) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "carried value #{i} has type '{}', which does not fit result #{i} '{}'",
                    type_str(ctx, ty),
                    type_str(ctx, r)
                ),
            ));
        }
    }
    // The body yields the condition, the carried values, then one element per scan result.
    let yielded = ctx.operands(term);
    if yielded.len() != 1 + results.len() {
        return Err(op_error(
            ctx,
            term,
            format!(
                "yields {} values, but the parent '{}' expects {} (the condition, {n} carried, {} scan elements)",
                yielded.len(),
                LoopOp::NAME,
                1 + results.len(),
                results.len() - n
            ),
        ));
    }
    let mut declared = vec![args[1]];
    declared.extend(&results[..n]);
    check_yield(ctx, term, &yielded[..1 + n], &declared)?;
    for (k, (v, &r)) in yielded[1 + n..].iter().zip(&results[n..]).enumerate() {
        let e = ctx.value_type(*v);
        let stacks = match (tensor_parts(ctx, e), tensor_parts(ctx, r)) {
            (Some(e), Some(s)) => {
                s.element == e.element
                    && s.shape.len() == e.shape.len() + 1
                    && s.shape[1..]
                        .iter()
                        .zip(&e.shape)
                        .all(|(&d, &x)| d == DYNAMIC || d == x)
            }
            _ => false,
        };
        if !stacks {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "result #{} '{}' does not stack scan element #{k} '{}' along a new leading dim",
                    n + k,
                    type_str(ctx, r),
                    type_str(ctx, e)
                ),
            ));
        }
    }
    Ok(())
}

/// The body argument types of a `graph.loop` carrying values of types `carried`: the
/// iteration number, the condition, then the carried values.
pub fn loop_arg_types(ctx: &mut Context, carried: &[Type]) -> Vec<Type> {
    let mut args = vec![
        ctx.tensor_type(&[], Type::I64),
        ctx.tensor_type(&[], Type::I1),
    ];
    args.extend(carried);
    args
}

/// Builds a `graph.if` on `cond` with `result_types` and two empty blocks (then, else) for the
/// caller to fill and end with `graph.yield`.
pub fn build_if(
    ctx: &mut Context,
    at: InsertPoint,
    cond: Value,
    result_types: &[Type],
    loc: Location,
) -> (Op, Block, Block) {
    let (then_region, then_block) = ctx.create_region_with_block(&[]);
    let (else_region, else_block) = ctx.create_region_with_block(&[]);
    let spec = OpSpec::new(ctx, IfOp::NAME, loc)
        .operands(&[cond])
        .results(result_types)
        .region(then_region)
        .region(else_region);
    (ctx.build(at, spec), then_block, else_block)
}

/// Builds a `graph.loop` on `max_trip`, `cond` and the carried values `init`, with
/// `result_types` (the carried values' types, then the scan results') and an empty body block
/// whose arguments are the iteration number, the condition and the carried values.
pub fn build_loop(
    ctx: &mut Context,
    at: InsertPoint,
    max_trip: Value,
    cond: Value,
    init: &[Value],
    result_types: &[Type],
    loc: Location,
) -> (Op, Block) {
    let carried = &result_types[..init.len().min(result_types.len())];
    let args = loop_arg_types(ctx, carried);
    let (region, block) = ctx.create_region_with_block(&args);
    let mut operands = vec![max_trip, cond];
    operands.extend(init);
    let spec = OpSpec::new(ctx, LoopOp::NAME, loc)
        .operands(&operands)
        .results(result_types)
        .region(region);
    (ctx.build(at, spec), block)
}
