//! The bridge to IR: reading index expressions from `arith` ops and building them back.
//!
//! Reading ([`from_ir`]) follows the operands of `arith.addi`, `subi`, `muli`, `divsi`/`divui`,
//! `remsi`/`remui`, `minsi`, `maxsi` and integer `arith.constant`; any other value (block
//! arguments such as induction variables and kernel arguments, loads, unknown ops) becomes a
//! symbol. `arith` division truncates toward zero and the expressions floor, so a division or
//! remainder is read as `floordiv`/`mod` only when its dividend is provably non-negative and its
//! divisor provably positive under the given bounds, or when the caller declares all index
//! values non-negative ([`FromIr::assume_non_negative`], true of loop indices and shapes);
//! otherwise the op's result is a symbol. Arithmetic is read as exact (no overflow), which is
//! what index computations assume.
//!
//! Building ([`to_ir`], [`Emitter`]) emits `index`-typed `arith` ops, one per distinct
//! subexpression and constant. `floordiv`/`mod` become `divsi`/`remsi` when the dividend is
//! provably non-negative; otherwise a correction (`cmpi slt` + `select`) makes them floor.

use super::bounds::{range_of, Bounds};
use super::expr::{Atom, IndexExpr, Symbol};
use dlc_arith::{
    build_binary, build_cast, build_cmpi, build_index_constant, build_select, AddIOp, ArithOps,
    CmpIPredicate, DivSIOp, IndexCastOp, MaxSIOp, MinSIOp, MulIOp, RemSIOp, SubIOp,
};
use dlc_ir::{Context, Diagnostic, InsertPoint, Location, Op, Type, Value};
use std::collections::HashMap;

/// How [`from_ir_with`] reads divisions.
#[derive(Clone, Copy, Debug, Default)]
pub struct FromIr<'a> {
    /// Known ranges of values, used to prove dividends non-negative.
    pub bounds: Option<&'a Bounds>,
    /// Declares every dividend non-negative and every divisor positive.
    pub assume_non_negative: bool,
}

/// The expression computing `value`, reading divisions only where they provably floor.
pub fn from_ir(ctx: &Context, value: Value) -> IndexExpr {
    from_ir_with(ctx, value, FromIr::default())
}

/// The expression computing `value`, with the division policy of `options`.
pub fn from_ir_with(ctx: &Context, value: Value, options: FromIr<'_>) -> IndexExpr {
    Reader::new(ctx, options).read(value)
}

/// [`from_ir_with`] for many values: each value's expression is read once and remembered, so
/// values sharing subexpressions cost their union, not their sum. The IR must not change while
/// a reader is in use.
pub struct Reader<'a> {
    ctx: &'a Context,
    bounds: Option<&'a Bounds>,
    assume: bool,
    memo: HashMap<Value, IndexExpr>,
}

impl<'a> Reader<'a> {
    /// A reader of `ctx`'s values with the division policy of `options`.
    pub fn new(ctx: &'a Context, options: FromIr<'a>) -> Self {
        Reader {
            ctx,
            bounds: options.bounds,
            assume: options.assume_non_negative,
            memo: HashMap::new(),
        }
    }

    /// A reader that starts from what an earlier reader of the same values learned
    /// ([`Reader::into_memo`]), for a caller that reads, changes the IR and reads again: the
    /// entries stay right while every change keeps each value's meaning (new ops, uses
    /// replaced by equal values), not after an op is changed in place.
    pub fn with_memo(
        ctx: &'a Context,
        options: FromIr<'a>,
        memo: HashMap<Value, IndexExpr>,
    ) -> Self {
        Reader {
            memo,
            ..Reader::new(ctx, options)
        }
    }

    /// What this reader learned, for [`Reader::with_memo`].
    pub fn into_memo(self) -> HashMap<Value, IndexExpr> {
        self.memo
    }

    /// The expression computing `v`.
    pub fn read(&mut self, v: Value) -> IndexExpr {
        if let Some(e) = self.memo.get(&v) {
            return e.clone();
        }
        let e = self.read_uncached(v);
        self.memo.insert(v, e.clone());
        e
    }

    fn read_uncached(&mut self, v: Value) -> IndexExpr {
        let symbol = IndexExpr::value(v);
        let ctx = self.ctx;
        if !ctx.is_integer_or_index(ctx.value_type(v)) {
            return symbol;
        }
        let Some(op) = ctx.defining_op(v) else {
            return symbol;
        };
        let Some(arith) = ArithOps::of(ctx, op) else {
            return symbol;
        };
        if let ArithOps::ConstantOp(c) = arith {
            return c
                .value(ctx)
                .and_then(|a| ctx.attr_as_int(a))
                .and_then(|c| i64::try_from(c).ok())
                .map_or(symbol, IndexExpr::constant);
        }
        if ctx.operands(op).len() != 2 {
            return symbol;
        }
        let (l, r) = (ctx.operand(op, 0), ctx.operand(op, 1));
        let (a, b) = (self.read(l), self.read(r));
        match arith {
            ArithOps::AddIOp(_) => &a + &b,
            ArithOps::SubIOp(_) => &a - &b,
            ArithOps::MulIOp(_) => &a * &b,
            ArithOps::MinSIOp(_) => a.minimum(&b),
            ArithOps::MaxSIOp(_) => a.maximum(&b),
            ArithOps::DivSIOp(_) | ArithOps::DivUIOp(_) if self.floors(&a, &b) => a.floordiv(&b),
            ArithOps::RemSIOp(_) | ArithOps::RemUIOp(_) if self.floors(&a, &b) => a.modulo(&b),
            _ => symbol,
        }
    }

    /// Whether truncating division of `a` by `b` equals floor division.
    fn floors(&self, a: &IndexExpr, b: &IndexExpr) -> bool {
        let none = Bounds::new();
        let bounds = self.bounds.unwrap_or(&none);
        self.assume || (range_of(a, bounds).0 >= 0 && range_of(b, bounds).0 > 0)
    }
}

/// Builds `expr` as `index` arith ops at `at`; returns the value. Fails on free symbols, which
/// have no IR value.
pub fn to_ir(
    ctx: &mut Context,
    expr: &IndexExpr,
    at: InsertPoint,
    loc: Location,
) -> Result<Value, Diagnostic> {
    Emitter::new(at, loc).emit(ctx, expr)
}

/// [`to_ir`] using `bounds` to prove dividends non-negative (plain `divsi`/`remsi`).
pub fn to_ir_with(
    ctx: &mut Context,
    expr: &IndexExpr,
    bounds: &Bounds,
    at: InsertPoint,
    loc: Location,
) -> Result<Value, Diagnostic> {
    Emitter::new(at, loc)
        .with_bounds(bounds.clone())
        .emit(ctx, expr)
}

/// Builds expressions as IR at one insertion point, reusing the constants and
/// subexpressions it has built across calls.
pub struct Emitter {
    at: InsertPoint,
    loc: Location,
    bounds: Bounds,
    constants: HashMap<i64, Value>,
    atoms: HashMap<Atom, Value>,
}

impl Emitter {
    /// An emitter inserting at `at` with location `loc`.
    pub fn new(at: InsertPoint, loc: Location) -> Self {
        Emitter {
            at,
            loc,
            bounds: Bounds::new(),
            constants: HashMap::new(),
            atoms: HashMap::new(),
        }
    }

    /// Uses `bounds` to prove dividends non-negative.
    pub fn with_bounds(mut self, bounds: Bounds) -> Self {
        self.bounds = bounds;
        self
    }

    /// Builds `expr`; returns its value.
    pub fn emit(&mut self, ctx: &mut Context, expr: &IndexExpr) -> Result<Value, Diagnostic> {
        let mut terms = Vec::new();
        for (m, c) in expr.terms() {
            let mut product: Option<Value> = None;
            for a in m {
                let v = self.atom(ctx, a)?;
                product = Some(match product {
                    None => v,
                    Some(p) => self.binary::<MulIOp>(ctx, p, v),
                });
            }
            if let Some(p) = product {
                terms.push((p, *c));
            }
        }
        // Positive terms first, so `a - b` is a subtraction rather than `0 - b + a`.
        terms.sort_by_key(|(_, c)| *c < 0);
        let mut acc: Option<Value> = None;
        for (v, c) in terms {
            let magnitude = if c == i64::MIN { c } else { c.abs() };
            let scaled = if magnitude == 1 {
                v
            } else {
                let k = self.constant(ctx, magnitude);
                self.binary::<MulIOp>(ctx, v, k)
            };
            acc = Some(match (acc, c > 0) {
                (None, true) => scaled,
                (None, false) => {
                    let zero = self.constant(ctx, 0);
                    self.binary::<SubIOp>(ctx, zero, scaled)
                }
                (Some(a), true) => self.binary::<AddIOp>(ctx, a, scaled),
                (Some(a), false) => self.binary::<SubIOp>(ctx, a, scaled),
            });
        }
        let c = expr.constant_term();
        Ok(match acc {
            None => self.constant(ctx, c),
            Some(a) if c == 0 => a,
            Some(a) if c < 0 && c != i64::MIN => {
                let k = self.constant(ctx, -c);
                self.binary::<SubIOp>(ctx, a, k)
            }
            Some(a) => {
                let k = self.constant(ctx, c);
                self.binary::<AddIOp>(ctx, a, k)
            }
        })
    }

    fn atom(&mut self, ctx: &mut Context, a: &Atom) -> Result<Value, Diagnostic> {
        if let Some(v) = self.atoms.get(a) {
            return Ok(*v);
        }
        let v = match a {
            Atom::Sym(Symbol::Value(v)) => {
                if ctx.value_type(*v) == Type::INDEX {
                    *v
                } else {
                    let op = build_cast::<IndexCastOp>(ctx, self.at, *v, Type::INDEX, self.loc);
                    self.advance(op);
                    ctx.result(op, 0)
                }
            }
            Atom::Sym(Symbol::Free(n)) => {
                return Err(Diagnostic::error(
                    self.loc,
                    format!("index expression symbol s{n} has no IR value"),
                ))
            }
            Atom::FloorDiv(x, d) | Atom::Mod(x, d) => {
                let non_negative = range_of(x, &self.bounds).0 >= 0;
                let (xv, dv) = (self.emit(ctx, x)?, self.emit(ctx, d)?);
                let is_div = matches!(a, Atom::FloorDiv(..));
                let v = if is_div {
                    self.binary::<DivSIOp>(ctx, xv, dv)
                } else {
                    self.binary::<RemSIOp>(ctx, xv, dv)
                };
                if non_negative {
                    v
                } else {
                    self.floor_fix(ctx, xv, dv, v, is_div)
                }
            }
            Atom::Min(x, y) => {
                let (xv, yv) = (self.emit(ctx, x)?, self.emit(ctx, y)?);
                self.binary::<MinSIOp>(ctx, xv, yv)
            }
            Atom::Max(x, y) => {
                let (xv, yv) = (self.emit(ctx, x)?, self.emit(ctx, y)?);
                self.binary::<MaxSIOp>(ctx, xv, yv)
            }
        };
        self.atoms.insert(a.clone(), v);
        Ok(v)
    }

    /// Turns truncating `q = x / d` (or `q = x % d`) into floor semantics for `d > 0`: when the
    /// remainder is negative, the quotient is one less and the modulus `d` more.
    fn floor_fix(&mut self, ctx: &mut Context, x: Value, d: Value, q: Value, div: bool) -> Value {
        let rem = if div {
            self.binary::<RemSIOp>(ctx, x, d)
        } else {
            q
        };
        let zero = self.constant(ctx, 0);
        let cmp = build_cmpi(ctx, self.at, CmpIPredicate::Slt, rem, zero, self.loc);
        self.advance(cmp);
        let negative = ctx.result(cmp, 0);
        let (fixed, step) = if div {
            let one = self.constant(ctx, 1);
            (self.binary::<SubIOp>(ctx, q, one), q)
        } else {
            (self.binary::<AddIOp>(ctx, q, d), q)
        };
        let select = build_select(ctx, self.at, negative, fixed, step, self.loc);
        self.advance(select);
        ctx.result(select, 0)
    }

    fn constant(&mut self, ctx: &mut Context, c: i64) -> Value {
        if let Some(v) = self.constants.get(&c) {
            return *v;
        }
        let op = build_index_constant(ctx, self.at, c, self.loc);
        self.advance(op);
        let v = ctx.result(op, 0);
        self.constants.insert(c, v);
        v
    }

    fn binary<T: dlc_arith::BinaryOp>(&mut self, ctx: &mut Context, l: Value, r: Value) -> Value {
        let op = build_binary::<T>(ctx, self.at, l, r, self.loc);
        self.advance(op);
        ctx.result(op, 0)
    }

    /// Keeps later ops after `op` when inserting at a block start or after an op.
    fn advance(&mut self, op: Op) {
        if matches!(self.at, InsertPoint::Start(_) | InsertPoint::After(_)) {
            self.at = InsertPoint::After(op);
        }
    }
}

/// Erases `v`'s defining op when it is an unused `arith` op, and then its operands' likewise:
/// the index arithmetic a rewrite leaves behind.
pub fn erase_dead_index_ops(ctx: &mut Context, v: Value) {
    let mut work = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        let Some(op) = ctx.defining_op(v) else {
            continue;
        };
        if ArithOps::of(ctx, op).is_none() || ctx.results(op).any(|r| !ctx.is_unused(r)) {
            continue;
        }
        work.extend(ctx.operands(op).iter().copied());
        ctx.erase_op(op);
    }
}
