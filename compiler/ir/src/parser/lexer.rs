//! The lexer: turns MLIR text into tokens, one at a time, in a single forward pass.
//!
//! It works on bytes, tracks the line and column of each token as it skips whitespace (so no
//! second pass computes positions), and never backtracks. Shapes like `4x?xf32` are not split
//! here: the parser reads them with [`Lexer::lex_dimension`] where the grammar expects them.

/// The kind of a token.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Tok {
    Eof,
    /// A character that starts no token, or a malformed token; the lexer's message says which.
    Error,
    BareIdent,
    /// `%name`, `%0`.
    PercentIdent,
    /// `^bb0`.
    CaretIdent,
    /// `@name` or `@"quoted"`.
    AtIdent,
    /// `#alias`, `#dialect.attr`.
    HashIdent,
    /// `!alias`, `!dialect.type`.
    ExclaimIdent,
    Integer,
    Float,
    String,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LSquare,
    RSquare,
    Less,
    Greater,
    Colon,
    Comma,
    Equal,
    Arrow,
    Question,
    Star,
    Plus,
    Minus,
    /// `...`.
    Ellipsis,
    FileMetadataBegin,
}

/// A token: its kind, byte range and 1-based position.
#[derive(Copy, Clone, Debug)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

/// A single-pass lexer over one source text.
pub struct Lexer<'a> {
    src: &'a [u8],
    /// The same text as `src`, for slicing tokens without re-validating UTF-8.
    text_src: &'a str,
    pos: usize,
    line: u32,
    line_start: usize,
    /// The line number of the first line of the text.
    first_line: u32,
    /// Why the last `Tok::Error` token was produced.
    pub error: &'static str,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

fn is_bare_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`, whose first line is `first_line`.
    pub fn new(src: &'a str, first_line: u32) -> Self {
        Lexer {
            src: src.as_bytes(),
            text_src: src,
            pos: 0,
            line: first_line,
            line_start: 0,
            first_line,
            error: "",
        }
    }

    /// The source text.
    pub fn text(&self, start: u32, end: u32) -> &'a str {
        // Ranges come from token boundaries, which are on character boundaries; a range past the
        // end (a lookahead at end of input) reads as empty.
        self.text_src
            .get(start as usize..end as usize)
            .unwrap_or("")
    }

    /// Where MLIR reports a wrong token starting at byte `start`: just after the last text
    /// before it, skipping blanks, line ends and `//` comments on the lines in between (at
    /// end of input, one character back). Returns the (line, column) of that point.
    pub fn wrong_token_point(&self, start: u32, at_eof: bool) -> (u32, u32) {
        let mut end = (start as usize).min(self.src.len());
        if at_eof {
            end = end.saturating_sub(1);
        }
        let original = end;
        let point = loop {
            while end > 0 && matches!(self.src[end - 1], b' ' | b'\t') {
                end -= 1;
            }
            if end == 0 {
                break original;
            }
            if !matches!(self.src[end - 1], b'\n' | b'\r') {
                break end;
            }
            end -= 1;
            let line_start = self.src[..end]
                .iter()
                .rposition(|&c| c == b'\n' || c == b'\r')
                .map_or(0, |i| i + 1);
            if let Some(comment) = self.text_src[line_start..end].find("//") {
                end = line_start + comment;
            }
        };
        self.line_col(point)
    }

    /// The (line, column) of byte `offset`, counted from the start of the text.
    fn line_col(&self, offset: usize) -> (u32, u32) {
        let before = &self.src[..offset];
        let newlines = before.iter().filter(|&&c| c == b'\n').count() as u32;
        let line_start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        (self.first_line + newlines, (offset - line_start) as u32 + 1)
    }

    /// The byte offset of the next unread character.
    pub fn offset(&self) -> usize {
        self.pos
    }

    fn skip_trivia(&mut self) {
        while self.pos < self.src.len() {
            match self.src[self.pos] {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'/' if self.src.get(self.pos + 1) == Some(&b'/') => {
                    while self.pos < self.src.len() && self.src[self.pos] != b'\n' {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn token(&self, kind: Tok, start: usize) -> Token {
        Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
            line: self.line,
            col: (start - self.line_start) as u32 + 1,
        }
    }

    fn error_token(&mut self, start: usize, message: &'static str) -> Token {
        self.error = message;
        if self.pos == start {
            self.pos = (start + 1).min(self.src.len());
        }
        let mut t = self.token(Tok::Error, start);
        t.end = t.end.max(t.start);
        t
    }

    /// Lexes the next token.
    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let Some(&c) = self.src.get(start) else {
            return self.token(Tok::Eof, start);
        };
        self.pos += 1;
        let simple = match c {
            b'(' => Some(Tok::LParen),
            b')' => Some(Tok::RParen),
            b'{' if self.src.get(self.pos) == Some(&b'-')
                && self.src.get(self.pos + 1) == Some(&b'#') =>
            {
                self.pos += 2;
                Some(Tok::FileMetadataBegin)
            }
            b'{' => Some(Tok::LBrace),
            b'}' => Some(Tok::RBrace),
            b'[' => Some(Tok::LSquare),
            b']' => Some(Tok::RSquare),
            b'<' => Some(Tok::Less),
            b'>' => Some(Tok::Greater),
            b':' => Some(Tok::Colon),
            b',' => Some(Tok::Comma),
            b'=' => Some(Tok::Equal),
            b'?' => Some(Tok::Question),
            b'*' => Some(Tok::Star),
            b'+' => Some(Tok::Plus),
            b'-' if self.src.get(self.pos) == Some(&b'>') => {
                self.pos += 1;
                Some(Tok::Arrow)
            }
            b'-' => Some(Tok::Minus),
            b'.' if self.src.get(self.pos..self.pos + 2) == Some(b"..") => {
                self.pos += 2;
                Some(Tok::Ellipsis)
            }
            b'.' => {
                return self.error_token(start, "expected three consecutive dots for an ellipsis")
            }
            _ => None,
        };
        if let Some(kind) = simple {
            return self.token(kind, start);
        }
        match c {
            b'%' => self.lex_prefixed(Tok::PercentIdent, start, true),
            b'^' => self.lex_prefixed(Tok::CaretIdent, start, true),
            b'#' => self.lex_prefixed(Tok::HashIdent, start, false),
            b'!' => self.lex_prefixed(Tok::ExclaimIdent, start, false),
            b'@' => {
                if self.src.get(self.pos) == Some(&b'"') {
                    self.pos += 1;
                    return match self.lex_string_body(start) {
                        Some(()) => self.token(Tok::AtIdent, start),
                        None => self.error_token(start, "unterminated string in symbol name"),
                    };
                }
                if !self.src.get(self.pos).is_some_and(|&c| is_ident_start(c)) {
                    return self
                        .error_token(start, "@ identifier expected to start with letter or '_'");
                }
                self.lex_prefixed(Tok::AtIdent, start, false)
            }
            b'"' => match self.lex_string_body(start) {
                Some(()) => self.token(Tok::String, start),
                None => self.error_token(start, "expected '\"' in string literal"),
            },
            b'0'..=b'9' => self.lex_number(start),
            c if is_ident_start(c) => {
                while self.pos < self.src.len() && is_bare_char(self.src[self.pos]) {
                    self.pos += 1;
                }
                self.token(Tok::BareIdent, start)
            }
            _ => self.error_token(start, "unexpected character"),
        }
    }

    fn lex_prefixed(&mut self, kind: Tok, start: usize, allow_digits: bool) -> Token {
        let first = self.src.get(self.pos).copied();
        match first {
            Some(c) if c.is_ascii_digit() && allow_digits => {
                while self.pos < self.src.len() && self.src[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                self.token(kind, start)
            }
            Some(c)
                if is_ident_start(c)
                    || c == b'$'
                    || c == b'.'
                    || c == b'-'
                    || c.is_ascii_digit() =>
            {
                while self.pos < self.src.len() && is_ident_char(self.src[self.pos]) {
                    self.pos += 1;
                }
                self.token(kind, start)
            }
            _ => {
                // MLIR's wording for each prefix.
                let message = match kind {
                    Tok::PercentIdent => "invalid SSA name",
                    Tok::CaretIdent => "invalid block name",
                    Tok::HashIdent => "invalid attribute name",
                    Tok::ExclaimIdent => "invalid type identifier",
                    _ => "@ identifier expected to start with letter or '_'",
                };
                self.error_token(start, message)
            }
        }
    }

    /// Lexes the rest of a string after the opening quote; `None` if unterminated.
    fn lex_string_body(&mut self, _start: usize) -> Option<()> {
        while let Some(&c) = self.src.get(self.pos) {
            self.pos += 1;
            match c {
                b'"' => return Some(()),
                // An escape skips the next character, except a newline.
                b'\\' if self.pos < self.src.len() && self.src[self.pos] != b'\n' => self.pos += 1,
                b'\n' => return None,
                _ => {}
            }
        }
        None
    }

    fn lex_number(&mut self, start: usize) -> Token {
        if self.src[start] == b'0' && self.src.get(self.pos) == Some(&b'x') {
            let digits = self.pos + 1;
            let mut p = digits;
            while p < self.src.len() && self.src[p].is_ascii_hexdigit() {
                p += 1;
            }
            if p > digits {
                self.pos = p;
                return self.token(Tok::Integer, start);
            }
        }
        while self.pos < self.src.len() && self.src[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if self.src.get(self.pos) != Some(&b'.') {
            return self.token(Tok::Integer, start);
        }
        self.pos += 1;
        while self.pos < self.src.len() && self.src[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if matches!(self.src.get(self.pos), Some(b'e' | b'E')) {
            let mut p = self.pos + 1;
            if matches!(self.src.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if self.src.get(p).is_some_and(|c| c.is_ascii_digit()) {
                while p < self.src.len() && self.src[p].is_ascii_digit() {
                    p += 1;
                }
                self.pos = p;
            }
        }
        self.token(Tok::Float, start)
    }

    /// Reads one dimension of a shape (`4`, `?`) followed by `x`, or the element type's start.
    /// Returns `Some(dim)` after consuming `dimx`, or `None` (consuming nothing) when the next
    /// text is not a dimension. A number beyond `i64` is MLIR's "invalid dimension", and leaves
    /// the lexer at its start, where the error points.
    pub fn lex_dimension(&mut self) -> Option<Result<i64, &'static str>> {
        self.skip_trivia();
        let start = self.pos;
        let mut p = start;
        let dim = if self.src.get(p) == Some(&b'?') {
            p += 1;
            Ok(crate::types::DYNAMIC)
        } else {
            while p < self.src.len() && self.src[p].is_ascii_digit() {
                p += 1;
            }
            if p == start {
                return None;
            }
            std::str::from_utf8(&self.src[start..p])
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
                .ok_or("invalid dimension")
        };
        // MLIR allows whitespace before the `x`: `vector<4 x i32>`.
        while self.src.get(p).is_some_and(|c| c.is_ascii_whitespace()) {
            p += 1;
        }
        if self.src.get(p) != Some(&b'x') {
            return None;
        }
        self.pos = if dim.is_ok() { p + 1 } else { start };
        Some(dim)
    }

    /// Reads one dimension of a vector shape: `4x` as [`Lexer::lex_dimension`] does, or a
    /// scalable `[4]x` (whitespace allowed inside), reporting which. Consumes nothing and
    /// returns `None` when the next text is neither. A malformed scalable dimension is an error
    /// with MLIR's wording, the lexer left where it points.
    pub fn lex_vector_dimension(&mut self) -> Option<(Result<i64, &'static str>, bool)> {
        self.skip_trivia();
        if self.src.get(self.pos) != Some(&b'[') {
            return self.lex_dimension().map(|d| (d, false));
        }
        self.pos += 1;
        self.skip_trivia();
        let digits = self.pos;
        while self.src.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let dim = std::str::from_utf8(&self.src[digits..self.pos])
            .ok()
            .filter(|s| !s.is_empty())
            .and_then(|s| s.parse::<i64>().ok());
        let Some(dim) = dim else {
            self.pos = digits;
            return Some((Err("invalid dimension"), true));
        };
        self.skip_trivia();
        if self.src.get(self.pos) != Some(&b']') {
            return Some((Err("missing ']' closing scalable dimension"), true));
        }
        self.pos += 1;
        if !self.skip_dimension_x() {
            return Some((Err("expected 'x' in dimension list"), true));
        }
        Some((Ok(dim), true))
    }

    /// Consumes the `x` that ends a dimension (`*x`, `[4]x`), after optional whitespace; false
    /// (consuming only whitespace) if there is none.
    pub fn skip_dimension_x(&mut self) -> bool {
        self.skip_trivia();
        if self.src.get(self.pos) == Some(&b'x') {
            self.pos += 1;
            return true;
        }
        false
    }

    /// Skips a balanced `<...>` body (for opaque dialect types and attributes), starting just
    /// after the `<`. Returns the end offset of the body (before the closing `>`), or `None` if
    /// the input ends first or a bracket closes the wrong kind of opening.
    ///
    /// As in MLIR, each closer must match the innermost opener and the `>` of `->` closes
    /// nothing, so the body read is exactly the one the printer writes back.
    pub fn skip_angle_body(&mut self) -> Option<usize> {
        let mut open: Vec<u8> = vec![b'<'];
        while let Some(&c) = self.src.get(self.pos) {
            self.pos += 1;
            match c {
                b'<' | b'(' | b'[' | b'{' => open.push(c),
                b'-' if self.src.get(self.pos) == Some(&b'>') => self.pos += 1,
                b'>' | b')' | b']' | b'}' => {
                    let opener = match c {
                        b'>' => b'<',
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if open.pop() != Some(opener) {
                        return None;
                    }
                    if open.is_empty() {
                        return Some(self.pos - 1);
                    }
                }
                b'"' => {
                    self.lex_string_body(self.pos)?;
                }
                b'\n' => {
                    self.line += 1;
                    self.line_start = self.pos;
                }
                _ => {}
            }
        }
        None
    }

    /// True if `text` is one `<...>` group, its first `<` closed by its last character as
    /// [`Lexer::skip_angle_body`] reads it (so `<a> <b>` is not).
    pub fn is_angle_group(text: &'a str) -> bool {
        let mut lex = Lexer::new(text, 1);
        lex.pos = 1;
        text.starts_with('<') && lex.skip_angle_body() == Some(text.len() - 1)
    }

    /// Moves the lexer back to `offset` (a token start it produced), for the parser's single
    /// token of lookahead.
    pub fn reset_to(&mut self, tok: &Token) {
        self.pos = tok.start as usize;
        self.line = tok.line;
        self.line_start = tok.start as usize + 1 - tok.col as usize;
    }
}
