//! The parser: MLIR's generic op syntax plus each registered op's custom syntax.
//!
//! It is hand-written, recursive-descent, with one token of lookahead and no backtracking. SSA
//! names resolve through a stack of region scopes; a use before its definition (legal across
//! blocks and in graph regions) creates a placeholder that the definition replaces. The first
//! error ends the parse and comes back as a [`Diagnostic`] at the offending token, or, when a
//! different token was expected, just after the text before it (where mlir-opt reports it).
//!
//! Dialects parse their custom syntax through the `pub` methods here (`parse_operand`,
//! `parse_type`, `parse_region`, ...), the way MLIR dialects use `OpAsmParser`.

mod affine;
mod attrs;
pub mod lexer;
mod names;
mod resources;
mod types;

use crate::attributes::NamedAttr;
use crate::diagnostics::Diagnostic;
use crate::dialect::{OpDefId, Traits};
use crate::intern::Ident;
use crate::ir::{Block, InsertPoint, Op, OpSpec, Region, Value};
use crate::location::Location;
use crate::types::Type;
use crate::Context;
use lexer::{Lexer, Tok, Token};
use rustc_hash::FxHashMap;

/// How deeply regions, attributes, types and locations may nest in parsed text.
pub const MAX_NESTING: u32 = 200;

/// The result of a parse step: the value, or the first error.
pub type PResult<T> = Result<T, Diagnostic>;

/// An operand as written (`%x`, `%r#1`), before its type is known.
#[derive(Copy, Clone, Debug)]
pub struct UnresolvedOperand<'a> {
    pub name: &'a str,
    pub number: u32,
    pub loc: Location,
}

/// A block argument as written in a custom signature (`%arg0: i32`).
#[derive(Copy, Clone, Debug)]
pub struct Argument<'a> {
    pub name: &'a str,
    pub ty: Type,
    pub loc: Location,
}

struct BlockLabel {
    block: Block,
    defined: bool,
    first_use: Location,
}

/// Names visible in one region.
struct Scope<'a> {
    isolated: bool,
    /// Name → (first value, number of results bound to it, where the name was defined).
    values: names::NameTable<'a, (Value, u32, Location)>,
    forward: FxHashMap<(&'a str, u32), (Value, Location)>,
    blocks: FxHashMap<&'a str, BlockLabel>,
}

impl<'a> Scope<'a> {
    fn new(isolated: bool) -> Self {
        Scope {
            isolated,
            values: names::NameTable::new(),
            forward: FxHashMap::default(),
            blocks: FxHashMap::default(),
        }
    }
}

/// Parses one source buffer into a context.
pub struct Parser<'a> {
    ctx: &'a mut Context,
    lex: Lexer<'a>,
    tok: Token,
    file: Ident,
    scopes: Vec<Scope<'a>>,
    type_aliases: FxHashMap<&'a str, Type>,
    attr_aliases: FxHashMap<&'a str, crate::Attribute>,
    loc_aliases: FxHashMap<&'a str, Location>,
    /// Ops whose `loc(#alias)` named an alias defined later in the file.
    pending_locs: Vec<(Op, &'a str, Location)>,
    /// Dialect whose prefix may be omitted inside the op being parsed (`return` in `func.func`).
    default_dialects: Vec<&'static str>,
    /// A `loc(#alias)` just parsed whose alias is not defined yet.
    pending_alias: Option<(&'a str, Location)>,
    /// Full custom op names already resolved to their definitions.
    custom_op_cache: names::NameTable<'a, Option<OpDefId>>,
    /// Registered dialect types already parsed, by their spelling (`!loop.buffer<...>`).
    dialect_types: FxHashMap<&'a str, Type>,
    /// How deeply regions, attributes, types and locations are nested at this point.
    depth: u32,
}

/// Parses `src` (named `file`, starting at line `first_line`) and returns the top-level
/// `builtin.module`: the file's single module, or a new one wrapping its top-level ops.
pub fn parse_source(ctx: &mut Context, src: &str, file: &str, first_line: u32) -> PResult<Op> {
    let mut p = Parser::new(ctx, src, file, first_line);
    p.parse_top_level()
}

impl<'a> Parser<'a> {
    fn new(ctx: &'a mut Context, src: &'a str, file: &str, first_line: u32) -> Self {
        let file = ctx.ident(file);
        // About one op per 40 bytes of MLIR text; reserving up front avoids copying the arenas.
        ctx.reserve(src.len() / 40);
        let mut lex = Lexer::new(src, first_line);
        let tok = lex.next_token();
        Parser {
            ctx,
            lex,
            tok,
            file,
            scopes: Vec::new(),
            type_aliases: FxHashMap::default(),
            attr_aliases: FxHashMap::default(),
            loc_aliases: FxHashMap::default(),
            pending_locs: Vec::new(),
            default_dialects: Vec::new(),
            pending_alias: None,
            custom_op_cache: names::NameTable::new(),
            dialect_types: FxHashMap::default(),
            depth: 0,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Tokens.

    /// Runs `f` one nesting level deeper, refusing input nested beyond [`MAX_NESTING`] levels
    /// so that deeply nested text is an error, not a stack overflow.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return Err(self.error(format!("nesting is deeper than {MAX_NESTING} levels")));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// The context being parsed into.
    pub fn ctx(&mut self) -> &mut Context {
        self.ctx
    }

    /// The kind of the current token.
    pub fn peek(&self) -> Tok {
        self.tok.kind
    }

    /// The text of the current token.
    pub fn peek_text(&self) -> &'a str {
        self.lex.text(self.tok.start, self.tok.end)
    }

    fn advance(&mut self) -> Token {
        let t = self.tok;
        self.tok = self.lex.next_token();
        t
    }

    /// The location of the current token.
    pub fn current_loc(&self) -> Location {
        self.loc_of(&self.tok)
    }

    fn loc_of(&self, t: &Token) -> Location {
        Location::FileLineCol {
            file: self.file,
            line: t.line,
            col: t.col,
        }
    }

    /// An error at the current token.
    pub fn error(&self, message: impl Into<String>) -> Diagnostic {
        if self.tok.kind == Tok::Error {
            return Diagnostic::error(self.current_loc(), self.lex.error);
        }
        Diagnostic::error(self.current_loc(), message)
    }

    /// An error about an unexpected current token ("expected ..."), reported as MLIR does: just
    /// after the text before the token, so that a missing `:` at the end of a line is reported
    /// on that line, not on the next one.
    pub fn wrong_token_error(&self, message: impl Into<String>) -> Diagnostic {
        if self.tok.kind == Tok::Error {
            return Diagnostic::error(self.current_loc(), self.lex.error);
        }
        let (line, col) = self
            .lex
            .wrong_token_point(self.tok.start, self.tok.kind == Tok::Eof);
        let loc = Location::FileLineCol {
            file: self.file,
            line,
            col,
        };
        Diagnostic::error(loc, message)
    }

    /// Consumes the current token if it is `kind`.
    pub fn consume(&mut self, kind: Tok) -> bool {
        if self.tok.kind == kind {
            self.advance();
            true
        } else {
            false
        }
    }

    /// Consumes a token of `kind` or fails with "expected {what}".
    pub fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.tok.kind == kind {
            Ok(self.advance())
        } else {
            Err(self.wrong_token_error(format!("expected {what}")))
        }
    }

    /// Consumes the bare word `kw` if it is next.
    pub fn consume_keyword(&mut self, kw: &str) -> bool {
        if self.tok.kind == Tok::BareIdent && self.peek_text() == kw {
            self.advance();
            true
        } else {
            false
        }
    }

    /// Parses any bare word.
    pub fn parse_keyword(&mut self, what: &str) -> PResult<&'a str> {
        if self.tok.kind != Tok::BareIdent {
            return Err(self.wrong_token_error(format!("expected {what}")));
        }
        let t = self.advance();
        Ok(self.lex.text(t.start, t.end))
    }

    /// Parses `elem (',' elem)*` up to (not including) a closing token.
    pub fn parse_comma_separated(
        &mut self,
        mut elem: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        elem(self)?;
        while self.consume(Tok::Comma) {
            elem(self)?;
        }
        Ok(())
    }

    /// Parses `open (elem (',' elem)*)? close`.
    pub fn parse_delimited(
        &mut self,
        open: Tok,
        close: Tok,
        close_text: &str,
        elem: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        self.expect(open, "delimiter")?;
        if self.consume(close) {
            return Ok(());
        }
        self.parse_comma_separated(elem)?;
        self.expect(close, &format!("'{close_text}'"))?;
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Top level.

    fn parse_top_level(&mut self) -> PResult<Op> {
        let (region, block) = self.ctx.create_region_with_block(&[]);
        self.scopes.push(Scope::new(true));
        let start_loc = self.current_loc();
        loop {
            match self.tok.kind {
                Tok::Eof => break,
                Tok::HashIdent | Tok::ExclaimIdent => self.parse_alias_definition()?,
                Tok::FileMetadataBegin => self.parse_file_metadata()?,
                _ => {
                    self.parse_operation(block)?;
                }
            }
        }
        self.close_scope()?;
        for (op, alias, use_loc) in std::mem::take(&mut self.pending_locs) {
            let loc = *self.loc_aliases.get(alias).ok_or_else(|| {
                Diagnostic::error(
                    use_loc,
                    format!("undefined symbol alias id '{}'", &alias[1..]),
                )
            })?;
            self.ctx.set_op_loc(op, loc);
        }
        // A file holding exactly one module is that module; anything else gets an implicit one.
        let ops: Vec<Op> = self.ctx.block_ops(block).collect();
        if let [single] = ops[..] {
            if self.ctx.op_name(single) == "builtin.module" {
                self.ctx.detach_op(single);
                return Ok(single);
            }
        }
        let loc = ops.first().map_or(start_loc, |o| self.ctx.op_loc(*o));
        let spec = OpSpec::new(self.ctx, "builtin.module", loc).region(region);
        Ok(self.ctx.create_op(spec))
    }

    fn parse_alias_definition(&mut self) -> PResult<()> {
        let is_type = self.tok.kind == Tok::ExclaimIdent;
        let name_tok = self.advance();
        let name = self.lex.text(name_tok.start, name_tok.end);
        let kind = if is_type { "type" } else { "attribute" };
        if name[1..].contains('.') {
            return Err(Diagnostic::error(
                self.loc_of(&name_tok),
                format!("{kind} names with a '.' are reserved for dialect-defined names"),
            ));
        }
        self.expect(Tok::Equal, &format!("'=' in {kind} alias definition"))?;
        let redefined = if is_type {
            let ty = self.parse_type()?;
            self.type_aliases.insert(name, ty).is_some()
        } else if self.tok.kind == Tok::BareIdent && self.peek_text() == "loc" {
            let loc = self.parse_loc_body()?;
            if let Some((alias, use_loc)) = self.pending_alias.take() {
                return Err(Diagnostic::error(
                    use_loc,
                    format!("undefined symbol alias id '{}'", &alias[1..]),
                ));
            }
            self.loc_aliases.insert(name, loc).is_some()
        } else {
            let attr = self.parse_attribute()?;
            self.attr_aliases.insert(name, attr).is_some()
        };
        if redefined {
            return Err(Diagnostic::error(
                self.loc_of(&name_tok),
                format!("redefinition of {kind} alias id '{}'", &name[1..]),
            ));
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------------
    // Operations.

    /// Parses one op (with its result names) and appends it to `block`.
    fn parse_operation(&mut self, block: Block) -> PResult<Op> {
        let start = self.tok;
        let mut result_names: smallvec::SmallVec<[(&'a str, u32, Location); 1]> =
            smallvec::SmallVec::new();
        if self.tok.kind == Tok::PercentIdent {
            self.parse_comma_separated(|p| {
                let t = p.expect(Tok::PercentIdent, "valid ssa identifier")?;
                let mut count = 1;
                if p.consume(Tok::Colon) {
                    let n = p.expect(Tok::Integer, "integer number of results")?;
                    count = p
                        .lex
                        .text(n.start, n.end)
                        .parse::<u32>()
                        .ok()
                        .filter(|c| *c > 0)
                        .ok_or_else(|| {
                            Diagnostic::error(
                                p.loc_of(&n),
                                "expected named operation to have at least 1 result",
                            )
                        })?;
                }
                result_names.push((p.lex.text(t.start, t.end), count, p.loc_of(&t)));
                Ok(())
            })?;
            self.expect(Tok::Equal, "'=' after SSA name")?;
        }
        let op_loc = self.current_loc();
        let op = match self.tok.kind {
            Tok::String => self.parse_generic_op(op_loc)?,
            // An integer type (`i32`) is a type token to MLIR's lexer, never an op name.
            Tok::BareIdent if !is_integer_type_word(self.peek_text()) => {
                self.parse_custom_op(op_loc)?
            }
            _ => return Err(self.wrong_token_error("expected operation name in quotes")),
        };
        self.ctx.insert_op(InsertPoint::End(block), op);
        let declared: u32 = result_names.iter().map(|r| r.1).sum();
        let actual = self.ctx.num_results(op) as u32;
        if !result_names.is_empty() && actual == 0 {
            return Err(Diagnostic::error(
                self.loc_of(&start),
                "cannot name an operation with no results",
            ));
        }
        if !result_names.is_empty() && declared != actual {
            return Err(Diagnostic::error(
                self.loc_of(&start),
                format!("operation defines {actual} results but was provided {declared} to bind"),
            ));
        }
        let mut next = 0usize;
        for (name, count, loc) in result_names {
            let first = self.ctx.result(op, next);
            self.define_value(name, first, count, loc)?;
            next += count as usize;
        }
        Ok(op)
    }

    fn check_registered(&self, name: &str, loc: Location) -> PResult<()> {
        let dialect = name.split('.').next().unwrap_or(name);
        // A registered dialect knows all its ops, even with --allow-unregistered-dialect.
        if self.ctx.allow_unregistered && !self.ctx.is_dialect_registered(dialect) {
            return Ok(());
        }
        if self.ctx.is_dialect_registered(dialect) {
            Err(Diagnostic::error(
                loc,
                format!("unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"),
            ))
        } else {
            Err(Diagnostic::error(
                loc,
                format!("operation '{name}' belongs to unregistered dialect '{dialect}'; use --allow-unregistered-dialect to accept it"),
            ))
        }
    }

    fn parse_generic_op(&mut self, loc: Location) -> PResult<Op> {
        let name_tok = self.advance();
        let raw = self.lex.text(name_tok.start + 1, name_tok.end - 1);
        let name_str = attrs::unescape(raw).map_err(|m| Diagnostic::error(loc, m))?;
        if name_str.is_empty() {
            return Err(Diagnostic::error(loc, "empty operation name is invalid"));
        }
        let name = self.ctx.ident(&name_str);
        let def = self
            .ctx
            .registry
            .lookup(name)
            .map(|d| self.ctx.registry.op(d));
        let traits = def.map(|d| d.traits);
        if def.is_none() {
            self.check_registered(&name_str, loc)?;
        }
        let mut spec = OpSpec::with_name(name, loc);
        let mut operands = Vec::new();
        self.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            operands.push(p.parse_operand()?);
            Ok(())
        })?;
        if self.tok.kind == Tok::LSquare {
            if traits.is_some_and(|t| !t.contains(Traits::TERMINATOR)) {
                return Err(self.error("successors in non-terminator"));
            }
            self.parse_delimited(Tok::LSquare, Tok::RSquare, "]", |p| {
                let b = p.parse_successor()?;
                spec.successors.push(b);
                Ok(())
            })?;
        }
        if self.tok.kind == Tok::Less {
            self.advance();
            self.parse_attr_dict_into(&mut spec.attrs)?;
            self.expect(Tok::Greater, "'>' to close properties")?;
        }
        if self.tok.kind == Tok::LParen {
            let isolated = traits.is_some_and(|t| t.contains(Traits::ISOLATED_FROM_ABOVE));
            self.advance();
            loop {
                let r = self.parse_region(&[], isolated)?;
                spec.regions.push(r);
                if !self.consume(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen, "')' to end region list")?;
        }
        if self.tok.kind == Tok::LBrace {
            self.parse_attr_dict_into(&mut spec.attrs)?;
        }
        self.expect(Tok::Colon, "':' followed by operation type")?;
        let fn_loc = self.current_loc();
        let fn_ty = self.parse_type()?;
        let Some((inputs, results)) = self.ctx.function_signature(fn_ty) else {
            return Err(Diagnostic::error(fn_loc, "expected function type"));
        };
        let (inputs, results) = (inputs.to_vec(), results.to_vec());
        if inputs.len() != operands.len() {
            return Err(Diagnostic::error(
                fn_loc,
                format!(
                    "expected {} operand type{} but had {}",
                    operands.len(),
                    plural(operands.len()),
                    inputs.len()
                ),
            ));
        }
        for (u, ty) in operands.iter().zip(&inputs) {
            let v = self.resolve_operand(u, *ty)?;
            spec.operands.push(v);
        }
        spec.result_types.extend(results);
        spec.loc = self.parse_trailing_loc(loc)?;
        let op = self.ctx.create_op(spec);
        self.note_pending_loc(op);
        Ok(op)
    }

    /// Resolves a custom op name as written (`arith.addi`, or `return` inside `func.func`) to
    /// its definition. Full names are cached per spelling; short names depend on the default
    /// dialect of the enclosing op and are rare (`return`, `module`), so they are looked up.
    fn lookup_custom_op(&mut self, written: &'a str) -> Option<OpDefId> {
        let lookup =
            |ctx: &Context, name: &str| ctx.find_ident(name).and_then(|i| ctx.registry.lookup(i));
        if written.contains('.') {
            if let Some(found) = self.custom_op_cache.get(written) {
                return found;
            }
            let found = lookup(self.ctx, written);
            self.custom_op_cache.insert(written, found);
            return found;
        }
        let default = self.default_dialects.last().copied().unwrap_or("");
        (!default.is_empty())
            .then(|| lookup(self.ctx, &format!("{default}.{written}")))
            .flatten()
            .or_else(|| lookup(self.ctx, &format!("builtin.{written}")))
    }

    fn parse_custom_op(&mut self, loc: Location) -> PResult<Op> {
        let name_tok = self.advance();
        let written = self.lex.text(name_tok.start, name_tok.end);
        let Some(def_id) = self.lookup_custom_op(written) else {
            let default = self.default_dialects.last().copied().unwrap_or("");
            let tried = if written.contains('.') || default.is_empty() {
                String::new()
            } else {
                format!(" (tried '{default}.{written}' as well)")
            };
            return Err(Diagnostic::error(
                loc,
                format!("custom op '{written}' is unknown{tried}"),
            ));
        };
        let def = self.ctx.registry.op(def_id);
        let (parse, name, default_dialect) = (def.parse, def.name, def.default_dialect);
        let format = def.format.clone();
        if parse.is_none() && format.is_none() {
            return Err(Diagnostic::error(
                loc,
                format!("'{name}' has no custom syntax; write it in the generic form"),
            ));
        }
        let mut spec = OpSpec::with_name(self.ctx.registry.op_name(def_id), loc);
        self.default_dialects.push(default_dialect.unwrap_or(""));
        let parsed = match (parse, format) {
            (Some(parse), _) => parse(self, &mut spec),
            (None, Some(format)) => format.parse(self, &mut spec),
            (None, None) => Ok(()),
        };
        self.default_dialects.pop();
        parsed?;
        spec.loc = self.parse_trailing_loc(loc)?;
        let op = self.ctx.create_op(spec);
        self.note_pending_loc(op);
        Ok(op)
    }

    fn note_pending_loc(&mut self, op: Op) {
        if let Some((alias, use_loc)) = self.pending_alias.take() {
            self.pending_locs.push((op, alias, use_loc));
        }
    }

    /// Parses `loc(...)` (the current token is `loc`).
    pub fn parse_trailing_location(&mut self) -> PResult<Location> {
        let loc = self.parse_loc_body()?;
        self.pending_alias = None;
        Ok(loc)
    }

    /// Parses an optional `loc(...)` after an op; `default` when absent.
    fn parse_trailing_loc(&mut self, default: Location) -> PResult<Location> {
        if self.tok.kind == Tok::BareIdent && self.peek_text() == "loc" {
            return self.parse_loc_body();
        }
        Ok(default)
    }

    // -----------------------------------------------------------------------------------------
    // Values.

    /// Parses `%name` or `%name#N`.
    pub fn parse_operand(&mut self) -> PResult<UnresolvedOperand<'a>> {
        let t = self.expect(Tok::PercentIdent, "SSA operand")?;
        let name = self.lex.text(t.start, t.end);
        let mut number = 0;
        if self.tok.kind == Tok::HashIdent {
            let text = self.peek_text();
            number = text[1..]
                .parse::<u32>()
                .map_err(|_| self.wrong_token_error("expected result number after '#'"))?;
            self.advance();
        }
        Ok(UnresolvedOperand {
            name,
            number,
            loc: self.loc_of(&t),
        })
    }

    /// Parses `%name` if one is next.
    pub fn parse_optional_operand(&mut self) -> PResult<Option<UnresolvedOperand<'a>>> {
        if self.tok.kind == Tok::PercentIdent {
            self.parse_operand().map(Some)
        } else {
            Ok(None)
        }
    }

    /// Parses a possibly empty comma-separated list of operands.
    pub fn parse_operand_list(&mut self) -> PResult<Vec<UnresolvedOperand<'a>>> {
        let mut out = Vec::new();
        if self.tok.kind != Tok::PercentIdent {
            return Ok(out);
        }
        self.parse_comma_separated(|p| {
            out.push(p.parse_operand()?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Resolves an operand to a value of type `ty`, creating a forward reference if its
    /// definition has not been seen yet.
    pub fn resolve_operand(&mut self, u: &UnresolvedOperand<'a>, ty: Type) -> PResult<Value> {
        for scope in self.scopes.iter().rev() {
            if let Some((first, count, def_loc)) = scope.values.get(u.name) {
                if u.number >= count {
                    return Err(Diagnostic::error(
                        u.loc,
                        format!(
                            "reference to invalid result number {} of '{}' ({} result{})",
                            u.number,
                            u.name,
                            count,
                            plural(count as usize)
                        ),
                    ));
                }
                let v = Value(first.0 + u.number);
                let actual = self.ctx.value_type(v);
                if actual != ty {
                    return Err(self.type_mismatch(u, ty, actual, def_loc));
                }
                return Ok(v);
            }
            if let Some(&(v, first_use)) = scope.forward.get(&(u.name, u.number)) {
                let actual = self.ctx.value_type(v);
                if actual != ty {
                    return Err(self.type_mismatch(u, ty, actual, first_use));
                }
                return Ok(v);
            }
            if scope.isolated {
                break;
            }
        }
        let v = self.ctx.placeholder_value(ty);
        let scope = self
            .scopes
            .last_mut()
            .expect("a scope is always open while parsing ops");
        scope.forward.insert((u.name, u.number), (v, u.loc));
        Ok(v)
    }

    /// A use of `u` as `expected` after the name was defined or first used (at `prior`) as
    /// `actual`.
    fn type_mismatch(
        &self,
        u: &UnresolvedOperand<'a>,
        expected: Type,
        actual: Type,
        prior: Location,
    ) -> Diagnostic {
        let p = crate::printer::Printer::new(self.ctx);
        Diagnostic::error(
            u.loc,
            format!(
                "use of value '{}' expects different type than prior uses: '{}' vs '{}'",
                u.name,
                p.type_to_string(expected),
                p.type_to_string(actual)
            ),
        )
        .with_note(prior, "prior use here")
    }

    /// Resolves operands against types, one to one.
    pub fn resolve_operands(
        &mut self,
        us: &[UnresolvedOperand<'a>],
        tys: &[Type],
        loc: Location,
    ) -> PResult<Vec<Value>> {
        if us.len() != tys.len() {
            return Err(Diagnostic::error(
                loc,
                format!("{} operands present, but expected {}", us.len(), tys.len()),
            ));
        }
        us.iter()
            .zip(tys)
            .map(|(u, t)| self.resolve_operand(u, *t))
            .collect()
    }

    /// Binds `name` to values `first..first+count` in the current scope, resolving forward
    /// references to them.
    fn define_value(
        &mut self,
        name: &'a str,
        first: Value,
        count: u32,
        loc: Location,
    ) -> PResult<()> {
        // The innermost scope is checked by the insertion itself (one table access); enclosing
        // scopes up to an isolation boundary are searched for shadowed names.
        let innermost = self.scopes.len() - 1;
        let mut previous = None;
        if !self.scopes[innermost].isolated {
            for scope in self.scopes[..innermost].iter().rev() {
                if let Some((_, _, prev)) = scope.values.get(name) {
                    previous = Some(prev);
                    break;
                }
                if scope.isolated {
                    break;
                }
            }
        }
        let scope = &mut self.scopes[innermost];
        if let Some((_, _, prev)) = scope.values.insert(name, (first, count, loc)) {
            previous = Some(prev);
        }
        if let Some(prev) = previous {
            let error = Diagnostic::error(loc, format!("redefinition of SSA value '{name}'"));
            return Err(match prev {
                Location::Unknown => error,
                prev => error.with_note(prev, "previously defined here"),
            });
        }
        let scope = &self.scopes[innermost];
        if scope.forward.is_empty() {
            return Ok(());
        }
        for i in 0..count {
            let Some((placeholder, use_loc)) = self
                .scopes
                .last_mut()
                .and_then(|s| s.forward.remove(&(name, i)))
            else {
                continue;
            };
            let v = Value(first.0 + i);
            let (pt, vt) = (self.ctx.value_type(placeholder), self.ctx.value_type(v));
            if pt != vt {
                let p = crate::printer::Printer::new(self.ctx);
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "definition of SSA value '{name}#{i}' has type '{}'",
                        p.type_to_string(vt)
                    ),
                )
                .with_note(
                    use_loc,
                    format!("previously used here with type '{}'", p.type_to_string(pt)),
                ));
            }
            self.ctx.replace_all_uses(placeholder, v);
        }
        let leftover = self.scopes.last().map_or(0, |s| {
            s.forward
                .keys()
                .filter(|(n, k)| *n == name && *k >= count)
                .count()
        });
        if leftover > 0 {
            let (_, (_, use_loc)) = self
                .scopes
                .last()
                .and_then(|s| s.forward.iter().find(|((n, _), _)| *n == name))
                .map(|(k, v)| (*k, *v))
                .unwrap_or(((name, 0), (Value(0), loc)));
            return Err(Diagnostic::error(
                use_loc,
                format!("reference to invalid result number of '{name}'"),
            ));
        }
        Ok(())
    }

    /// Closes the innermost scope: unresolved forward references move to the enclosing scope,
    /// or are errors at an isolation boundary.
    fn close_scope(&mut self) -> PResult<()> {
        let scope = self.scopes.pop().expect("close_scope without a scope");
        for (name, label) in &scope.blocks {
            if !label.defined {
                return Err(Diagnostic::error(
                    label.first_use,
                    format!("reference to an undefined block '{name}'"),
                ));
            }
        }
        if scope.forward.is_empty() {
            return Ok(());
        }
        match self.scopes.last_mut() {
            Some(parent) if !scope.isolated => {
                parent.forward.extend(scope.forward);
                Ok(())
            }
            _ => {
                let (name, loc) = scope
                    .forward
                    .iter()
                    .map(|((n, _), (_, l))| (*n, *l))
                    .min_by_key(|(_, l)| match l {
                        Location::FileLineCol { line, col, .. } => (*line, *col),
                        _ => (u32::MAX, u32::MAX),
                    })
                    .expect("non-empty");
                Err(Diagnostic::error(
                    loc,
                    format!("use of undeclared SSA value name '{name}'"),
                ))
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Regions and blocks.

    /// Parses `{ blocks }` as a new region. `entry_args` (from a custom signature) become the
    /// entry block's arguments; `isolated` hides the enclosing names.
    pub fn parse_region(&mut self, entry_args: &[Argument<'a>], isolated: bool) -> PResult<Region> {
        self.nested(|p| p.parse_region_unnested(entry_args, isolated))
    }

    fn parse_region_unnested(
        &mut self,
        entry_args: &[Argument<'a>],
        isolated: bool,
    ) -> PResult<Region> {
        self.expect(Tok::LBrace, "'{' to begin a region")?;
        let region = self.ctx.create_region();
        self.scopes.push(Scope::new(isolated));
        if !entry_args.is_empty()
            || (self.tok.kind != Tok::RBrace && self.tok.kind != Tok::CaretIdent)
        {
            let types: Vec<Type> = entry_args.iter().map(|a| a.ty).collect();
            let entry = self.ctx.create_block(&types);
            self.ctx.append_block(region, entry);
            for (i, a) in entry_args.iter().enumerate() {
                let v = self.ctx.block_args(entry)[i];
                self.define_value(a.name, v, 1, a.loc)?;
            }
            if !entry_args.is_empty() && self.tok.kind == Tok::CaretIdent {
                return Err(self.error("invalid block name in region with named arguments"));
            }
            self.parse_block_body(entry)?;
        }
        while self.tok.kind == Tok::CaretIdent {
            self.parse_labeled_block(region)?;
        }
        self.expect(Tok::RBrace, "'}' to end a region")?;
        self.close_scope()?;
        Ok(region)
    }

    fn parse_block_body(&mut self, block: Block) -> PResult<()> {
        while !matches!(self.tok.kind, Tok::CaretIdent | Tok::RBrace | Tok::Eof) {
            self.parse_operation(block)?;
        }
        Ok(())
    }

    fn block_for_label(&mut self, name: &'a str, loc: Location) -> Block {
        if let Some(l) = self.scopes.last().and_then(|s| s.blocks.get(name)) {
            return l.block;
        }
        let block = self.ctx.create_block(&[]);
        let scope = self
            .scopes
            .last_mut()
            .expect("a scope is always open while parsing blocks");
        scope.blocks.insert(
            name,
            BlockLabel {
                block,
                defined: false,
                first_use: loc,
            },
        );
        block
    }

    fn parse_labeled_block(&mut self, region: Region) -> PResult<()> {
        let t = self.advance();
        let name = self.lex.text(t.start, t.end);
        let loc = self.loc_of(&t);
        let block = self.block_for_label(name, loc);
        let label = self
            .scopes
            .last_mut()
            .and_then(|s| s.blocks.get_mut(name))
            .expect("label just created");
        if label.defined {
            return Err(Diagnostic::error(
                loc,
                format!("redefinition of block '{name}'"),
            ));
        }
        label.defined = true;
        self.ctx.append_block(region, block);
        if self.tok.kind == Tok::LParen {
            self.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
                let a = p.parse_argument()?;
                let v = p.ctx.add_block_arg(block, a.ty);
                p.define_value(a.name, v, 1, a.loc)
            })?;
        }
        self.expect(Tok::Colon, "':' after block name")?;
        self.parse_block_body(block)
    }

    /// Parses `%name: type` with an optional attribute dictionary and location (both ignored for
    /// block arguments).
    pub fn parse_argument(&mut self) -> PResult<Argument<'a>> {
        let t = self.expect(Tok::PercentIdent, "SSA operand")?;
        let name = self.lex.text(t.start, t.end);
        if self.tok.kind == Tok::HashIdent {
            return Err(self.error("invalid argument name: '#' is not allowed here"));
        }
        self.expect(Tok::Colon, "':' and type for SSA operand")?;
        let ty = self.parse_type()?;
        if self.tok.kind == Tok::BareIdent && self.peek_text() == "loc" {
            self.parse_loc_body()?;
            self.pending_alias = None;
        }
        Ok(Argument {
            name,
            ty,
            loc: self.loc_of(&t),
        })
    }

    /// Parses `^label` as a successor block reference.
    pub fn parse_successor(&mut self) -> PResult<Block> {
        let t = self.expect(Tok::CaretIdent, "block name")?;
        let name = self.lex.text(t.start, t.end);
        let loc = self.loc_of(&t);
        Ok(self.block_for_label(name, loc))
    }

    // -----------------------------------------------------------------------------------------
    // Attribute dictionaries and symbols.

    /// Parses `{a = 1, b}` into `attrs` (kept sorted by name).
    pub fn parse_attr_dict_into(&mut self, attrs: &mut Vec<NamedAttr>) -> PResult<()> {
        let mut entries = Vec::new();
        self.parse_delimited(Tok::LBrace, Tok::RBrace, "}", |p| {
            let loc = p.current_loc();
            let name = match p.tok.kind {
                Tok::BareIdent => p.peek_text().to_string(),
                Tok::String => {
                    let t = p.tok;
                    attrs::unescape(p.lex.text(t.start + 1, t.end - 1))
                        .map_err(|m| Diagnostic::error(loc, m))?
                }
                _ => return Err(p.wrong_token_error("expected attribute name")),
            };
            p.advance();
            if name.is_empty() {
                return Err(Diagnostic::error(loc, "expected valid attribute name"));
            }
            let value = if p.consume(Tok::Equal) {
                p.parse_attribute()?
            } else {
                p.ctx.unit_attr()
            };
            let id = p.ctx.ident(&name);
            if entries.iter().any(|e: &NamedAttr| e.name == id) {
                return Err(Diagnostic::error(
                    loc,
                    format!("duplicate key '{name}' in dictionary attribute"),
                ));
            }
            entries.push(NamedAttr { name: id, value });
            Ok(())
        })?;
        for e in entries {
            self.ctx.insert_sorted(attrs, e);
        }
        Ok(())
    }

    /// Parses an attribute dictionary if one is next.
    pub fn parse_optional_attr_dict(&mut self, attrs: &mut Vec<NamedAttr>) -> PResult<()> {
        if self.tok.kind == Tok::LBrace {
            self.parse_attr_dict_into(attrs)?;
        }
        Ok(())
    }

    /// Parses `attributes {...}` if the keyword is next.
    pub fn parse_optional_attr_dict_with_keyword(
        &mut self,
        attrs: &mut Vec<NamedAttr>,
    ) -> PResult<()> {
        if self.consume_keyword("attributes") {
            self.parse_attr_dict_into(attrs)?;
        }
        Ok(())
    }

    /// Parses `@name` (or `@"name"`) and returns the name.
    pub fn parse_symbol_name(&mut self) -> PResult<String> {
        if self.tok.kind != Tok::AtIdent {
            return Err(self.wrong_token_error("expected valid '@'-identifier for symbol name"));
        }
        let t = self.advance();
        self.symbol_text(&t)
    }

    /// Parses `@name` if one is next.
    pub fn parse_optional_symbol_name(&mut self) -> PResult<Option<String>> {
        if self.tok.kind == Tok::AtIdent {
            self.parse_symbol_name().map(Some)
        } else {
            Ok(None)
        }
    }

    fn symbol_text(&self, t: &Token) -> PResult<String> {
        let text = self.lex.text(t.start, t.end);
        if let Some(q) = text.strip_prefix("@\"") {
            attrs::unescape(&q[..q.len() - 1]).map_err(|m| Diagnostic::error(self.loc_of(t), m))
        } else {
            Ok(text[1..].to_string())
        }
    }
}

/// True for `i32`, `si8`, `ui64`: words MLIR's lexer reads as integer types.
fn is_integer_type_word(word: &str) -> bool {
    let digits = word
        .strip_prefix("si")
        .or_else(|| word.strip_prefix("ui"))
        .or_else(|| word.strip_prefix('i'));
    digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
