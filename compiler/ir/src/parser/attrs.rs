//! Parsing attributes and locations: scalars, containers, symbol references, dense constants,
//! aliases and dialect attributes.

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::attributes::{
    dense_element_bytes, is_unsigned, AttrKind, Attribute, DenseElements, DenseValue, NamedAttr,
};
use crate::diagnostics::Diagnostic;
use crate::location::{CompositeLocKind, Location};
use crate::types::{ExtFloatKind, FloatKind, FloatLayout, Type, TypeKind};
use crate::wide_int::{self, Magnitude};

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

/// A number as written, before its type is known.
#[derive(Clone)]
enum Number {
    /// An integer literal: its sign (kept for `-0`), magnitude, and whether it is hexadecimal
    /// (a float's bit pattern where a float is expected).
    Int {
        negative: bool,
        magnitude: IntMagnitude,
        hex: bool,
    },
    /// `true` or `false`, in a dense literal.
    Bool(bool),
    Float(f64),
}

/// The magnitude of an integer literal.
#[derive(Clone)]
enum IntMagnitude {
    Small(u128),
    /// Past 128 bits.
    Wide(Magnitude),
}

/// The value of an integer literal in its type.
enum IntLiteral {
    /// The value, as [`AttrKind::Integer`] holds it.
    Small(i128),
    /// The bit pattern of a type wider than 128 bits (see [`crate::wide_int`]).
    Wide(Box<[u8]>),
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
                let (n, loc) = self.parse_number()?;
                let ty = if self.consume(Tok::Colon) {
                    let ty = self.parse_type()?;
                    Some((ty, self.current_loc()))
                } else {
                    None
                };
                self.number_attr(n, ty, loc)
            }
            Tok::String => {
                let t = self.advance();
                let s = unescape(self.lex.text(t.start + 1, t.end - 1))
                    .map_err(|m| Diagnostic::error(loc, m))?;
                let ty = self.parse_optional_attr_type()?;
                Ok(self.ctx.typed_string_attr(&s, ty))
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

    /// Parses a string literal (`"text"`, MLIR's escapes decoded), without the optional
    /// `: type` of a string attribute: for a custom syntax that takes a bare string.
    pub fn parse_string_literal(&mut self) -> PResult<String> {
        let loc = self.current_loc();
        if self.tok.kind != Tok::String {
            return Err(self.error("expected a string"));
        }
        let t = self.advance();
        unescape(self.lex.text(t.start + 1, t.end - 1)).map_err(|m| Diagnostic::error(loc, m))
    }

    /// Parses a float written as a decimal literal, optionally negative (`0.5`, `-3`, `1e-5`),
    /// as MLIR's `parseFloat`: for a custom syntax that takes a bare number.
    pub fn parse_float(&mut self) -> PResult<f64> {
        let (n, loc) = self.parse_number()?;
        decimal_value(n).ok_or_else(|| Diagnostic::error(loc, "expected a decimal number"))
    }

    /// [`Parser::parse_float`], and also the bit pattern a printer writes in hex for a value of
    /// `kind` that no decimal form reads back as (infinities, NaNs: `0x7FF0000000000000`).
    pub fn parse_float_of(&mut self, kind: FloatKind) -> PResult<f64> {
        let (n, loc) = self.parse_number()?;
        match n {
            Number::Int {
                negative: false,
                magnitude: IntMagnitude::Small(bits),
                hex: true,
            } => match u64::try_from(bits) {
                Ok(bits) if kind.width() >= 64 || bits >> kind.width() == 0 => {
                    Ok(kind.from_bits(bits))
                }
                _ => Err(Diagnostic::error(
                    loc,
                    format!(
                        "hex float has more than the {} bits of its type",
                        kind.width()
                    ),
                )),
            },
            n => decimal_value(n)
                .ok_or_else(|| Diagnostic::error(loc, "expected a decimal number or hex bits")),
        }
    }

    /// Parses an integer or float literal, optionally negative, and returns it with the location
    /// of its digits (where MLIR reports a bad value).
    fn parse_number(&mut self) -> PResult<(Number, Location)> {
        let negative = self.consume(Tok::Minus);
        let loc = self.current_loc();
        let t = self.advance();
        let text = self.lex.text(t.start, t.end);
        let (digits, radix) = match t.kind {
            Tok::Integer => match text.strip_prefix("0x") {
                Some(hex) => (hex, 16),
                None => (text, 10),
            },
            Tok::Float => {
                let v: f64 = text
                    .parse()
                    .map_err(|_| Diagnostic::error(loc, "invalid floating point literal"))?;
                return Ok((Number::Float(if negative { -v } else { v }), loc));
            }
            _ => {
                return Err(Diagnostic::error(
                    loc,
                    "expected integer or floating point literal",
                ))
            }
        };
        let magnitude = match u128::from_str_radix(digits, radix) {
            Ok(m) => IntMagnitude::Small(m),
            Err(_) => IntMagnitude::Wide(
                Magnitude::parse(digits, radix)
                    .ok_or_else(|| Diagnostic::error(loc, "invalid integer literal"))?,
            ),
        };
        let hex = radix == 16;
        Ok((
            Number::Int {
                negative,
                magnitude,
                hex,
            },
            loc,
        ))
    }

    /// The attribute number `n` (whose digits are at `loc`) stands for in type `ty` (with the
    /// location just after it), by default `i64` or `f64`.
    fn number_attr(
        &mut self,
        n: Number,
        ty: Option<(Type, Location)>,
        loc: Location,
    ) -> PResult<Attribute> {
        let (ty, ty_loc) = ty.unwrap_or(match n {
            Number::Float(_) => (Type::F64, loc),
            _ => (Type::I64, loc),
        });
        match self.ctx.type_kind(ty).clone() {
            TypeKind::Float(k) => {
                let v = float_value(k, &n, loc)?;
                Ok(self.ctx.intern_attr(AttrKind::Float {
                    bits: v.to_bits(),
                    ty,
                }))
            }
            kind
            @ (TypeKind::Integer { .. } | TypeKind::SignedInteger { .. } | TypeKind::Index) => {
                if let Number::Float(_) = n {
                    // MLIR reports it after the type.
                    return Err(Diagnostic::error(
                        ty_loc,
                        "floating point value not valid for specified type",
                    ));
                }
                match integer_literal(&kind, &n).map_err(|m| Diagnostic::error(loc, m))? {
                    IntLiteral::Small(v) => Ok(self.ctx.integer_attr(v, ty)),
                    IntLiteral::Wide(bits) => Ok(self.ctx.wide_integer_attr(&bits, ty)),
                }
            }
            TypeKind::ExtFloat(k) => {
                let bits = wide_float_bits(wide_layout(k, loc)?, &n, loc)?;
                Ok(self.ctx.intern_attr(AttrKind::WideFloat { bits, ty }))
            }
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
            let attr = parse(self, mnemonic)?;
            // MLIR hands a written type to the dialect's hook; dlc's dialect attributes have
            // no type, so, as MLIR's attributes without one do, they drop it.
            self.parse_optional_attr_type()?;
            return Ok(attr);
        }
        let registered = self.ctx.registry.dialect(dialect_id);
        if let Some(def) = registered.and_then(|d| d.attr_def(mnemonic)) {
            self.advance();
            let attr = def.parse_params(self)?;
            self.parse_optional_attr_type()?;
            return Ok(attr);
        }
        if registered.is_some_and(|d| !d.attrs.is_empty()) {
            // A dialect that defines its attributes knows them all: a misspelling is an error,
            // not an opaque attribute.
            return Err(Diagnostic::error(
                loc,
                format!("unknown attribute '{mnemonic}' of dialect '{dialect}'"),
            ));
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
        let ty = self.parse_optional_attr_type()?;
        Ok(self.ctx.intern_attr(AttrKind::Opaque {
            dialect: dialect_id,
            body: body.into(),
            ty,
        }))
    }

    /// Parses the `: type` that may follow a string or dialect attribute; `none` without one.
    fn parse_optional_attr_type(&mut self) -> PResult<Type> {
        if self.consume(Tok::Colon) {
            return self.parse_type();
        }
        Ok(Type::NONE)
    }

    /// Parses `dense<...> : type`.
    fn parse_dense(&mut self) -> PResult<Attribute> {
        let loc = self.current_loc();
        self.advance();
        self.expect(Tok::Less, "'<' after 'dense'")?;
        let mut values: Vec<(Number, Location)> = Vec::new();
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
                let bytes = crate::hex::decode_hex(digits).ok_or_else(|| {
                    let message = if digits.bytes().all(|c| c.is_ascii_hexdigit()) {
                        "hex string in dense attribute has an odd number of digits"
                    } else {
                        "invalid hex digit in dense attribute"
                    };
                    Diagnostic::error(loc, message)
                })?;
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
        let one_bit = matches!(
            elem_kind,
            TypeKind::Integer { width: 1 } | TypeKind::SignedInteger { width: 1, .. }
        );
        if let (Some(bytes), true) = (&hex, one_bit) {
            // MLIR packs 1-bit elements (`i1`, `si1`, `ui1`) eight to a byte (element i is bit
            // i % 8 of byte i / 8), and reads a single 0x00 or 0xFF byte as a splat.
            let needed = (count as usize).div_ceil(8);
            let data: Vec<u8> = match bytes[..] {
                [b @ (0x00 | 0xff)] => vec![b & 1],
                _ if bytes.len() == needed => (0..count as usize)
                    .map(|i| bytes[i / 8] >> (i % 8) & 1)
                    .collect(),
                _ => return Err(self.hex_size_error(loc, ty, bytes.len(), needed as i128)),
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
                return Err(self.hex_size_error(loc, ty, bytes.len(), needed));
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
        let mut data = Vec::with_capacity(values.len() * n);
        for (v, loc) in &values {
            encode_dense_literal(&elem_kind, v, n, *loc, &mut data)?;
        }
        if values.is_empty() && count != 0 {
            return Err(Diagnostic::error(
                loc,
                "empty dense literal for a non-empty type",
            ));
        }
        // One value stands for every element (`dense<1>`), or is the only one (`dense<[1]>`);
        // a list's length was checked against the type above.
        let splat = values.len() == 1 && (count == 1 || !is_list);
        Ok(self.ctx.intern_attr(AttrKind::DenseElements(DenseElements {
            ty,
            splat,
            data: data.into(),
        })))
    }

    /// MLIR's error for a hex dense string of the wrong size for `ty`, with the sizes.
    fn hex_size_error(&self, loc: Location, ty: Type, held: usize, needed: i128) -> Diagnostic {
        let p = crate::printer::Printer::new(self.ctx);
        Diagnostic::error(
            loc,
            format!(
                "elements hex data size is invalid for provided type: '{}' ({held} bytes, the type needs {needed})",
                p.type_to_string(ty)
            ),
        )
    }

    /// Parses a nested `[...]` literal, recording the length at each depth in `dims` and
    /// requiring every scalar to sit at the same depth.
    fn parse_dense_list(
        &mut self,
        depth: usize,
        dims: &mut Vec<i64>,
        leaf_depth: &mut Option<usize>,
        out: &mut Vec<(Number, Location)>,
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
    fn parse_dense_element(&mut self) -> PResult<(Number, Location)> {
        if self.peek() == Tok::BareIdent {
            let loc = self.current_loc();
            let v = match self.peek_text() {
                "true" => true,
                "false" => false,
                _ => {
                    return Err(self.wrong_token_error("expected element literal of primitive type"))
                }
            };
            self.advance();
            return Ok((Number::Bool(v), loc));
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
        match self.parse_number()? {
            (
                Number::Int {
                    negative,
                    magnitude: IntMagnitude::Small(m),
                    hex: false,
                },
                loc,
            ) => i64::try_from(m)
                .ok()
                .map(|v| if negative { -v } else { v })
                .filter(|v| *v != crate::types::DYNAMIC)
                .ok_or_else(|| Diagnostic::error(loc, "stride or offset out of range")),
            (_, loc) => Err(Diagnostic::error(
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
                let (v, loc) = p.parse_dense_element()?;
                values.push(dense_array_element(&kind, &v, loc)?);
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

/// Appends dense element `n` of element type `kind` (`bytes` wide) to `out`.
fn encode_dense_literal(
    kind: &TypeKind,
    n: &Number,
    bytes: usize,
    loc: Location,
    out: &mut Vec<u8>,
) -> PResult<()> {
    let value = match kind {
        TypeKind::Float(k) => DenseValue::Float(float_value(*k, n, loc)?),
        TypeKind::ExtFloat(k) => {
            // `f80` and `f128` elements are packed from their bits: no `f64` holds them.
            let bits = wide_float_bits(wide_layout(*k, loc)?, n, loc)?;
            out.extend_from_slice(&bits.to_le_bytes()[..bytes]);
            return Ok(());
        }
        _ => match dense_integer(kind, n).map_err(|m| Diagnostic::error(loc, m))? {
            IntLiteral::Small(v) => DenseValue::Int(v),
            IntLiteral::Wide(bits) => {
                out.extend_from_slice(&bits);
                return Ok(());
            }
        },
    };
    crate::attributes::encode_dense_value(kind, value, bytes, out);
    Ok(())
}

/// The value of `n` as an element of a dense literal of integer (or `index`) type `kind`.
fn dense_integer(kind: &TypeKind, n: &Number) -> Result<IntLiteral, &'static str> {
    match n {
        Number::Bool(v) if *kind == TypeKind::Integer { width: 1 } => {
            Ok(IntLiteral::Small(*v as i128))
        }
        Number::Bool(_) => Err("expected i1 type for 'true' or 'false' values"),
        Number::Float(_) => Err("expected integer elements, but parsed floating-point"),
        Number::Int { negative: true, .. } if is_unsigned(kind) => {
            Err("expected unsigned integer elements, but parsed negative value")
        }
        Number::Int { .. } => {
            integer_literal(kind, n).map_err(|_| "integer constant out of range for type")
        }
    }
}

/// What a float literal holds before its format rounds it.
enum FloatLiteral {
    /// A decimal literal, read as an `f64` (as MLIR reads it).
    Value(f64),
    /// A hexadecimal literal: the format's bits (how the printer writes NaN and infinities).
    Bits(u128),
}

/// Reads number `n` (at `loc`) where a float of a format whose bit patterns `holds` accepts is
/// expected.
fn float_literal(n: &Number, holds: impl Fn(u128) -> bool, loc: Location) -> PResult<FloatLiteral> {
    let message = match n {
        Number::Float(v) => return Ok(FloatLiteral::Value(*v)),
        Number::Int {
            negative: true,
            hex: true,
            ..
        } => "hexadecimal float literal should not have a leading minus",
        Number::Int {
            magnitude: IntMagnitude::Small(bits),
            hex: true,
            ..
        } if holds(*bits) => return Ok(FloatLiteral::Bits(*bits)),
        Number::Int { hex: true, .. } => "hexadecimal float constant out of range for type",
        Number::Int { .. } => {
            return Err(Diagnostic::error(
                loc,
                "unexpected decimal integer literal for a floating point value",
            )
            .with_note(loc, "add a trailing dot to make the literal a float"))
        }
        Number::Bool(_) => "expected floating point literal",
    };
    Err(Diagnostic::error(loc, message))
}

/// The value number `n` (at `loc`) stands for in float format `k` (at most `f64`), rounded to it.
fn float_value(k: FloatKind, n: &Number, loc: Location) -> PResult<f64> {
    Ok(
        match float_literal(n, |bits| bits >> k.width() == 0, loc)? {
            FloatLiteral::Value(v) => k.round(v),
            FloatLiteral::Bits(bits) => k.from_bits(bits as u64),
        },
    )
}

/// The layout of `k` for a constant at `loc`: only `f80` and `f128` constants are held.
fn wide_layout(k: ExtFloatKind, loc: Location) -> PResult<FloatLayout> {
    k.wide_layout().ok_or_else(|| {
        Diagnostic::error(
            loc,
            format!("'{}' constants are not supported by dlc", k.keyword()),
        )
    })
}

/// The bit pattern, canonical as APFloat writes it back, that number `n` (at `loc`) stands for
/// in a float format wider than `f64`: a decimal literal is widened exactly from its `f64`.
fn wide_float_bits(layout: FloatLayout, n: &Number, loc: Location) -> PResult<u128> {
    Ok(match float_literal(n, |bits| layout.holds(bits), loc)? {
        FloatLiteral::Value(v) => layout.from_f64(v),
        FloatLiteral::Bits(bits) => layout.canonical(bits),
    })
}

/// Element `n` (at `loc`) of an `array<...>` of element type `kind` (an integer or float type),
/// as the attribute stores it: an integer's value or a float's bits (of `f64` holding the
/// rounded value).
fn dense_array_element(kind: &TypeKind, n: &Number, loc: Location) -> PResult<i64> {
    if let TypeKind::Float(k) = kind {
        return float_value(*k, n, loc).map(|v| v.to_bits() as i64);
    }
    let value = integer_array_element(kind, n).map_err(|m| Diagnostic::error(loc, m))?;
    i64::try_from(value).map_err(|_| Diagnostic::error(loc, WIDE_ARRAY_ELEMENT))
}

const WIDE_ARRAY_ELEMENT: &str = "dense array elements wider than 64 bits are not supported by dlc";

/// The value of element `n` of an `array<...>` of integer type `kind`.
fn integer_array_element(kind: &TypeKind, n: &Number) -> Result<i128, &'static str> {
    Ok(match (kind, n) {
        (TypeKind::Integer { width: 1 }, Number::Bool(v)) => *v as i128,
        (TypeKind::Integer { width: 1 }, _) => {
            return Err("expected 'true' or 'false' values for i1 type")
        }
        (_, Number::Bool(_)) => return Err("expected i1 type for 'true' or 'false' values"),
        (_, Number::Float(_)) => {
            return Err("expected integer elements, but parsed floating-point")
        }
        (_, n) => match integer_literal(kind, n).map_err(|_| "integer constant out of range")? {
            IntLiteral::Small(v) => crate::attributes::normalize_int(kind, v),
            IntLiteral::Wide(_) => return Err(WIDE_ARRAY_ELEMENT),
        },
    })
}

/// The value integer literal `n` stands for in integer type `kind`, checked as MLIR checks it:
/// the magnitude must fit the width, a negative value must fit it signed, and a positive one
/// must fit it signed for a signed type (or `index`, 64 bits here) and unsigned otherwise.
fn integer_literal(kind: &TypeKind, n: &Number) -> Result<IntLiteral, &'static str> {
    const OUT_OF_RANGE: &str = "integer constant out of range for attribute";
    let (width, signed) = match kind {
        TypeKind::Integer { width } => (*width, None),
        TypeKind::SignedInteger { width, signed } => (*width, Some(*signed)),
        _ => (64, Some(true)),
    };
    let Number::Int {
        negative,
        magnitude,
        ..
    } = n
    else {
        return Err("floating point value not valid for specified type");
    };
    let negative = *negative;
    if negative && signed == Some(false) {
        return Err("negative integer literal not valid for unsigned integer type");
    }
    // The magnitude's significant bits, and whether it is 2^(bits - 1).
    let (bits, power_of_two) = match magnitude {
        IntMagnitude::Small(m) => ((u128::BITS - m.leading_zeros()) as u64, m.is_power_of_two()),
        IntMagnitude::Wide(m) => (m.bit_length(), m.is_power_of_two()),
    };
    let w = width as u64;
    // A negative magnitude may reach 2^(width-1), a positive signed one not; a zero-width type
    // holds 0 alone.
    let in_range = bits <= w
        && match (negative, signed) {
            _ if w == 0 => !negative,
            // As in MLIR, `-0` is out of range.
            (true, _) => bits > 0 && (bits < w || power_of_two),
            (false, Some(true)) => bits < w,
            (false, _) => true,
        };
    if !in_range {
        return Err(OUT_OF_RANGE);
    }
    let unsigned = signed == Some(false);
    match magnitude {
        IntMagnitude::Small(m) if width > 128 => Ok(IntLiteral::Wide(wide_int::literal_bits(
            negative,
            &Magnitude::from_u128(*m),
            width,
            unsigned,
        ))),
        IntMagnitude::Wide(m) => Ok(IntLiteral::Wide(wide_int::literal_bits(
            negative, m, width, unsigned,
        ))),
        // The type's bits: `integer_attr` reads them in the type.
        IntMagnitude::Small(m) if negative => {
            Ok(IntLiteral::Small(0i128.wrapping_sub_unsigned(*m)))
        }
        IntMagnitude::Small(m) => Ok(IntLiteral::Small(*m as i128)),
    }
}

fn join(dims: &[i64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value of a decimal literal (`0.5`, `-3`, `1e-5`); `None` for hex and booleans.
fn decimal_value(n: Number) -> Option<f64> {
    match n {
        Number::Float(v) => Some(v),
        Number::Int {
            negative,
            magnitude,
            hex: false,
        } => {
            let v = match magnitude {
                IntMagnitude::Small(m) => m as f64,
                IntMagnitude::Wide(m) => m.to_decimal().parse().unwrap_or(f64::INFINITY),
            };
            Some(if negative { -v } else { v })
        }
        Number::Int { hex: true, .. } | Number::Bool(_) => None,
    }
}
