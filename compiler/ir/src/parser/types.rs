//! Parsing types: builtin keywords, shapes, function types, aliases and dialect types.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::diagnostics::Diagnostic;
use crate::types::{FloatKind, Type, TypeKind};

impl<'a> Parser<'a> {
    /// Parses a type.
    pub fn parse_type(&mut self) -> PResult<Type> {
        self.nested(Self::parse_type_unnested)
    }

    fn parse_type_unnested(&mut self) -> PResult<Type> {
        match self.peek() {
            Tok::BareIdent => self.parse_builtin_type(),
            Tok::LParen => self.parse_function_type(),
            Tok::ExclaimIdent => self.parse_dialect_type(),
            _ => Err(self.error("expected non-function type")),
        }
    }

    /// Parses `: type`.
    pub fn parse_colon_type(&mut self) -> PResult<Type> {
        self.expect(Tok::Colon, "':'")?;
        self.parse_type()
    }

    /// Parses `type (',' type)*`.
    pub fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut out = Vec::new();
        self.parse_comma_separated(|p| {
            out.push(p.parse_type()?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Parses a function result list: a single type, or `(types)`.
    pub fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.peek() != Tok::LParen {
            return Ok(vec![self.parse_type()?]);
        }
        let mut out = Vec::new();
        self.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            out.push(p.parse_type()?);
            Ok(())
        })?;
        Ok(out)
    }

    fn parse_function_type(&mut self) -> PResult<Type> {
        let mut inputs = Vec::new();
        self.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            inputs.push(p.parse_type()?);
            Ok(())
        })?;
        self.expect(Tok::Arrow, "'->' in function type")?;
        let results = self.parse_function_result_types()?;
        Ok(self.ctx.function_type(&inputs, &results))
    }

    fn parse_builtin_type(&mut self) -> PResult<Type> {
        let loc = self.current_loc();
        let word = self.peek_text();
        let ty = match word {
            "i1" => Type::I1,
            "i8" => Type::I8,
            "i16" => Type::I16,
            "i32" => Type::I32,
            "i64" => Type::I64,
            "index" => Type::INDEX,
            "f16" => Type::F16,
            "bf16" => Type::BF16,
            "f32" => Type::F32,
            "f64" => Type::F64,
            "none" => Type::NONE,
            "tensor" | "vector" => {
                self.advance();
                return self.parse_shaped_type(word == "tensor");
            }
            _ => {
                let width = word.strip_prefix('i').and_then(|w| {
                    (!w.is_empty() && w.bytes().all(|c| c.is_ascii_digit()))
                        .then(|| w.parse::<u32>().ok())?
                });
                match width {
                    Some(w) if (1..=16_777_215).contains(&w) => self.ctx.integer_type(w),
                    Some(_) => return Err(Diagnostic::error(loc, "invalid integer width")),
                    None => {
                        let known = [
                            "memref", "complex", "tuple", "f8E4M3FN", "tf32", "f80", "f128",
                        ];
                        let msg = if known.contains(&word)
                            || word.starts_with("si")
                            || word.starts_with("ui")
                        {
                            format!("type '{word}' is not supported by dlc")
                        } else {
                            format!("expected non-function type, found '{word}'")
                        };
                        return Err(Diagnostic::error(loc, msg));
                    }
                }
            }
        };
        self.advance();
        Ok(ty)
    }

    /// Parses the dimensions of a shape, `4x?x8x`, when the current token is the `<` before it
    /// (as in `tensor<4x?xf32>` or a dialect type like `!loop.buffer<64x?xf32, global>`). `?`
    /// gives [`DYNAMIC`](crate::types::DYNAMIC). Afterwards the current token is the one after
    /// the last `x` (the element type).
    pub fn parse_dimension_list(&mut self) -> PResult<Vec<i64>> {
        self.expect_less_raw()?;
        let mut shape = Vec::new();
        while let Some(dim) = self.lex_dimension_here() {
            let loc = self.current_loc();
            shape.push(dim.map_err(|m| Diagnostic::error(loc, m))?);
        }
        Ok(shape)
    }

    fn parse_shaped_type(&mut self, is_tensor: bool) -> PResult<Type> {
        let dims_loc = self.current_loc();
        let shape = self.parse_dimension_list()?;
        if !is_tensor && shape.contains(&crate::types::DYNAMIC) {
            return Err(Diagnostic::error(
                dims_loc,
                "vector types must have static dimensions",
            ));
        }
        // Only now is the token after '<' lexed (shapes are read raw).
        if is_tensor && shape.is_empty() && self.peek() == Tok::Star {
            return Err(self.error("unranked tensors are not supported by dlc"));
        }
        let elem_loc = self.current_loc();
        let element = self.parse_type()?;
        match self.ctx.type_kind(element) {
            TypeKind::Integer { .. } | TypeKind::Index | TypeKind::Float(_) => {}
            TypeKind::Dialect { .. } | TypeKind::Opaque { .. } if is_tensor => {}
            _ => {
                return Err(Diagnostic::error(
                    elem_loc,
                    "invalid element type for a shaped type",
                ))
            }
        }
        if self.peek() == Tok::Comma {
            return Err(self.error("tensor encodings are not supported by dlc"));
        }
        self.expect(Tok::Greater, "'>' to end a shaped type")?;
        if !is_tensor && shape.is_empty() {
            return Err(Diagnostic::error(
                elem_loc,
                "vector types must have at least one dimension",
            ));
        }
        Ok(if is_tensor {
            self.ctx.tensor_type(&shape, element)
        } else {
            self.ctx.vector_type(&shape, element)
        })
    }

    /// Expects `<` and leaves the lexer positioned right after it, without lexing the next
    /// token (shapes are read character by character).
    fn expect_less_raw(&mut self) -> PResult<()> {
        if self.peek() != Tok::Less {
            return Err(self.error("expected '<' in shaped type"));
        }
        // The current token is '<'; the lexer already stands after it.
        Ok(())
    }

    /// Reads `Nx` or `?x` straight from the lexer while the parser's current token is the
    /// token before it; re-syncs the current token afterwards.
    fn lex_dimension_here(&mut self) -> Option<Result<i64, &'static str>> {
        let dim = self.lex.lex_dimension();
        self.tok = self.lex.next_token();
        if dim.is_some() {
            // Undo the lookahead so the next call reads from right after the 'x'.
            let tok = self.tok;
            self.lex.reset_to(&tok);
        }
        dim
    }

    fn parse_dialect_type(&mut self) -> PResult<Type> {
        let loc = self.current_loc();
        let text = self.peek_text();
        let body = &text[1..];
        // `!dialect<...>` (no mnemonic, the body right after the name) is a dialect type too.
        let pretty = !body.contains('.') && self.lex.text(self.tok.end, self.tok.end + 1) == "<";
        let split = body.split_once('.').or(pretty.then_some((body, "")));
        let Some((dialect, mnemonic)) = split else {
            self.advance();
            return self.type_aliases.get(text).copied().ok_or_else(|| {
                Diagnostic::error(loc, format!("undefined symbol alias id '{body}'"))
            });
        };
        if dialect.is_empty() {
            // `!.x` names no dialect, and would print as something that does not lex.
            return Err(Diagnostic::error(
                loc,
                "expected a dialect namespace before '.'",
            ));
        }
        let dialect_id = self.ctx.ident(dialect);
        if let Some(parse) = self
            .ctx
            .registry
            .dialect(dialect_id)
            .and_then(|d| d.parse_type)
        {
            self.advance();
            return parse(self, mnemonic);
        }
        if !self.ctx.allow_unregistered {
            return Err(Diagnostic::error(
                loc,
                format!("dialect '{dialect}' provides no type parsing hook; use --allow-unregistered-dialect to keep '{text}' as an opaque type"),
            ));
        }
        let mut body = self.opaque_body(mnemonic)?;
        if pretty {
            // Keep what is inside `<...>`, as MLIR does; the printer picks the spelling.
            body = body[1..body.len() - 1].to_string();
        }
        Ok(self.ctx.intern_type(TypeKind::Opaque {
            dialect: dialect_id,
            body: body.into(),
        }))
    }

    /// Reads `mnemonic` plus an optional balanced `<...>` suffix as raw text; the current token
    /// is the `!`/`#` identifier holding the mnemonic.
    pub(crate) fn opaque_body(&mut self, mnemonic: &str) -> PResult<String> {
        let tok = self.tok;
        let mut body = mnemonic.to_string();
        // Look at the raw character right after the identifier.
        let next = self.lex.text(tok.end, tok.end + 1);
        if next == "<" {
            self.lex.reset_to(&tok);
            let _ = self.lex.next_token();
            let _ = self.lex.next_token(); // the '<'
            let start = tok.end as usize;
            let Some(end) = self.lex.skip_angle_body() else {
                return Err(self.error("unbalanced '<' in dialect type or attribute"));
            };
            body.push_str(self.lex.text(start as u32, end as u32 + 1));
            self.tok = self.lex.next_token();
        } else {
            self.advance();
        }
        Ok(body)
    }

    /// Parses a float type keyword, for ops that need one.
    pub fn float_kind_of(&self, ty: Type) -> Option<FloatKind> {
        self.ctx.float_kind(ty)
    }
}
