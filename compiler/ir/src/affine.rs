//! Affine expressions, maps and integer sets: the values of the builtin `affine_map<...>` and
//! `affine_set<...>` attributes.
//!
//! Expressions are built through [`AffineExpr::sum`] and its siblings, which simplify the way
//! MLIR's expression constructors do (constants folded and moved to the right, `x + 0` and
//! `x * 1` dropped, like terms collected), so text mlir-opt prints reads back to the same tree
//! and prints identically. [`AffineExpr::write`] follows mlir-opt's printer: subtraction and
//! negation are recovered from products with negative constants.

use std::fmt::Write;

/// A binary operator of an affine expression.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AffineOp {
    Add,
    Mul,
    FloorDiv,
    CeilDiv,
    Mod,
}

impl AffineOp {
    fn spelling(self) -> &'static str {
        match self {
            AffineOp::Add => " + ",
            AffineOp::Mul => " * ",
            AffineOp::FloorDiv => " floordiv ",
            AffineOp::CeilDiv => " ceildiv ",
            AffineOp::Mod => " mod ",
        }
    }
}

/// An affine expression over dimensions `d0, d1, ...` and symbols `s0, s1, ...`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AffineExpr {
    Dim(u32),
    Symbol(u32),
    Constant(i64),
    Binary(AffineOp, Box<AffineExpr>, Box<AffineExpr>),
}

impl AffineExpr {
    /// True when the expression uses no dimension (MLIR's `isSymbolicOrConstant`).
    pub fn is_symbolic_or_constant(&self) -> bool {
        match self {
            AffineExpr::Dim(_) => false,
            AffineExpr::Symbol(_) | AffineExpr::Constant(_) => true,
            AffineExpr::Binary(_, l, r) => {
                l.is_symbolic_or_constant() && r.is_symbolic_or_constant()
            }
        }
    }

    fn constant(&self) -> Option<i64> {
        match self {
            AffineExpr::Constant(c) => Some(*c),
            _ => None,
        }
    }

    /// `self * c` when `self` is a product with a constant right operand.
    fn scaled(&self) -> Option<(&AffineExpr, i64)> {
        match self {
            AffineExpr::Binary(AffineOp::Mul, l, r) => r.constant().map(|c| (&**l, c)),
            _ => None,
        }
    }

    fn binary(op: AffineOp, l: AffineExpr, r: AffineExpr) -> AffineExpr {
        AffineExpr::Binary(op, Box::new(l), Box::new(r))
    }

    /// `l + r`, simplified.
    pub fn sum(l: AffineExpr, r: AffineExpr) -> AffineExpr {
        if let (Some(a), Some(b)) = (l.constant(), r.constant()) {
            if let Some(s) = a.checked_add(b) {
                return AffineExpr::Constant(s);
            }
        }
        // Constants go right, and a symbolic operand goes right of a dimensional one.
        // (Both constant here means the fold overflowed: they stay.)
        if (l.constant().is_some() && r.constant().is_none())
            || (l.is_symbolic_or_constant() && !r.is_symbolic_or_constant())
        {
            return AffineExpr::sum(r, l);
        }
        if r.constant() == Some(0) {
            return l;
        }
        // (x + c1) + c2 is x + (c1 + c2).
        if let (AffineExpr::Binary(AffineOp::Add, ll, lr), Some(c2)) = (&l, r.constant()) {
            if let Some(sum) = lr.constant().and_then(|c1| c1.checked_add(c2)) {
                return AffineExpr::sum((**ll).clone(), AffineExpr::Constant(sum));
            }
        }
        // c1 * x + c2 * x is (c1 + c2) * x.
        let (first, c1) = l.scaled().unwrap_or((&l, 1));
        let (second, c2) = r.scaled().unwrap_or((&r, 1));
        if first == second {
            if let Some(c) = c1.checked_add(c2) {
                return AffineExpr::product(first.clone(), AffineExpr::Constant(c));
            }
        }
        // (x + c) + y is (x + y) + c (for y not constant: that case is above).
        if let AffineExpr::Binary(AffineOp::Add, ll, lr) = &l {
            if lr.constant().is_some() && r.constant().is_none() {
                let inner = AffineExpr::sum((**ll).clone(), r);
                return AffineExpr::sum(inner, (**lr).clone());
            }
        }
        AffineExpr::binary(AffineOp::Add, l, r)
    }

    /// `l * r`, simplified; the caller checks that one side is symbolic or constant.
    pub fn product(l: AffineExpr, r: AffineExpr) -> AffineExpr {
        if let (Some(a), Some(b)) = (l.constant(), r.constant()) {
            if let Some(p) = a.checked_mul(b) {
                return AffineExpr::Constant(p);
            }
        }
        // (Both constant here means the fold overflowed: they stay.)
        if (l.constant().is_some() && r.constant().is_none())
            || (l.is_symbolic_or_constant() && !r.is_symbolic_or_constant())
        {
            return AffineExpr::product(r, l);
        }
        match r.constant() {
            Some(1) => return l,
            Some(0) => return r,
            _ => {}
        }
        // (x * c1) * c2 is x * (c1 * c2).
        if let (Some((x, c1)), Some(c2)) = (l.scaled(), r.constant()) {
            if let Some(p) = c1.checked_mul(c2) {
                return AffineExpr::product(x.clone(), AffineExpr::Constant(p));
            }
        }
        AffineExpr::binary(AffineOp::Mul, l, r)
    }

    /// `-e`, as MLIR writes it: `e * -1`.
    pub fn negated(e: AffineExpr) -> AffineExpr {
        AffineExpr::product(e, AffineExpr::Constant(-1))
    }

    /// `l floordiv r`, `l ceildiv r` or `l mod r`, with constants folded and division by 1
    /// dropped; the caller checks that `r` is symbolic or constant.
    pub fn div(op: AffineOp, l: AffineExpr, r: AffineExpr) -> AffineExpr {
        if let (Some(a), Some(b)) = (l.constant(), r.constant()) {
            let folded = match op {
                AffineOp::FloorDiv => a.checked_div_euclid(b).map(|q| {
                    // Euclidean division rounds towards -inf for b > 0; adjust for b < 0.
                    if b < 0 && q * b != a {
                        q - 1
                    } else {
                        q
                    }
                }),
                AffineOp::CeilDiv => {
                    a.checked_div_euclid(b)
                        .map(|q| if b > 0 && q * b != a { q + 1 } else { q })
                }
                _ => a.checked_rem_euclid(b),
            };
            if let Some(v) = folded {
                return AffineExpr::Constant(v);
            }
        }
        match (op, r.constant()) {
            (AffineOp::FloorDiv | AffineOp::CeilDiv, Some(1)) => l,
            (AffineOp::Mod, Some(1)) => AffineExpr::Constant(0),
            _ => AffineExpr::binary(op, l, r),
        }
    }

    /// Writes the expression as mlir-opt prints it.
    pub fn write(&self, out: &mut String) {
        self.write_bound(out, false);
    }

    /// Writes the expression; `strong` when an enclosing operator binds tighter than `+`, so a
    /// binary expression needs parentheses.
    fn write_bound(&self, out: &mut String, strong: bool) {
        let (op, l, r) = match self {
            AffineExpr::Dim(i) => {
                let _ = write!(out, "d{i}");
                return;
            }
            AffineExpr::Symbol(i) => {
                let _ = write!(out, "s{i}");
                return;
            }
            AffineExpr::Constant(c) => {
                let _ = write!(out, "{c}");
                return;
            }
            AffineExpr::Binary(op, l, r) => (*op, &**l, &**r),
        };
        if strong {
            out.push('(');
        }
        if op != AffineOp::Add {
            if op == AffineOp::Mul && r.constant() == Some(-1) {
                out.push('-');
                l.write_bound(out, true);
            } else {
                l.write_bound(out, true);
                out.push_str(op.spelling());
                r.write_bound(out, true);
            }
        } else if let Some((x, c)) = r.scaled().filter(|(_, c)| *c < 0) {
            // `l + x * -c` prints as a subtraction.
            l.write_bound(out, false);
            out.push_str(" - ");
            if c == -1 {
                let is_add = matches!(x, AffineExpr::Binary(AffineOp::Add, ..));
                x.write_bound(out, is_add);
            } else {
                x.write_bound(out, true);
                let _ = write!(out, " * {}", -(c as i128));
            }
        } else if let Some(c) = r.constant().filter(|c| *c < 0) {
            l.write_bound(out, false);
            let _ = write!(out, " - {}", -(c as i128));
        } else {
            l.write_bound(out, false);
            out.push_str(" + ");
            r.write_bound(out, false);
        }
        if strong {
            out.push(')');
        }
    }
}

/// `(d0, d1)[s0] -> (results)`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AffineMap {
    pub dims: u32,
    pub symbols: u32,
    pub results: Box<[AffineExpr]>,
}

impl AffineMap {
    /// True for `(d0, ..., dn) -> (d0, ..., dn)` (with no symbols): the identity layout.
    pub fn is_identity(&self) -> bool {
        self.symbols == 0
            && self.results.len() == self.dims as usize
            && self
                .results
                .iter()
                .enumerate()
                .all(|(i, e)| *e == AffineExpr::Dim(i as u32))
    }

    /// Writes `affine_map<...>`.
    pub fn write(&self, out: &mut String) {
        out.push_str("affine_map<");
        write_dims_and_symbols(out, self.dims, self.symbols);
        out.push_str(" -> (");
        for (i, e) in self.results.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            e.write(out);
        }
        out.push_str(")>");
    }
}

/// `(d0)[s0] : (d0 - s0 >= 0, d0 == 0)`: a conjunction of constraints, each an expression
/// that is `== 0` (`eq` true) or `>= 0`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct IntegerSet {
    pub dims: u32,
    pub symbols: u32,
    pub constraints: Box<[(AffineExpr, bool)]>,
}

impl IntegerSet {
    /// Writes `affine_set<...>`.
    pub fn write(&self, out: &mut String) {
        out.push_str("affine_set<");
        write_dims_and_symbols(out, self.dims, self.symbols);
        out.push_str(" : (");
        for (i, (e, eq)) in self.constraints.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            e.write(out);
            out.push_str(if *eq { " == 0" } else { " >= 0" });
        }
        out.push_str(")>");
    }
}

/// Writes `(d0, d1)` and, when there are symbols, `[s0, s1]`.
fn write_dims_and_symbols(out: &mut String, dims: u32, symbols: u32) {
    let list = |out: &mut String, prefix: char, n: u32| {
        for i in 0..n {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{prefix}{i}");
        }
    };
    out.push('(');
    list(out, 'd', dims);
    out.push(')');
    if symbols > 0 {
        out.push('[');
        list(out, 's', symbols);
        out.push(']');
    }
}
