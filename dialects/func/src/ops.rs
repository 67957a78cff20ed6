//! The func ops, each defined once with its hooks, and their verifiers.

use crate::{canonicalize, syntax};
use dlc_ir::symbol::SymbolTables;
use dlc_ir::{op_error, AttrKind, Context, Diagnostic, Op, OpView, Traits, Type};

dlc_ir::define_op! {
    /// A function: a symbol with a signature and a body region (empty for a declaration).
    pub struct FuncOp = "func.func";
    traits = Traits::ISOLATED_FROM_ABOVE.union(Traits::SYMBOL);
    operands = [];
    results = [];
    attributes = [sym_name, function_type, sym_visibility, arg_attrs, res_attrs, no_inline];
    regions = 1;
    verify = verify_func;
    parse = syntax::parse_func;
    print = syntax::print_func;
    default_dialect = "func";
}

dlc_ir::define_op! {
    /// Returns values from the enclosing function.
    pub struct ReturnOp = "func.return";
    traits = Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE);
    operands = *;
    results = [];
    parents = &[FuncOp::NAME];
    verify = verify_return;
    parse = syntax::parse_return;
    print = syntax::print_return;
}

dlc_ir::define_op! {
    /// Calls a function by symbol.
    pub struct CallOp = "func.call";
    traits = Traits::empty();
    operands = *;
    results = *;
    attributes = [callee, no_inline];
    verify_symbols = verify_call;
    parse = syntax::parse_call;
    print = syntax::print_call;
}

dlc_ir::define_op! {
    /// The address of a function as a value of its function type (`%f = constant @f : ...`).
    pub struct ConstantOp = "func.constant";
    traits = Traits::PURE.union(Traits::CONSTANT_LIKE);
    operands = [];
    results = [result];
    attributes = [value];
    verify_symbols = verify_constant;
    parse = syntax::parse_constant;
    print = syntax::print_constant;
    // mlir-opt names every function constant `%f`.
    result_names = &["f"];
}

dlc_ir::define_op! {
    /// Calls the function value `callee` (a `func.constant`, a block argument, ...).
    pub struct CallIndirectOp = "func.call_indirect";
    traits = Traits::empty();
    operands = *;
    results = *;
    verify = verify_call_indirect;
    parse = syntax::parse_call_indirect;
    print = syntax::print_call_indirect;
    canonicalize = canonicalize::call_indirect;
}

dlc_ir::op_set! {
    /// Every op of the func dialect: `FuncOps::of(ctx, op)` to dispatch on the kind of a func
    /// op without comparing names, `FuncOps::defs()` for the dialect.
    pub enum FuncOps {
        FuncOp,
        ReturnOp,
        CallOp,
        ConstantOp,
        CallIndirectOp,
    }
}

impl FuncOp {
    /// The signature `(inputs) -> results`, if the `function_type` attribute is well formed.
    pub fn signature(self, ctx: &Context) -> Option<(Vec<Type>, Vec<Type>)> {
        let ty = ctx.attr_as_type(self.function_type(ctx)?)?;
        let (ins, outs) = ctx.function_signature(ty)?;
        Some((ins.to_vec(), outs.to_vec()))
    }

    /// True for a declaration (no body).
    pub fn is_declaration(self, ctx: &Context) -> bool {
        ctx.blocks(ctx.region(self.0, 0)).is_empty()
    }
}

pub(crate) fn verify_func(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let func = FuncOp(op);
    let Some((inputs, results)) = func.signature(ctx) else {
        return Err(op_error(
            ctx,
            op,
            "requires attribute 'function_type' holding a function type",
        ));
    };
    verify_entry_attrs(ctx, op, "arg_attrs", "argument", "arguments", inputs.len())?;
    verify_entry_attrs(ctx, op, "res_attrs", "result", "results", results.len())?;
    if func.is_declaration(ctx) {
        let visibility = func.sym_visibility(ctx).and_then(|a| ctx.attr_as_str(a));
        if !matches!(visibility, Some("private" | "nested")) {
            return Err(op_error(
                ctx,
                op,
                "symbol declaration cannot have public visibility",
            ));
        }
        return Ok(());
    }
    let entry = ctx.blocks(ctx.region(op, 0))[0];
    let args = ctx.block_args(entry);
    if args.len() != inputs.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "entry block must have {} arguments to match function signature",
                inputs.len()
            ),
        ));
    }
    if let Some((i, actual, expected)) = first_type_mismatch(ctx, args, &inputs) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "type of entry block argument #{i}('{actual}') must match the type of the corresponding argument in function signature('{expected}')"
            ),
        ));
    }
    Ok(())
}

/// MLIR's function-interface rules for `arg_attrs` / `res_attrs` (`key`): one dictionary per
/// argument or result, whose entries are all dialect attributes (a name with a '.').
fn verify_entry_attrs(
    ctx: &Context,
    op: Op,
    key: &str,
    entry: &str,
    entries: &str,
    count: usize,
) -> Result<(), Diagnostic> {
    let Some(list) = ctx.attr(op, key) else {
        return Ok(());
    };
    let AttrKind::Array(dicts) = ctx.attr_kind(list) else {
        return Err(op_error(
            ctx,
            op,
            format!("expects {key} to be an array attribute"),
        ));
    };
    if dicts.len() != count {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects {entry} attribute array to have the same number of elements as the number of function {entries}, got {}, but expected {count}",
                dicts.len()
            ),
        ));
    }
    for &dict in dicts.iter() {
        let AttrKind::Dict(items) = ctx.attr_kind(dict) else {
            return Err(op_error(
                ctx,
                op,
                format!("expects {entry} attribute dictionaries"),
            ));
        };
        if items.iter().any(|a| !ctx.ident_str(a.name).contains('.')) {
            return Err(op_error(
                ctx,
                op,
                format!("{entries} may only have dialect attributes"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn verify_return(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(func) = ctx.parent_op(op).and_then(|p| ctx.view::<FuncOp>(p)) else {
        return Ok(());
    };
    let Some((_, results)) = func.signature(ctx) else {
        return Ok(());
    };
    let name = dlc_ir::symbol::symbol_name(ctx, func.0).unwrap_or("");
    let operands = ctx.operands(op);
    if operands.len() != results.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {} operands, but enclosing function (@{name}) returns {}",
                operands.len(),
                results.len()
            ),
        ));
    }
    if let Some((i, actual, expected)) = first_type_mismatch(ctx, operands, &results) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "type of return operand {i} ('{actual}') doesn't match function result type ('{expected}') in function @{name}"
            ),
        ));
    }
    Ok(())
}

pub(crate) fn verify_call(
    ctx: &Context,
    op: Op,
    tables: &mut SymbolTables,
) -> Result<(), Diagnostic> {
    let Some(callee) = CallOp(op).callee(ctx).and_then(|a| ctx.attr_as_symbol(a)) else {
        return Err(op_error(
            ctx,
            op,
            "requires a 'callee' symbol reference attribute",
        ));
    };
    let name = ctx.ident_str(callee);
    let target = tables
        .resolve(ctx, op, callee)
        .and_then(|t| ctx.view::<FuncOp>(t));
    let Some((inputs, results)) = target.and_then(|f| f.signature(ctx)) else {
        return Err(op_error(
            ctx,
            op,
            format!("'{name}' does not reference a valid function"),
        ));
    };
    let operands = ctx.operands(op);
    if operands.len() != inputs.len() {
        return Err(op_error(ctx, op, "incorrect number of operands for callee"));
    }
    if let Some((i, actual, expected)) = first_type_mismatch(ctx, operands, &inputs) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand type mismatch: expected operand type '{expected}', but provided '{actual}' for operand number {i}"
            ),
        ));
    }
    if ctx.num_results(op) != results.len() {
        return Err(op_error(ctx, op, "incorrect number of results for callee"));
    }
    let result_values: Vec<_> = ctx.results(op).collect();
    if let Some((i, _, _)) = first_type_mismatch(ctx, &result_values, &results) {
        let list = |types: &mut dyn Iterator<Item = dlc_ir::Type>| {
            let p = dlc_ir::Printer::new(ctx);
            types
                .map(|t| format!("'{}'", p.type_to_string(t)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let op_types = list(&mut result_values.iter().map(|v| ctx.value_type(*v)));
        let fn_types = list(&mut results.iter().copied());
        return Err(
            op_error(ctx, op, format!("result type mismatch at index {i}"))
                .with_note(ctx.op_loc(op), format!("      op result types: {op_types}"))
                .with_note(ctx.op_loc(op), format!("function result types: {fn_types}")),
        );
    }
    Ok(())
}

/// `func.constant`: the symbol names a function of the result's type.
pub(crate) fn verify_constant(
    ctx: &Context,
    op: Op,
    tables: &mut SymbolTables,
) -> Result<(), Diagnostic> {
    let Some(symbol) = ConstantOp(op)
        .value(ctx)
        .and_then(|a| ctx.attr_as_symbol(a))
    else {
        return Err(op_error(
            ctx,
            op,
            "requires a 'value' symbol reference attribute",
        ));
    };
    let name = ctx.ident_str(symbol);
    let Some(target) = tables
        .resolve(ctx, op, symbol)
        .and_then(|t| ctx.view::<FuncOp>(t))
    else {
        return Err(op_error(
            ctx,
            op,
            format!("reference to undefined function '{name}'"),
        ));
    };
    let declared = target.function_type(ctx).and_then(|a| ctx.attr_as_type(a));
    if declared != Some(ctx.value_type(ctx.result(op, 0))) {
        return Err(op_error(
            ctx,
            op,
            "reference to function with mismatched type",
        ));
    }
    Ok(())
}

/// `func.call_indirect`: a function-typed callee whose inputs are the argument types and whose
/// results are the result types.
pub(crate) fn verify_call_indirect(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some((&callee, args)) = ctx.operands(op).split_first() else {
        return Err(op_error(ctx, op, "requires a callee operand"));
    };
    let callee_ty = ctx.value_type(callee);
    let Some((inputs, results)) = ctx.function_signature(callee_ty) else {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand #0 must be function type, but got '{}'",
                dlc_ir::Printer::new(ctx).type_to_string(callee_ty)
            ),
        ));
    };
    let arg_types: Vec<Type> = args.iter().map(|v| ctx.value_type(*v)).collect();
    if arg_types != inputs {
        return Err(op_error(
            ctx,
            op,
            "failed to verify that callee input types match argument types",
        ));
    }
    if ctx.result_types(op).as_slice() != results {
        return Err(op_error(
            ctx,
            op,
            "failed to verify that callee result types match result types",
        ));
    }
    Ok(())
}

/// The first of `values` whose type differs from `expected`: its index and both types as text.
fn first_type_mismatch(
    ctx: &Context,
    values: &[dlc_ir::Value],
    expected: &[Type],
) -> Option<(usize, String, String)> {
    let (i, (v, ty)) = values
        .iter()
        .zip(expected)
        .enumerate()
        .find(|(_, (v, ty))| ctx.value_type(**v) != **ty)?;
    let p = dlc_ir::Printer::new(ctx);
    Some((
        i,
        p.type_to_string(ctx.value_type(*v)),
        p.type_to_string(*ty),
    ))
}
