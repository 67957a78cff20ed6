//! Expressions of symbolic dims: what a derived `?` dim is in terms of the symbols it comes
//! from (`s0 * s1`, `s2 + 4`, `max(s3 - 2, 0) / 2`), in a normal form, so the same size reached
//! two ways is recognized as one.
//!
//! A [`Poly`] is a sum of products: `Σ c · Π atoms`, each atom a symbol, the terms sorted with
//! no zero coefficient, each term's atoms sorted (repeated for powers). Sums, differences and
//! products stay polynomials, and a division that leaves no remainder in every coefficient of a
//! product (`b·s·32 / 32`) is one too. What is not a polynomial (a truncating division by a
//! constant, `max`, `min`) is a [`Def`] that names a new symbol, which then appears as an atom.
//! [`crate::shapes::SymbolicShapes`] gives each distinct `Def` one symbol, so equal
//! definitions are the same symbol.

use std::fmt::{self, Write};

/// A polynomial over symbols with integer coefficients, in normal form (see the module doc).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Poly {
    terms: Vec<(Vec<u32>, i64)>,
}

impl Poly {
    /// The constant `c`.
    pub fn constant(c: i64) -> Poly {
        let mut p = Poly::default();
        if c != 0 {
            p.terms.push((Vec::new(), c));
        }
        p
    }

    /// The symbol `s`.
    pub fn symbol(s: u32) -> Poly {
        Poly {
            terms: vec![(vec![s], 1)],
        }
    }

    /// Its value when it has no symbol.
    pub fn as_constant(&self) -> Option<i64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(atoms, c)] if atoms.is_empty() => Some(*c),
            _ => None,
        }
    }

    /// The symbol it is, when it is exactly one symbol.
    pub fn as_symbol(&self) -> Option<u32> {
        match self.terms.as_slice() {
            [(atoms, 1)] if atoms.len() == 1 => Some(atoms[0]),
            _ => None,
        }
    }

    /// The terms: each a sorted list of symbols (empty for the constant) and its coefficient.
    pub fn terms(&self) -> &[(Vec<u32>, i64)] {
        &self.terms
    }

    /// `self + other`; `None` on overflow.
    pub fn add(&self, other: &Poly) -> Option<Poly> {
        let mut terms = self.terms.clone();
        for (atoms, c) in &other.terms {
            match terms.binary_search_by(|(a, _)| a.cmp(atoms)) {
                Ok(i) => {
                    terms[i].1 = terms[i].1.checked_add(*c)?;
                    if terms[i].1 == 0 {
                        terms.remove(i);
                    }
                }
                Err(i) => terms.insert(i, (atoms.clone(), *c)),
            }
        }
        Some(Poly { terms })
    }

    /// `k · self`; `None` on overflow.
    pub fn scale(&self, k: i64) -> Option<Poly> {
        if k == 0 {
            return Some(Poly::default());
        }
        let terms = self
            .terms
            .iter()
            .map(|(a, c)| Some((a.clone(), c.checked_mul(k)?)))
            .collect::<Option<_>>()?;
        Some(Poly { terms })
    }

    /// `self − other`; `None` on overflow.
    pub fn sub(&self, other: &Poly) -> Option<Poly> {
        self.add(&other.scale(-1)?)
    }

    /// `self · other`; `None` on overflow.
    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (a, c) in &self.terms {
            for (b, d) in &other.terms {
                let mut atoms = a.clone();
                atoms.extend(b);
                atoms.sort_unstable();
                let term = Poly {
                    terms: vec![(atoms, c.checked_mul(*d)?)],
                };
                out = out.add(&term)?;
            }
        }
        Some(out)
    }

    /// `self / k` when `k` divides every coefficient (so the division is exact whatever the
    /// symbols are); `None` otherwise.
    pub fn exact_div(&self, k: i64) -> Option<Poly> {
        if k == 0 || self.terms.iter().any(|(_, c)| c % k != 0) {
            return None;
        }
        Some(Poly {
            terms: self.terms.iter().map(|(a, c)| (a.clone(), c / k)).collect(),
        })
    }

    /// `self / other` when `other` is one term (`c · Π atoms`) dividing every term of `self`
    /// exactly (`b·s·32 / (b·s)` is 32); `None` otherwise.
    pub fn exact_div_term(&self, other: &Poly) -> Option<Poly> {
        let [(den, k)] = other.terms.as_slice() else {
            return None;
        };
        let mut out = Poly::default();
        for (atoms, c) in &self.terms {
            if c % k != 0 {
                return None;
            }
            let mut rest = atoms.clone();
            for s in den {
                let i = rest.iter().position(|a| a == s)?;
                rest.remove(i);
            }
            out = out.add(&Poly {
                terms: vec![(rest, c / k)],
            })?;
        }
        Some(out)
    }

    /// True when it is never negative, given that every atom is not (`nonneg_atom`): every
    /// coefficient is positive.
    pub fn nonneg(&self, nonneg_atom: impl Fn(u32) -> bool) -> bool {
        self.terms
            .iter()
            .all(|(atoms, c)| *c > 0 && atoms.iter().all(|&a| nonneg_atom(a)))
    }

    /// The symbols it uses.
    pub fn symbols(&self) -> impl Iterator<Item = u32> + '_ {
        self.terms.iter().flat_map(|(a, _)| a.iter().copied())
    }
}

impl fmt::Display for Poly {
    /// `s0 * s1 + 2 * s2 - 3`, `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        // Terms with symbols first, the constant last.
        let mut order: Vec<&(Vec<u32>, i64)> = self.terms.iter().collect();
        order.sort_by_key(|(atoms, _)| atoms.is_empty());
        for (i, (atoms, c)) in order.into_iter().enumerate() {
            let mut text = String::new();
            let magnitude = c.unsigned_abs();
            if atoms.is_empty() || magnitude != 1 {
                write!(text, "{magnitude}")?;
            }
            for a in atoms {
                if !text.is_empty() {
                    text.push_str(" * ");
                }
                write!(text, "s{a}")?;
            }
            match (i, *c < 0) {
                (0, true) => write!(f, "-{text}")?,
                (0, false) => f.write_str(&text)?,
                (_, true) => write!(f, " - {text}")?,
                (_, false) => write!(f, " + {text}")?,
            }
        }
        Ok(())
    }
}

/// A derived symbol's definition.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Def {
    /// A polynomial of other symbols (at least one product or sum: a lone symbol or a
    /// constant is not a new symbol).
    Poly(Poly),
    /// `p / k` for `k > 1`, truncating as `arith.divsi` does.
    Quotient(Poly, i64),
    /// The larger of the two.
    Max(Poly, Poly),
    /// The smaller of the two.
    Min(Poly, Poly),
}

impl Def {
    /// The symbols it is defined by.
    pub fn symbols(&self) -> Vec<u32> {
        let polys: [Option<&Poly>; 2] = match self {
            Def::Poly(p) | Def::Quotient(p, _) => [Some(p), None],
            Def::Max(p, q) | Def::Min(p, q) => [Some(p), Some(q)],
        };
        polys
            .into_iter()
            .flatten()
            .flat_map(Poly::symbols)
            .collect()
    }
}

impl fmt::Display for Def {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Def::Poly(p) => write!(f, "{p}"),
            Def::Quotient(p, k) if p.terms.len() > 1 => write!(f, "({p}) / {k}"),
            Def::Quotient(p, k) => write!(f, "{p} / {k}"),
            Def::Max(a, b) => write!(f, "max({a}, {b})"),
            Def::Min(a, b) => write!(f, "min({a}, {b})"),
        }
    }
}
