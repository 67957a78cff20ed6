//! Custom syntax of the arith ops, byte-identical to what mlir-opt prints:
//!
//! ```text
//! %0 = arith.constant 42 : i32
//! %1 = arith.addi %a, %b overflow<nsw> : i32
//! %2 = arith.addf %x, %y fastmath<nnan,ninf> : f32
//! %3 = arith.negf %x : f32
//! %4 = arith.cmpi slt, %a, %b : i32
//! %5 = arith.select %c, %a, %b : i32
//! %6 = arith.select %m, %v, %w : vector<4xi1>, vector<4xi32>
//! %7 = arith.index_cast %a : i32 to index
//! %8 = arith.truncf %x downward fastmath<contract> : f32 to f16
//! %sum, %overflow = arith.addui_extended %a, %b : i32, i1
//! %low, %high = arith.mulsi_extended %a, %b : i32
//! ```
//!
//! Attributes MLIR keeps as default-valued properties (`overflowFlags`, and `fastmath` on the
//! float arithmetic ops and `cmpf`) are always set when parsing, to `none` when not written, so
//! that the generic form matches mlir-opt's; the custom form leaves `none` out. Other attributes
//! go into a trailing `{...}` before the colon. `truncf`'s optional rounding mode is a keyword
//! after the operand, stored as MLIR stores it (`roundingmode = N : i32`).

use crate::attrs::{
    self, fastmath_attr, fastmath_flags_of, overflow_attr, overflow_flags_of, rounding_mode_attr,
    rounding_mode_of, CmpFPredicate, CmpIPredicate, FastMathFlags, OverflowFlags, RoundingMode,
    FASTMATH, OVERFLOW_FLAGS, PREDICATE, ROUNDING_MODE,
};
use crate::ops::{ArithOp, CastKind, Family, Flags};
use crate::types::{bool_like, TypeClass};
use dlc_ir::parser::lexer::Tok;
use dlc_ir::parser::UnresolvedOperand;
use dlc_ir::{
    Attribute, Context, Diagnostic, Location, NamedAttr, Op, OpSpec, PResult, Parser, Printer, Type,
};

/// Sets `name` in an attribute list kept sorted by name, as op attributes are.
pub(crate) fn set_attr(
    ctx: &mut Context,
    attrs: &mut Vec<NamedAttr>,
    name: &str,
    value: Attribute,
) {
    let id = ctx.ident(name);
    match attrs.binary_search_by(|a| ctx.ident_str(a.name).cmp(name)) {
        Ok(i) => attrs[i].value = value,
        Err(i) => attrs.insert(i, NamedAttr { name: id, value }),
    }
}

/// The attributes an op gets when its flags are not written: MLIR's property defaults.
pub(crate) fn default_flag_attr(
    ctx: &mut Context,
    flags: Flags,
) -> Option<(&'static str, Attribute)> {
    match flags {
        Flags::Overflow => Some((OVERFLOW_FLAGS, overflow_attr(ctx, OverflowFlags::empty()))),
        Flags::FastMath => Some((FASTMATH, fastmath_attr(ctx, FastMathFlags::empty()))),
        Flags::None | Flags::OptionalFastMath => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing.

/// Parses the custom syntax of arith op `T` (the `parse` hook of every arith `OpDef`).
pub(crate) fn parse<T: ArithOp>(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    parse_family(p, spec, T::FAMILY, T::FLAGS)
}

/// Parses the custom syntax of an op of this family and flag attribute.
fn parse_family(
    p: &mut Parser<'_>,
    spec: &mut OpSpec,
    family: Family,
    flags: Flags,
) -> PResult<()> {
    match family {
        Family::Constant => parse_constant(p, spec),
        Family::IntBinary | Family::FloatBinary => {
            let lhs = p.parse_operand()?;
            p.expect(Tok::Comma, "','")?;
            let rhs = p.parse_operand()?;
            parse_flags(p, flags, &mut spec.attrs)?;
            p.parse_optional_attr_dict(&mut spec.attrs)?;
            let ty = p.parse_colon_type()?;
            resolve(p, spec, &[(lhs, ty), (rhs, ty)])?;
            spec.result_types.push(ty);
            Ok(())
        }
        Family::FloatUnary => {
            let operand = p.parse_operand()?;
            parse_flags(p, flags, &mut spec.attrs)?;
            p.parse_optional_attr_dict(&mut spec.attrs)?;
            let ty = p.parse_colon_type()?;
            resolve(p, spec, &[(operand, ty)])?;
            spec.result_types.push(ty);
            Ok(())
        }
        Family::AddExtended | Family::MulExtended => {
            let lhs = p.parse_operand()?;
            p.expect(Tok::Comma, "','")?;
            let rhs = p.parse_operand()?;
            p.parse_optional_attr_dict(&mut spec.attrs)?;
            let ty = p.parse_colon_type()?;
            let second = if family == Family::AddExtended {
                p.expect(Tok::Comma, "','")?;
                p.parse_type()?
            } else {
                ty
            };
            resolve(p, spec, &[(lhs, ty), (rhs, ty)])?;
            spec.result_types.extend([ty, second]);
            Ok(())
        }
        Family::CmpI | Family::CmpF => parse_cmp(p, spec, family == Family::CmpI, flags),
        Family::Select => parse_select(p, spec),
        Family::Cast(kind) => {
            let input = p.parse_operand()?;
            if kind == CastKind::TruncF {
                parse_rounding_mode(p, &mut spec.attrs)?;
            }
            parse_flags(p, flags, &mut spec.attrs)?;
            let dict_loc = p.current_loc();
            p.parse_optional_attr_dict(&mut spec.attrs)?;
            if kind == CastKind::TruncF {
                check_rounding_mode(p, &spec.attrs, dict_loc)?;
            }
            let from = p.parse_colon_type()?;
            if !p.consume_keyword("to") {
                return Err(p.error("expected 'to'"));
            }
            let to = p.parse_type()?;
            resolve(p, spec, &[(input, from)])?;
            spec.result_types.push(to);
            Ok(())
        }
    }
}

fn resolve<'a>(
    p: &mut Parser<'a>,
    spec: &mut OpSpec,
    operands: &[(UnresolvedOperand<'a>, Type)],
) -> PResult<()> {
    for (u, ty) in operands {
        let v = p.resolve_operand(u, *ty)?;
        spec.operands.push(v);
    }
    Ok(())
}

/// Parses an optional `overflow<...>` / `fastmath<...>` group, storing the default when absent.
fn parse_flags(p: &mut Parser<'_>, flags: Flags, attrs: &mut Vec<NamedAttr>) -> PResult<()> {
    let parsed = match flags {
        Flags::None => return Ok(()),
        Flags::Overflow if p.consume_keyword("overflow") => {
            let f = attrs::parse_overflow_body(p)?;
            Some((OVERFLOW_FLAGS, overflow_attr(p.ctx(), f)))
        }
        Flags::FastMath | Flags::OptionalFastMath if p.consume_keyword("fastmath") => {
            let f = attrs::parse_fastmath_body(p)?;
            Some((FASTMATH, fastmath_attr(p.ctx(), f)))
        }
        _ => default_flag_attr(p.ctx(), flags),
    };
    if let Some((name, value)) = parsed {
        set_attr(p.ctx(), attrs, name, value);
    }
    Ok(())
}

/// Parses `truncf`'s optional rounding mode, a keyword or a string naming one; another keyword
/// is left for what follows (mlir-opt then expects the colon).
fn parse_rounding_mode(p: &mut Parser<'_>, attrs: &mut Vec<NamedAttr>) -> PResult<()> {
    let mode = match p.peek() {
        Tok::BareIdent => match RoundingMode::from_keyword(p.peek_text()) {
            Some(mode) => {
                p.consume(Tok::BareIdent);
                mode
            }
            None => return Ok(()),
        },
        Tok::String => {
            // The quoted text as written: a mode's name needs no escapes.
            let (loc, quoted) = (p.current_loc(), p.peek_text());
            let word = quoted.get(1..quoted.len() - 1).unwrap_or_default();
            let Some(mode) = RoundingMode::from_keyword(word) else {
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "custom op 'arith.truncf' invalid roundingmode attribute specification: {quoted}"
                    ),
                ));
            };
            p.consume(Tok::String);
            mode
        }
        _ => return Ok(()),
    };
    let attr = rounding_mode_attr(p.ctx(), mode);
    set_attr(p.ctx(), attrs, ROUNDING_MODE, attr);
    Ok(())
}

/// Rejects a `roundingmode` written in the attribute dictionary (at `loc`) that names no mode,
/// as mlir-opt's custom parser does.
fn check_rounding_mode(p: &mut Parser<'_>, attrs: &[NamedAttr], loc: Location) -> PResult<()> {
    let ctx = p.ctx();
    let invalid = attrs.iter().any(|a| {
        ctx.ident_str(a.name) == ROUNDING_MODE && rounding_mode_of(ctx, a.value).is_none()
    });
    if invalid {
        return Err(Diagnostic::error(
            loc,
            "custom op 'arith.truncf' 'arith.truncf' op attribute 'roundingmode' failed to satisfy constraint: Floating point rounding mode",
        ));
    }
    Ok(())
}

/// `arith.constant {attrs} <typed attribute>`; the result type is the attribute's type.
fn parse_constant(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let loc = p.current_loc();
    let value = p.parse_attribute()?;
    let Some(ty) = p.ctx().attr_type(value) else {
        return Err(Diagnostic::error(
            loc,
            "invalid kind of attribute specified",
        ));
    };
    set_attr(p.ctx(), &mut spec.attrs, "value", value);
    spec.result_types.push(ty);
    Ok(())
}

/// `arith.cmpi pred, %a, %b {attrs} : type` (cmpf also takes `fastmath<...>` before the dict).
fn parse_cmp(p: &mut Parser<'_>, spec: &mut OpSpec, is_int: bool, flags: Flags) -> PResult<()> {
    let loc = p.current_loc();
    let word = match p.peek() {
        Tok::BareIdent => Some(p.parse_keyword("predicate")?.to_string()),
        Tok::String => {
            let attr = p.parse_attribute()?;
            p.ctx().attr_as_str(attr).map(str::to_string)
        }
        _ => None,
    };
    let number = word.as_deref().and_then(|w| {
        if is_int {
            CmpIPredicate::from_keyword(w).map(|p| p as i64)
        } else {
            CmpFPredicate::from_keyword(w).map(|p| p as i64)
        }
    });
    let Some(number) = number else {
        let names: Vec<&str> = if is_int {
            (0..10)
                .filter_map(CmpIPredicate::from_i64)
                .map(CmpIPredicate::keyword)
                .collect()
        } else {
            (0..16)
                .filter_map(CmpFPredicate::from_i64)
                .map(CmpFPredicate::keyword)
                .collect()
        };
        return Err(Diagnostic::error(
            loc,
            format!(
                "expected string or keyword containing one of the following enum values for attribute 'predicate' [{}]",
                names.join(", ")
            ),
        ));
    };
    let pred = attrs::predicate_attr(p.ctx(), number);
    set_attr(p.ctx(), &mut spec.attrs, PREDICATE, pred);
    p.expect(Tok::Comma, "','")?;
    let lhs = p.parse_operand()?;
    p.expect(Tok::Comma, "','")?;
    let rhs = p.parse_operand()?;
    parse_flags(p, flags, &mut spec.attrs)?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let ty = p.parse_colon_type()?;
    resolve(p, spec, &[(lhs, ty), (rhs, ty)])?;
    // The result type is inferred from the operands, and inference checks their class first.
    let class = if is_int {
        TypeClass::SignlessIntegerLike
    } else {
        TypeClass::FloatLike
    };
    if !class.contains(p.ctx(), ty) {
        let got = Printer::new(p.ctx()).type_to_string(ty);
        return Err(Diagnostic::error(
            spec.loc,
            format!("'lhs' must be {}, but got '{got}'", class.description()),
        ));
    }
    let result = bool_like(p.ctx(), ty);
    spec.result_types.push(result);
    Ok(())
}

/// `arith.select %c, %a, %b {attrs} : type` or `: cond_type, type` for a shaped condition.
fn parse_select(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let loc = p.current_loc();
    let operands = p.parse_operand_list()?;
    let [cond, t, f] = operands[..] else {
        return Err(Diagnostic::error(loc, "expected 3 operands"));
    };
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let first = p.parse_colon_type()?;
    let (cond_ty, ty) = if p.consume(Tok::Comma) {
        (first, p.parse_type()?)
    } else {
        (Type::I1, first)
    };
    resolve(p, spec, &[(cond, cond_ty), (t, ty), (f, ty)])?;
    spec.result_types.push(ty);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Printing.

/// Prints the custom syntax of arith op `T` (the `print` hook of every arith `OpDef`).
///
/// The printer calls hooks for invalid IR too (diagnostic notes quote ops), so missing operands
/// or attributes print as placeholders rather than panicking.
pub(crate) fn print<T: ArithOp>(p: &mut Printer<'_>, op: Op) {
    print_family(p, op, T::FAMILY, T::FLAGS);
}

/// Prints the custom syntax of an op of this family and flag attribute.
fn print_family(p: &mut Printer<'_>, op: Op, family: Family, flags: Flags) {
    let ctx = p.ctx();
    let operands = ctx.operands(op);
    let result_ty = ctx.results(op).next().map(|r| ctx.value_type(r));
    let mut elided: Vec<&str> = Vec::new();
    match family {
        Family::Constant => {
            p.print_optional_attr_dict(op, &["value"]);
            p.write(" ");
            match ctx.attr(op, "value") {
                Some(v) => p.print_attr(v),
                None => p.write("<<missing value>>"),
            }
            return;
        }
        Family::IntBinary
        | Family::FloatBinary
        | Family::FloatUnary
        | Family::Select
        | Family::AddExtended
        | Family::MulExtended => {
            p.write(" ");
            p.print_operands(operands);
        }
        Family::CmpI | Family::CmpF => {
            p.write(" ");
            let number = attrs::predicate_number(ctx, op);
            let word = if family == Family::CmpI {
                number
                    .and_then(CmpIPredicate::from_i64)
                    .map(CmpIPredicate::keyword)
            } else {
                number
                    .and_then(CmpFPredicate::from_i64)
                    .map(CmpFPredicate::keyword)
            };
            match word {
                Some(w) => {
                    p.write(w);
                    elided.push(PREDICATE);
                }
                None => p.write("<<invalid predicate>>"),
            }
            p.write(", ");
            p.print_operands(operands);
        }
        Family::Cast(kind) => {
            p.write(" ");
            p.print_operands(operands);
            let mode = ctx
                .attr(op, ROUNDING_MODE)
                .and_then(|a| rounding_mode_of(ctx, a));
            if let Some(mode) = mode.filter(|_| kind == CastKind::TruncF) {
                p.write(" ");
                p.write(mode.keyword());
                elided.push(ROUNDING_MODE);
            }
        }
    }
    print_flags(p, op, flags, &mut elided);
    p.print_optional_attr_dict(op, &elided);
    p.write(" : ");
    let operand_ty = operands.first().map(|v| ctx.value_type(*v));
    match family {
        Family::CmpI | Family::CmpF => print_type_or_placeholder(p, operand_ty),
        Family::Select => {
            if let Some(cond) = operand_ty.filter(|t| ctx.written_shape(*t).is_some()) {
                p.print_type(cond);
                p.write(", ");
            }
            print_type_or_placeholder(p, result_ty);
        }
        Family::Cast(_) => {
            print_type_or_placeholder(p, operand_ty);
            p.write(" to ");
            print_type_or_placeholder(p, result_ty);
        }
        Family::AddExtended => {
            print_type_or_placeholder(p, result_ty);
            p.write(", ");
            let overflow = ctx.results(op).nth(1).map(|r| ctx.value_type(r));
            print_type_or_placeholder(p, overflow);
        }
        Family::MulExtended => print_type_or_placeholder(p, operand_ty),
        _ => print_type_or_placeholder(p, result_ty),
    }
}

fn print_type_or_placeholder(p: &mut Printer<'_>, ty: Option<Type>) {
    match ty {
        Some(t) => p.print_type(t),
        None => p.write("<<missing type>>"),
    }
}

/// Prints ` overflow<...>` / ` fastmath<...>` when MLIR would, and notes the attribute as
/// printed. A malformed flag attribute is left for the attribute dictionary.
fn print_flags(p: &mut Printer<'_>, op: Op, flags: Flags, elided: &mut Vec<&'static str>) {
    let ctx = p.ctx();
    match flags {
        Flags::None => {}
        Flags::Overflow => {
            let Some(f) = ctx
                .attr(op, OVERFLOW_FLAGS)
                .and_then(|a| overflow_flags_of(ctx, a))
            else {
                return;
            };
            elided.push(OVERFLOW_FLAGS);
            if !f.is_empty() {
                p.write(" overflow<");
                p.write(&f.keyword_list());
                p.write(">");
            }
        }
        Flags::FastMath | Flags::OptionalFastMath => {
            let Some(f) = ctx
                .attr(op, FASTMATH)
                .and_then(|a| fastmath_flags_of(ctx, a))
            else {
                return;
            };
            elided.push(FASTMATH);
            if !f.is_empty() || flags == Flags::OptionalFastMath {
                p.write(" fastmath<");
                p.write(&f.keyword_list());
                p.write(">");
            }
        }
    }
}
