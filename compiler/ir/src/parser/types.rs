//! Parsing types: builtin keywords, shapes, function types, aliases and dialect types.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::attributes::{AttrKind, Attribute};
use crate::diagnostics::Diagnostic;
use crate::location::Location;
use crate::types::{ExtFloatKind, FloatKind, Type, TypeKind};

/// The widest integer type MLIR accepts, `i16777215`.
const MAX_INTEGER_WIDTH: u32 = 16_777_215;

/// True for the types that may be the elements of every shaped type: integers of any
/// signedness, `index` and floats.
fn is_scalar(kind: &TypeKind) -> bool {
    matches!(
        kind,
        TypeKind::Integer { .. }
            | TypeKind::SignedInteger { .. }
            | TypeKind::Index
            | TypeKind::Float(_)
            | TypeKind::ExtFloat(_)
    )
}

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
            _ => Err(self.wrong_token_error("expected non-function type")),
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
            "tensor" | "vector" | "memref" => {
                self.advance();
                return match word {
                    "tensor" => self.parse_tensor_type(),
                    "vector" => self.parse_vector_type(loc),
                    _ => self.parse_memref_type(loc),
                };
            }
            "complex" => {
                self.advance();
                return self.parse_complex_type();
            }
            "tuple" => {
                self.advance();
                self.expect(Tok::Less, "'<' in tuple type")?;
                let mut elements = Vec::new();
                if !self.consume(Tok::Greater) {
                    elements = self.parse_type_list()?;
                    self.expect(Tok::Greater, "'>' in tuple type")?;
                }
                return Ok(self.ctx.intern_type(TypeKind::Tuple(elements.into())));
            }
            _ => {
                if let Some(k) = ExtFloatKind::from_keyword(word) {
                    self.advance();
                    return Ok(self.ctx.intern_type(TypeKind::ExtFloat(k)));
                }
                let (signed, digits) = if let Some(w) = word.strip_prefix("si") {
                    (Some(true), w)
                } else if let Some(w) = word.strip_prefix("ui") {
                    (Some(false), w)
                } else {
                    (None, word.strip_prefix('i').unwrap_or(""))
                };
                if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(Diagnostic::error(
                        loc,
                        format!("expected non-function type, found '{word}'"),
                    ));
                }
                let width = match digits.parse::<u32>() {
                    Ok(w) if w <= MAX_INTEGER_WIDTH => w,
                    _ => {
                        return Err(Diagnostic::error(
                            loc,
                            "integer bitwidth is limited to 16777215 bits",
                        ))
                    }
                };
                match signed {
                    None => self.ctx.integer_type(width),
                    Some(signed) => self
                        .ctx
                        .intern_type(TypeKind::SignedInteger { width, signed }),
                }
            }
        };
        self.advance();
        Ok(ty)
    }

    /// Parses `<T>` after `complex`: the parts must be integers or floats, as in MLIR.
    fn parse_complex_type(&mut self) -> PResult<Type> {
        self.expect(Tok::Less, "'<' in complex type")?;
        let elem_loc = self.current_loc();
        let element = self.parse_type()?;
        if !matches!(
            self.ctx.type_kind(element),
            TypeKind::Integer { .. }
                | TypeKind::SignedInteger { .. }
                | TypeKind::Float(_)
                | TypeKind::ExtFloat(_)
        ) {
            return Err(Diagnostic::error(
                elem_loc,
                "invalid element type for complex",
            ));
        }
        self.expect(Tok::Greater, "'>' in complex type")?;
        Ok(self.ctx.intern_type(TypeKind::Complex(element)))
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

    /// True if the current token is the `*` of an unranked shape (`tensor<*xf32>`); consumes
    /// it and its `x`.
    fn consume_unranked_star(&mut self) -> PResult<bool> {
        if self.peek() != Tok::Star {
            return Ok(false);
        }
        // The lexer stands right after the '*'; the 'x' is read raw, like a dimension's.
        if !self.lex.skip_dimension_x() {
            self.tok = self.lex.next_token();
            return Err(self.wrong_token_error("expected 'x' in dimension list"));
        }
        self.tok = self.lex.next_token();
        Ok(true)
    }

    /// Parses the element type of a shaped type, checking it with `valid`; `message` is the
    /// error when it fails.
    fn parse_element_type(
        &mut self,
        valid: impl Fn(&TypeKind) -> bool,
        message: &str,
    ) -> PResult<Type> {
        let elem_loc = self.current_loc();
        let element = self.parse_type()?;
        if !valid(self.ctx.type_kind(element)) {
            return Err(Diagnostic::error(elem_loc, message));
        }
        Ok(element)
    }

    fn parse_tensor_type(&mut self) -> PResult<Type> {
        let shape = self.parse_dimension_list()?;
        // Only now is the token after '<' lexed (shapes are read raw).
        let unranked = shape.is_empty() && self.consume_unranked_star()?;
        let element = self.parse_element_type(shaped_element, "invalid tensor element type")?;
        if unranked {
            if self.consume(Tok::Comma) {
                // Reported after the whole type, as MLIR does.
                self.parse_attribute()?;
                self.expect(Tok::Greater, "'>' in tensor type")?;
                return Err(self.error("cannot apply encoding to unranked tensor"));
            }
            self.expect(Tok::Greater, "'>' in tensor type")?;
            return Ok(self.ctx.intern_type(TypeKind::UnrankedTensor(element)));
        }
        if self.consume(Tok::Comma) {
            let encoding = self.parse_attribute()?;
            self.expect(Tok::Greater, "'>' in tensor type")?;
            return Ok(self.ctx.intern_type(TypeKind::EncodedTensor {
                shape: shape.into(),
                element,
                encoding,
            }));
        }
        self.expect(Tok::Greater, "'>' to end a shaped type")?;
        Ok(self.ctx.tensor_type(&shape, element))
    }

    fn parse_vector_type(&mut self, type_loc: Location) -> PResult<Type> {
        let dims_loc = self.current_loc();
        self.expect_less_raw()?;
        let mut shape = Vec::new();
        let mut scalable = Vec::new();
        loop {
            let dim = self.lex.lex_vector_dimension();
            self.tok = self.lex.next_token();
            let Some((dim, is_scalable)) = dim else {
                break;
            };
            // Undo the lookahead so the next dimension is read from right after the 'x'.
            let tok = self.tok;
            self.lex.reset_to(&tok);
            let loc = self.current_loc();
            shape.push(dim.map_err(|m| Diagnostic::error(loc, m))?);
            scalable.push(is_scalable);
        }
        if shape.contains(&crate::types::DYNAMIC) {
            return Err(Diagnostic::error(
                dims_loc,
                "vector types must have static dimensions",
            ));
        }
        // An empty shape is a 0-d vector, `vector<f32>`, as in MLIR. Its verifier's errors
        // point at the `vector` keyword.
        let element = self.parse_type()?;
        self.expect(Tok::Greater, "'>' in vector type")?;
        if !is_scalar(self.ctx.type_kind(element)) {
            return Err(Diagnostic::error(
                type_loc,
                "failed to verify 'elementType': VectorElementTypeInterface instance",
            ));
        }
        if shape.iter().any(|d| *d <= 0) {
            let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
            return Err(Diagnostic::error(
                type_loc,
                format!(
                    "vector types must have positive constant sizes but got {}",
                    dims.join(", ")
                ),
            ));
        }
        if scalable.contains(&true) {
            return Ok(self.ctx.intern_type(TypeKind::ScalableVector {
                shape: shape.into(),
                scalable: scalable.into(),
                element,
            }));
        }
        Ok(self.ctx.vector_type(&shape, element))
    }

    /// Parses the rest of `memref<shape x element [, layout] [, memory space]>` or
    /// `memref<*x element [, memory space]>`. As in MLIR, the attribute after the element type
    /// is the layout when it is a `strided<...>` layout or an `affine_map`, and the memory space
    /// otherwise (see [`is_memory_space`]); the identity map and an integer memory space 0
    /// (`false` included) are the defaults and are dropped.
    fn parse_memref_type(&mut self, type_loc: Location) -> PResult<Type> {
        let shape = self.parse_dimension_list()?;
        let unranked = shape.is_empty() && self.consume_unranked_star()?;
        let element = self.parse_element_type(
            |k| {
                shaped_element(k)
                    || matches!(k, TypeKind::MemRef { .. } | TypeKind::UnrankedMemRef { .. })
            },
            "invalid memref element type",
        )?;
        let mut layout = None;
        let mut memory_space: Option<Attribute> = None;
        // Whether a list of attributes follows the element type: MLIR words the errors around
        // one as its list parser does.
        let mut listed = false;
        while self.consume(Tok::Comma) {
            if !listed && self.peek() == Tok::Greater {
                return Err(self.wrong_token_error("expected list element"));
            }
            listed = true;
            let attr = self.parse_attribute()?;
            // As MLIR, errors point after the attribute.
            let loc = self.current_loc();
            // A layout and the rank it is for.
            let layout_rank = match self.ctx.attr_kind(attr) {
                AttrKind::Strided { strides, .. } => Some(strides.len()),
                AttrKind::AffineMap(map) => Some(map.dims as usize),
                _ => None,
            };
            let message = match (layout_rank, unranked, memory_space) {
                (Some(_), true, _) => "cannot have affine map for unranked memref type",
                (Some(_), false, Some(_)) => "expected memory space to be last in memref type",
                (Some(n), false, None) if n != shape.len() => {
                    let message = match self.ctx.attr_kind(attr) {
                        AttrKind::AffineMap(_) => format!(
                            "memref layout mismatch between rank and affine map: {} != {n}",
                            shape.len()
                        ),
                        _ => "expected the number of strides to match the rank".to_string(),
                    };
                    return Err(Diagnostic::error(type_loc, message));
                }
                (Some(_), false, None) => {
                    // The identity map is the default layout.
                    let identity = matches!(self.ctx.attr_kind(attr), AttrKind::AffineMap(m) if m.is_identity());
                    layout = (!identity).then_some(attr);
                    continue;
                }
                (None, _, Some(_)) => "multiple memory spaces specified in memref type",
                (None, _, None) => {
                    memory_space = Some(attr);
                    continue;
                }
            };
            return Err(Diagnostic::error(loc, message));
        }
        let closing = if listed {
            "',' or '>'"
        } else {
            "',' or '>' in memref type"
        };
        self.expect(Tok::Greater, closing)?;
        // Checked once the type is complete, as MLIR's verifier does.
        if memory_space.is_some_and(|m| !is_memory_space(self.ctx.attr_kind(m))) {
            return Err(Diagnostic::error(
                type_loc,
                "unsupported memory space Attribute",
            ));
        }
        // An integer memory space 0 is the default one.
        let memory_space = memory_space
            .filter(|m| !matches!(self.ctx.attr_kind(*m), AttrKind::Integer { value: 0, .. }));
        Ok(self.ctx.intern_type(if unranked {
            TypeKind::UnrankedMemRef {
                element,
                memory_space,
            }
        } else {
            TypeKind::MemRef {
                shape: shape.into(),
                element,
                layout,
                memory_space,
            }
        }))
    }

    /// Expects `<` and leaves the lexer positioned right after it, without lexing the next
    /// token (shapes are read character by character).
    fn expect_less_raw(&mut self) -> PResult<()> {
        if self.peek() != Tok::Less {
            return Err(self.wrong_token_error("expected '<' in shaped type"));
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
            return self.parse_registered_type(parse, mnemonic);
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

    /// A registered dialect's type, the current token its `!dialect.mnemonic`: `parse` reads
    /// it. A type with a `<...>` body is often spelled many times in one file (a buffer type at
    /// each access), so its text parses once and later spellings reuse the type.
    fn parse_registered_type(
        &mut self,
        parse: crate::dialect::ParseTypeFn,
        mnemonic: &str,
    ) -> PResult<Type> {
        let tok = self.tok;
        let mut text = None;
        if let Some(scanned) = self.angle_suffix_end() {
            if let Some(end) = scanned {
                let spelled = self.lex.text(tok.start, end as u32 + 1);
                if let Some(&ty) = self.dialect_types.get(spelled) {
                    self.tok = self.lex.next_token();
                    return Ok(ty);
                }
                text = Some(spelled);
            }
            // Back to the type's first token, for `parse`.
            self.lex.reset_to(&tok);
            self.tok = self.lex.next_token();
        }
        self.advance();
        let ty = parse(self, mnemonic)?;
        if let Some(text) = text {
            self.dialect_types.insert(text, ty);
        }
        Ok(ty)
    }

    /// Reads `mnemonic` plus an optional balanced `<...>` suffix as raw text; the current token
    /// is the `!`/`#` identifier holding the mnemonic.
    pub(crate) fn opaque_body(&mut self, mnemonic: &str) -> PResult<String> {
        let tok = self.tok;
        let mut body = mnemonic.to_string();
        match self.angle_suffix_end() {
            Some(Some(end)) => {
                body.push_str(self.lex.text(tok.end, end as u32 + 1));
                self.tok = self.lex.next_token();
            }
            Some(None) => return Err(self.error("unbalanced '<' in dialect type or attribute")),
            None => {
                self.advance();
            }
        }
        Ok(body)
    }

    /// Whether the current `!`/`#` identifier token is followed right away by a `<`: `None`
    /// when it is not (the lexer untouched); otherwise the lexer has read the balanced
    /// `<...>` and this is the offset of its closing `>` (`Some(None)` when it is unbalanced).
    fn angle_suffix_end(&mut self) -> Option<Option<usize>> {
        let tok = self.tok;
        // Look at the raw character right after the identifier.
        if self.lex.text(tok.end, tok.end + 1) != "<" {
            return None;
        }
        self.lex.reset_to(&tok);
        let _ = self.lex.next_token();
        let _ = self.lex.next_token(); // the '<'
        Some(self.lex.skip_angle_body())
    }

    /// Parses a float type keyword, for ops that need one.
    pub fn float_kind_of(&self, ty: Type) -> Option<FloatKind> {
        self.ctx.float_kind(ty)
    }
}

/// Whether a tensor may hold elements of kind `k` (a memref also holds memrefs): scalars,
/// complex numbers, vectors and dialect types, as MLIR's builtin types allow.
fn shaped_element(k: &TypeKind) -> bool {
    is_scalar(k)
        || matches!(
            k,
            TypeKind::Complex(_)
                | TypeKind::Vector { .. }
                | TypeKind::ScalableVector { .. }
                | TypeKind::Dialect { .. }
                | TypeKind::Opaque { .. }
        )
}

/// Whether an attribute may be a memref's memory space, as MLIR's `isSupportedMemorySpace`:
/// integers, strings, dictionaries and the attributes of registered dialects. Other builtin
/// attributes, the opaque attributes of unregistered dialects among them, may not.
fn is_memory_space(kind: &AttrKind) -> bool {
    matches!(
        kind,
        AttrKind::Integer { .. }
            | AttrKind::String(_)
            | AttrKind::TypedString { .. }
            | AttrKind::Dict(_)
            | AttrKind::Dialect { .. }
    )
}
