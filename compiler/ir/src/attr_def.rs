//! Dialect attributes defined declaratively: [`define_attr!`](crate::define_attr) turns a Rust
//! struct of typed parameters into a dialect attribute such as `#act.range<0.0, 6.0>`, with its
//! parser, printer and conversions — MLIR's `AttrDef` with the assembly format
//! `` `<` $low `,` $high `>` ``.
//!
//! The attribute is stored as an [`AttrKind::Dialect`]: the dialect, the mnemonic and one
//! attribute per parameter in its [`AttrValue`](crate::AttrValue) form, so it is uniqued and compared like every
//! attribute. A dialect lists its attributes' [`AttrDef`]s in
//! [`Dialect::attrs`](crate::Dialect::attrs); the parser and the printer then read and write
//! `#dialect.mnemonic<p0, p1>` in the generic syntax, and an op's declarative format writes the
//! attribute without its dialect, `mnemonic<p0, p1>`, as MLIR's formats do (the parser there
//! accepts both). A definition without parameters is written as its mnemonic alone.

use crate::attributes::{AttrKind, Attribute};
use crate::format::AttrSyntax;
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::Context;

/// One attribute of a dialect: its name and the syntax of each parameter.
#[derive(Copy, Clone)]
pub struct AttrDef {
    /// `dialect.mnemonic`.
    pub name: &'static str,
    /// How each parameter is written, in order.
    pub params: &'static [AttrSyntax],
}

impl AttrDef {
    /// The dialect's name.
    pub fn dialect(&self) -> &'static str {
        self.name.split_once('.').map_or("", |(d, _)| d)
    }

    /// The name after the dialect's.
    pub fn mnemonic(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(_, m)| m)
    }

    /// The attribute with these parameters (one per [`AttrDef::params`], each in its
    /// [`AttrValue`](crate::AttrValue) form).
    pub fn build(&self, ctx: &mut Context, params: Vec<Attribute>) -> Attribute {
        let (dialect, mnemonic) = (ctx.ident(self.dialect()), ctx.ident(self.mnemonic()));
        ctx.intern_attr(AttrKind::Dialect {
            dialect,
            mnemonic,
            params: params.into(),
        })
    }

    /// The parameters of `attr`, when it is this attribute with as many parameters as the
    /// definition has.
    pub fn params_of<'c>(&self, ctx: &'c Context, attr: Attribute) -> Option<&'c [Attribute]> {
        match ctx.attr_kind(attr) {
            AttrKind::Dialect {
                dialect,
                mnemonic,
                params,
            } if ctx.ident_str(*dialect) == self.dialect()
                && ctx.ident_str(*mnemonic) == self.mnemonic()
                && params.len() == self.params.len() =>
            {
                Some(params)
            }
            _ => None,
        }
    }

    /// True when `attr` is this attribute and each parameter is in the form its syntax writes,
    /// so that printing and parsing it back gives the same attribute.
    pub fn is_written_form(&self, ctx: &Context, attr: Attribute) -> bool {
        self.params_of(ctx, attr).is_some_and(|params| {
            (params.iter().zip(self.params)).all(|(&a, syntax)| (syntax.accepts)(ctx, a))
        })
    }

    /// Parses the attribute in an op's format: `mnemonic<p0, p1>`, or the generic
    /// `#dialect.mnemonic<p0, p1>`.
    pub fn parse_value(&self, p: &mut Parser<'_>) -> PResult<Attribute> {
        if p.peek() == Tok::HashIdent {
            // Read here rather than by the generic attribute parser, which would take a
            // `: type` after it (the op's own, in a format).
            if p.peek_text().strip_prefix('#') != Some(self.name) {
                return Err(p.error(format!("expected a #{} attribute", self.name)));
            }
            p.expect(Tok::HashIdent, self.name)?;
            return self.parse_params(p);
        }
        if !p.consume_keyword(self.mnemonic()) {
            return Err(p.wrong_token_error(format!("expected '{}'", self.mnemonic())));
        }
        self.parse_params(p)
    }

    /// Parses what follows the mnemonic, `<p0, p1>`, and builds the attribute.
    pub(crate) fn parse_params(&self, p: &mut Parser<'_>) -> PResult<Attribute> {
        let mut params = Vec::with_capacity(self.params.len());
        if let Some((first, rest)) = self.params.split_first() {
            p.expect(Tok::Less, "'<'")?;
            params.push((first.parse)(p)?);
            for syntax in rest {
                p.expect(Tok::Comma, "','")?;
                params.push((syntax.parse)(p)?);
            }
            p.expect(Tok::Greater, "'>'")?;
        }
        Ok(self.build(p.ctx(), params))
    }

    /// Prints the attribute as an op's format writes it, `mnemonic<p0, p1>`.
    pub fn print_value(&self, p: &mut Printer<'_>, attr: Attribute) {
        p.write(self.mnemonic());
        self.print_params(p, attr);
    }

    /// Prints what follows the mnemonic, `<p0, p1>`.
    pub(crate) fn print_params(&self, p: &mut Printer<'_>, attr: Attribute) {
        let Some(params) = self.params_of(p.ctx(), attr) else {
            return;
        };
        for (i, (&param, syntax)) in params.iter().zip(self.params).enumerate() {
            p.write(if i == 0 { "<" } else { ", " });
            (syntax.print)(p, param);
        }
        if !params.is_empty() {
            p.write(">");
        }
    }
}

/// Defines a dialect attribute from a struct of typed parameters (each an
/// [`AttrValue`](crate::AttrValue)):
///
/// ```
/// use dlc_ir::{define_attr, AttrValue, Context};
/// define_attr! {
///     /// The closed interval `[low, high]`.
///     pub struct Range = "demo.range";
///     params = [low: f64, high: f64];
/// }
/// let mut ctx = Context::new();
/// let attr = Range { low: 0.0, high: 6.0 }.to_attr(&mut ctx);
/// assert_eq!(Range::from_attr(&ctx, attr), Some(Range { low: 0.0, high: 6.0 }));
/// ```
///
/// The struct gets `Range::new(low, high)`, `Range::DEF`, the [`AttrDef`] its dialect lists in
/// [`Dialect::attrs`](crate::Dialect::attrs), and implements [`AttrValue`](crate::AttrValue), so an op declares
/// `attributes = [range: Range]` and reads `op.range(ctx) -> Option<Range>`.
#[macro_export]
macro_rules! define_attr {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident = $attrname:literal;
        params = [$($param:ident : $pty:ty),* $(,)?];
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, PartialEq, Debug)]
        $vis struct $name {
            $(
                #[allow(missing_docs)]
                pub $param: $pty,
            )*
        }

        impl $name {
            /// The value with these parameters.
            #[allow(clippy::new_without_default)]
            pub const fn new($($param: $pty),*) -> Self {
                $name { $($param),* }
            }

            /// The attribute's definition, for its dialect's `attrs`.
            pub const DEF: $crate::attr_def::AttrDef = $crate::attr_def::AttrDef {
                name: $attrname,
                params: &[$($crate::format::AttrSyntax::of::<$pty>()),*],
            };
        }

        impl $crate::AttrValue for $name {
            const DESCRIPTION: &'static str = concat!("a #", $attrname);
            fn from_attr(ctx: &$crate::Context, attr: $crate::Attribute) -> Option<Self> {
                #[allow(unused_mut, unused_variables)]
                let mut params = Self::DEF.params_of(ctx, attr)?.iter().copied();
                Some($name {
                    $($param: <$pty as $crate::AttrValue>::from_attr(ctx, params.next()?)?,)*
                })
            }
            fn to_attr(&self, ctx: &mut $crate::Context) -> $crate::Attribute {
                let params = vec![$(<$pty as $crate::AttrValue>::to_attr(&self.$param, ctx)),*];
                Self::DEF.build(ctx, params)
            }
            fn parse_value(p: &mut $crate::Parser<'_>) -> $crate::PResult<$crate::Attribute> {
                Self::DEF.parse_value(p)
            }
            fn print_value(p: &mut $crate::Printer<'_>, attr: $crate::Attribute) {
                Self::DEF.print_value(p, attr)
            }
            fn is_written_form(ctx: &$crate::Context, attr: $crate::Attribute) -> bool {
                Self::DEF.is_written_form(ctx, attr)
            }
        }
    };
}
