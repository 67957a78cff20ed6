//! The facts `lower` leaves on the host function for the runtime: which `?` dims of its
//! arguments must be equal, as the [`DIM_SYMBOLS`] attribute, and the graph types of its
//! arguments and results where buffers lose their signedness, as [`SOURCE_TYPE`].
//!
//! The kernels are built on [`SymbolicShapes`]: dims it proves equal share a symbol, and so do
//! dims its runtime equality constraints require equal (the two `?`s of a broadcast, a matmul's
//! inner dims), which the lowered code assumes without a check of its own. A buffer type cannot
//! say so (every `?` is just `?`), so the host function gets one symbol per `?` argument dim,
//! numbered from 0 in order of first appearance, dims that must agree sharing one; the runtime
//! checks a run's inputs against them before anything runs. A function without `?` argument
//! dims gets no attribute.

use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_ir::{AttrKind, Context, Op, Type, Value, DYNAMIC};
use dlc_loop::{DIM_SYMBOLS, SOURCE_TYPE};

/// Sets [`DIM_SYMBOLS`] on `host`, the host function built from the graph function whose
/// entry arguments are `graph_args` (one per host argument, in order).
pub(super) fn record_dim_symbols(
    ctx: &mut Context,
    shapes: &SymbolicShapes,
    graph_args: &[Value],
    host: Op,
) {
    let Some(&entry) = ctx
        .regions(host)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
    else {
        return;
    };
    let host_args = ctx.block_args(entry).to_vec();
    // A graph symbol of each class of dims that must be equal, with the class's number.
    let mut classes: Vec<(u32, i64)> = Vec::new();
    let mut next = 0i64;
    let mut fresh = || {
        next += 1;
        next - 1
    };
    let mut symbols: Vec<Vec<i64>> = Vec::with_capacity(host_args.len());
    for (&graph_arg, &host_arg) in graph_args.iter().zip(&host_args) {
        let dims =
            dlc_loop::buffer_parts(ctx, ctx.value_type(host_arg)).map_or(Vec::new(), |p| p.0);
        let symbolic = shapes.shape(graph_arg);
        let mut arg_symbols = Vec::new();
        for (axis, &d) in dims.iter().enumerate() {
            if d != DYNAMIC {
                continue;
            }
            let number = match symbolic.and_then(|s| s.get(axis)) {
                Some(&DimExpr::Symbol(s)) => {
                    let same = |&&(c, _): &&(u32, i64)| {
                        shapes.equal_under_constraints(DimExpr::Symbol(c), DimExpr::Symbol(s))
                    };
                    match classes.iter().find(same) {
                        Some(&(_, n)) => n,
                        None => {
                            let n = fresh();
                            classes.push((s, n));
                            n
                        }
                    }
                }
                // A `?` the analysis did not name equals no other dim.
                _ => fresh(),
            };
            arg_symbols.push(number);
        }
        symbols.push(arg_symbols);
    }
    if symbols.iter().all(Vec::is_empty) {
        return;
    }
    let entries: Vec<_> = symbols
        .into_iter()
        .map(|values| {
            ctx.intern_attr(AttrKind::DenseArray {
                element: Type::I64,
                values: values.into(),
            })
        })
        .collect();
    let attr = ctx.array_attr(&entries);
    ctx.set_attr(host, DIM_SYMBOLS, attr);
}

/// Sets [`SOURCE_TYPE`] on `host` to the type of `graph_func` when one of its arguments or
/// results holds unsigned integers, which its buffers hold signless.
pub(super) fn record_source_type(ctx: &mut Context, graph_func: Op, host: Op) {
    let Some(ty) = ctx
        .attr(graph_func, "function_type")
        .and_then(|a| ctx.attr_as_type(a))
    else {
        return;
    };
    let Some((inputs, results)) = ctx.function_signature(ty) else {
        return;
    };
    let unsigned = inputs
        .iter()
        .chain(results)
        .any(|&t| dlc_graph::verify::is_unsigned(ctx.element_type(t)));
    if unsigned {
        let attr = ctx.type_attr(ty);
        ctx.set_attr(host, SOURCE_TYPE, attr);
    }
}
