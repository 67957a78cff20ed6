//! The expression type and its canonical sum-of-products form.
//!
//! An [`IndexExpr`] is `c0 + Σ ci * mi`: a constant plus terms, each a non-zero coefficient times
//! a [`Monomial`] (a sorted product of [`Atom`]s). Terms are kept sorted by monomial with merged
//! coefficients, so two expressions that differ only by reassociation, commutation or
//! distribution are the same value and compare equal with `==`. Atoms that are not symbols
//! (`floordiv`, `mod`, `min`, `max`) hold canonical operands, and `min`/`max` sort theirs.
//!
//! The constructors here fold constants and the identities with 0 and 1 (CINN's level 0); every
//! other rewrite lives in [`super::simplify`](mod@super::simplify). Integer arithmetic wraps at 64 bits, as `index`
//! does on a 64-bit target.

use dlc_ir::Value;
use smallvec::{smallvec, SmallVec};
use std::fmt;
use std::sync::Arc;

/// A leaf of an index expression: an SSA value (loop induction variable, symbolic dim, kernel
/// index argument) or a free symbol numbered by the caller (tests, analyses without IR).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Symbol {
    /// An IR value of integer or index type.
    Value(Value),
    /// A symbol not tied to IR; printed as its name in a [`super::parse()`] name table.
    Free(u32),
}

/// A factor of a monomial that is not a constant.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Atom {
    /// A symbol.
    Sym(Symbol),
    /// `floor(lhs / rhs)`; `rhs` is positive wherever the expression is evaluated.
    FloorDiv(Arc<IndexExpr>, Arc<IndexExpr>),
    /// `lhs - rhs * floor(lhs / rhs)`: in `[0, rhs)` for a positive `rhs`.
    Mod(Arc<IndexExpr>, Arc<IndexExpr>),
    /// The smaller operand; operands sorted.
    Min(Arc<IndexExpr>, Arc<IndexExpr>),
    /// The larger operand; operands sorted.
    Max(Arc<IndexExpr>, Arc<IndexExpr>),
}

/// A product of atoms, sorted (a repeated atom is a power). The empty product is 1.
pub type Monomial = SmallVec<[Atom; 1]>;

/// An integer expression in canonical sum-of-products form.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct IndexExpr {
    /// `(monomial, coefficient)`, sorted by monomial, coefficients non-zero, monomials non-empty.
    pub(crate) terms: Vec<(Monomial, i64)>,
    /// The constant term.
    pub(crate) constant: i64,
}

impl IndexExpr {
    /// The constant `c`.
    pub fn constant(c: i64) -> Self {
        IndexExpr {
            terms: Vec::new(),
            constant: c,
        }
    }

    /// The symbol `s`.
    pub fn symbol(s: Symbol) -> Self {
        Self::atom(Atom::Sym(s))
    }

    /// The IR value `v` as a symbol.
    pub fn value(v: Value) -> Self {
        Self::symbol(Symbol::Value(v))
    }

    /// The free symbol number `n`.
    pub fn free(n: u32) -> Self {
        Self::symbol(Symbol::Free(n))
    }

    /// The single atom `a` with coefficient 1.
    pub fn atom(a: Atom) -> Self {
        IndexExpr {
            terms: vec![(smallvec![a], 1)],
            constant: 0,
        }
    }

    /// The value when the expression is a constant.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// The atom when the expression is exactly one atom (coefficient 1, no constant).
    pub fn as_atom(&self) -> Option<&Atom> {
        match (&self.terms[..], self.constant) {
            ([(m, 1)], 0) if m.len() == 1 => Some(&m[0]),
            _ => None,
        }
    }

    /// The symbol when the expression is exactly one symbol.
    pub fn as_symbol(&self) -> Option<Symbol> {
        match self.as_atom() {
            Some(Atom::Sym(s)) => Some(*s),
            _ => None,
        }
    }

    /// The `(monomial, coefficient)` terms, sorted, without the constant.
    pub fn terms(&self) -> &[(Monomial, i64)] {
        &self.terms
    }

    /// The constant term.
    pub fn constant_term(&self) -> i64 {
        self.constant
    }

    /// Builds `constant + Σ terms` from unsorted, unmerged terms.
    pub(crate) fn from_terms(mut terms: Vec<(Monomial, i64)>, constant: i64) -> Self {
        for (m, _) in &mut terms {
            m.sort();
        }
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut merged: Vec<(Monomial, i64)> = Vec::with_capacity(terms.len());
        for (m, c) in terms {
            match merged.last_mut() {
                Some((last, lc)) if *last == m => *lc = lc.wrapping_add(c),
                _ => merged.push((m, c)),
            }
        }
        let mut constant = constant;
        merged.retain(|(m, c)| {
            if m.is_empty() {
                constant = constant.wrapping_add(*c);
                false
            } else {
                *c != 0
            }
        });
        IndexExpr {
            terms: merged,
            constant,
        }
    }

    /// `self * k`.
    pub fn scale(&self, k: i64) -> Self {
        if k == 0 {
            return Self::constant(0);
        }
        IndexExpr {
            terms: self
                .terms
                .iter()
                .map(|(m, c)| (m.clone(), c.wrapping_mul(k)))
                .collect(),
            constant: self.constant.wrapping_mul(k),
        }
    }

    /// `floor(self / rhs)`, folding constants and division by 1. A constant divisor ≤ 0 is kept
    /// as written (the expression has no value there).
    pub fn floordiv(&self, rhs: &IndexExpr) -> Self {
        match (self.as_constant(), rhs.as_constant()) {
            (_, Some(1)) => self.clone(),
            (Some(0), _) => Self::constant(0),
            (Some(a), Some(b)) if b > 0 => Self::constant(a.div_euclid(b)),
            _ => Self::atom(Atom::FloorDiv(
                Arc::new(self.clone()),
                Arc::new(rhs.clone()),
            )),
        }
    }

    /// `self mod rhs` (floor semantics), folding constants and modulus 1.
    pub fn modulo(&self, rhs: &IndexExpr) -> Self {
        match (self.as_constant(), rhs.as_constant()) {
            (_, Some(1)) | (Some(0), _) => Self::constant(0),
            (Some(a), Some(b)) if b > 0 => Self::constant(a.rem_euclid(b)),
            _ => Self::atom(Atom::Mod(Arc::new(self.clone()), Arc::new(rhs.clone()))),
        }
    }

    /// `min(self, rhs)`, folding constants and equal operands.
    pub fn minimum(&self, rhs: &IndexExpr) -> Self {
        match (self.as_constant(), rhs.as_constant()) {
            (Some(a), Some(b)) => Self::constant(a.min(b)),
            _ if self == rhs => self.clone(),
            _ => {
                let (a, b) = sorted(self, rhs);
                Self::atom(Atom::Min(a, b))
            }
        }
    }

    /// `max(self, rhs)`, folding constants and equal operands.
    pub fn maximum(&self, rhs: &IndexExpr) -> Self {
        match (self.as_constant(), rhs.as_constant()) {
            (Some(a), Some(b)) => Self::constant(a.max(b)),
            _ if self == rhs => self.clone(),
            _ => {
                let (a, b) = sorted(self, rhs);
                Self::atom(Atom::Max(a, b))
            }
        }
    }

    /// The value under `env`, or `None` where a divisor is not positive.
    pub fn eval(&self, env: &dyn Fn(Symbol) -> i64) -> Option<i64> {
        let mut sum = self.constant;
        for (m, c) in &self.terms {
            let mut p = *c;
            for a in m {
                p = p.wrapping_mul(a.eval(env)?);
            }
            sum = sum.wrapping_add(p);
        }
        Some(sum)
    }

    /// Every symbol the expression mentions, sorted and deduplicated.
    pub fn symbols(&self) -> Vec<Symbol> {
        let mut out = Vec::new();
        self.collect_symbols(&mut out);
        out.sort();
        out.dedup();
        out
    }

    fn collect_symbols(&self, out: &mut Vec<Symbol>) {
        for (m, _) in &self.terms {
            for a in m {
                match a {
                    Atom::Sym(s) => out.push(*s),
                    Atom::FloorDiv(x, y) | Atom::Mod(x, y) | Atom::Min(x, y) | Atom::Max(x, y) => {
                        x.collect_symbols(out);
                        y.collect_symbols(out);
                    }
                }
            }
        }
    }

    /// Whether `self` has every term of `part` with the same coefficient (constants are not
    /// compared); false for a constant `part`.
    pub(crate) fn contains_terms(&self, part: &IndexExpr) -> bool {
        !part.terms.is_empty()
            && part.terms.iter().all(|(m, c)| {
                self.terms
                    .binary_search_by(|(x, _)| x.cmp(m))
                    .is_ok_and(|i| self.terms[i].1 == *c)
            })
    }

    /// Prints with free symbols named by `names` (`Free(i)` is `names[i]`, or `s<i>`).
    pub fn display<'a>(&'a self, names: &'a [&'a str]) -> impl fmt::Display + 'a {
        Named { expr: self, names }
    }
}

impl Atom {
    /// The value under `env`, or `None` where a divisor is not positive.
    pub fn eval(&self, env: &dyn Fn(Symbol) -> i64) -> Option<i64> {
        Some(match self {
            Atom::Sym(s) => env(*s),
            Atom::FloorDiv(x, y) => {
                let d = y.eval(env)?;
                if d <= 0 {
                    return None;
                }
                x.eval(env)?.div_euclid(d)
            }
            Atom::Mod(x, y) => {
                let d = y.eval(env)?;
                if d <= 0 {
                    return None;
                }
                x.eval(env)?.rem_euclid(d)
            }
            Atom::Min(x, y) => x.eval(env)?.min(y.eval(env)?),
            Atom::Max(x, y) => x.eval(env)?.max(y.eval(env)?),
        })
    }
}

fn sorted(a: &IndexExpr, b: &IndexExpr) -> (Arc<IndexExpr>, Arc<IndexExpr>) {
    if a <= b {
        (Arc::new(a.clone()), Arc::new(b.clone()))
    } else {
        (Arc::new(b.clone()), Arc::new(a.clone()))
    }
}

/// The product of a monomial's atoms as an expression.
pub(crate) fn monomial_expr(m: &[Atom], coefficient: i64) -> IndexExpr {
    IndexExpr::from_terms(vec![(m.iter().cloned().collect(), coefficient)], 0)
}

impl From<i64> for IndexExpr {
    fn from(c: i64) -> Self {
        IndexExpr::constant(c)
    }
}

impl std::ops::Add for &IndexExpr {
    type Output = IndexExpr;
    fn add(self, rhs: &IndexExpr) -> IndexExpr {
        let mut terms = self.terms.clone();
        terms.extend(rhs.terms.iter().cloned());
        IndexExpr::from_terms(terms, self.constant.wrapping_add(rhs.constant))
    }
}

impl std::ops::Neg for &IndexExpr {
    type Output = IndexExpr;
    fn neg(self) -> IndexExpr {
        self.scale(-1)
    }
}

impl std::ops::Sub for &IndexExpr {
    type Output = IndexExpr;
    fn sub(self, rhs: &IndexExpr) -> IndexExpr {
        self + &(-rhs)
    }
}

impl std::ops::Mul for &IndexExpr {
    type Output = IndexExpr;
    /// Distributes: `(a + b) * (c + d)` is `ac + ad + bc + bd`.
    fn mul(self, rhs: &IndexExpr) -> IndexExpr {
        let mut terms = Vec::new();
        let lhs_all = self
            .terms
            .iter()
            .cloned()
            .chain(std::iter::once((Monomial::new(), self.constant)));
        for (lm, lc) in lhs_all {
            if lc == 0 {
                continue;
            }
            for (rm, rc) in rhs
                .terms
                .iter()
                .cloned()
                .chain(std::iter::once((Monomial::new(), rhs.constant)))
            {
                if rc == 0 {
                    continue;
                }
                let mut m = lm.clone();
                m.extend(rm);
                terms.push((m, lc.wrapping_mul(rc)));
            }
        }
        IndexExpr::from_terms(terms, 0)
    }
}

macro_rules! owned_ops {
    ($($tr:ident $f:ident),*) => {$(
        impl std::ops::$tr for IndexExpr {
            type Output = IndexExpr;
            fn $f(self, rhs: IndexExpr) -> IndexExpr { std::ops::$tr::$f(&self, &rhs) }
        }
        impl std::ops::$tr<i64> for IndexExpr {
            type Output = IndexExpr;
            fn $f(self, rhs: i64) -> IndexExpr { std::ops::$tr::$f(&self, &IndexExpr::constant(rhs)) }
        }
    )*};
}
owned_ops!(Add add, Sub sub, Mul mul);

struct Named<'a> {
    expr: &'a IndexExpr,
    names: &'a [&'a str],
}

impl Named<'_> {
    fn sub<'b>(&'b self, e: &'b IndexExpr) -> Named<'b> {
        Named {
            expr: e,
            names: self.names,
        }
    }

    /// An operand of `/` or `%`, in parentheses unless it is one factor.
    fn operand(&self, e: &IndexExpr) -> String {
        let simple = e.as_constant().is_some_and(|c| c >= 0) || e.as_atom().is_some();
        if simple {
            self.sub(e).to_string()
        } else {
            format!("({})", self.sub(e))
        }
    }

    fn atom(&self, a: &Atom, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match a {
            Atom::Sym(Symbol::Free(i)) => match self.names.get(*i as usize) {
                Some(n) => write!(f, "{n}"),
                None => write!(f, "s{i}"),
            },
            Atom::Sym(Symbol::Value(v)) => write!(f, "%v{}", v.index()),
            Atom::FloorDiv(x, y) => write!(f, "({} / {})", self.operand(x), self.operand(y)),
            Atom::Mod(x, y) => write!(f, "({} % {})", self.operand(x), self.operand(y)),
            Atom::Min(x, y) => write!(f, "min({}, {})", self.sub(x), self.sub(y)),
            Atom::Max(x, y) => write!(f, "max({}, {})", self.sub(x), self.sub(y)),
        }
    }
}

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.expr;
        if e.terms.is_empty() {
            return write!(f, "{}", e.constant);
        }
        for (i, (m, c)) in e.terms.iter().enumerate() {
            let abs = c.unsigned_abs();
            match (i, *c < 0) {
                (0, true) => write!(f, "-")?,
                (0, false) => {}
                (_, true) => write!(f, " - ")?,
                (_, false) => write!(f, " + ")?,
            }
            if abs != 1 {
                write!(f, "{abs}*")?;
            }
            for (j, a) in m.iter().enumerate() {
                if j > 0 {
                    write!(f, "*")?;
                }
                self.atom(a, f)?;
            }
        }
        match e.constant {
            0 => Ok(()),
            c if c < 0 => write!(f, " - {}", c.unsigned_abs()),
            c => write!(f, " + {c}"),
        }
    }
}

impl fmt::Display for IndexExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.display(&[]))
    }
}
