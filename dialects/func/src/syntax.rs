//! Custom syntax of the func ops, identical to MLIR's:
//!
//! ```text
//! func.func private @decl(i32) -> i32
//! func.func @f(%arg0: i32 {llvm.noalias}) -> (i32, f32) attributes {k} { ... }
//! return %a, %b : i32, f32
//! %r = call @g(%a) : (i32) -> i32
//! %f = constant @g : (i32) -> i32
//! %s = call_indirect %f(%a) : (i32) -> i32
//! ```

use dlc_ir::parser::lexer::Tok;
use dlc_ir::parser::{Argument, UnresolvedOperand};
use dlc_ir::{AttrKind, Attribute, Diagnostic, Op, OpSpec, PResult, Parser, Printer, TypeKind};

fn set_attr(p: &mut Parser<'_>, spec: &mut OpSpec, name: &str, value: Attribute) {
    spec.set_attr(p.ctx(), name, value);
}

/// Parses an optional `{...}` after a signature entry into a dictionary attribute.
fn parse_entry_attrs(p: &mut Parser<'_>) -> PResult<Option<Attribute>> {
    if p.peek() != Tok::LBrace {
        return Ok(None);
    }
    let mut attrs = Vec::new();
    p.parse_attr_dict_into(&mut attrs)?;
    Ok(Some(p.ctx().intern_attr(AttrKind::Dict(attrs.into()))))
}

fn skip_loc(p: &mut Parser<'_>) -> PResult<()> {
    if p.peek() == Tok::BareIdent && p.peek_text() == "loc" {
        p.parse_trailing_location()?;
    }
    Ok(())
}

pub(crate) fn parse_func(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    for visibility in ["private", "public", "nested"] {
        if p.consume_keyword(visibility) {
            let v = p.ctx().string_attr(visibility);
            set_attr(p, spec, "sym_visibility", v);
            break;
        }
    }
    let name = p.parse_symbol_name()?;
    let name_attr = p.ctx().string_attr(&name);
    set_attr(p, spec, "sym_name", name_attr);

    // Arguments: either named (`%a: i32`) for a definition, or bare types for a declaration.
    let mut args: Vec<Argument<'_>> = Vec::new();
    let mut inputs = Vec::new();
    let mut arg_attrs = Vec::new();
    let mut named = None;
    p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
        let is_named = p.peek() == Tok::PercentIdent;
        if *named.get_or_insert(is_named) != is_named {
            return Err(p.error(if is_named {
                "expected type instead of SSA identifier"
            } else {
                "expected SSA identifier"
            }));
        }
        if is_named {
            let loc = p.current_loc();
            let name = p.peek_text();
            p.expect(Tok::PercentIdent, "SSA identifier")?;
            p.expect(Tok::Colon, "':' and type for SSA value")?;
            let ty = p.parse_type()?;
            args.push(Argument { name, ty, loc });
            inputs.push(ty);
        } else {
            inputs.push(p.parse_type()?);
        }
        arg_attrs.push(parse_entry_attrs(p)?);
        skip_loc(p)
    })?;

    let mut results = Vec::new();
    let mut res_attrs = Vec::new();
    if p.consume(Tok::Arrow) {
        if p.peek() == Tok::LParen {
            p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
                results.push(p.parse_type()?);
                res_attrs.push(parse_entry_attrs(p)?);
                Ok(())
            })?;
        } else {
            results.push(p.parse_type()?);
            res_attrs.push(None);
        }
    }
    let fn_ty = p.ctx().function_type(&inputs, &results);
    let ty_attr = p.ctx().type_attr(fn_ty);
    set_attr(p, spec, "function_type", ty_attr);
    for (key, list) in [("arg_attrs", arg_attrs), ("res_attrs", res_attrs)] {
        if list.iter().any(Option::is_some) {
            let empty = p.ctx().intern_attr(AttrKind::Dict(Box::new([])));
            let dicts: Vec<Attribute> = list.into_iter().map(|a| a.unwrap_or(empty)).collect();
            let array = p.ctx().array_attr(&dicts);
            set_attr(p, spec, key, array);
        }
    }
    let dict_loc = p.current_loc();
    let mut explicit = Vec::new();
    p.parse_optional_attr_dict_with_keyword(&mut explicit)?;
    // What the signature already says may not be written again in the dictionary.
    for inferred in ["sym_visibility", "sym_name", "function_type"] {
        if explicit
            .iter()
            .any(|a| p.ctx().ident_str(a.name) == inferred)
        {
            return Err(Diagnostic::error(
                dict_loc,
                format!("'{inferred}' is an inferred attribute and should not be specified in the explicit attribute dictionary"),
            ));
        }
    }
    for a in explicit {
        spec.attrs.retain(|b| b.name != a.name);
        p.ctx().insert_sorted(&mut spec.attrs, a);
    }

    let region = if p.peek() == Tok::LBrace {
        // With a types-only signature the body names its entry block's arguments itself
        // (`^bb0(%a: f32):`), as MLIR allows; the verifier matches them to the signature.
        let body_loc = p.current_loc();
        let region = p.parse_region(&args, true)?;
        if p.ctx().blocks(region).is_empty() {
            return Err(Diagnostic::error(
                body_loc,
                "expected non-empty function body",
            ));
        }
        region
    } else {
        if named == Some(true) {
            return Err(
                p.wrong_token_error("expected '{' to begin a function body after named arguments")
            );
        }
        p.ctx().create_region()
    };
    spec.regions.push(region);
    Ok(())
}

pub(crate) fn print_func(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let func = crate::FuncOp(op);
    if let Some(v) = func.sym_visibility(ctx).and_then(|a| ctx.attr_as_str(a)) {
        p.write(" ");
        p.write(v);
    }
    p.write(" ");
    p.print_symbol_name(dlc_ir::symbol::symbol_name(ctx, op).unwrap_or(""));
    let (inputs, results) = func.signature(ctx).unwrap_or_default();
    let entry_attrs = |a: Option<Attribute>, i: usize| -> Option<Attribute> {
        match ctx.attr_kind(a?) {
            AttrKind::Array(items) => items
                .get(i)
                .copied()
                .filter(|d| !matches!(ctx.attr_kind(*d), AttrKind::Dict(e) if e.is_empty())),
            _ => None,
        }
    };
    let region = ctx.region(op, 0);
    let entry = ctx.blocks(region).first().copied();
    p.write("(");
    for (i, ty) in inputs.iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        match entry {
            Some(b) if i < ctx.block_args(b).len() => p.print_argument(ctx.block_args(b)[i]),
            _ => p.print_type(*ty),
        }
        if let Some(d) = entry_attrs(func.arg_attrs(ctx), i) {
            p.write(" ");
            p.print_attr(d);
        }
    }
    p.write(")");
    if !results.is_empty() {
        p.write(" -> ");
        let any_attrs = (0..results.len()).any(|i| entry_attrs(func.res_attrs(ctx), i).is_some());
        let needs_parens = results.len() > 1
            || any_attrs
            || matches!(ctx.type_kind(results[0]), TypeKind::Function { .. });
        if needs_parens {
            p.write("(");
        }
        for (i, ty) in results.iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_type(*ty);
            if let Some(d) = entry_attrs(func.res_attrs(ctx), i) {
                p.write(" ");
                p.print_attr(d);
            }
        }
        if needs_parens {
            p.write(")");
        }
    }
    p.print_optional_attr_dict_with_keyword(
        op,
        &[
            "sym_name",
            "function_type",
            "sym_visibility",
            "arg_attrs",
            "res_attrs",
        ],
    );
    if entry.is_some() {
        p.write(" ");
        p.print_region(region, false);
    }
}

pub(crate) fn parse_return(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    // MLIR's format is `attr-dict ($operands^ `:` type($operands))?`: attributes come first.
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let loc = p.current_loc();
    let operands = p.parse_operand_list()?;
    if !operands.is_empty() {
        p.expect(Tok::Colon, "':'")?;
        let types = p.parse_type_list()?;
        spec.operands
            .extend(p.resolve_operands(&operands, &types, loc)?);
    }
    Ok(())
}

pub(crate) fn print_return(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let operands = ctx.operands(op);
    p.print_optional_attr_dict(op, &[]);
    if !operands.is_empty() {
        p.write(" ");
        p.print_operands(operands);
        p.write(" : ");
        let types: Vec<_> = operands.iter().map(|v| ctx.value_type(*v)).collect();
        p.print_type_list(&types);
    }
}

pub(crate) fn parse_call(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    let callee = p.ctx().symbol_ref_attr(&name);
    set_attr(p, spec, "callee", callee);
    parse_call_arguments(p, spec, None)
}

/// The part every call shares after its callee: `(%args) {attrs} : (inputs) -> results`. A
/// `callee` operand (`call_indirect`'s) is resolved against the function type and becomes the
/// first operand; the arguments are resolved against the inputs and follow it, and the results
/// become `spec`'s result types.
fn parse_call_arguments<'a>(
    p: &mut Parser<'a>,
    spec: &mut OpSpec,
    callee: Option<UnresolvedOperand<'a>>,
) -> PResult<()> {
    let mut operands = Vec::new();
    p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
        operands.push(p.parse_operand()?);
        Ok(())
    })?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let ty = p.parse_type()?;
    let Some((inputs, results)) = p
        .ctx()
        .function_signature(ty)
        .map(|(i, r)| (i.to_vec(), r.to_vec()))
    else {
        return Err(dlc_ir::Diagnostic::error(loc, "expected function type"));
    };
    if let Some(callee) = callee {
        let callee = p.resolve_operand(&callee, ty)?;
        spec.operands.push(callee);
    }
    spec.operands
        .extend(p.resolve_operands(&operands, &inputs, loc)?);
    spec.result_types.extend(results);
    Ok(())
}

pub(crate) fn print_call(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    p.write(" ");
    if let Some(callee) = crate::CallOp(op).callee(ctx) {
        p.print_attr(callee);
    }
    p.write("(");
    p.print_operands(ctx.operands(op));
    p.write(")");
    p.print_optional_attr_dict(op, &["callee"]);
    p.write(" : ");
    let inputs: Vec<_> = ctx
        .operands(op)
        .iter()
        .map(|v| ctx.value_type(*v))
        .collect();
    let results = ctx.result_types(op);
    p.write("(");
    p.print_type_list(&inputs);
    p.write(") -> ");
    p.print_function_result_types(&results);
}

/// `func.constant {attrs} @name : type`.
pub(crate) fn parse_constant(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    // The value is an attribute that must turn out to be a symbol reference.
    if p.peek() != Tok::AtIdent {
        let loc = p.current_loc();
        // A string is skipped alone: read as an attribute, it would take the op's `: type` for
        // its own. It is the wrong kind either way.
        if !p.consume(Tok::String) {
            p.parse_attribute()?;
        }
        return Err(Diagnostic::error(
            loc,
            "invalid kind of attribute specified",
        ));
    }
    let name = p.parse_symbol_name()?;
    let value = p.ctx().symbol_ref_attr(&name);
    set_attr(p, spec, "value", value);
    let ty = p.parse_colon_type()?;
    spec.result_types.push(ty);
    Ok(())
}

pub(crate) fn print_constant(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    p.print_optional_attr_dict(op, &["value"]);
    p.write(" ");
    match crate::ConstantOp(op).value(ctx) {
        Some(value) => p.print_attr(value),
        None => p.write("<<missing value>>"),
    }
    p.write(" : ");
    if let Some(r) = ctx.results(op).next() {
        p.print_type(ctx.value_type(r));
    }
}

/// `func.call_indirect %callee(%args) {attrs} : (inputs) -> results`.
pub(crate) fn parse_call_indirect(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let callee = p.parse_operand()?;
    parse_call_arguments(p, spec, Some(callee))
}

pub(crate) fn print_call_indirect(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let Some((&callee, args)) = ctx.operands(op).split_first() else {
        return;
    };
    p.write(" ");
    p.print_operand(callee);
    p.write("(");
    p.print_operands(args);
    p.write(")");
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(callee));
}
