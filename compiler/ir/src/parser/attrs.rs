//! Parsing attributes and locations: scalars, containers, symbol references, dense constants,
//! aliases and dialect attributes.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::attributes::{
    dense_element_bytes, AttrKind, Attribute, DenseElements, DenseValue, NamedAttr,
};
use crate::diagnostics::Diagnostic;
use crate::location::{CompositeLocKind, Location};
use crate::types::{FloatLayout, Type, TypeKind};

/// Decodes MLIR string escapes (`\n`, `\t`, `\"`, `\\`, `\XX` hex).
pub(crate) fn unescape(raw: &str) -> Result<String, &'static str> {
    if !raw.contains('\\') {
        return Ok(raw.to_string());
    }
    let mut bytes = Vec::with_capacity(raw.len());
    let b = raw.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            bytes.push(b[i]);
            i += 1;
            continue;
        }
        let c = *b.get(i + 1).ok_or("unknown escape in string literal")?;
        match c {
            b'n' => bytes.push(b'\n'),
            b't' => bytes.push(b'\t'),
            b'"' => bytes.push(b'"'),
            b'\\' => bytes.push(b'\\'),
            _ => {
                let hex = raw
                    .get(i + 1..i + 3)
                    .ok_or("unknown escape in string literal")?;
                let v =
                    u8::from_str_radix(hex, 16).map_err(|_| "unknown escape in string literal")?;
                bytes.push(v);
                i += 3;
                continue;
            }
        }
        i += 2;
    }
    String::from_utf8(bytes).map_err(|_| "string literal is not valid UTF-8")
}

/// A number token as written, before its type is known.
#[derive(Copy, Clone)]
enum Number {
    Int(i128),
    Hex(u128),
    /// A decimal integer above `i128::MAX` (it fits 128 bits unsigned).
    Big(u128),
    Float(f64),
}

impl Number {
    /// The sign and magnitude of an integer literal; `None` for a float literal.
    fn sign_magnitude(self) -> Option<(bool, u128)> {
        match self {
            Number::Int(v) => Some((v < 0, v.unsigned_abs())),
            Number::Hex(m) | Number::Big(m) => Some((false, m)),
            Number::Float(_) => None,
        }
    }
}

impl<'a> Parser<'a> {
    /// Parses an attribute value.
    pub fn parse_attribute(&mut self) -> PResult<Attribute> {
        self.nested(Self::parse_attribute_unnested)
    }

    fn parse_attribute_unnested(&mut self) -> PResult<Attribute> {
        let loc = self.current_loc();
        match self.peek() {
            Tok::Integer | Tok::Float | Tok::Minus => {
                let n = self.parse_number()?;
                let ty = if self.consume(Tok::Colon) {
                    Some(self.parse_type()?)
                } else {
                    None
                };
                self.number_attr(n, ty, loc)
            }
            Tok::String => {
                let t = self.advance();
                let s = unescape(self.lex.text(t.start + 1, t.end - 1))
                    .map_err(|m| Diagnostic::error(loc, m))?;
                if self.peek() == Tok::Colon {
                    return Err(self.error("typed string attributes are not supported by dlc"));
                }
                Ok(self.ctx.string_attr(&s))
            }
            Tok::LSquare => {
                let mut elems = Vec::new();
                self.parse_delimited(Tok::LSquare, Tok::RSquare, "]", |p| {
                    elems.push(p.parse_attribute()?);
                    Ok(())
                })?;
                Ok(self.ctx.array_attr(&elems))
            }
            Tok::LBrace => {
                let mut entries: Vec<NamedAttr> = Vec::new();
                self.parse_attr_dict_into(&mut entries)?;
                Ok(self.ctx.intern_attr(AttrKind::Dict(entries.into())))
            }
            Tok::AtIdent => self.parse_symbol_ref(),
            Tok::HashIdent => self.parse_hash_attribute(),
            Tok::LParen | Tok::ExclaimIdent => {
                let ty = self.parse_type()?;
                Ok(self.ctx.type_attr(ty))
            }
            Tok::BareIdent => match self.peek_text() {
                "true" | "false" => {
                    let v = self.peek_text() == "true";
                    self.advance();
                    if self.consume(Tok::Colon) {
                        let ty = self.parse_type()?;
                        if ty != Type::I1 {
                            return Err(Diagnostic::error(
                                loc,
                                "boolean attributes must have type 'i1'",
                            ));
                        }
                    }
                    Ok(self.ctx.bool_attr(v))
                }
                "unit" => {
                    self.advance();
                    Ok(self.ctx.unit_attr())
                }
                "dense" => self.parse_dense(),
                "array" => self.parse_dense_array(),
                "loc" => {
                    Err(self.error("location attributes are only allowed as trailing 'loc(...)'"))
                }
                "strided" => self.parse_strided(),
                "affine_map" => self.parse_affine_map_attr(),
                "affine_set" => self.parse_affine_set_attr(),
                "dense_resource" => self.parse_dense_resource(),
                "sparse" | "distinct" => Err(self.error(format!(
                    "'{}' attributes are not supported by dlc",
                    self.peek_text()
                ))),
                _ => {
                    let ty = self.parse_type()?;
                    Ok(self.ctx.type_attr(ty))
                }
            },
            _ => Err(self.wrong_token_error("expected attribute value")),
        }
    }

    /// Parses a float written as a decimal literal, optionally negative (`0.5`, `-3`, `1e-5`),
    /// as MLIR's `parseFloat`: for a custom syntax that takes a bare number.
    pub fn parse_float(&mut self) -> PResult<f64> {
        let loc = self.current_loc();
        match self.parse_number()? {
            Number::Float(v) => Ok(v),
            Number::Int(v) => Ok(v as f64),
            Number::Big(v) => Ok(v as f64),
            Number::Hex(_) => Err(Diagnostic::error(loc, "expected a decimal number")),
        }
    }

    fn parse_number(&mut self) -> PResult<Number> {
        let negative = self.consume(Tok::Minus);
        let loc = self.current_loc();
        let t = self.advance();
        let text = self.lex.text(t.start, t.end);
        match t.kind {
            Tok::Integer => {
                if let Some(hex) = text.strip_prefix("0x") {
                    if negative {
                        return Err(Diagnostic::error(
                            loc,
                            "hexadecimal literals cannot be negative",
                        ));
                    }
                    let v = u128::from_str_radix(hex, 16)
                        .map_err(|_| Diagnostic::error(loc, "integer constant out of range"))?;
                    return Ok(Number::Hex(v));
                }
                // The magnitude is parsed unsigned so that `i128::MIN`, whose magnitude no
                // `i128` holds, reads back.
                let magnitude: u128 = text.parse().map_err(|_| {
                    Diagnostic::error(
                        loc,
                        "integer literal wider than 128 bits is not supported by dlc",
                    )
                })?;
                if negative {
                    return 0i128
                        .checked_sub_unsigned(magnitude)
                        .map(Number::Int)
                        .ok_or_else(|| Diagnostic::error(loc, "integer constant out of range"));
                }
                Ok(i128::try_from(magnitude).map_or(Number::Big(magnitude), Number::Int))
            }
            Tok::Float => {
                let v: f64 = text
                    .parse()
                    .map_err(|_| Diagnostic::error(loc, "invalid floating point literal"))?;
                Ok(Number::Float(if negative { -v } else { v }))
            }
            _ => Err(Diagnostic::error(
                loc,
                "expected integer or floating point literal",
            )),
        }
    }

    fn number_attr(
        &mut self,
        n: Number,
        ty: Option<Type>,
        loc: crate::Location,
    ) -> PResult<Attribute> {
        let ty = ty.unwrap_or(match n {
            Number::Float(_) => Type::F64,
            _ => Type::I64,
        });
        match (self.ctx.type_kind(ty).clone(), n) {
            (TypeKind::Float(_), Number::Float(v)) => Ok(self.ctx.float_attr(v, ty)),
            (TypeKind::Float(k), Number::Hex(bits)) => {
                if bits >> k.width() != 0 {
                    return Err(Diagnostic::error(
                        loc,
                        "hexadecimal float constant out of range for type",
                    ));
                }
                let v = k.from_bits(bits as u64);
                Ok(self.ctx.intern_attr(AttrKind::Float {
                    bits: v.to_bits(),
                    ty,
                }))
            }
            (TypeKind::Float(_), Number::Int(_)) => Err(integer_for_float(loc)),
            (
                kind
                @ (TypeKind::Integer { .. } | TypeKind::SignedInteger { .. } | TypeKind::Index),
                n,
            ) => {
                let Some((negative, magnitude)) = n.sign_magnitude() else {
                    return Err(Diagnostic::error(
                        loc,
                        "floating point value not valid for specified type",
                    ));
                };
                let v = integer_value(&kind, negative, magnitude)
                    .map_err(|m| Diagnostic::error(loc, m))?;
                Ok(self.ctx.integer_attr(v, ty))
            }
            (TypeKind::ExtFloat(k), n) => match k.wide_layout() {
                Some(layout) => {
                    let bits = wide_float_bits(layout, n, loc)?;
                    Ok(self.ctx.intern_attr(AttrKind::WideFloat { bits, ty }))
                }
                None => Err(Diagnostic::error(
                    loc,
                    format!("'{}' constants are not supported by dlc", k.keyword()),
                )),
            },
            _ => Err(Diagnostic::error(
                loc,
                "invalid type for a numeric attribute; expected an integer, index or float type",
            )),
        }
    }

    fn parse_symbol_ref(&mut self) -> PResult<Attribute> {
        let mut path = Vec::new();
        let t = self.advance();
        let name = self.symbol_text(&t)?;
        path.push(self.ctx.ident(&name));
        while self.peek() == Tok::Colon && self.lex.text(self.tok.end, self.tok.end + 1) == ":" {
            self.advance();
            self.expect(Tok::Colon, "'::' in nested symbol reference")?;
            if self.peek() != Tok::AtIdent {
                return Err(
                    self.wrong_token_error("expected '@' after '::' in nested symbol reference")
                );
            }
            let t = self.advance();
            let name = self.symbol_text(&t)?;
            path.push(self.ctx.ident(&name));
        }
        Ok(self.ctx.intern_attr(AttrKind::SymbolRef(path.into())))
    }

    fn parse_hash_attribute(&mut self) -> PResult<Attribute> {
        let loc = self.current_loc();
        let text = self.peek_text();
        let body = &text[1..];
        // `#dialect<...>` (no mnemonic, the body right after the name) is a dialect attribute.
        let pretty = !body.contains('.') && self.lex.text(self.tok.end, self.tok.end + 1) == "<";
        let split = body.split_once('.').or(pretty.then_some((body, "")));
        let Some((dialect, mnemonic)) = split else {
            self.advance();
            return self.attr_aliases.get(text).copied().ok_or_else(|| {
                Diagnostic::error(loc, format!("undefined symbol alias id '{body}'"))
            });
        };
        if dialect.is_empty() {
            // `#.x` names no dialect, and would print as something that does not lex.
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
            .and_then(|d| d.parse_attr)
        {
            self.advance();
            return parse(self, mnemonic);
        }
        if !self.ctx.allow_unregistered && !self.ctx.is_dialect_registered(dialect) {
            return Err(Diagnostic::error(
                loc,
                format!("attribute '{text}' belongs to unregistered dialect '{dialect}'; use --allow-unregistered-dialect to keep it as an opaque attribute"),
            ));
        }
        let mut body = self.opaque_body(mnemonic)?;
        if pretty {
            // Keep what is inside `<...>`, as MLIR does; the printer picks the spelling.
            body = body[1..body.len() - 1].to_string();
        }
        Ok(self.ctx.intern_attr(AttrKind::Opaque {
            dialect: dialect_id,
            body: body.into(),
        }))
    }

    /// Parses `dense<...> : type`.
    fn parse_dense(&mut self) -> PResult<Attribute> {
        let loc = self.current_loc();
        self.advance();
        self.expect(Tok::Less, "'<' after 'dense'")?;
        let mut values: Vec<Number> = Vec::new();
        let mut hex: Option<Vec<u8>> = None;
        let mut shape: Option<Vec<i64>> = None;
        let mut is_list = false;
        match self.peek() {
            Tok::Greater => shape = Some(vec![0]),
            Tok::String => {
                let t = self.advance();
                let s = self.lex.text(t.start + 1, t.end - 1);
                let digits = s.strip_prefix("0x").ok_or_else(|| {
                    Diagnostic::error(loc, "expected a hex string '0x...' in dense attribute")
                })?;
                // Checked up front: slicing pairs out of non-ASCII text would split a character.
                if !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return Err(Diagnostic::error(
                        loc,
                        "invalid hex digit in dense attribute",
                    ));
                }
                if digits.len() % 2 != 0 {
                    return Err(Diagnostic::error(
                        loc,
                        "hex string in dense attribute has an odd number of digits",
                    ));
                }
                let bytes = (0..digits.len() / 2)
                    .map(|i| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16))
                    .collect::<Result<Vec<u8>, _>>()
                    .map_err(|_| Diagnostic::error(loc, "invalid hex digit in dense attribute"))?;
                hex = Some(bytes);
            }
            Tok::LSquare => {
                is_list = true;
                let mut dims = Vec::new();
                self.parse_dense_list(0, &mut dims, &mut None, &mut values)?;
                shape = Some(dims);
            }
            _ => values.push(self.parse_dense_element()?),
        }
        self.expect(Tok::Greater, "'>' to end dense attribute")?;
        self.expect(
            Tok::Colon,
            "':' and a tensor or vector type after dense attribute",
        )?;
        let ty_loc = self.current_loc();
        let ty = self.parse_type()?;
        let Some(ty_shape) = self.ctx.written_shape(ty).map(|s| s.to_vec()) else {
            return Err(Diagnostic::error(
                ty_loc,
                "dense attributes need a tensor or vector type",
            ));
        };
        if ty_shape.iter().any(|d| *d < 0) {
            return Err(Diagnostic::error(
                ty_loc,
                "dense attributes need a statically shaped type",
            ));
        }
        let elem_kind = self.ctx.type_kind(self.ctx.element_type(ty)).clone();
        let Some(n) = dense_element_bytes(&elem_kind) else {
            let zero_width = matches!(
                elem_kind,
                TypeKind::Integer { width: 0 } | TypeKind::SignedInteger { width: 0, .. }
            );
            return Err(Diagnostic::error(
                ty_loc,
                if zero_width {
                    "dense attributes of zero-width integers are not supported by dlc"
                } else {
                    "dense attribute element type must be an integer, index or float type"
                },
            ));
        };
        let Some(count) = ty_shape.iter().try_fold(1i64, |n, d| n.checked_mul(*d)) else {
            return Err(Diagnostic::error(
                ty_loc,
                "dense attribute type has more elements than fit in 64 bits",
            ));
        };
        if let (Some(bytes), TypeKind::Integer { width: 1 }) = (&hex, &elem_kind) {
            // MLIR packs `i1` elements eight to a byte (element i is bit i % 8 of byte i / 8),
            // and reads a single 0x00 or 0xFF byte as a splat.
            let needed = (count as usize).div_ceil(8);
            let data: Vec<u8> = match bytes[..] {
                [b @ (0x00 | 0xff)] => vec![b & 1],
                _ if bytes.len() == needed => (0..count as usize)
                    .map(|i| bytes[i / 8] >> (i % 8) & 1)
                    .collect(),
                _ => {
                    return Err(Diagnostic::error(
                        loc,
                        format!(
                            "hex dense attribute holds {} bytes, but type needs {needed}",
                            bytes.len()
                        ),
                    ))
                }
            };
            return Ok(self.ctx.intern_attr(AttrKind::DenseElements(DenseElements {
                ty,
                splat: data.len() == 1 && count != 1,
                data: data.into(),
            })));
        }
        if let Some(bytes) = hex {
            // One element is a splat whatever the count, as for `dense<[x]>` and `dense<x>`, so
            // a one-element constant has a single form however it was written.
            let splat = bytes.len() == n;
            let needed = count as i128 * n as i128;
            if !splat && bytes.len() as i128 != needed {
                return Err(Diagnostic::error(
                    loc,
                    format!(
                        "hex dense attribute holds {} bytes, but type needs {needed}",
                        bytes.len(),
                    ),
                ));
            }
            return Ok(self.ctx.intern_attr(AttrKind::DenseElements(DenseElements {
                ty,
                splat,
                data: bytes.into(),
            })));
        }
        if let Some(dims) = shape.filter(|_| is_list) {
            if dims != ty_shape {
                let p = crate::printer::Printer::new(self.ctx);
                return Err(Diagnostic::error(
                    loc,
                    format!("inferred shape of elements literal ([{}]) does not match type ([{}]) of '{}'", join(&dims), join(&ty_shape), p.type_to_string(ty)),
                ));
            }
        }
        if values.is_empty() && count != 0 {
            return Err(Diagnostic::error(
                loc,
                "empty dense literal for a non-empty type",
            ));
        }
        let wide = match elem_kind {
            TypeKind::ExtFloat(k) => k.wide_layout(),
            _ => None,
        };
        if let Some(layout) = wide {
            // `f80` and `f128` elements are packed from their bits: no `f64` holds them.
            let mut data = Vec::with_capacity(values.len() * n);
            for v in &values {
                let bits = wide_float_bits(layout, *v, loc)?;
                data.extend_from_slice(&bits.to_le_bytes()[..n]);
            }
            return Ok(self.ctx.intern_attr(AttrKind::DenseElements(DenseElements {
                ty,
                splat: values.len() == 1,
                data: data.into(),
            })));
        }
        let values = values
            .into_iter()
            .map(|v| dense_value(&elem_kind, v, loc))
            .collect::<PResult<Vec<DenseValue>>>()?;
        if values.len() == 1 && count != 1 && !is_list {
            return Ok(self.ctx.dense_attr(ty, &values));
        }
        let mut data = Vec::with_capacity(values.len() * n);
        for v in &values {
            crate::attributes::encode_dense_value(&elem_kind, *v, n, &mut data);
        }
        let splat = values.len() == 1 && count == 1;
        Ok(self.ctx.intern_attr(AttrKind::DenseElements(DenseElements {
            ty,
            splat,
            data: data.into(),
        })))
    }

    /// Parses a nested `[...]` literal, recording the length at each depth in `dims` and
    /// requiring every scalar to sit at the same depth.
    fn parse_dense_list(
        &mut self,
        depth: usize,
        dims: &mut Vec<i64>,
        leaf_depth: &mut Option<usize>,
        out: &mut Vec<Number>,
    ) -> PResult<()> {
        let loc = self.current_loc();
        self.expect(Tok::LSquare, "'['")?;
        let mut len = 0i64;
        if self.peek() != Tok::RSquare {
            loop {
                if self.peek() == Tok::LSquare {
                    self.parse_dense_list(depth + 1, dims, leaf_depth, out)?;
                } else {
                    if *leaf_depth.get_or_insert(depth) != depth {
                        return Err(self.error(
                            "tensor literal is invalid; ranks are not consistent between elements",
                        ));
                    }
                    out.push(self.parse_dense_element()?);
                }
                len += 1;
                if !self.consume(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RSquare, "',' or ']'")?;
        if dims.len() <= depth {
            dims.resize(depth + 1, -1);
        }
        if dims[depth] == -1 {
            dims[depth] = len;
        } else if dims[depth] != len {
            return Err(Diagnostic::error(
                loc,
                "tensor literal is invalid; ranks are not consistent between elements",
            ));
        }
        Ok(())
    }

    /// Parses one element of a dense literal; its meaning waits for the element type, which
    /// follows the literal (a hexadecimal number is a float's bit pattern).
    fn parse_dense_element(&mut self) -> PResult<Number> {
        if self.peek() == Tok::BareIdent {
            let v = match self.peek_text() {
                "true" => 1,
                "false" => 0,
                _ => {
                    return Err(self.wrong_token_error("expected element literal of primitive type"))
                }
            };
            self.advance();
            return Ok(Number::Int(v));
        }
        self.parse_number()
    }

    /// Parses `strided<[4, ?], offset: ?>` (the offset defaults to 0).
    fn parse_strided(&mut self) -> PResult<Attribute> {
        self.advance();
        self.expect(Tok::Less, "'<' after 'strided'")?;
        let mut strides = Vec::new();
        self.parse_delimited(Tok::LSquare, Tok::RSquare, "]", |p| {
            strides.push(p.parse_stride()?);
            Ok(())
        })?;
        let mut offset = 0;
        if self.consume(Tok::Comma) {
            if !self.consume_keyword("offset") {
                return Err(self.wrong_token_error("expected 'offset' after comma"));
            }
            self.expect(Tok::Colon, "':' after 'offset'")?;
            offset = self.parse_stride()?;
        }
        self.expect(Tok::Greater, "'>' to end strided layout")?;
        Ok(self.ctx.intern_attr(AttrKind::Strided {
            strides: strides.into(),
            offset,
        }))
    }

    /// Parses one stride or offset of a `strided` layout: `?` or a 64-bit integer.
    fn parse_stride(&mut self) -> PResult<i64> {
        if self.consume(Tok::Question) {
            return Ok(crate::types::DYNAMIC);
        }
        let loc = self.current_loc();
        match self.parse_number()? {
            Number::Int(v) => i64::try_from(v)
                .ok()
                .filter(|v| *v != crate::types::DYNAMIC)
                .ok_or_else(|| Diagnostic::error(loc, "stride or offset out of range")),
            _ => Err(Diagnostic::error(
                loc,
                "expected a stride or offset integer",
            )),
        }
    }

    /// Parses `array<i64: 1, 2>`.
    fn parse_dense_array(&mut self) -> PResult<Attribute> {
        self.advance();
        self.expect(Tok::Less, "'<' after 'array'")?;
        let ty_loc = self.current_loc();
        let element = self.parse_type()?;
        let kind = self.ctx.type_kind(element).clone();
        if !matches!(kind, TypeKind::Integer { .. } | TypeKind::Float(_)) {
            return Err(Diagnostic::error(
                ty_loc,
                "expected integer or float type in dense array",
            ));
        }
        let mut values = Vec::new();
        if self.consume(Tok::Colon) {
            self.parse_comma_separated(|p| {
                let loc = p.current_loc();
                let v = p.parse_dense_element()?;
                let stored = match (&kind, dense_value(&kind, v, loc)?) {
                    (TypeKind::Float(k), DenseValue::Float(x)) => k.round(x).to_bits() as i64,
                    (TypeKind::Float(k), DenseValue::Int(x)) => k.round(x as f64).to_bits() as i64,
                    (_, DenseValue::Int(x)) => x as i64,
                    (_, DenseValue::Float(_)) => {
                        return Err(Diagnostic::error(
                            loc,
                            "expected integer element in integer dense array",
                        ))
                    }
                };
                values.push(stored);
                Ok(())
            })?;
        }
        self.expect(Tok::Greater, "'>' to end dense array")?;
        Ok(self.ctx.intern_attr(AttrKind::DenseArray {
            element,
            values: values.into(),
        }))
    }

    // -----------------------------------------------------------------------------------------
    // Locations.

    /// Parses `loc(...)`.
    pub(crate) fn parse_loc_body(&mut self) -> PResult<Location> {
        self.advance(); // 'loc'
        self.expect(Tok::LParen, "'(' in location")?;
        // Only a whole location may name an alias defined further down (as mlir-opt prints
        // them); the op's location is set once the alias is known.
        let forward =
            self.peek() == Tok::HashIdent && !self.loc_aliases.contains_key(self.peek_text());
        let loc = if forward {
            let t = self.advance();
            self.pending_alias = Some((self.lex.text(t.start, t.end), self.loc_of(&t)));
            Location::Unknown
        } else {
            self.parse_location_inner()?
        };
        self.expect(Tok::RParen, "')' in location")?;
        Ok(loc)
    }

    fn parse_location_inner(&mut self) -> PResult<Location> {
        self.nested(Self::parse_location_unnested)
    }

    fn parse_location_unnested(&mut self) -> PResult<Location> {
        match self.peek() {
            Tok::HashIdent => {
                let t = self.advance();
                let name = self.lex.text(t.start, t.end);
                self.loc_aliases.get(name).copied().ok_or_else(|| {
                    Diagnostic::error(
                        self.loc_of(&t),
                        format!("undefined symbol alias id '{}'", &name[1..]),
                    )
                })
            }
            Tok::String => {
                let t = self.advance();
                let s = unescape(self.lex.text(t.start + 1, t.end - 1))
                    .map_err(|m| Diagnostic::error(self.loc_of(&t), m))?;
                if self.consume(Tok::Colon) {
                    let line = self.parse_u32("line number")?;
                    self.expect(Tok::Colon, "':' in file location")?;
                    let col = self.parse_u32("column number")?;
                    if self.consume_keyword("to") {
                        // Ranges (`to 3:4` / `to :4`) keep only their start.
                        if self.peek() == Tok::Integer {
                            self.parse_u32("line number")?;
                        }
                        self.expect(Tok::Colon, "':' in file range")?;
                        self.parse_u32("column number")?;
                    }
                    return Ok(self.ctx.file_loc(&s, line, col));
                }
                let name = self.ctx.ident(&s);
                let child = if self.consume(Tok::LParen) {
                    let c = self.parse_location_inner()?;
                    self.expect(Tok::RParen, "')' after child location")?;
                    Some(c)
                } else {
                    None
                };
                Ok(self
                    .ctx
                    .composite_loc(CompositeLocKind::Name { name, child }))
            }
            Tok::BareIdent => match self.peek_text() {
                "unknown" => {
                    self.advance();
                    Ok(Location::Unknown)
                }
                "callsite" => {
                    self.advance();
                    self.expect(Tok::LParen, "'(' in callsite location")?;
                    let callee = self.parse_location_inner()?;
                    if !self.consume_keyword("at") {
                        return Err(self.wrong_token_error("expected 'at' in callsite location"));
                    }
                    let caller = self.parse_location_inner()?;
                    self.expect(Tok::RParen, "')' in callsite location")?;
                    Ok(self
                        .ctx
                        .composite_loc(CompositeLocKind::CallSite { callee, caller }))
                }
                "fused" => {
                    self.advance();
                    let metadata = if self.consume(Tok::Less) {
                        let m = self.parse_attribute()?;
                        self.expect(Tok::Greater, "'>' after fused location metadata")?;
                        Some(m)
                    } else {
                        None
                    };
                    let mut locations = Vec::new();
                    self.parse_delimited(Tok::LSquare, Tok::RSquare, "]", |p| {
                        locations.push(p.parse_location_inner()?);
                        Ok(())
                    })?;
                    Ok(self.ctx.composite_loc(CompositeLocKind::Fused {
                        locations: locations.into(),
                        metadata,
                    }))
                }
                _ => Err(self.wrong_token_error("expected location instance")),
            },
            _ => Err(self.wrong_token_error("expected location instance")),
        }
    }

    fn parse_u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.expect(Tok::Integer, what)?;
        self.lex
            .text(t.start, t.end)
            .parse()
            .map_err(|_| Diagnostic::error(self.loc_of(&t), format!("invalid {what}")))
    }
}

/// The value of dense element `n` for element type `kind`: integers must fit their width, and a
/// hexadecimal literal is a float's bit pattern (how the printer writes NaN and infinities) or
/// an integer's value.
fn dense_value(kind: &TypeKind, n: Number, loc: crate::Location) -> PResult<DenseValue> {
    match (kind, n) {
        (TypeKind::Float(_), Number::Float(x)) => Ok(DenseValue::Float(x)),
        (TypeKind::Float(k), Number::Hex(bits)) => {
            if bits >> k.width() != 0 {
                return Err(Diagnostic::error(
                    loc,
                    "hexadecimal float constant out of range for type",
                ));
            }
            Ok(DenseValue::Float(k.from_bits(bits as u64)))
        }
        // As in MLIR, a hexadecimal integer element is its value (`0xFF` in an `i8` is -1).
        (_, Number::Hex(v) | Number::Big(v)) => match i128::try_from(v) {
            Ok(x) => dense_value(kind, Number::Int(x), loc),
            Err(_) => Err(Diagnostic::error(
                loc,
                "integer constant out of range for element type",
            )),
        },
        (_, Number::Float(_)) => Err(Diagnostic::error(
            loc,
            "expected integer elements, but parsed floating-point",
        )),
        (TypeKind::Integer { .. } | TypeKind::SignedInteger { .. }, Number::Int(x)) => {
            integer_value(kind, x < 0, x.unsigned_abs())
                .map(DenseValue::Int)
                .map_err(|_| {
                    Diagnostic::error(loc, "integer constant out of range for element type")
                })
        }
        (_, Number::Int(x)) => Ok(DenseValue::Int(x)),
    }
}

/// The bit pattern, canonical as APFloat writes it back, of a literal of a float format wider
/// than `f64`: a decimal literal is read as an `f64` and widened exactly (as MLIR reads it), a
/// hexadecimal one is the format's bits.
fn wide_float_bits(layout: FloatLayout, n: Number, loc: crate::Location) -> PResult<u128> {
    match n {
        Number::Float(v) => Ok(layout.from_f64(v)),
        Number::Hex(bits) if layout.holds(bits) => Ok(layout.canonical(bits)),
        Number::Hex(_) => Err(Diagnostic::error(
            loc,
            "hexadecimal float constant out of range for type",
        )),
        Number::Int(_) | Number::Big(_) => Err(integer_for_float(loc)),
    }
}

/// MLIR's error for a decimal integer literal where a float is expected.
fn integer_for_float(loc: crate::Location) -> Diagnostic {
    Diagnostic::error(
        loc,
        "unexpected decimal integer literal for a floating point value",
    )
    .with_note(loc, "add a trailing dot to make the literal a float")
}

/// The value an integer literal of sign `negative` and `magnitude` stands for in integer type
/// `kind`, checked as MLIR checks it: the magnitude must fit the width, a negative value must
/// fit it signed, and a positive one must fit it signed for a signed type (or `index`, 64 bits
/// here) and unsigned otherwise.
pub(crate) fn integer_value(
    kind: &TypeKind,
    negative: bool,
    magnitude: u128,
) -> Result<i128, &'static str> {
    let (width, signed) = match kind {
        TypeKind::Integer { width } => (*width, None),
        TypeKind::SignedInteger { width, signed } => (*width, Some(*signed)),
        _ => (64, Some(true)),
    };
    const OUT_OF_RANGE: &str = "integer constant out of range for attribute";
    if negative && signed == Some(false) {
        return Err("negative integer literal not valid for unsigned integer type");
    }
    if width == 0 {
        return if magnitude == 0 && !negative {
            Ok(0)
        } else {
            Err(OUT_OF_RANGE)
        };
    }
    let fits_unsigned = width >= 128 || magnitude >> width == 0;
    // The signed limit, 2^(width-1): a negative magnitude may reach it, a positive one not.
    let sign_bit = (width <= 128).then(|| 1u128 << (width - 1));
    let in_range = fits_unsigned
        && match (negative, signed, sign_bit) {
            (true, _, Some(limit)) => magnitude <= limit,
            (false, Some(true), Some(limit)) => magnitude < limit,
            _ => true,
        };
    if !in_range {
        return Err(OUT_OF_RANGE);
    }
    if negative {
        // `magnitude` is at most 2^127 here (a wider type's literal was read into an `i128`).
        return Ok(0i128.wrapping_sub_unsigned(magnitude));
    }
    match i128::try_from(magnitude) {
        Ok(v) => Ok(v),
        // The bits of a 128-bit value; a wider type's value would not be its bits.
        Err(_) if width == 128 => Ok(magnitude as i128),
        Err(_) => Err("integer constants above 2^127 wider than 128 bits are not supported by dlc"),
    }
}

fn join(dims: &[i64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
