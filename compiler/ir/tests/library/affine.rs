//! Affine expressions (`dlc_ir::affine`): the constructors simplify as MLIR does, and the text
//! they print is MLIR's.

use dlc_ir::affine::{AffineExpr, AffineOp};

fn text(e: &AffineExpr) -> String {
    let mut s = String::new();
    e.write(&mut s);
    s
}

#[test]
fn simplifies_and_prints_like_mlir() {
    let d0 = AffineExpr::Dim(0);
    let d1 = AffineExpr::Dim(1);
    let c = AffineExpr::Constant;
    let sub = |l, r| AffineExpr::sum(l, AffineExpr::negated(r));
    assert_eq!(text(&AffineExpr::sum(c(4), d0.clone())), "d0 + 4");
    assert_eq!(text(&sub(d0.clone(), d1.clone())), "d0 - d1");
    let twice = AffineExpr::product(d1.clone(), c(2));
    assert_eq!(text(&sub(d0.clone(), twice)), "d0 - d1 * 2");
    assert_eq!(text(&AffineExpr::negated(d0.clone())), "-d0");
    let plus1 = AffineExpr::sum(d0.clone(), c(1));
    assert_eq!(text(&AffineExpr::product(plus1, c(3))), "(d0 + 1) * 3");
    let like = AffineExpr::sum(AffineExpr::product(d0.clone(), c(-3)), d0.clone());
    assert_eq!(text(&like), "d0 * -2");
    assert_eq!(text(&AffineExpr::div(AffineOp::Mod, c(-7), c(3))), "2");
    assert_eq!(
        text(&AffineExpr::div(AffineOp::FloorDiv, c(-7), c(2))),
        "-4"
    );
    assert_eq!(text(&AffineExpr::div(AffineOp::CeilDiv, c(7), c(2))), "4");
}
