//! Expressions of symbolic dims (`src/sym_expr.rs`): the normal form of sums and products,
//! exact divisions, and the sign test.

use dlc_graph::sym_expr::Poly;

#[test]
fn sums_and_products_have_one_normal_form() {
    let (a, b) = (Poly::symbol(0), Poly::symbol(1));
    let ab = a.mul(&b).unwrap();
    let ba = b.mul(&a).unwrap();
    assert_eq!(ab, ba);
    let twice = ab.add(&ba).unwrap();
    assert_eq!(twice, ab.scale(2).unwrap());
    assert_eq!(
        twice.sub(&ab).unwrap().sub(&ab).unwrap().as_constant(),
        Some(0)
    );
    let p = ab.scale(32).unwrap().add(&Poly::constant(-3)).unwrap();
    assert_eq!(p.to_string(), "32 * s0 * s1 - 3");
}

#[test]
fn exact_divisions_stay_polynomials() {
    let (b, s) = (Poly::symbol(0), Poly::symbol(1));
    let bs = b.mul(&s).unwrap();
    let total = bs.scale(32).unwrap();
    assert_eq!(total.exact_div(32), Some(bs.clone()));
    assert_eq!(total.exact_div_term(&bs).unwrap().as_constant(), Some(32));
    assert_eq!(total.exact_div(3), None);
    assert_eq!(bs.add(&Poly::constant(1)).unwrap().exact_div_term(&b), None);
}

#[test]
fn nonnegative_when_every_coefficient_is_positive() {
    let p = Poly::symbol(0).add(&Poly::constant(2)).unwrap();
    assert!(p.nonneg(|_| true));
    assert!(!p.sub(&Poly::constant(3)).unwrap().nonneg(|_| true));
    assert!(Poly::constant(0).nonneg(|_| true));
}
