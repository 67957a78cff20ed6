//! Declarative assembly formats: an op's custom syntax written as one string in its definition
//! (`format = "$input `,` $factor attr-dict `:` type($input)"` in
//! [`define_op!`](crate::define_op)), from which one parser and one printer serve every op that
//! has one. This is MLIR's ODS `assemblyFormat`, interpreted at run time instead of generated.
//!
//! # The format language
//! A format is a sequence of elements separated by white space:
//! - `$name`: an operand or an inherent attribute, by the name the op's definition gives it. An
//!   attribute declared with a Rust type (`attributes = [factor: f64]`) is written as that
//!   value ([`AttrValue`]: `0.5`, `3`, `true`, `"add"`, `[1, 2]`, a type); an untyped one in
//!   the generic attribute syntax (`3 : i64`);
//! - `type($name)`: the type of an operand or a result;
//! - `attr-dict`: the op's other attributes, as `{...}` when there are any (every format has
//!   one, as in MLIR);
//! - `` `lit` ``: a punctuation token (`,` `:` `(` `)` `[` `]` `<` `>` `=` `->`) or a keyword.
//!
//! Every operand appears once, and every operand and result gets its type: from its
//! `type(...)` element, from the definition's `fixed_types` (an `index` result, an `i1`
//! condition: MLIR's buildable types) or, in an op with `SAME_OPERANDS_AND_RESULT_TYPE`, from
//! the one `type(...)` element of any of them. An attribute appears at most once; those the
//! format does not name go in `attr-dict`, as in MLIR. A format that breaks these rules is a
//! bug in the op's definition: [`AsmFormat::new`] says which rule, and `define_op!` panics with
//! that message when the definition is built (every dialect's registration in its tests
//! builds them).
//!
//! # Printing
//! Elements are separated by one space, except before `,` `)` `]` `>` and after `(` `[` `<`;
//! an empty `attr-dict` prints nothing. An op whose format attributes are missing or of
//! another kind than declared (invalid IR printed for a diagnostic) prints in the generic form,
//! as one that does not match its operand or result counts does.

use crate::attributes::{AttrValue, Attribute};
use crate::diagnostics::Diagnostic;
use crate::dialect::{Arity, OpDef, Traits};
use crate::ir::{Op, OpSpec};
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser, UnresolvedOperand};
use crate::printer::Printer;
use crate::types::Type;
use crate::Context;

/// How an attribute declared with a Rust type is written in a format: that type's
/// [`AttrValue`] syntax.
#[derive(Copy, Clone)]
pub struct AttrSyntax {
    /// Parses the value (the current token starts it).
    pub(crate) parse: fn(&mut Parser<'_>) -> PResult<Attribute>,
    /// Prints the value of an attribute that [`AttrSyntax::accepts`].
    pub(crate) print: fn(&mut Printer<'_>, Attribute),
    /// True when the attribute is the one its printed value parses back as.
    pub(crate) accepts: fn(&Context, Attribute) -> bool,
    /// What the attribute must be, for the verifier's message.
    pub(crate) description: &'static str,
}

impl AttrSyntax {
    /// The syntax of attributes holding a `T`.
    pub const fn of<T: AttrValue>() -> AttrSyntax {
        AttrSyntax {
            parse: T::parse_value,
            print: T::print_value,
            accepts: T::is_written_form,
            description: T::DESCRIPTION,
        }
    }
}

/// One element of a format.
#[derive(Clone, Debug, PartialEq)]
enum Element {
    /// The operand at this position of the definition's operand names.
    Operand(usize),
    /// The inherent attribute at this position of the definition's attribute names.
    Attr(usize),
    /// The type of the operand at this position.
    OperandType(usize),
    /// The type of the result at this position.
    ResultType(usize),
    /// `attr-dict`.
    AttrDict,
    /// A punctuation token and its text.
    Punct(Tok, &'static str),
    /// A bare word.
    Keyword(&'static str),
}

/// A parsed format, checked against the op's definition.
#[derive(Clone)]
pub struct AsmFormat {
    elements: Vec<Element>,
    /// The op's inherent attributes and, for each, its typed syntax if it has a Rust type.
    attrs: &'static [&'static str],
    syntax: &'static [Option<AttrSyntax>],
    /// The attributes the format writes, which `attr-dict` leaves out.
    written: Vec<&'static str>,
    /// Per operand and per result, the type it always has, if the definition fixes one.
    fixed_operands: Vec<Option<Type>>,
    fixed_results: Vec<Option<Type>>,
}

/// Punctuation a format may hold, with its token.
const PUNCTUATION: &[(&str, Tok)] = &[
    (",", Tok::Comma),
    (":", Tok::Colon),
    ("(", Tok::LParen),
    (")", Tok::RParen),
    ("[", Tok::LSquare),
    ("]", Tok::RSquare),
    ("<", Tok::Less),
    (">", Tok::Greater),
    ("=", Tok::Equal),
    ("->", Tok::Arrow),
];

impl AsmFormat {
    /// Parses `text` for the op `def` (its attributes, their typed syntax, its traits and
    /// counts) whose operands and results have these names, and these of them the type
    /// `fixed`; the error names the rule the format breaks.
    pub fn new(
        text: &'static str,
        def: &OpDef,
        operands: &[&str],
        results: &[&str],
        fixed: &[(&str, Type)],
    ) -> Result<AsmFormat, String> {
        let (attrs, syntax, traits) = (def.inherent_attrs, def.attr_syntax, def.traits);
        let named = |arity: Arity, names: &[&str]| arity == Arity::Exact(names.len() as u32);
        if !named(def.operands, operands) || !named(def.results, results) {
            return Err(
                "a format needs named operands and results (`operands = *` and \
                        `results = *` keep hand-written syntax)"
                    .into(),
            );
        }
        if def.regions != Arity::Exact(0) {
            return Err(
                "a format cannot write regions (ops with regions keep hand-written \
                        syntax)"
                    .into(),
            );
        }
        let mut elements = Vec::new();
        let mut rest = text.trim_start();
        while !rest.is_empty() {
            let (element, tail) = parse_element(rest, operands, results, attrs)?;
            if matches!(
                element,
                Element::Operand(_) | Element::Attr(_) | Element::AttrDict
            ) && elements.contains(&element)
            {
                return Err(format!(
                    "'{}' appears twice",
                    &rest[..rest.len() - tail.len()]
                ));
            }
            elements.push(element);
            rest = tail.trim_start();
        }
        for pair in elements.windows(2) {
            if let [Element::Attr(i), Element::Punct(Tok::Colon, _)] = pair {
                if syntax.get(*i).copied().flatten().is_none() {
                    return Err(format!(
                        "the untyped attribute '{}' before `:` would take the `:` as its type: \
                         declare it with a Rust type",
                        attrs[*i]
                    ));
                }
            }
        }
        let same_type = traits.contains(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
        for (name, _) in fixed {
            if !operands.contains(name) && !results.contains(name) {
                return Err(format!(
                    "fixed type of '{name}', which is no operand or result"
                ));
            }
        }
        let fixed_at = |names: &[&str]| -> Vec<Option<Type>> {
            let type_of = |n: &&str| fixed.iter().find(|(f, _)| f == n).map(|(_, t)| *t);
            names.iter().map(type_of).collect()
        };
        let (fixed_operands, fixed_results) = (fixed_at(operands), fixed_at(results));
        let written = (0..attrs.len())
            .filter(|&i| elements.contains(&Element::Attr(i)))
            .map(|i| attrs[i])
            .collect();
        let format = AsmFormat {
            elements,
            attrs,
            syntax,
            written,
            fixed_operands,
            fixed_results,
        };
        if !format.elements.contains(&Element::AttrDict) {
            return Err(
                "'attr-dict' is missing: every format has one, for the attributes it \
                        does not name"
                    .into(),
            );
        }
        for (i, name) in operands.iter().enumerate() {
            if !format.elements.contains(&Element::Operand(i)) {
                return Err(format!("operand '{name}' is not in the format"));
            }
        }
        let typed = |e: &Element| matches!(e, Element::OperandType(_) | Element::ResultType(_));
        let any_type = format.elements.iter().any(typed);
        let typed_operand = |i: usize| {
            format.fixed_operands[i].is_some() || format.elements.contains(&Element::OperandType(i))
        };
        let typed_result = |i: usize| {
            format.fixed_results[i].is_some() || format.elements.contains(&Element::ResultType(i))
        };
        let untyped = (0..operands.len())
            .filter(|&i| !typed_operand(i))
            .map(|i| operands[i])
            .chain(
                (0..results.len())
                    .filter(|&i| !typed_result(i))
                    .map(|i| results[i]),
            )
            .next();
        if let Some(name) = untyped.filter(|_| !(same_type && any_type)) {
            return Err(format!(
                "'{name}' has no type: write type(${name}), or give the op \
                 SAME_OPERANDS_AND_RESULT_TYPE and the type of another"
            ));
        }
        Ok(format)
    }

    /// True when `op`'s format attributes are all present and of their declared kinds, so that
    /// [`AsmFormat::print`] can write it.
    pub fn can_print(&self, ctx: &Context, op: Op) -> bool {
        self.elements.iter().all(|e| match e {
            Element::Attr(i) => match (ctx.attr(op, self.attrs[*i]), self.syntax_of(*i)) {
                (Some(a), Some(syntax)) => (syntax.accepts)(ctx, a),
                (found, _) => found.is_some(),
            },
            _ => true,
        })
    }

    /// Parses the op's custom form after its name into `spec`.
    pub fn parse(&self, p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
        let mut operands: Vec<Option<UnresolvedOperand<'_>>> =
            vec![None; self.fixed_operands.len()];
        let mut operand_types = self.fixed_operands.clone();
        let mut result_types = self.fixed_results.clone();
        for element in &self.elements {
            match element {
                Element::Operand(i) => operands[*i] = Some(p.parse_operand()?),
                Element::Attr(i) => {
                    let name = self.attrs[*i];
                    let value = match self.syntax_of(*i) {
                        Some(syntax) => (syntax.parse)(p)?,
                        None => p.parse_attribute()?,
                    };
                    spec.set_attr(p.ctx(), name, value);
                }
                Element::OperandType(i) => operand_types[*i] = Some(p.parse_type()?),
                Element::ResultType(i) => result_types[*i] = Some(p.parse_type()?),
                Element::AttrDict => {
                    let loc = p.current_loc();
                    let mut dict = Vec::new();
                    p.parse_optional_attr_dict(&mut dict)?;
                    for entry in dict {
                        let name = p.ctx().ident_str(entry.name);
                        if self.written.contains(&name) {
                            return Err(Diagnostic::error(
                                loc,
                                format!(
                                    "'{name}' is written in the op's syntax, not in its \
                                     attribute dictionary"
                                ),
                            ));
                        }
                        let name = name.to_string();
                        spec.set_attr(p.ctx(), &name, entry.value);
                    }
                }
                Element::Punct(tok, text) => {
                    p.expect(*tok, &format!("'{text}'"))?;
                }
                Element::Keyword(word) => {
                    if !p.consume_keyword(word) {
                        return Err(p.error(format!("expected '{word}'")));
                    }
                }
            }
        }
        // The format's checks guarantee a type for each; `same` is the one written.
        let same = operand_types
            .iter()
            .chain(&result_types)
            .flatten()
            .next()
            .copied();
        let fill = |t: Option<Type>| t.or(same).unwrap_or(Type::NONE);
        for (operand, ty) in operands.iter().zip(operand_types) {
            if let Some(operand) = operand {
                spec.operands.push(p.resolve_operand(operand, fill(ty))?);
            }
        }
        spec.result_types.extend(result_types.into_iter().map(fill));
        Ok(())
    }

    /// Prints `op`'s custom form after its name; [`AsmFormat::can_print`] holds.
    pub fn print(&self, p: &mut Printer<'_>, op: Op) {
        let ctx = p.ctx();
        let mut glue = false;
        for element in &self.elements {
            let space = !glue && !matches!(element, Element::Punct(_, "," | ")" | "]" | ">"));
            glue = matches!(element, Element::Punct(_, "(" | "[" | "<"));
            if space && *element != Element::AttrDict {
                p.write(" ");
            }
            match element {
                Element::Operand(i) => p.print_operand(ctx.operand(op, *i)),
                Element::Attr(i) => {
                    let Some(attr) = ctx.attr(op, self.attrs[*i]) else {
                        continue;
                    };
                    match self.syntax_of(*i) {
                        Some(syntax) => (syntax.print)(p, attr),
                        None => p.print_attr(attr),
                    }
                }
                Element::OperandType(i) => p.print_type(ctx.value_type(ctx.operand(op, *i))),
                Element::ResultType(i) => p.print_type(ctx.value_type(ctx.result(op, *i))),
                Element::AttrDict => p.print_optional_attr_dict(op, &self.written),
                Element::Punct(_, text) | Element::Keyword(text) => p.write(text),
            }
        }
    }

    fn syntax_of(&self, attr: usize) -> Option<AttrSyntax> {
        self.syntax.get(attr).copied().flatten()
    }
}

/// Parses the element at the start of `text`; returns it and the text after it.
fn parse_element(
    text: &'static str,
    operands: &[&str],
    results: &[&str],
    attrs: &[&str],
) -> Result<(Element, &'static str), String> {
    let name_end = |s: &str| {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    if let Some(rest) = text.strip_prefix('$') {
        let end = name_end(rest);
        let name = &rest[..end];
        if let Some(i) = operands.iter().position(|n| *n == name) {
            return Ok((Element::Operand(i), &rest[end..]));
        }
        if let Some(i) = attrs.iter().position(|n| *n == name) {
            return Ok((Element::Attr(i), &rest[end..]));
        }
        return Err(format!(
            "'${name}' is neither an operand nor an attribute of the op"
        ));
    }
    if let Some(rest) = text.strip_prefix("type($") {
        let end = name_end(rest);
        let (name, tail) = (&rest[..end], &rest[end..]);
        let tail = tail
            .strip_prefix(')')
            .ok_or_else(|| format!("'type(${name}' needs its ')'"))?;
        if let Some(i) = operands.iter().position(|n| *n == name) {
            return Ok((Element::OperandType(i), tail));
        }
        if let Some(i) = results.iter().position(|n| *n == name) {
            return Ok((Element::ResultType(i), tail));
        }
        return Err(format!(
            "'type(${name})' names no operand or result of the op"
        ));
    }
    if let Some(rest) = text.strip_prefix("attr-dict") {
        return Ok((Element::AttrDict, rest));
    }
    if let Some(rest) = text.strip_prefix('`') {
        let end = rest
            .find('`')
            .ok_or_else(|| format!("unterminated literal '`{rest}'"))?;
        let (literal, tail) = (&rest[..end], &rest[end + 1..]);
        if let Some(&(text, tok)) = PUNCTUATION.iter().find(|(p, _)| *p == literal) {
            return Ok((Element::Punct(tok, text), tail));
        }
        let keyword = !literal.is_empty()
            && literal.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name_end(literal) == literal.len();
        if keyword {
            return Ok((Element::Keyword(literal), tail));
        }
        return Err(format!(
            "'`{literal}`' is neither punctuation nor a keyword"
        ));
    }
    let word = &text[..text.find(char::is_whitespace).unwrap_or(text.len())];
    Err(format!("unknown format element '{word}'"))
}
