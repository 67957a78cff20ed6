//! Parsing `dense_resource<name>` attributes and the `{-# dialect_resources: ... #-}` file
//! metadata block that holds their blobs.

use super::attrs::unescape;
use super::lexer::Tok;
use super::{PResult, Parser};
use crate::attributes::{AttrKind, Attribute};
use crate::diagnostics::Diagnostic;

impl<'a> Parser<'a> {
    /// Parses `dense_resource<name> : type`; the current token is `dense_resource`.
    pub(crate) fn parse_dense_resource(&mut self) -> PResult<Attribute> {
        self.advance();
        self.expect(Tok::Less, "'<' after 'dense_resource'")?;
        let name = self.parse_resource_key()?;
        self.expect(Tok::Greater, "'>' after resource name")?;
        self.expect(Tok::Colon, "':' and the type of a dense_resource")?;
        let loc = self.current_loc();
        let ty = self.parse_type()?;
        if self.ctx.written_shape(ty).is_none() {
            return Err(Diagnostic::error(
                loc,
                "`dense_resource` expected a shaped type",
            ));
        }
        Ok(self.ctx.intern_attr(AttrKind::DenseResource {
            name: name.into(),
            ty,
        }))
    }

    /// Parses a resource name: a bare identifier or a string.
    fn parse_resource_key(&mut self) -> PResult<String> {
        let loc = self.current_loc();
        match self.peek() {
            Tok::BareIdent => Ok(self.peek_text().to_string()).inspect(|_| {
                self.advance();
            }),
            Tok::String => {
                let t = self.advance();
                unescape(self.lex.text(t.start + 1, t.end - 1))
                    .map_err(|m| Diagnostic::error(loc, m))
            }
            _ => Err(self.wrong_token_error("expected identifier key for 'resource' entry")),
        }
    }

    /// Parses a `{-# ... #-}` block; the current token is `{-#`. Only the builtin dialect's
    /// resources are kept, as blobs of the context.
    pub(crate) fn parse_file_metadata(&mut self) -> PResult<()> {
        self.advance();
        loop {
            if self.peek() == Tok::HashIdent && self.peek_text() == "#-" {
                self.advance();
                self.expect(Tok::RBrace, "'#-}' to end file metadata")?;
                return Ok(());
            }
            let loc = self.current_loc();
            let section = self.parse_resource_key()?;
            self.expect(Tok::Colon, "':'")?;
            if section != "dialect_resources" {
                return Err(Diagnostic::error(
                    loc,
                    format!("file metadata section '{section}' is not supported by dlc"),
                ));
            }
            self.parse_delimited(Tok::LBrace, Tok::RBrace, "}", |p| {
                let loc = p.current_loc();
                let dialect = p.parse_resource_key()?;
                if dialect != "builtin" {
                    return Err(Diagnostic::error(
                        loc,
                        format!("dialect '{dialect}' is unknown"),
                    ));
                }
                p.expect(Tok::Colon, "':'")?;
                p.parse_delimited(Tok::LBrace, Tok::RBrace, "}", |p| p.parse_resource_blob())
            })?;
            if self.peek() == Tok::Comma {
                self.advance();
            }
        }
    }

    /// Parses `name: "0x..."`: the blob's alignment in four little-endian bytes, then its data.
    fn parse_resource_blob(&mut self) -> PResult<()> {
        let key = self.parse_resource_key()?;
        self.expect(Tok::Colon, "':'")?;
        let loc = self.current_loc();
        let bad = || {
            Diagnostic::error(
                loc,
                format!(
                    "expected hex string blob for key '{key}' to encode alignment in first 4 bytes"
                ),
            )
        };
        if self.peek() != Tok::String {
            return Err(bad());
        }
        let t = self.advance();
        let text = self.lex.text(t.start + 1, t.end - 1);
        let digits = text.strip_prefix("0x").ok_or_else(bad)?;
        if digits.len() < 8 {
            return Err(bad());
        }
        let bytes = crate::hex::decode_hex(digits).ok_or_else(bad)?;
        self.ctx.set_resource_blob(&key, &bytes);
        Ok(())
    }
}
