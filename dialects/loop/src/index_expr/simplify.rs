//! Simplification in levels, after CINN's `IndexExpr::Normalize`.
//!
//! | level        | what it adds                                                              |
//! |--------------|---------------------------------------------------------------------------|
//! | `Fold`       | constant folding and the identities with 0 and 1 (`x*1`, `x+0`, `x/1`, `x%1`); with the canonical form this already gives `(a+b)-b → a` and `2a+3a+1+2 → 5a+3` |
//! | `Sequential` | local rewrites of one div/mod/min/max node, true for every value: `(q*d + r)/d → q + r/d`, `(q*d + r)%d → r%d`, `(x/a)/b → x/(a*b)`, `(x%(a*b))/a → (x/a)%b`, `(x%(a*b))%a → x%a`, `min(x+c, y+c) → min(x, y)+c` |
//! | `Pairwise`   | rules that match two terms of one sum: `c*k*(x/k) + c*(x%k) → c*x`, `c*x - c*k*(x/k) → c*(x%k)` |
//! | `Bounds`     | rules that need ranges (from [`Bounds`] and from the operators themselves): `x%n → x` and `x/n → 0` when `0 ≤ x < n`, shifts when `x` stays in one period, `min`/`max` with provable order |
//!
//! Each level includes the ones before it. A pass rebuilds the expression bottom-up, applying
//! the rules at each node; passes repeat until nothing changes (at most [`MAX_PASSES`]).

use super::bounds::{range_of, Bounds};
use super::expr::{monomial_expr, Atom, IndexExpr, Monomial};

/// How much simplification to do; each level includes the previous ones.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Level {
    /// Constant folding only.
    Fold,
    /// Plus rewrites of single div/mod/min/max nodes that hold for all values.
    Sequential,
    /// Plus rules matching pairs of terms in a sum.
    Pairwise,
    /// Plus rules that use ranges of symbols and subexpressions.
    Bounds,
}

/// Passes before giving up on reaching a fixed point.
pub const MAX_PASSES: usize = 8;

/// Simplifies `e` at the strongest level, using `bounds`.
pub fn simplify(e: &IndexExpr, bounds: &Bounds) -> IndexExpr {
    simplify_at(e, Level::Bounds, bounds)
}

/// Simplifies `e` at `level`; `bounds` is consulted only at [`Level::Bounds`].
pub fn simplify_at(e: &IndexExpr, level: Level, bounds: &Bounds) -> IndexExpr {
    let none = Bounds::new();
    let s = Simplifier {
        level,
        bounds: if level == Level::Bounds {
            bounds
        } else {
            &none
        },
    };
    let mut cur = e.clone();
    for _ in 0..MAX_PASSES {
        let next = s.expr(&cur);
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

struct Simplifier<'a> {
    level: Level,
    bounds: &'a Bounds,
}

impl Simplifier<'_> {
    fn expr(&self, e: &IndexExpr) -> IndexExpr {
        let mut acc = IndexExpr::constant(e.constant_term());
        for (m, c) in e.terms() {
            let mut p = IndexExpr::constant(*c);
            for a in m {
                p = &p * &self.atom(a);
            }
            acc = &acc + &p;
        }
        if self.level >= Level::Pairwise {
            acc = pairwise(acc);
        }
        acc
    }

    fn atom(&self, a: &Atom) -> IndexExpr {
        match a {
            Atom::Sym(_) => IndexExpr::atom(a.clone()),
            Atom::FloorDiv(x, y) => self.floordiv(&self.expr(x), &self.expr(y)),
            Atom::Mod(x, y) => self.modulo(&self.expr(x), &self.expr(y)),
            Atom::Min(x, y) => self.min_max(&self.expr(x), &self.expr(y), true),
            Atom::Max(x, y) => self.min_max(&self.expr(x), &self.expr(y), false),
        }
    }

    fn floordiv(&self, x: &IndexExpr, d: &IndexExpr) -> IndexExpr {
        let base = x.floordiv(d);
        if self.level == Level::Fold || !matches!(base.as_atom(), Some(Atom::FloorDiv(..))) {
            return base;
        }
        match x.as_atom() {
            // (y / a) / d → y / (a * d): divisors are positive wherever the expression has a
            // value, and there the identity holds.
            Some(Atom::FloorDiv(y, a)) => {
                return self.floordiv(y, &(&**a * d));
            }
            // (y % (d * k)) / d → (y / d) % k.
            Some(Atom::Mod(y, m)) => {
                if let (Some(m), Some(c)) = (m.as_constant(), d.as_constant()) {
                    if c > 0 && m % c == 0 {
                        let q = self.floordiv(y, d);
                        return self.modulo(&q, &IndexExpr::constant(m / c));
                    }
                }
            }
            _ => {}
        }
        if let Some((q, r)) = split(x, d) {
            // (q*d + r) / d → q + r/d.
            return &q + &self.floordiv(&r, d);
        }
        if self.level == Level::Bounds {
            let (lo, hi) = range_of(x, self.bounds);
            if let Some(c) = d.as_constant().filter(|c| *c > 0) {
                if lo > i64::MIN && hi < i64::MAX && lo.div_euclid(c) == hi.div_euclid(c) {
                    return IndexExpr::constant(lo.div_euclid(c));
                }
            } else if lo >= 0 && self.lt(x, d) {
                return IndexExpr::constant(0);
            }
        }
        base
    }

    fn modulo(&self, x: &IndexExpr, d: &IndexExpr) -> IndexExpr {
        let base = x.modulo(d);
        if self.level == Level::Fold || !matches!(base.as_atom(), Some(Atom::Mod(..))) {
            return base;
        }
        if let Some(Atom::Mod(y, m)) = x.as_atom() {
            // (y % d) % d → y % d; (y % (d*k)) % d → y % d.
            if **m == *d {
                return x.clone();
            }
            if let (Some(m), Some(c)) = (m.as_constant(), d.as_constant()) {
                if c > 0 && m % c == 0 {
                    return self.modulo(y, d);
                }
            }
        }
        if let Some((_, r)) = split(x, d) {
            return self.modulo(&r, d);
        }
        if self.level == Level::Bounds {
            let (lo, hi) = range_of(x, self.bounds);
            if let Some(c) = d.as_constant().filter(|c| *c > 0) {
                if lo > i64::MIN && hi < i64::MAX && lo.div_euclid(c) == hi.div_euclid(c) {
                    return x - &IndexExpr::constant(lo.div_euclid(c) * c);
                }
            } else if lo >= 0 && self.lt(x, d) {
                return x.clone();
            }
        }
        base
    }

    fn min_max(&self, x: &IndexExpr, y: &IndexExpr, is_min: bool) -> IndexExpr {
        let pick = |a: &IndexExpr, b: &IndexExpr| if is_min { a.minimum(b) } else { a.maximum(b) };
        if self.level == Level::Fold {
            return pick(x, y);
        }
        // Provable order: the difference's range has one sign.
        let (lo, hi) = range_of(&(y - x), self.bounds);
        if lo >= 0 {
            return if is_min { x.clone() } else { y.clone() };
        }
        if hi <= 0 {
            return if is_min { y.clone() } else { x.clone() };
        }
        // Common terms move out: min(a + t, b + t) → min(a, b) + t.
        let common = common_part(x, y);
        if common != IndexExpr::constant(0) {
            return &pick(&(x - &common), &(y - &common)) + &common;
        }
        pick(x, y)
    }

    fn lt(&self, a: &IndexExpr, b: &IndexExpr) -> bool {
        range_of(&(b - a), self.bounds).0 >= 1
    }
}

/// Splits `x` into `d*q + r` taking into `q` every term that `d` divides exactly (and, for a
/// positive constant `d`, the multiple of `d` in the constant), when `q` is not zero.
fn split(x: &IndexExpr, d: &IndexExpr) -> Option<(IndexExpr, IndexExpr)> {
    let mut q = Vec::new();
    let mut r = Vec::new();
    let (qc, rc);
    if let Some(c) = d.as_constant() {
        if c <= 0 {
            return None;
        }
        for (m, coef) in x.terms() {
            if coef % c == 0 {
                q.push((m.clone(), coef / c));
            } else {
                r.push((m.clone(), *coef));
            }
        }
        qc = x.constant_term().div_euclid(c);
        rc = x.constant_term().rem_euclid(c);
    } else {
        let [(dm, dk)] = d.terms() else {
            return None;
        };
        if d.constant_term() != 0 {
            return None;
        }
        for (m, coef) in x.terms() {
            match (coef % dk == 0).then(|| remove_factors(m, dm)).flatten() {
                Some(rest) => q.push((rest, coef / dk)),
                None => r.push((m.clone(), *coef)),
            }
        }
        qc = 0;
        rc = x.constant_term();
    }
    if q.is_empty() && qc == 0 {
        return None;
    }
    Some((IndexExpr::from_terms(q, qc), IndexExpr::from_terms(r, rc)))
}

/// `m` without the factors of `f` (both sorted multisets), if `f` divides `m`.
fn remove_factors(m: &[Atom], f: &[Atom]) -> Option<Monomial> {
    let mut rest: Monomial = m.iter().cloned().collect();
    for a in f {
        let i = rest.iter().position(|x| x == a)?;
        rest.remove(i);
    }
    Some(rest)
}

/// The terms `x` and `y` share with equal coefficients, plus the smaller constant.
fn common_part(x: &IndexExpr, y: &IndexExpr) -> IndexExpr {
    let terms = x
        .terms()
        .iter()
        .filter(|t| y.terms().contains(t))
        .cloned()
        .collect();
    IndexExpr::from_terms(terms, x.constant_term().min(y.constant_term()))
}

/// Pairwise rules on one sum, repeated while one applies.
fn pairwise(mut sum: IndexExpr) -> IndexExpr {
    // Each rule removes a div or mod term; the cap only guards against a rule bug.
    'again: for _ in 0..64 {
        for (m, c) in sum.terms() {
            let [atom] = &m[..] else { continue };
            match atom {
                // c*k*(x/k) + c*(x%k) → c*x.
                Atom::Mod(x, k) => {
                    let div = IndexExpr::atom(Atom::FloorDiv(x.clone(), k.clone()));
                    let t = (&div * k).scale(*c);
                    if sum.terms().len() >= 2 && sum.contains_terms(&t) {
                        let this = monomial_expr(m, *c);
                        sum = &(&(&sum - &t) - &this) + &x.scale(*c);
                        continue 'again;
                    }
                }
                // c*x - c*k*(x/k) → c*(x%k), for a constant k.
                Atom::FloorDiv(x, k) => {
                    let Some(k) = k.as_constant().filter(|k| *k > 0) else {
                        continue;
                    };
                    if c % k != 0 {
                        continue;
                    }
                    let scale = -(c / k);
                    let cx = x.scale(scale);
                    if sum.contains_terms(&cx) {
                        let this = monomial_expr(m, *c);
                        let rem = x.modulo(&IndexExpr::constant(k)).scale(scale);
                        let cx_terms = IndexExpr::from_terms(cx.terms().to_vec(), 0);
                        let shift = IndexExpr::constant(cx.constant_term());
                        sum = &(&(&(&sum - &this) - &cx_terms) + &rem) - &shift;
                        continue 'again;
                    }
                }
                _ => {}
            }
        }
        break;
    }
    sum
}
