//! Known ranges of symbols, interval arithmetic over expressions, and the proofs built on it.
//!
//! [`range_of`] is sound but not tight: it evaluates each term's interval independently
//! (so `x - x` would be `[lo - hi, hi - lo]`, which is why the proofs simplify the difference
//! first, where `x - x` is already `0`). Unknown symbols range over all of `i64`; bounds
//! saturate at `i64::MIN`/`i64::MAX`, which stand for -∞/+∞.

use super::expr::{Atom, IndexExpr, Symbol};
use super::simplify::simplify;
use std::collections::HashMap;

/// Known inclusive ranges `[lo, hi]` of symbols.
#[derive(Clone, Debug, Default)]
pub struct Bounds {
    ranges: HashMap<Symbol, (i64, i64)>,
}

impl Bounds {
    /// No known ranges.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `lo <= s <= hi` (replacing what was known).
    pub fn insert(&mut self, s: Symbol, lo: i64, hi: i64) -> &mut Self {
        self.ranges.insert(s, (lo, hi));
        self
    }

    /// Records `lo <= s <= hi` and returns `self`, for building tables.
    pub fn with(mut self, s: Symbol, lo: i64, hi: i64) -> Self {
        self.insert(s, lo, hi);
        self
    }

    /// The known range of `s`.
    pub fn get(&self, s: Symbol) -> Option<(i64, i64)> {
        self.ranges.get(&s).copied()
    }
}

/// The "infinity" of the internal interval arithmetic, well inside `i128`.
const INF: i128 = 1 << 100;

type Interval = (i128, i128);

fn clamp(v: i128) -> i128 {
    v.clamp(-INF, INF)
}

fn widen(v: i64) -> i128 {
    match v {
        i64::MIN => -INF,
        i64::MAX => INF,
        v => v as i128,
    }
}

fn narrow(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn mul(a: Interval, b: Interval) -> Interval {
    let p = [
        a.0.saturating_mul(b.0),
        a.0.saturating_mul(b.1),
        a.1.saturating_mul(b.0),
        a.1.saturating_mul(b.1),
    ];
    let lo = p.iter().copied().min().unwrap_or(0);
    let hi = p.iter().copied().max().unwrap_or(0);
    (clamp(lo), clamp(hi))
}

/// The range `[lo, hi]` of `e` when its symbols lie in `bounds`.
pub fn range_of(e: &IndexExpr, bounds: &Bounds) -> (i64, i64) {
    let (lo, hi) = interval(e, bounds);
    (narrow(lo), narrow(hi))
}

fn interval(e: &IndexExpr, bounds: &Bounds) -> Interval {
    let c = e.constant_term() as i128;
    let mut acc = (c, c);
    for (m, coef) in e.terms() {
        let mut p = (*coef as i128, *coef as i128);
        for a in m {
            p = mul(p, atom_interval(a, bounds));
        }
        acc = (clamp(acc.0 + p.0), clamp(acc.1 + p.1));
    }
    acc
}

fn atom_interval(a: &Atom, bounds: &Bounds) -> Interval {
    match a {
        Atom::Sym(s) => bounds
            .get(*s)
            .map_or((-INF, INF), |(lo, hi)| (widen(lo), widen(hi))),
        Atom::FloorDiv(x, y) => {
            let (x, y) = (interval(x, bounds), interval(y, bounds));
            if y.0 <= 0 {
                return (-INF, INF);
            }
            // Monotone in x, and for x of one sign monotone in y: the corners bound it.
            let q = [
                x.0.div_euclid(y.0),
                x.0.div_euclid(y.1),
                x.1.div_euclid(y.0),
                x.1.div_euclid(y.1),
            ];
            let lo = q.iter().copied().min().unwrap_or(0);
            let hi = q.iter().copied().max().unwrap_or(0);
            (lo, hi)
        }
        Atom::Mod(x, y) => {
            let (x, y) = (interval(x, bounds), interval(y, bounds));
            if y.0 <= 0 {
                return (-INF, INF);
            }
            if y.0 == y.1 && y.0 < INF {
                let d = y.0;
                // The whole of x within one period: the map is a shift.
                if x.0 > -INF && x.1 < INF && x.0.div_euclid(d) == x.1.div_euclid(d) {
                    return (x.0.rem_euclid(d), x.1.rem_euclid(d));
                }
            }
            if x.0 >= 0 && x.1 < y.0 {
                return x;
            }
            (0, clamp(y.1 - 1))
        }
        Atom::Min(x, y) => {
            let (x, y) = (interval(x, bounds), interval(y, bounds));
            (x.0.min(y.0), x.1.min(y.1))
        }
        Atom::Max(x, y) => {
            let (x, y) = (interval(x, bounds), interval(y, bounds));
            (x.0.max(y.0), x.1.max(y.1))
        }
    }
}

/// The range of `b - a` after simplifying the difference.
fn diff_range(a: &IndexExpr, b: &IndexExpr, bounds: &Bounds) -> (i64, i64) {
    range_of(&simplify(&(b - a), bounds), bounds)
}

/// Whether `a <= b` for every value of the symbols within `bounds`.
pub fn prove_le(a: &IndexExpr, b: &IndexExpr, bounds: &Bounds) -> bool {
    diff_range(a, b, bounds).0 >= 0
}

/// Whether `a < b` for every value of the symbols within `bounds`.
pub fn prove_lt(a: &IndexExpr, b: &IndexExpr, bounds: &Bounds) -> bool {
    diff_range(a, b, bounds).0 >= 1
}

/// Whether `a == b` for every value of the symbols within `bounds`.
pub fn prove_eq(a: &IndexExpr, b: &IndexExpr, bounds: &Bounds) -> bool {
    diff_range(a, b, bounds) == (0, 0)
}

/// Decides `a == b` when it can: `Some(true)` if provably equal, `Some(false)` if provably
/// different everywhere, `None` if unknown.
pub fn equal(a: &IndexExpr, b: &IndexExpr, bounds: &Bounds) -> Option<bool> {
    let (lo, hi) = diff_range(a, b, bounds);
    if (lo, hi) == (0, 0) {
        Some(true)
    } else if lo > 0 || hi < 0 {
        Some(false)
    } else {
        None
    }
}
