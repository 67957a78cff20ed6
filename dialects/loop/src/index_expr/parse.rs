//! A tiny text syntax for index expressions, so test tables and debug output stay readable:
//! `(i*8 + j) % 8`, `min(x, 4) - y/2`, with `/` as floor division and `%` as floor modulus
//! (C precedence: `*`, `/`, `%` bind tighter than `+`, `-`, all left-associative). Names are
//! free symbols numbered by their position in the caller's name table.

use super::expr::{IndexExpr, Symbol};

/// Parses `text`; `names[i]` is `Symbol::Free(i)`. The result is canonical but not simplified.
pub fn parse(text: &str, names: &[&str]) -> Result<IndexExpr, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        names,
    };
    let e = p.sum()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(format!("unexpected `{}` at {}", &text[p.pos..], p.pos));
    }
    Ok(e)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    names: &'a [&'a str],
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected `{}` at {}", c as char, self.pos))
        }
    }

    fn sum(&mut self) -> Result<IndexExpr, String> {
        let mut e = self.product()?;
        loop {
            if self.eat(b'+') {
                e = &e + &self.product()?;
            } else if self.eat(b'-') {
                e = &e - &self.product()?;
            } else {
                return Ok(e);
            }
        }
    }

    fn product(&mut self) -> Result<IndexExpr, String> {
        let mut e = self.unary()?;
        loop {
            if self.eat(b'*') {
                e = &e * &self.unary()?;
            } else if self.eat(b'/') {
                e = e.floordiv(&self.unary()?);
            } else if self.eat(b'%') {
                e = e.modulo(&self.unary()?);
            } else {
                return Ok(e);
            }
        }
    }

    fn unary(&mut self) -> Result<IndexExpr, String> {
        if self.eat(b'-') {
            return Ok(-&self.unary()?);
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<IndexExpr, String> {
        if self.eat(b'(') {
            let e = self.sum()?;
            self.expect(b')')?;
            return Ok(e);
        }
        self.skip_ws();
        let start = self.pos;
        let digits = self.s[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits > 0 {
            self.pos += digits;
            let text = std::str::from_utf8(&self.s[start..self.pos]).map_err(|e| e.to_string())?;
            return text
                .parse::<i64>()
                .map(IndexExpr::constant)
                .map_err(|e| format!("bad integer `{text}`: {e}"));
        }
        let len = self.s[start..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        if len == 0 {
            return Err(format!("expected an operand at {start}"));
        }
        self.pos += len;
        let word = std::str::from_utf8(&self.s[start..self.pos]).map_err(|e| e.to_string())?;
        if word == "min" || word == "max" {
            self.expect(b'(')?;
            let a = self.sum()?;
            self.expect(b',')?;
            let b = self.sum()?;
            self.expect(b')')?;
            return Ok(if word == "min" {
                a.minimum(&b)
            } else {
                a.maximum(&b)
            });
        }
        match self.names.iter().position(|n| *n == word) {
            Some(i) => Ok(IndexExpr::symbol(Symbol::Free(i as u32))),
            None => Err(format!("unknown symbol `{word}`")),
        }
    }
}
