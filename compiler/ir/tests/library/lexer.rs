//! The lexer (`dlc_ir::parser::lexer`): the kinds of MLIR tokens, their lines and columns, and
//! the message of a character that starts no token.

use dlc_ir::parser::lexer::{Lexer, Tok};

fn kinds(src: &str) -> Vec<Tok> {
    let mut lx = Lexer::new(src, 1);
    let mut out = Vec::new();
    loop {
        let t = lx.next_token();
        out.push(t.kind);
        if t.kind == Tok::Eof {
            return out;
        }
    }
}

#[test]
fn lexes_mlir_tokens() {
    use Tok::*;
    assert_eq!(
        kinds("%0:2 = \"a.b\"(%x#1) -> ^bb0 @f // c\n 1.5e-3 0x1F -3 !t #a"),
        vec![
            PercentIdent,
            Colon,
            Integer,
            Equal,
            String,
            LParen,
            PercentIdent,
            HashIdent,
            RParen,
            Arrow,
            CaretIdent,
            AtIdent,
            Float,
            Integer,
            Minus,
            Integer,
            ExclaimIdent,
            HashIdent,
            Eof
        ]
    );
}

#[test]
fn tracks_lines_and_columns() {
    let mut lx = Lexer::new("a\n  b", 1);
    lx.next_token();
    let b = lx.next_token();
    assert_eq!((b.line, b.col), (2, 3));
}

#[test]
fn reports_bad_characters() {
    let mut lx = Lexer::new("`", 1);
    assert_eq!(lx.next_token().kind, Tok::Error);
    assert_eq!(lx.error, "unexpected character");
}
