//! Custom syntax of the graph ops.
//!
//! ```text
//! %2 = graph.sub %0, %1 : tensor<64x128xf32>                       // all types equal
//! %3 = graph.add %0, %1 : tensor<4x1xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
//! %4 = graph.cmp lt, %a, %b : tensor<4xf32>                        // result tensor<4xi1>
//! %5 = graph.reduce_sum %2 {axes = array<i64: 1>} : tensor<64x128xf32> -> tensor<64xf32>
//! %6 = graph.iota {axis = 0 : i64} : tensor<4xi32>                 // no operands
//! %c = graph.constant dense<1.0> : tensor<4xf32>
//! %d = graph.dim %t, 1 : tensor<4x?xf32> -> index
//! %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn"} : (XP, R, RB, H0) -> (Y, H)
//! %r:2 = graph.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
//! ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
//!   ...
//!   graph.yield %p, %q : tensor<4xf32>, tensor<4xf32>
//! }
//! %s = graph.if %c : tensor<i1> -> tensor<4xf32> { ... } else { ... }
//! ```
//!
//! `graph.loop` is written as `graph.fusion` is (its body sees the values around it);
//! `crate::control` has both control-flow ops. Every op but those seven uses one form: operands, the attribute dictionary, then `: T` when
//! every operand and the result have type `T` (for `graph.cmp`: the operands have type `T` and the
//! result is `T` with `i1` elements), else `: operand types -> result type`.

use crate::ops::{Family, GraphOp};
use crate::verify::tensor_parts;
use dlc_ir::parser::lexer::Tok;
use dlc_ir::parser::UnresolvedOperand;
use dlc_ir::{Context, Diagnostic, Op, OpSpec, PResult, Parser, Printer, Type};

/// Parses the custom syntax of graph op `T` (the `parse` hook of every graph `OpDef`).
pub(crate) fn parse<T: GraphOp>(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    parse_family(p, spec, T::FAMILY)
}

/// Parses the custom syntax of an op of family `fam`.
fn parse_family(p: &mut Parser<'_>, spec: &mut OpSpec, fam: Family) -> PResult<()> {
    match fam {
        Family::Constant => parse_constant(p, spec),
        Family::Dim => parse_dim(p, spec),
        Family::Fusion => parse_fusion(p, spec, true),
        Family::Loop => parse_fusion(p, spec, false),
        Family::If => parse_if(p, spec),
        Family::Rnn => parse_multi(p, spec),
        Family::Yield => parse_yield(p, spec),
        Family::Cmp => {
            let loc = p.current_loc();
            let word = p.parse_keyword("comparison predicate")?;
            if !crate::verify::PREDICATES.contains(&word) {
                return Err(Diagnostic::error(
                    loc,
                    format!("expected one of eq, ne, lt, le, gt, ge, but got '{word}'"),
                ));
            }
            let pred = p.ctx().string_attr(word);
            spec.set_attr(p.ctx(), "predicate", pred);
            p.expect(Tok::Comma, "','")?;
            parse_common(p, spec, true)
        }
        _ => parse_common(p, spec, false),
    }
}

/// `%a, %b {attrs} : T` or `: A, B -> R`.
fn parse_common(p: &mut Parser<'_>, spec: &mut OpSpec, is_cmp: bool) -> PResult<()> {
    let operands = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let types = p.parse_type_list()?;
    if p.consume(Tok::Arrow) {
        let result = p.parse_type()?;
        resolve(p, spec, &operands, &types, loc)?;
        spec.result_types.push(result);
        return Ok(());
    }
    let [ty] = types[..] else {
        return Err(Diagnostic::error(
            loc,
            "expected one type, or operand types followed by '->' and the result type",
        ));
    };
    let operand_types = vec![ty; operands.len()];
    resolve(p, spec, &operands, &operand_types, loc)?;
    let result = if is_cmp { bool_like(p.ctx(), ty) } else { ty };
    spec.result_types.push(result);
    Ok(())
}

/// `ty` with `i1` elements.
fn bool_like(ctx: &mut Context, ty: Type) -> Type {
    match tensor_parts(ctx, ty) {
        Some(t) => ctx.tensor_type(&t.shape, Type::I1),
        None => Type::I1,
    }
}

fn resolve<'a>(
    p: &mut Parser<'a>,
    spec: &mut OpSpec,
    operands: &[UnresolvedOperand<'a>],
    types: &[Type],
    loc: dlc_ir::Location,
) -> PResult<()> {
    let values = p.resolve_operands(operands, types, loc)?;
    spec.operands.extend(values);
    Ok(())
}

/// `graph.constant {attrs} dense<...> : T`.
fn parse_constant(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let loc = p.current_loc();
    let value = p.parse_attribute()?;
    let Some(ty) = p.ctx().attr_type(value) else {
        return Err(Diagnostic::error(
            loc,
            "expected a typed dense elements attribute",
        ));
    };
    spec.set_attr(p.ctx(), "value", value);
    spec.result_types.push(ty);
    Ok(())
}

/// `graph.dim %t, 1 {attrs} : T -> index`.
fn parse_dim(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let x = p.parse_operand()?;
    p.expect(Tok::Comma, "','")?;
    let loc = p.current_loc();
    let text = p.peek_text();
    p.expect(Tok::Integer, "axis")?;
    let axis: i64 = text
        .parse()
        .map_err(|_| Diagnostic::error(loc, "axis out of range"))?;
    let attr = p.ctx().integer_attr(axis as i128, Type::I64);
    spec.set_attr(p.ctx(), "axis", attr);
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let ty = p.parse_colon_type()?;
    p.expect(Tok::Arrow, "'->'")?;
    let result = p.parse_type()?;
    let v = p.resolve_operand(&x, ty)?;
    spec.operands.push(v);
    spec.result_types.push(result);
    Ok(())
}

/// `graph.fusion (%a, %b) {attrs} : (A, B) -> (R, S) { body }`, and `graph.loop` in the same
/// form with a body that is not `isolated` from the values around it.
fn parse_fusion(p: &mut Parser<'_>, spec: &mut OpSpec, isolated: bool) -> PResult<()> {
    let mut operands = Vec::new();
    p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
        operands.push(p.parse_operand()?);
        Ok(())
    })?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let fn_ty = p.parse_type()?;
    let Some((inputs, results)) = p.ctx().function_signature(fn_ty) else {
        return Err(Diagnostic::error(loc, "expected a function type"));
    };
    let (inputs, results) = (inputs.to_vec(), results.to_vec());
    resolve(p, spec, &operands, &inputs, loc)?;
    spec.result_types.extend(results);
    let region = p.parse_region(&[], isolated)?;
    spec.regions.push(region);
    Ok(())
}

/// `graph.if %c {attrs} : C -> R { then } else { else }`, or `-> (R, S)` for several
/// results (`-> ()` for none).
fn parse_if(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let cond = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let ty = p.parse_colon_type()?;
    let v = p.resolve_operand(&cond, ty)?;
    spec.operands.push(v);
    p.expect(Tok::Arrow, "'->'")?;
    let results = p.parse_function_result_types()?;
    spec.result_types.extend(results);
    spec.regions.push(p.parse_region(&[], false)?);
    let loc = p.current_loc();
    if p.peek() != Tok::BareIdent || p.peek_text() != "else" {
        return Err(Diagnostic::error(
            loc,
            "expected 'else' and the else region",
        ));
    }
    p.parse_keyword("'else'")?;
    spec.regions.push(p.parse_region(&[], false)?);
    Ok(())
}

/// `%a, %b {attrs} : (A, B) -> (R, S)`: an op with several results.
fn parse_multi(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let operands = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let fn_ty = p.parse_type()?;
    let Some((inputs, results)) = p.ctx().function_signature(fn_ty) else {
        return Err(Diagnostic::error(
            loc,
            "expected a function type '(operand types) -> (result types)'",
        ));
    };
    let (inputs, results) = (inputs.to_vec(), results.to_vec());
    resolve(p, spec, &operands, &inputs, loc)?;
    spec.result_types.extend(results);
    Ok(())
}

/// `graph.yield %a, %b {attrs} : A, B` (or just `graph.yield`).
fn parse_yield(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let operands = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    if operands.is_empty() {
        return Ok(());
    }
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let types = p.parse_type_list()?;
    resolve(p, spec, &operands, &types, loc)
}

// ---------------------------------------------------------------------------------------------
// Printing.

/// Prints the custom syntax of graph op `T` (the `print` hook of every graph `OpDef`). Invalid
/// ops (missing results or attributes) print placeholders rather than panicking.
pub(crate) fn print<T: GraphOp>(p: &mut Printer<'_>, op: Op) {
    print_family(p, op, T::FAMILY);
}

/// Prints the custom syntax of an op of family `fam`.
fn print_family(p: &mut Printer<'_>, op: Op, fam: Family) {
    let ctx = p.ctx();
    let operands = ctx.operands(op);
    let operand_types: Vec<Type> = operands.iter().map(|v| ctx.value_type(*v)).collect();
    let result_types = ctx.result_types(op);
    match fam {
        Family::Constant => {
            p.print_optional_attr_dict(op, &["value"]);
            p.write(" ");
            match ctx.attr(op, "value") {
                Some(v) => p.print_attr(v),
                None => p.write("<<missing value>>"),
            }
        }
        Family::Dim => {
            p.write(" ");
            p.print_operands(operands);
            let axis = ctx.attr(op, "axis").and_then(|a| ctx.attr_as_int(a));
            let elided: &[&str] = match axis {
                Some(a) if a >= 0 => {
                    p.write(&format!(", {a}"));
                    &["axis"]
                }
                _ => {
                    p.write(", <<invalid axis>>");
                    &[]
                }
            };
            p.print_optional_attr_dict(op, elided);
            p.write(" : ");
            p.print_type_list(&operand_types);
            p.write(" -> ");
            p.print_type_list(&result_types);
        }
        Family::If => {
            p.write(" ");
            p.print_operands(operands);
            p.print_optional_attr_dict(op, &[]);
            p.write(" : ");
            p.print_type_list(&operand_types);
            p.write(" -> ");
            p.print_function_result_types(&result_types);
            for (i, &r) in ctx.regions(op).iter().enumerate() {
                p.write(if i == 0 { " " } else { " else " });
                p.print_region(r, false);
            }
        }
        Family::Fusion | Family::Loop => {
            p.write(" (");
            p.print_operands(operands);
            p.write(")");
            p.print_optional_attr_dict(op, &[]);
            p.write(" : (");
            p.print_type_list(&operand_types);
            p.write(") -> ");
            p.print_function_result_types(&result_types);
            if let Some(&r) = ctx.regions(op).first() {
                p.write(" ");
                p.print_region(r, true);
            }
        }
        Family::Rnn => {
            p.write(" ");
            p.print_operands(operands);
            p.print_optional_attr_dict(op, &[]);
            p.write(" : (");
            p.print_type_list(&operand_types);
            p.write(") -> (");
            p.print_type_list(&result_types);
            p.write(")");
        }
        Family::Yield => {
            if !operands.is_empty() {
                p.write(" ");
                p.print_operands(operands);
            }
            p.print_optional_attr_dict(op, &[]);
            if !operands.is_empty() {
                p.write(" : ");
                p.print_type_list(&operand_types);
            }
        }
        _ => {
            let is_cmp = fam == Family::Cmp;
            let mut elided: &[&str] = &[];
            if is_cmp {
                match ctx
                    .attr(op, "predicate")
                    .and_then(|a| ctx.attr_as_str(a))
                    .filter(|s| crate::verify::PREDICATES.contains(s))
                {
                    Some(pred) => {
                        p.write(" ");
                        p.write(pred);
                        p.write(",");
                        elided = &["predicate"];
                    }
                    None => p.write(" <<invalid predicate>>,"),
                }
            }
            if !operands.is_empty() {
                p.write(" ");
                p.print_operands(operands);
            }
            p.print_optional_attr_dict(op, elided);
            p.write(" : ");
            let Some(&result) = result_types.first() else {
                p.write("<<missing result>>");
                return;
            };
            let short = match operand_types.first() {
                _ if operand_types
                    .iter()
                    .any(|t| Some(t) != operand_types.first()) =>
                {
                    false
                }
                Some(&t) if is_cmp => is_bool_like_of(ctx, result, t),
                Some(&t) => t == result,
                None => true,
            };
            if short {
                p.print_type(operand_types.first().copied().unwrap_or(result));
            } else {
                p.print_type_list(&operand_types);
                p.write(" -> ");
                p.print_type(result);
            }
        }
    }
}

/// True if `result` is `ty` with `i1` elements.
fn is_bool_like_of(ctx: &Context, result: Type, ty: Type) -> bool {
    match (tensor_parts(ctx, result), tensor_parts(ctx, ty)) {
        (Some(r), Some(t)) => r.element == Type::I1 && r.shape == t.shape,
        _ => false,
    }
}
