//! Symbolic shapes: which `?` dims of a function are the same size.
//!
//! Every `?` dim is a *symbol*. Symbols are created for each `?` dim of each argument of the
//! analysed op's entry block, numbered in (argument, axis) order, and propagated through the ops
//! with the verifier's shape rules. Broadcasting a static 1 takes the other side; equal symbols
//! stay; two different symbols meeting where the op needs them equal (broadcasting, matmul's
//! inner dims, concat's other dims) record a *runtime equality constraint* and the first is kept.
//! A `?` computed from other dims is a *derived* symbol, defined by an expression of them
//! ([`crate::sym_expr`]): a reshape's inferred dim is the element count over the known dims
//! (`s0 * s1` after merging two), a concat's the sum, a pad's the dim plus the padding, a
//! slice's and a window's (conv, pool) their clamped length, and a size given by an `index`
//! operand the `arith` computation over `graph.dim`s it is. Each distinct definition is one
//! symbol, so the same size reached two ways is one symbol, and the host computes every
//! derived size from its definition. A `?` no rule can name (a size read from data, a
//! control-flow result) gets a fresh symbol, and a dim the result type makes static is static.
//!
//! So two `?` dims derived from the same argument dims the same way carry the same symbol and
//! are provably equal ([`SymbolicShapes::provably_equal`]); lowering uses this to pass one size
//! to a kernel for several buffers, and the constraints are the checks a runtime must make.
//!
//! Argument dims can also be named: an argument attribute [`DIM_NAMES`] (`["batch", "", ...]`,
//! one string per dim, `""` for none, as the ONNX importer writes `dim_param`s) makes the `?`
//! dims of the same name one size, by a runtime constraint recorded up front.

use crate::infer::InferShapes;
use crate::ops::{Family, GraphOps, YieldOp};
use crate::sym_expr::{Def, Poly};
use crate::verify::{tensor_parts, Attrs};
use dlc_ir::pass::Analysis;
use dlc_ir::{AttrKind, Context, Op, Type, Value, DYNAMIC};
use rustc_hash::FxHashMap;

/// The argument attribute naming its dims: an array of strings, one per dim (`""`: unnamed).
pub const DIM_NAMES: &str = "graph.dim_names";

/// One dim of a tensor value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DimExpr {
    /// A size known at compile time.
    Static(i64),
    /// A runtime size, by symbol number.
    Symbol(u32),
}

/// Where a symbol comes from.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SymbolOrigin {
    /// The `?` dim `axis` of entry block argument `arg`.
    Arg { arg: u32, axis: u32 },
    /// A `?` dim `axis` of an op result no rule relates to its operands.
    Result { value: Value, axis: u32 },
    /// An expression of other symbols.
    Derived(Def),
}

/// The symbolic shape of every tensor value under an op (usually a `func.func`).
#[derive(Debug, Default)]
pub struct SymbolicShapes {
    shapes: FxHashMap<Value, Vec<DimExpr>>,
    origins: Vec<SymbolOrigin>,
    constraints: Vec<(u32, u32)>,
    /// The symbol of each derived definition.
    derived: FxHashMap<Def, u32>,
}

impl Analysis for SymbolicShapes {
    fn compute(ctx: &Context, op: Op) -> Self {
        let mut s = SymbolicShapes::default();
        for &region in ctx.regions(op) {
            if let Some(&entry) = ctx.blocks(region).first() {
                for (i, &arg) in ctx.block_args(entry).iter().enumerate() {
                    s.define_arg(ctx, arg, i as u32);
                }
                s.constrain_named_dims(ctx, op, ctx.block_args(entry));
            }
            s.walk_region(ctx, region);
        }
        s
    }
}

impl SymbolicShapes {
    /// The symbolic shape of tensor value `v`, if the analysis saw it.
    pub fn shape(&self, v: Value) -> Option<&[DimExpr]> {
        self.shapes.get(&v).map(Vec::as_slice)
    }

    /// True if `a` and `b` are the same size in every execution: the same static size or the
    /// same symbol.
    pub fn provably_equal(&self, a: DimExpr, b: DimExpr) -> bool {
        a == b
    }

    /// True if `a` and `b` are equal once the recorded runtime constraints hold.
    pub fn equal_under_constraints(&self, a: DimExpr, b: DimExpr) -> bool {
        match (a, b) {
            (DimExpr::Symbol(x), DimExpr::Symbol(y)) => self.find(x) == self.find(y),
            _ => a == b,
        }
    }

    /// The numpy broadcast of `shapes` (aligned on the right; a dim of 1 stretches to the
    /// other's), the loop nest one elementwise kernel over them runs. `Err` holds the broadcast
    /// so far and the first shape that disagrees with it at a dim where neither is 1 (dims are
    /// compared with [`Self::equal_under_constraints`]).
    pub fn broadcast_nest<'s>(
        &self,
        shapes: impl IntoIterator<Item = &'s [DimExpr]>,
    ) -> Result<Vec<DimExpr>, (Vec<DimExpr>, Vec<DimExpr>)> {
        let mut dims: Vec<DimExpr> = Vec::new();
        for shape in shapes {
            if shape.len() > dims.len() {
                let mut grown = vec![DimExpr::Static(1); shape.len() - dims.len()];
                grown.extend(dims);
                dims = grown;
            }
            let off = dims.len() - shape.len();
            for (j, &d) in shape.iter().enumerate() {
                if dims[off + j] == DimExpr::Static(1) {
                    dims[off + j] = d;
                } else if d != DimExpr::Static(1) && !self.equal_under_constraints(dims[off + j], d)
                {
                    return Err((dims, shape.to_vec()));
                }
            }
        }
        Ok(dims)
    }

    /// The runtime equality constraints `(a, b)`: symbol `a` must equal symbol `b`.
    pub fn constraints(&self) -> &[(u32, u32)] {
        &self.constraints
    }

    /// Where symbol `s` comes from.
    pub fn origin(&self, s: u32) -> Option<&SymbolOrigin> {
        self.origins.get(s as usize)
    }

    /// Dim `d` as a polynomial: a constant, a symbol, or a derived polynomial's definition.
    pub fn poly(&self, d: DimExpr) -> Poly {
        match d {
            DimExpr::Static(n) => Poly::constant(n),
            DimExpr::Symbol(s) => match self.origins.get(s as usize) {
                Some(SymbolOrigin::Derived(Def::Poly(p))) => p.clone(),
                _ => Poly::symbol(s),
            },
        }
    }

    /// True when `p` is never negative: its coefficients are positive and its symbols sizes
    /// (every symbol but a quotient, `max` or `min` of something that may be negative).
    pub fn nonneg(&self, p: &Poly) -> bool {
        p.nonneg(|s| match self.origins.get(s as usize) {
            Some(SymbolOrigin::Derived(Def::Quotient(q, _))) => self.nonneg(q),
            Some(SymbolOrigin::Derived(Def::Max(a, b))) => self.nonneg(a) || self.nonneg(b),
            Some(SymbolOrigin::Derived(Def::Min(a, b))) => self.nonneg(a) && self.nonneg(b),
            _ => true,
        })
    }

    /// How many symbols there are.
    pub fn num_symbols(&self) -> usize {
        self.origins.len()
    }

    /// The representative of `s` among the symbols the constraints make equal.
    fn find(&self, s: u32) -> u32 {
        // Few constraints: a fixpoint over the list is cheaper than keeping a union-find.
        let mut rep = s;
        loop {
            let mut changed = false;
            for &(a, b) in &self.constraints {
                let (lo, hi) = (a.min(b), a.max(b));
                if hi == rep && self.reaches(lo, rep) {
                    rep = lo;
                    changed = true;
                }
            }
            if !changed {
                return rep;
            }
        }
    }

    fn reaches(&self, a: u32, b: u32) -> bool {
        self.constraints
            .iter()
            .any(|&(x, y)| (x == a && y == b) || (x == b && y == a))
    }

    fn fresh(&mut self, origin: SymbolOrigin) -> DimExpr {
        self.origins.push(origin);
        DimExpr::Symbol(self.origins.len() as u32 - 1)
    }

    /// The symbol defined by `def` (one per distinct definition), as a polynomial.
    fn define(&mut self, def: Def) -> Poly {
        if let Some(&s) = self.derived.get(&def) {
            return Poly::symbol(s);
        }
        self.origins.push(SymbolOrigin::Derived(def.clone()));
        let s = self.origins.len() as u32 - 1;
        self.derived.insert(def, s);
        Poly::symbol(s)
    }

    /// The dim polynomial `p` is: static, a symbol, or the derived symbol it defines.
    fn dim_of(&mut self, p: Poly) -> DimExpr {
        if let Some(c) = p.as_constant() {
            return DimExpr::Static(c);
        }
        if let Some(s) = p.as_symbol() {
            return DimExpr::Symbol(s);
        }
        match self.define(Def::Poly(p)).as_symbol() {
            Some(s) => DimExpr::Symbol(s),
            None => unreachable!("a defined symbol is one atom"),
        }
    }

    /// `p / k` truncated (`arith.divsi`), `k > 0`: a polynomial when exact.
    fn quotient(&mut self, p: Poly, k: i64) -> Poly {
        if let Some(q) = p.exact_div(k) {
            return q;
        }
        // `(k·X + c) / k` is `X + c / k` when nothing is negative.
        let c = p
            .terms()
            .iter()
            .find(|(atoms, _)| atoms.is_empty())
            .map_or(0, |t| t.1);
        if let Some(rest) = p.sub(&Poly::constant(c)) {
            if c > 0 && self.nonneg(&rest) {
                if let Some(q) = rest
                    .exact_div(k)
                    .and_then(|q| q.add(&Poly::constant(c / k)))
                {
                    return q;
                }
            }
        }
        match p.as_constant() {
            Some(c) => Poly::constant(c / k),
            None => self.define(Def::Quotient(p, k)),
        }
    }

    /// True when `a ≥ b` whatever the symbols are.
    fn at_least(&self, a: &Poly, b: &Poly) -> bool {
        a.sub(b).is_some_and(|d| self.nonneg(&d))
    }

    /// The larger of `a` and `b`: one of them when provably larger.
    fn max(&mut self, a: Poly, b: Poly) -> Poly {
        self.extremum(a, b, true)
    }

    /// The smaller of `a` and `b`: one of them when provably smaller.
    fn min(&mut self, a: Poly, b: Poly) -> Poly {
        self.extremum(a, b, false)
    }

    /// `max(a, b)` (`larger`) or `min(a, b)`: a side that provably wins, a constant, or the
    /// symbol of the definition (its operands in a fixed order).
    fn extremum(&mut self, a: Poly, b: Poly, larger: bool) -> Poly {
        let (hi, lo) = if self.at_least(&a, &b) {
            (a, b)
        } else if self.at_least(&b, &a) {
            (b, a)
        } else {
            let (x, y) = if a <= b { (a, b) } else { (b, a) };
            return match (x.as_constant(), y.as_constant()) {
                (Some(p), Some(q)) => Poly::constant(if larger { p.max(q) } else { p.min(q) }),
                _ if larger => self.define(Def::Max(x, y)),
                _ => self.define(Def::Min(x, y)),
            };
        };
        if larger {
            hi
        } else {
            lo
        }
    }

    /// The length of `graph.slice`'s range `start .. end` by `step` (> 0) over a dim `d`, as
    /// the host computes it: each bound counted from the end when negative and clamped to
    /// `0 ..= d`, then `(max(end − start, 0) + step − 1) / step`.
    fn slice_len(&mut self, d: DimExpr, start: i64, end: i64, step: i64) -> Option<DimExpr> {
        let dp = self.poly(d);
        let mut bound = |b: i64| -> Option<Poly> {
            // Bounds beyond any size clamp to an end of the dim.
            const FAR: i64 = i64::MAX / 4;
            Some(match b {
                b if b >= FAR => dp.clone(),
                b if b <= -FAR => Poly::default(),
                b if b >= 0 => self.min(Poly::constant(b), dp.clone()),
                b => {
                    let from_end = dp.add(&Poly::constant(b))?;
                    self.max(from_end, Poly::default())
                }
            })
        };
        let (s, t) = (bound(start)?, bound(end)?);
        let span = self.max(t.sub(&s)?, Poly::default());
        let span = span.add(&Poly::constant(step - 1))?;
        let len = self.quotient(span, step);
        Some(self.dim_of(len))
    }

    /// The output size of a window along a spatial axis of size `d`, as the host computes it:
    /// `max(d + padding − dilation·(k − 1) − 1 + stride, 0) / stride`.
    fn window_len(
        &mut self,
        d: DimExpr,
        k: i64,
        stride: i64,
        dilation: i64,
        padding: i64,
    ) -> Option<DimExpr> {
        let reach = dilation.checked_mul(k.checked_sub(1)?)?;
        let bias = padding
            .checked_sub(reach)?
            .checked_sub(1)?
            .checked_add(stride)?;
        let span = self.poly(d).add(&Poly::constant(bias))?;
        let span = self.max(span, Poly::default());
        let len = self.quotient(span, stride);
        Some(self.dim_of(len))
    }

    fn define_arg(&mut self, ctx: &Context, v: Value, arg: u32) {
        let Some(t) = tensor_parts(ctx, ctx.value_type(v)) else {
            return;
        };
        let dims = t
            .shape
            .iter()
            .enumerate()
            .map(|(axis, &d)| {
                if d == DYNAMIC {
                    self.fresh(SymbolOrigin::Arg {
                        arg,
                        axis: axis as u32,
                    })
                } else {
                    DimExpr::Static(d)
                }
            })
            .collect();
        self.shapes.insert(v, dims);
    }

    /// Records `a == b` for `?` argument dims that share a name in [`DIM_NAMES`].
    fn constrain_named_dims(&mut self, ctx: &Context, func: Op, args: &[Value]) {
        let mut first: FxHashMap<&str, u32> = FxHashMap::default();
        for (i, arg) in args.iter().enumerate() {
            let Some(shape) = self.shapes.get(arg) else {
                continue;
            };
            let mut found = Vec::new();
            for (name, dim) in dim_names(ctx, func, i).into_iter().zip(shape) {
                let (Some(name), DimExpr::Symbol(sym)) = (name, dim) else {
                    continue;
                };
                match first.get(name) {
                    Some(&f) => found.push((f, *sym)),
                    None => {
                        first.insert(name, *sym);
                    }
                }
            }
            self.constraints.extend(found);
        }
    }

    /// The shape of a value from its type alone: fresh symbols for its `?` dims.
    fn shape_of_type(&mut self, ctx: &Context, v: Value) -> Option<Vec<DimExpr>> {
        let t = tensor_parts(ctx, ctx.value_type(v))?;
        Some(
            t.shape
                .iter()
                .enumerate()
                .map(|(axis, &d)| {
                    if d == DYNAMIC {
                        self.fresh(SymbolOrigin::Result {
                            value: v,
                            axis: axis as u32,
                        })
                    } else {
                        DimExpr::Static(d)
                    }
                })
                .collect(),
        )
    }

    fn get(&mut self, ctx: &Context, v: Value) -> Vec<DimExpr> {
        if let Some(s) = self.shapes.get(&v) {
            return s.clone();
        }
        let s = self.shape_of_type(ctx, v).unwrap_or_default();
        self.shapes.insert(v, s.clone());
        s
    }

    /// The dim an `index` value is when it reads one: `graph.dim %t, axis` or a constant.
    fn index_dim(&mut self, ctx: &Context, v: Value) -> Option<DimExpr> {
        let def = ctx.defining_op(v)?;
        if let Some(GraphOps::DimOp(_)) = GraphOps::of(ctx, def) {
            let x = ctx.operand(def, 0);
            let shape = self.get(ctx, x);
            let axis = usize::try_from(Attrs::new(ctx, ctx.attrs(def)).int("axis").ok()??).ok()?;
            return shape.get(axis).copied();
        }
        if let Some(n) = dlc_arith::constant_int(ctx, v) {
            return Some(DimExpr::Static(i64::try_from(n).ok()?));
        }
        // `arith` on `index` values: the importer's shape arithmetic.
        let operand = |i: usize| ctx.operands(def).get(i).copied();
        let (a, b) = (operand(0)?, operand(1)?);
        let (a, b) = (self.index_dim(ctx, a)?, self.index_dim(ctx, b)?);
        let (pa, pb) = (self.poly(a), self.poly(b));
        Some(match dlc_arith::ArithOps::of(ctx, def)? {
            dlc_arith::ArithOps::AddIOp(_) => self.dim_of(pa.add(&pb)?),
            dlc_arith::ArithOps::SubIOp(_) => self.dim_of(pa.sub(&pb)?),
            dlc_arith::ArithOps::MulIOp(_) => self.dim_of(pa.mul(&pb)?),
            dlc_arith::ArithOps::DivSIOp(_) => match b {
                DimExpr::Static(k) if k > 0 => {
                    let q = self.quotient(pa, k);
                    self.dim_of(q)
                }
                _ => return None,
            },
            dlc_arith::ArithOps::MaxSIOp(_) => {
                let m = self.max(pa, pb);
                self.dim_of(m)
            }
            dlc_arith::ArithOps::MinSIOp(_) => {
                let m = self.min(pa, pb);
                self.dim_of(m)
            }
            _ => return None,
        })
    }

    fn constrain(&mut self, a: u32, b: u32) {
        let pair = (a.min(b), a.max(b));
        if a != b && !self.constraints.contains(&pair) {
            self.constraints.push(pair);
        }
    }

    /// Two dims the op requires equal: the more static one, recording a constraint between
    /// different symbols.
    fn unify(&mut self, a: DimExpr, b: DimExpr) -> DimExpr {
        match (a, b) {
            (DimExpr::Symbol(x), DimExpr::Symbol(y)) => {
                self.constrain(x, y);
                a
            }
            (DimExpr::Symbol(_), DimExpr::Static(_)) => b,
            _ => a,
        }
    }

    fn broadcast(&mut self, shapes: &[Vec<DimExpr>]) -> Vec<DimExpr> {
        let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
        let mut out = vec![DimExpr::Static(1); rank];
        for s in shapes {
            let offset = rank - s.len();
            for (k, &d) in s.iter().enumerate() {
                let cur = out[offset + k];
                out[offset + k] = match (cur, d) {
                    (DimExpr::Static(1), _) => d,
                    (_, DimExpr::Static(1)) => cur,
                    _ => self.unify(cur, d),
                };
            }
        }
        out
    }

    fn walk_region(&mut self, ctx: &Context, region: dlc_ir::Region) {
        for &block in ctx.blocks(region) {
            for op in ctx.block_ops(block) {
                self.visit(ctx, op);
            }
        }
    }

    fn visit(&mut self, ctx: &Context, op: Op) {
        let fam = GraphOps::of(ctx, op).map(GraphOps::family);
        if fam == Some(Family::Fusion) {
            self.visit_fusion(ctx, op);
            return;
        }
        for &region in ctx.regions(op) {
            for &block in ctx.blocks(region) {
                for &arg in ctx.block_args(block) {
                    self.get(ctx, arg);
                }
            }
            self.walk_region(ctx, region);
        }
        if fam == Some(Family::Rnn) {
            self.visit_rnn(ctx, op);
            return;
        }
        if ctx.num_results(op) != 1 {
            for r in ctx.results(op) {
                self.get(ctx, r);
            }
            return;
        }
        let result = ctx.result(op, 0);
        let Some(ty) = tensor_parts(ctx, ctx.value_type(result)) else {
            return;
        };
        let rule = match fam {
            Some(f) => self.rule(ctx, op, f),
            // Another dialect's op: its `InferShapes`, when it gives a symbolic rule.
            None => ctx.interface::<dyn InferShapes>(op).and_then(|rule| {
                let shapes: Vec<Vec<DimExpr>> =
                    ctx.operands(op).iter().map(|&v| self.get(ctx, v)).collect();
                rule.infer_symbolic(&shapes, ctx.attrs(op))
            }),
        };
        let dims = match rule {
            Some(dims) if dims.len() == ty.shape.len() => dims
                .into_iter()
                .zip(&ty.shape)
                .map(|(e, &d)| if d == DYNAMIC { e } else { DimExpr::Static(d) })
                .collect(),
            _ => self.shape_of_type(ctx, result).unwrap_or_default(),
        };
        self.shapes.insert(result, dims);
    }

    fn visit_fusion(&mut self, ctx: &Context, op: Op) {
        let region = ctx.region(op, 0);
        if let Some(&entry) = ctx.blocks(region).first() {
            for (&arg, &v) in ctx.block_args(entry).iter().zip(ctx.operands(op)) {
                let s = self.get(ctx, v);
                self.shapes.insert(arg, s);
            }
        }
        self.walk_region(ctx, region);
        let term = ctx
            .blocks(region)
            .first()
            .and_then(|b| ctx.last_op(*b))
            .filter(|t| ctx.view::<YieldOp>(*t).is_some());
        for (i, r) in ctx.results(op).enumerate() {
            let s = match term.and_then(|t| ctx.operands(t).get(i).copied()) {
                Some(v) => self.get(ctx, v),
                None => self.shape_of_type(ctx, r).unwrap_or_default(),
            };
            self.shapes.insert(r, s);
        }
    }

    /// `graph.rnn`: `y` is `[T, D, B, H]` and the states `[D, B, H]`, with `T` and `B` those of
    /// the projected inputs.
    fn visit_rnn(&mut self, ctx: &Context, op: Op) {
        let xp = match ctx.operands(op).first() {
            Some(v) => self.get(ctx, *v),
            None => Vec::new(),
        };
        for (i, r) in ctx.results(op).enumerate() {
            let Some(t) = tensor_parts(ctx, ctx.value_type(r)) else {
                continue;
            };
            // Which dims of the result are xp's T (0) and B (1).
            let from_xp: &[(usize, usize)] = if i == 0 { &[(0, 0), (2, 1)] } else { &[(1, 1)] };
            let mut dims = Vec::with_capacity(t.shape.len());
            for (axis, &d) in t.shape.iter().enumerate() {
                let known = from_xp
                    .iter()
                    .find(|(a, _)| *a == axis)
                    .and_then(|(_, x)| xp.get(*x).copied());
                dims.push(match (d, known) {
                    (DYNAMIC, Some(e)) => e,
                    (DYNAMIC, None) => self.fresh(SymbolOrigin::Result {
                        value: r,
                        axis: axis as u32,
                    }),
                    (d, _) => DimExpr::Static(d),
                });
            }
            self.shapes.insert(r, dims);
        }
    }

    /// The symbolic result shape of a single-result op, where a rule relates it to the operands.
    fn rule(&mut self, ctx: &Context, op: Op, fam: Family) -> Option<Vec<DimExpr>> {
        let operands: Vec<Value> = ctx.operands(op).to_vec();
        let shapes: Vec<Vec<DimExpr>> = operands.iter().map(|v| self.get(ctx, *v)).collect();
        let attrs = Attrs::new(ctx, ctx.attrs(op));
        Some(match fam {
            Family::Unary(_)
            | Family::Cast
            | Family::Softmax(_)
            | Family::Gelu
            | Family::Silu
            | Family::LayerNorm
            | Family::RmsNorm => shapes.first()?.clone(),
            Family::Binary(_) | Family::Cmp | Family::Select => self.broadcast(&shapes),
            Family::Transpose => {
                let perm = attrs.array("perm").ok()??;
                let x = shapes.first()?;
                perm.iter()
                    .map(|p| x.get(*p as usize).copied())
                    .collect::<Option<_>>()?
            }
            Family::Reduce(_) | Family::ArgReduce(_) => {
                let x = shapes.first()?;
                let axes = match fam {
                    Family::Reduce(_) => attrs.array("axes").ok()??,
                    _ => vec![attrs.int("axis").ok()??],
                };
                let keep = attrs.flag("keepdim").ok()?;
                x.iter()
                    .enumerate()
                    .filter_map(|(i, d)| match (axes.contains(&(i as i64)), keep) {
                        (false, _) => Some(*d),
                        (true, true) => Some(DimExpr::Static(1)),
                        (true, false) => None,
                    })
                    .collect()
            }
            Family::Matmul => {
                let (a, b) = (shapes.first()?, shapes.get(1)?);
                if a.len() < 2 || b.len() < 2 {
                    return None;
                }
                let (ta, tb) = crate::ops::MatmulOp(op).transposes(ctx);
                let (ar, br) = (a.len(), b.len());
                let (m, ka) = if ta {
                    (a[ar - 1], a[ar - 2])
                } else {
                    (a[ar - 2], a[ar - 1])
                };
                let (kb, n) = if tb {
                    (b[br - 1], b[br - 2])
                } else {
                    (b[br - 2], b[br - 1])
                };
                self.unify(ka, kb);
                let mut out = self.broadcast(&[a[..ar - 2].to_vec(), b[..br - 2].to_vec()]);
                out.extend([m, n]);
                out
            }
            Family::BroadcastTo => {
                let target = attrs.array("shape").ok()??;
                let x = shapes.first()?;
                let offset = target.len().checked_sub(x.len())?;
                let mut out = Vec::with_capacity(target.len());
                for (j, &t) in target.iter().enumerate() {
                    let d = if j >= offset {
                        x[j - offset]
                    } else {
                        DimExpr::Static(1)
                    };
                    out.push(match (t, d) {
                        (-1, DimExpr::Static(1)) => self.fresh(SymbolOrigin::Result {
                            value: ctx.result(op, 0),
                            axis: j as u32,
                        }),
                        (-1, d) => d,
                        (t, _) => DimExpr::Static(t),
                    });
                }
                out
            }
            Family::Reshape | Family::Fill | Family::Iota
                if operands.len() > 1 || fam != Family::Reshape =>
            {
                // `?` dims given by index operands (after a reshape's source): the symbol of a
                // `graph.dim` they read, else their own.
                let ty = tensor_parts(ctx, ctx.value_type(ctx.result(op, 0)))?;
                let skip = usize::from(fam == Family::Reshape);
                let mut sizes = operands.get(skip..)?.iter();
                let mut out = Vec::with_capacity(ty.shape.len());
                for (axis, &d) in ty.shape.iter().enumerate() {
                    out.push(if d != DYNAMIC {
                        DimExpr::Static(d)
                    } else {
                        let size = *sizes.next()?;
                        self.index_dim(ctx, size).unwrap_or_else(|| {
                            self.fresh(SymbolOrigin::Result {
                                value: ctx.result(op, 0),
                                axis: axis as u32,
                            })
                        })
                    });
                }
                out
            }
            Family::Reshape => {
                // One inferred dim: the element count over the known dims.
                let ty = tensor_parts(ctx, ctx.value_type(ctx.result(op, 0)))?;
                let x = shapes.first()?;
                let mut count = Poly::constant(1);
                for &d in x {
                    count = count.mul(&self.poly(d))?;
                }
                let known: i64 = ty.shape.iter().filter(|&&d| d != DYNAMIC).product();
                let mut out = Vec::with_capacity(ty.shape.len());
                for &d in &ty.shape {
                    out.push(match d {
                        DYNAMIC => {
                            let q = self.quotient(count.clone(), known.max(1));
                            self.dim_of(q)
                        }
                        d => DimExpr::Static(d),
                    });
                }
                out
            }
            Family::Pad => {
                let x = shapes.first()?;
                let (low, high) = (attrs.array("low").ok()??, attrs.array("high").ok()??);
                let mut out = Vec::with_capacity(x.len());
                for (k, &d) in x.iter().enumerate() {
                    let grow = low.get(k)?.checked_add(*high.get(k)?)?;
                    out.push(self.dim_of(self.poly(d).add(&Poly::constant(grow))?));
                }
                out
            }
            Family::Slice => {
                let x = shapes.first()?;
                let ty = tensor_parts(ctx, ctx.value_type(ctx.result(op, 0)))?;
                let (starts, ends) = (attrs.array("starts").ok()??, attrs.array("ends").ok()??);
                let steps = attrs.array("steps").ok().flatten();
                let mut out = Vec::with_capacity(x.len());
                for (k, &d) in x.iter().enumerate() {
                    out.push(match *ty.shape.get(k)? {
                        DYNAMIC => {
                            let step = steps.as_ref().and_then(|s| s.get(k).copied()).unwrap_or(1);
                            self.slice_len(d, *starts.get(k)?, *ends.get(k)?, step.max(1))?
                        }
                        n => DimExpr::Static(n),
                    });
                }
                out
            }
            Family::Gather => {
                let axis = attrs.int("axis").ok()?? as usize;
                let (x, idx) = (shapes.first()?, shapes.get(1)?);
                let mut out = x.get(..axis)?.to_vec();
                out.extend(idx);
                out.extend(x.get(axis + 1..)?);
                out
            }
            Family::Concat => {
                let axis = attrs.int("axis").ok()?? as usize;
                let mut out = shapes.first()?.clone();
                let mut total = Poly::default();
                for s in &shapes {
                    if s.len() != out.len() || axis >= s.len() {
                        return None;
                    }
                    for k in 0..s.len() {
                        if k == axis {
                            total = total.add(&self.poly(s[k]))?;
                        } else {
                            out[k] = self.unify(out[k], s[k]);
                        }
                    }
                }
                out[axis] = self.dim_of(total);
                out
            }
            Family::Linear => {
                let (x, w) = (shapes.first()?, shapes.get(1)?);
                let k = *x.last()?;
                self.unify(k, *w.first()?);
                let mut out = x[..x.len() - 1].to_vec();
                out.push(*w.get(1)?);
                out
            }
            Family::Sdpa => {
                let (q, k, v) = (shapes.first()?, shapes.get(1)?, shapes.get(2)?);
                let r = q.len();
                if r < 2 || k.len() != r || v.len() != r {
                    return None;
                }
                self.unify(q[r - 1], k[r - 1]);
                self.unify(k[r - 2], v[r - 2]);
                let mut out = self.broadcast(&[
                    q[..r - 2].to_vec(),
                    k[..r - 2].to_vec(),
                    v[..r - 2].to_vec(),
                ]);
                out.extend([q[r - 2], v[r - 1]]);
                out
            }
            Family::Pool2d(_) | Family::Conv2d => {
                // Batch from the input, channels from the input (pools) or the weights; each
                // spatial dim static, or the window's length over the input's.
                let x = shapes.first()?;
                let result = ctx.result(op, 0);
                let ty =
                    tensor_parts(ctx, ctx.value_type(result)).filter(|t| t.shape.len() == 4)?;
                let input = ctx.operand(op, 0);
                let (window, channels) = if fam == Family::Conv2d {
                    let w = ctx.operand(op, 1);
                    let window = crate::decompose::Window::of(ctx, op, input, Some(w))?;
                    (window, *shapes.get(1)?.first()?)
                } else {
                    (
                        crate::decompose::Window::of(ctx, op, input, None)?,
                        *x.get(1)?,
                    )
                };
                let mut out = vec![*x.first()?, channels];
                for axis in 2..4 {
                    let s = axis - 2;
                    out.push(match ty.shape[axis] {
                        DYNAMIC => self.window_len(
                            *x.get(axis)?,
                            [window.kh, window.kw][s],
                            window.strides[s],
                            window.dilations[s],
                            window.padding[s] + window.padding[s + 2],
                        )?,
                        d => DimExpr::Static(d),
                    });
                }
                out
            }
            _ => return None,
        })
    }
}

/// The attribute [`annotate`] sets on each op with tensor results: their symbolic shapes, as
/// Paddle PIR's `sym_shape_str` (`"shape[s0, 32]"`; several results separated by `; `).
pub const SYM_SHAPE: &str = "sym_shape_str";

/// The attribute [`annotate`] sets on each function: where each symbol comes from, then the
/// runtime constraints between symbols.
pub const SYM_SYMBOLS: &str = "sym_symbols";

impl SymbolicShapes {
    /// `"shape[s0, 32]"` for tensor value `v`.
    pub fn shape_str(&self, v: Value) -> Option<String> {
        let dims: Vec<String> = self
            .shape(v)?
            .iter()
            .map(|d| match d {
                DimExpr::Static(n) => n.to_string(),
                DimExpr::Symbol(s) => format!("s{s}"),
            })
            .collect();
        Some(format!("shape[{}]", dims.join(", ")))
    }

    /// What symbol `s` is: `"s0 = dim 0 of argument 0"`, `"s3 = dim 0 of a graph.iota"`,
    /// `"s4 = s0 * s1"`.
    pub fn symbol_str(&self, ctx: &Context, s: u32) -> String {
        match self.origin(s) {
            Some(SymbolOrigin::Arg { arg, axis }) => format!("s{s} = dim {axis} of argument {arg}"),
            Some(SymbolOrigin::Result { value, axis }) => {
                let op = ctx
                    .defining_op(*value)
                    .map_or("a block argument", |o| ctx.op_name(o));
                format!("s{s} = dim {axis} of a {op}")
            }
            Some(SymbolOrigin::Derived(def)) => format!("s{s} = {def}"),
            None => format!("s{s}"),
        }
    }
}

/// Writes the symbolic shapes of every `func.func` under `root` into the IR, for reading: each
/// op with tensor results gets [`SYM_SHAPE`], each function [`SYM_SYMBOLS`]
/// (`dlc-opt --print-symbolic-shapes`).
pub fn annotate(ctx: &mut Context, root: Op) {
    let mut funcs = Vec::new();
    ctx.for_each_op(root, &mut |op| {
        if ctx.view::<dlc_func::FuncOp>(op).is_some() {
            funcs.push(op);
        }
    });
    for func in funcs {
        let shapes = SymbolicShapes::compute(ctx, func);
        let mut ops = Vec::new();
        ctx.for_each_op(func, &mut |op| {
            if op != func {
                ops.push(op);
            }
        });
        for op in ops {
            let parts: Vec<String> = ctx
                .results(op)
                .filter(|&r| tensor_parts(ctx, ctx.value_type(r)).is_some())
                .filter_map(|r| shapes.shape_str(r))
                .collect();
            if !parts.is_empty() {
                let text = ctx.string_attr(&parts.join("; "));
                ctx.set_attr(op, SYM_SHAPE, text);
            }
        }
        let mut lines: Vec<String> = (0..shapes.num_symbols() as u32)
            .map(|s| shapes.symbol_str(ctx, s))
            .collect();
        lines.extend(
            shapes
                .constraints()
                .iter()
                .map(|(a, b)| format!("s{a} == s{b} at run time")),
        );
        let elements: Vec<_> = lines.iter().map(|l| ctx.string_attr(l)).collect();
        let list = ctx.array_attr(&elements);
        ctx.set_attr(func, SYM_SYMBOLS, list);
    }
}

/// The name [`DIM_NAMES`] gives dim `axis` of argument `arg` of function `func`, if any.
pub fn arg_dim_name(ctx: &Context, func: Op, arg: usize, axis: usize) -> Option<String> {
    dim_names(ctx, func, arg)
        .get(axis)
        .copied()
        .flatten()
        .map(str::to_string)
}

/// Per dim of argument `arg` of `func`, the name [`DIM_NAMES`] gives it (`None` for `""` or
/// none).
fn dim_names(ctx: &Context, func: Op, arg: usize) -> Vec<Option<&str>> {
    let names = ctx
        .attr(func, "arg_attrs")
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::Array(per_arg) => per_arg.get(arg).copied(),
            _ => None,
        })
        .and_then(|dict| match ctx.attr_kind(dict) {
            AttrKind::Dict(entries) => entries
                .iter()
                .find(|e| ctx.ident_str(e.name) == DIM_NAMES)
                .map(|e| e.value),
            _ => None,
        });
    match names.map(|n| ctx.attr_kind(n)) {
        Some(AttrKind::Array(names)) => names
            .iter()
            .map(|n| match ctx.attr_kind(*n) {
                AttrKind::String(name) if !name.is_empty() => Some(&**name),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The symbolic shape of `ty` with every `?` as `None` (for callers without an analysis).
pub fn static_dims(ctx: &Context, ty: Type) -> Option<Vec<Option<i64>>> {
    let t = tensor_parts(ctx, ty)?;
    Some(
        t.shape
            .iter()
            .map(|&d| (d != DYNAMIC).then_some(d))
            .collect(),
    )
}
