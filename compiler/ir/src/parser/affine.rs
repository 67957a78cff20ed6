//! Parsing `affine_map<...>` and `affine_set<...>` attributes.
//!
//! Dimensions and symbols may have any bare names (`(i, j)[n] -> (j, i + n)`); they are
//! numbered by position, so the map prints with `d0`, `s0`. Products must have a symbolic or
//! constant side and divisors must be symbolic or constant, as in MLIR.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::affine::{AffineExpr, AffineMap, AffineOp, IntegerSet};
use crate::attributes::{AttrKind, Attribute};
use crate::diagnostics::Diagnostic;

/// The names of a map's dimensions and symbols, in order.
struct Scope<'a> {
    dims: Vec<&'a str>,
    symbols: Vec<&'a str>,
}

impl<'a> Parser<'a> {
    /// Parses `affine_map<(dims)[symbols] -> (results)>`; the current token is `affine_map`.
    pub(crate) fn parse_affine_map_attr(&mut self) -> PResult<Attribute> {
        self.advance();
        self.expect(Tok::Less, "'<' after 'affine_map'")?;
        let scope = self.parse_affine_scope()?;
        self.expect(Tok::Arrow, "'->' in affine map")?;
        let mut results = Vec::new();
        self.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            results.push(p.parse_affine_expr(&scope)?);
            Ok(())
        })?;
        self.expect(Tok::Greater, "'>' to end affine map")?;
        Ok(self.ctx.intern_attr(AttrKind::AffineMap(AffineMap {
            dims: scope.dims.len() as u32,
            symbols: scope.symbols.len() as u32,
            results: results.into(),
        })))
    }

    /// Parses `affine_set<(dims)[symbols] : (constraints)>`, each constraint `e >= e`,
    /// `e <= e` or `e == e`; the current token is `affine_set`.
    pub(crate) fn parse_affine_set_attr(&mut self) -> PResult<Attribute> {
        self.advance();
        self.expect(Tok::Less, "'<' after 'affine_set'")?;
        let scope = self.parse_affine_scope()?;
        self.expect(Tok::Colon, "':' in integer set")?;
        let mut constraints = Vec::new();
        self.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            let lhs = p.parse_affine_expr(&scope)?;
            let (less, eq) = match p.peek() {
                Tok::Greater => (false, false),
                Tok::Less => (true, false),
                Tok::Equal => (false, true),
                _ => {
                    return Err(p.error(
                        "expected '== affine-expr' or '>= affine-expr' or '<= affine-expr'",
                    ))
                }
            };
            p.advance();
            p.expect(Tok::Equal, "'=' in affine constraint")?;
            let rhs = p.parse_affine_expr(&scope)?;
            // Every constraint is kept as `e >= 0` or `e == 0`.
            let e = if less {
                AffineExpr::sum(rhs, AffineExpr::negated(lhs))
            } else {
                AffineExpr::sum(lhs, AffineExpr::negated(rhs))
            };
            constraints.push((e, eq));
            Ok(())
        })?;
        self.expect(Tok::Greater, "'>' to end integer set")?;
        Ok(self.ctx.intern_attr(AttrKind::IntegerSet(IntegerSet {
            dims: scope.dims.len() as u32,
            symbols: scope.symbols.len() as u32,
            constraints: constraints.into(),
        })))
    }

    /// Parses `(d0, d1)` and an optional `[s0]`.
    fn parse_affine_scope(&mut self) -> PResult<Scope<'a>> {
        let mut scope = Scope {
            dims: Vec::new(),
            symbols: Vec::new(),
        };
        let mut names = Vec::new();
        self.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            names.push(p.parse_affine_name()?);
            Ok(())
        })?;
        scope.dims = names;
        if self.peek() == Tok::LSquare {
            let mut names = Vec::new();
            self.parse_delimited(Tok::LSquare, Tok::RSquare, "]", |p| {
                names.push(p.parse_affine_name()?);
                Ok(())
            })?;
            scope.symbols = names;
        }
        Ok(scope)
    }

    fn parse_affine_name(&mut self) -> PResult<&'a str> {
        if self.peek() != Tok::BareIdent {
            return Err(self.wrong_token_error("expected bare identifier"));
        }
        let t = self.advance();
        Ok(self.lex.text(t.start, t.end))
    }

    /// Parses `term (('+' | '-') term)*`.
    fn parse_affine_expr(&mut self, scope: &Scope) -> PResult<AffineExpr> {
        self.nested(|p| {
            let mut e = p.parse_affine_term(scope)?;
            loop {
                let negate = match p.peek() {
                    Tok::Plus => false,
                    Tok::Minus => true,
                    _ => return Ok(e),
                };
                p.advance();
                let rhs = p.parse_affine_term(scope)?;
                let rhs = if negate {
                    AffineExpr::negated(rhs)
                } else {
                    rhs
                };
                e = AffineExpr::sum(e, rhs);
            }
        })
    }

    /// Parses `unary (('*' | 'floordiv' | 'ceildiv' | 'mod') unary)*`.
    fn parse_affine_term(&mut self, scope: &Scope) -> PResult<AffineExpr> {
        let mut e = self.parse_affine_unary(scope)?;
        loop {
            let op = match (self.peek(), self.peek_text()) {
                (Tok::Star, _) => AffineOp::Mul,
                (Tok::BareIdent, "floordiv") => AffineOp::FloorDiv,
                (Tok::BareIdent, "ceildiv") => AffineOp::CeilDiv,
                (Tok::BareIdent, "mod") => AffineOp::Mod,
                _ => return Ok(e),
            };
            let loc = self.current_loc();
            self.advance();
            let rhs = self.parse_affine_unary(scope)?;
            e = if op == AffineOp::Mul {
                if !e.is_symbolic_or_constant() && !rhs.is_symbolic_or_constant() {
                    return Err(Diagnostic::error(loc, "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic"));
                }
                AffineExpr::product(e, rhs)
            } else {
                if !rhs.is_symbolic_or_constant() {
                    let name = match op {
                        AffineOp::FloorDiv => "floordiv",
                        AffineOp::CeilDiv => "ceildiv",
                        _ => "mod",
                    };
                    return Err(Diagnostic::error(
                        loc,
                        format!("non-affine expression: right operand of {name} has to be either a constant or symbolic"),
                    ));
                }
                AffineExpr::div(op, e, rhs)
            };
        }
    }

    /// Parses `'-' unary`, a name, an integer or a parenthesized expression.
    fn parse_affine_unary(&mut self, scope: &Scope) -> PResult<AffineExpr> {
        let loc = self.current_loc();
        match self.peek() {
            Tok::Minus => {
                self.advance();
                let e = self.nested(|p| p.parse_affine_unary(scope))?;
                Ok(AffineExpr::negated(e))
            }
            Tok::LParen => {
                self.advance();
                let e = self.parse_affine_expr(scope)?;
                self.expect(Tok::RParen, "')'")?;
                Ok(e)
            }
            Tok::Integer => {
                let t = self.advance();
                let v = self
                    .lex
                    .text(t.start, t.end)
                    .parse::<i64>()
                    .map_err(|_| Diagnostic::error(loc, "constant too large for index"))?;
                Ok(AffineExpr::Constant(v))
            }
            Tok::BareIdent => {
                let name = self.peek_text();
                let found = if let Some(i) = scope.dims.iter().position(|d| *d == name) {
                    AffineExpr::Dim(i as u32)
                } else if let Some(i) = scope.symbols.iter().position(|s| *s == name) {
                    AffineExpr::Symbol(i as u32)
                } else {
                    return Err(Diagnostic::error(loc, "use of undeclared identifier"));
                };
                self.advance();
                Ok(found)
            }
            _ => Err(self.wrong_token_error("expected affine expression")),
        }
    }
}
