//! Shape computations as values: the small integer tensors of a model's shape arithmetic
//! (`Shape → Gather → Concat → Reshape`), known at import time element by element, each
//! element an integer or a size known only at run time.
//!
//! With static shapes such computations fold to constants as they are built ([`NodeCx::op`]).
//! With a `?` dim they cannot, so the importer also evaluates them over [`Dim`]s: `Shape` of a
//! tensor with a `?` dim records a known integer per static dim and the `index` value of a
//! `graph.dim` per dynamic one, and every small integer graph op built on recorded or constant
//! operands (gather, slice, concat, reshape, cast, add/sub/mul/div/max/min, eq/ne comparisons,
//! select, whole-vector sums and products) is evaluated over them, emitting `arith` ops on
//! `index` values where a run-time size takes part. A consumer that needs a shape (Reshape,
//! ConstantOfShape, Expand) reads it with [`NodeCx::dims_input`] and passes the run-time sizes
//! as the `index` operands of `graph.reshape` or `graph.fill`.
//!
//! The graph ops stay as well: a shape tensor that is also used as data (cast to float and
//! scaled, say) is computed at run time, where each `?` dim of `Shape` is a count (a
//! `graph.fill` of ones, summed). Unused, they are swept at the end of the import.

use crate::importer::{NodeCx, NodeResult};
use dlc_arith::{AddIOp, DivSIOp, MaxSIOp, MinSIOp, MulIOp, SubIOp};
use dlc_graph::ops::CastOp;
use dlc_graph::GraphOps;
use dlc_ir::{AttrKind, InsertPoint, Op, Type, Value, DYNAMIC};

/// One element of a shape tensor.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Dim {
    /// An integer known at import time.
    Known(i64),
    /// An integer known at run time: an `index` value of the function being built, never
    /// negative when `nonneg` (a dim, and sums, products and quotients of dims).
    Size { value: Value, nonneg: bool },
}

/// The most elements a shape tensor evaluated over [`Dim`]s may have.
const MAX_ELEMENTS: usize = 64;

/// A binary integer operation on shape elements.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

impl Arith {
    fn of(kind: GraphOps) -> Option<Arith> {
        Some(match kind {
            GraphOps::AddOp(_) => Arith::Add,
            GraphOps::SubOp(_) => Arith::Sub,
            GraphOps::MulOp(_) => Arith::Mul,
            GraphOps::DivOp(_) => Arith::Div,
            GraphOps::MaxOp(_) => Arith::Max,
            GraphOps::MinOp(_) => Arith::Min,
            _ => return None,
        })
    }

    /// `a op b` as `graph`'s integer ops compute it (division truncates); `None` on overflow
    /// or division by zero.
    fn known(self, a: i64, b: i64) -> Option<i64> {
        match self {
            Arith::Add => a.checked_add(b),
            Arith::Sub => a.checked_sub(b),
            Arith::Mul => a.checked_mul(b),
            Arith::Div => a.checked_div(b),
            Arith::Max => Some(a.max(b)),
            Arith::Min => Some(a.min(b)),
        }
    }
}

impl NodeCx<'_, '_> {
    /// The elements of integer tensor `v` (rank 0 or 1) when they are known up to run-time
    /// sizes: a constant, or a shape computation recorded during the import.
    pub(crate) fn dims_of(&mut self, v: Value) -> Option<Vec<Dim>> {
        if let Some(dims) = self.imp.shape_values.get(&v) {
            return Some(dims.clone());
        }
        let ctx = &*self.imp.ctx;
        let small = ctx.shape(ctx.value_type(v)).is_some_and(|s| {
            s.len() <= 1 && s.iter().all(|&d| (0..=MAX_ELEMENTS as i64).contains(&d))
        });
        if !small {
            return None;
        }
        let t = self.imp.constant_value(v)?;
        if !(t.dtype().is_int() || t.dtype().is_bool()) {
            return None;
        }
        Some(t.to_i64_vec().into_iter().map(Dim::Known).collect())
    }

    /// The elements of rank-0 or rank-1 tensor `v` of any number type when they are whole
    /// numbers known up to run-time sizes: [`Self::dims_of`] for integers; for floats, a
    /// constant of whole values or a cast of integer shape elements (`Cast(Shape(x)[3])` to
    /// float, how exporters write `arange` over a size).
    pub(crate) fn whole_dims_of(&mut self, v: Value) -> Option<Vec<Dim>> {
        if !self.is_float(v) {
            return self.dims_of(v);
        }
        let ctx = &*self.imp.ctx;
        if let Some(cast) = ctx.defining_op(v).and_then(|op| ctx.view::<CastOp>(op)) {
            let source = ctx.operand(cast.0, 0);
            return self.dims_of(source);
        }
        if ctx.shape(ctx.value_type(v))?.len() > 1 {
            return None;
        }
        let t = self.imp.constant_value(v)?;
        if t.len() > MAX_ELEMENTS {
            return None;
        }
        (0..t.len())
            .map(|i| {
                let x = t.get(i).as_f64();
                // Whole and exact in an i64 (and in an f64's mantissa).
                (x.fract() == 0.0 && x.abs() < 9.0e15).then_some(Dim::Known(x as i64))
            })
            .collect()
    }

    /// Input `i` as shape elements (Reshape's shape, Expand's, ConstantOfShape's), when
    /// present: a constant, or computed from `Shape`s of the graph's tensors.
    pub fn dims_input(&mut self, i: usize) -> NodeResult<Option<Vec<Dim>>> {
        let Some(v) = self.opt_input(i) else {
            return Ok(None);
        };
        if let Some(dims) = self.dims_of(v) {
            return Ok(Some(dims));
        }
        // Not a shape: the constant input's error says why.
        self.ints_input(i)
            .map(|ints| ints.map(|v| v.into_iter().map(Dim::Known).collect()))
    }

    /// `graph.dim %x, axis`: a size known at run time (one per tensor, axis and block).
    pub fn dim_size(&mut self, x: Value, axis: usize) -> Value {
        let key = (x, axis, self.imp.block);
        if let Some(&v) = self.imp.dim_values.get(&key) {
            return v;
        }
        let a = self.int_attr(axis as i64);
        let v = self.index_op("graph.dim", &[x], &[("axis", a)]);
        self.imp.dim_values.insert(key, v);
        v
    }

    /// The shape of `x` as [`Dim`]s: known static dims, `graph.dim`s for the `?` ones.
    pub fn dims(&mut self, x: Value) -> Vec<Dim> {
        self.shape(x)
            .into_iter()
            .enumerate()
            .map(|(axis, d)| match d {
                DYNAMIC => Dim::Size {
                    value: self.dim_size(x, axis),
                    nonneg: true,
                },
                d => Dim::Known(d),
            })
            .collect()
    }

    /// `index` size `n` as an `i64` tensor computed at run time: `[n]` (`keep`) or a scalar,
    /// as the number of elements of a `graph.fill` of `n` ones.
    pub fn size_tensor(&mut self, n: Value, keep: bool) -> NodeResult<Value> {
        let ty = self.ctx().tensor_type(&[DYNAMIC], Type::I64);
        let one = self.ctx().integer_attr(1, Type::I64);
        let ones = self.op_typed("graph.fill", &[n], &[("value", one)], ty)?;
        self.reduce("graph.reduce_sum", ones, &[0], keep)
    }

    /// The `i64` vector of `dims`, computed at run time where they are sizes, and recorded as
    /// a shape computation.
    pub fn dims_tensor(&mut self, dims: &[Dim]) -> NodeResult<Value> {
        let mut pieces = Vec::new();
        let mut known = Vec::new();
        for d in dims {
            match *d {
                Dim::Known(k) => known.push(k),
                Dim::Size { value, .. } => {
                    if !known.is_empty() {
                        pieces.push(self.i64_vector(&std::mem::take(&mut known)));
                    }
                    let t = self.size_tensor(value, true)?;
                    self.imp.shape_values.insert(t, vec![*d]);
                    pieces.push(t);
                }
            }
        }
        if !known.is_empty() || pieces.is_empty() {
            pieces.push(self.i64_vector(&known));
        }
        let v = if pieces.len() == 1 {
            pieces[0]
        } else {
            let axis = self.int_attr(0);
            self.op("graph.concat", &pieces, &[("axis", axis)])?
        };
        self.imp.shape_values.insert(v, dims.to_vec());
        Ok(v)
    }

    /// `d` as a rank-0 `i64` tensor: a constant when known, else computed at run time
    /// ([`Self::size_tensor`]).
    pub fn dim_scalar(&mut self, d: Dim) -> NodeResult<Value> {
        match d {
            Dim::Known(k) => Ok(self.scalar_of(k as f64, Type::I64)),
            Dim::Size { value, .. } => self.size_tensor(value, false),
        }
    }

    /// The positions `0 .. n` as an `i64` tensor of rank `rank`, along `axis` (every other
    /// dim 1, so it broadcasts): a constant when `n` is known, else a `graph.iota` sized at
    /// run time. Masks and index tables over `?` dims are built from these.
    pub fn positions(&mut self, n: Dim, rank: usize, axis: usize) -> NodeResult<Value> {
        let mut shape = vec![1; rank];
        match n {
            Dim::Known(k) => {
                let len = usize::try_from(k).map_err(|_| format!("a negative size {k}"))?;
                shape[axis] = len;
                let values: Vec<i64> = (0..k).collect();
                Ok(self.constant(dlc_tensor::Literal::from_i64(
                    dlc_tensor::DType::I64,
                    &shape,
                    &values,
                )))
            }
            Dim::Size { value, .. } => {
                let mut dims = vec![1; rank];
                dims[axis] = DYNAMIC;
                let ty = self.ctx().tensor_type(&dims, Type::I64);
                let a = self.int_attr(axis as i64);
                self.op_typed("graph.iota", &[value], &[("axis", a)], ty)
            }
        }
    }

    /// The `index` value of `d`.
    pub(crate) fn size_value(&mut self, d: Dim) -> Value {
        match d {
            Dim::Known(k) => {
                let at = InsertPoint::End(self.imp.block);
                let c = dlc_arith::build_index_constant(self.imp.ctx, at, k, self.loc);
                self.imp.ctx.result(c, 0)
            }
            Dim::Size { value, .. } => value,
        }
    }

    /// The product of `dims`; `None` when known ones overflow.
    pub(crate) fn dims_product(&mut self, dims: &[Dim]) -> Option<Dim> {
        dims.iter()
            .try_fold(Dim::Known(1), |p, &d| self.arith(Arith::Mul, p, d))
    }

    /// `a − b` over shape elements; `None` when known ones overflow.
    pub(crate) fn dims_difference(&mut self, a: Dim, b: Dim) -> Option<Dim> {
        self.arith(Arith::Sub, a, b)
    }

    /// The larger of `a` and `b`.
    pub(crate) fn dims_max(&mut self, a: Dim, b: Dim) -> Option<Dim> {
        self.arith(Arith::Max, a, b)
    }

    /// The smaller of `a` and `b`.
    pub(crate) fn dims_min(&mut self, a: Dim, b: Dim) -> Option<Dim> {
        self.arith(Arith::Min, a, b)
    }

    /// A `graph.fill` of `value` (converted to `elem`) of shape `dims`, sized at run time
    /// where they are sizes.
    pub fn sized_fill(&mut self, dims: &[Dim], elem: Type, value: f64) -> NodeResult<Value> {
        let mut shape = Vec::with_capacity(dims.len());
        let mut sizes = Vec::new();
        for &d in dims {
            match d {
                Dim::Known(k) => shape.push(k),
                Dim::Size { value, .. } => {
                    shape.push(DYNAMIC);
                    sizes.push(value);
                }
            }
        }
        let fill = if self.imp.ctx.float_kind(elem).is_some() {
            self.ctx().float_attr(value, elem)
        } else {
            self.ctx().integer_attr(value as i128, elem)
        };
        let ty = self.ctx().tensor_type(&shape, elem);
        self.op_typed("graph.fill", &sizes, &[("value", fill)], ty)
    }

    /// `a / b` over shape elements (truncating); `None` for a known divisor ≤ 0.
    pub(crate) fn dims_quotient(&mut self, a: Dim, b: Dim) -> Option<Dim> {
        self.arith(Arith::Div, a, b)
    }

    /// The length of `Range(start, limit, delta)` for a positive `delta`:
    /// `max(limit − start + delta − 1, 0) / delta`.
    pub(crate) fn range_count(&mut self, start: Dim, limit: Dim, delta: i64) -> Option<Dim> {
        let span = self.arith(Arith::Sub, limit, start)?;
        let span = self.arith(Arith::Add, span, Dim::Known(delta - 1))?;
        let span = self.arith(Arith::Max, span, Dim::Known(0))?;
        self.arith(Arith::Div, span, Dim::Known(delta))
    }

    /// Where a Slice bound `v` (for a positive step) falls on an axis of `size` elements: a
    /// negative bound counts from the end, then it is clamped to `0 ..= size`. A run-time
    /// bound of unknown sign picks its case arithmetically (`[v ≥ 0]` is
    /// `min(max(v + 1, 0), 1)`), so the sizes stay the `index` arithmetic the graph interpreter
    /// and `SymbolicShapes` read (neither takes `arith.cmpi`/`select` on `index` values).
    pub(crate) fn slice_bound(&mut self, v: Dim, size: Dim) -> Option<Dim> {
        let zero = Dim::Known(0);
        match v {
            Dim::Known(k) if k >= 0 => self.arith(Arith::Min, v, size),
            Dim::Known(_) => {
                let from_end = self.arith(Arith::Add, size, v)?;
                self.arith(Arith::Max, from_end, zero)
            }
            d if nonneg(d) => self.arith(Arith::Min, d, size),
            d => {
                let positive = self.arith(Arith::Max, d, zero)?;
                let ahead = self.arith(Arith::Min, positive, size)?;
                let negative = self.arith(Arith::Min, d, zero)?;
                let from_end = self.arith(Arith::Add, negative, size)?;
                let behind = self.arith(Arith::Max, from_end, zero)?;
                let next = self.arith(Arith::Add, d, Dim::Known(1))?;
                let at_least = self.arith(Arith::Max, next, zero)?;
                let is_ahead = self.arith(Arith::Min, at_least, Dim::Known(1))?;
                let sum = self.arith(Arith::Add, ahead, behind)?;
                let extra = self.arith(Arith::Mul, size, is_ahead)?;
                self.arith(Arith::Sub, sum, extra)
            }
        }
    }

    /// `a op b`, folded when both are known (and for the identities of `+`, `*`, `/`), else
    /// an `arith` op on `index` values.
    fn arith(&mut self, op: Arith, a: Dim, b: Dim) -> Option<Dim> {
        let (a_nonneg, b_nonneg) = (nonneg(a), nonneg(b));
        match (op, a, b) {
            (_, Dim::Known(x), Dim::Known(y)) => return op.known(x, y).map(Dim::Known),
            (Arith::Add | Arith::Sub, d, Dim::Known(0))
            | (Arith::Add, Dim::Known(0), d)
            | (Arith::Mul | Arith::Div, d, Dim::Known(1))
            | (Arith::Mul, Dim::Known(1), d) => return Some(d),
            (Arith::Mul, _, Dim::Known(0)) | (Arith::Mul, Dim::Known(0), _) => {
                return Some(Dim::Known(0))
            }
            (Arith::Div, _, Dim::Known(k)) if k <= 0 => return None,
            (Arith::Max, d, Dim::Known(k)) | (Arith::Max, Dim::Known(k), d)
                if k <= 0 && nonneg(d) =>
            {
                return Some(d)
            }
            _ => {}
        }
        // Products of sizes are tracked as monomials, so `b·s·32 / (b·s)` is 32.
        let product = match (op, self.monomial(a), self.monomial(b)) {
            (Arith::Mul, Some(pa), Some(pb)) => pa.times(&pb),
            (Arith::Div, Some(pa), Some(pb)) => pa.over(&pb),
            _ => None,
        };
        if let Some(p) = &product {
            if p.factors.is_empty() {
                return Some(Dim::Known(p.coef));
            }
            if p.coef == 1 && p.factors.len() == 1 {
                return Some(Dim::Size {
                    value: p.factors[0],
                    nonneg: true,
                });
            }
        }
        let (x, y) = (self.size_value(a), self.size_value(b));
        let at = InsertPoint::End(self.imp.block);
        let (ctx, loc) = (&mut *self.imp.ctx, self.loc);
        let built = match op {
            Arith::Add => dlc_arith::build_binary::<AddIOp>(ctx, at, x, y, loc),
            Arith::Sub => dlc_arith::build_binary::<SubIOp>(ctx, at, x, y, loc),
            Arith::Mul => dlc_arith::build_binary::<MulIOp>(ctx, at, x, y, loc),
            Arith::Div => dlc_arith::build_binary::<DivSIOp>(ctx, at, x, y, loc),
            Arith::Max => dlc_arith::build_binary::<MaxSIOp>(ctx, at, x, y, loc),
            Arith::Min => dlc_arith::build_binary::<MinSIOp>(ctx, at, x, y, loc),
        };
        let nonneg = match op {
            Arith::Add | Arith::Mul | Arith::Div | Arith::Min => a_nonneg && b_nonneg,
            Arith::Max => a_nonneg || b_nonneg,
            Arith::Sub => false,
        };
        let value = ctx.result(built, 0);
        if let Some(p) = product {
            self.imp.monomials.insert(value, p);
        }
        Some(Dim::Size { value, nonneg })
    }

    /// `d` as a monomial: a constant, a recorded product, or a size of its own (not a value
    /// that may be negative).
    fn monomial(&self, d: Dim) -> Option<Monomial> {
        match d {
            Dim::Known(coef) => Some(Monomial {
                coef,
                factors: Vec::new(),
            }),
            Dim::Size { value, nonneg } => match self.imp.monomials.get(&value) {
                Some(m) => Some(m.clone()),
                None => nonneg.then(|| Monomial {
                    coef: 1,
                    factors: vec![value],
                }),
            },
        }
    }

    /// Records the elements of `op`'s result (built on `operands`, not all constants) when
    /// it is a small integer tensor computed from shape elements; emits the `arith` ops that
    /// computation needs.
    pub(crate) fn record_shape_value(&mut self, op: Op, operands: &[Value]) {
        if let Some(dims) = self.evaluate(op, operands) {
            let result = self.imp.ctx.result(op, 0);
            self.imp.shape_values.insert(result, dims);
        }
    }

    fn evaluate(&mut self, op: Op, operands: &[Value]) -> Option<Vec<Dim>> {
        let ctx = &*self.imp.ctx;
        let result = ctx.result(op, 0);
        let shape = ctx.shape(ctx.value_type(result))?.to_vec();
        let elem = ctx.element_type(ctx.value_type(result));
        let n = match shape.as_slice() {
            [] => 1,
            [n] if (0..=MAX_ELEMENTS as i64).contains(n) => *n as usize,
            _ => return None,
        };
        if !(ctx.any_integer(elem).is_some() || elem == Type::I1) {
            return None;
        }
        let kind = GraphOps::of(ctx, op)?;
        let predicate = ctx
            .attr(op, "predicate")
            .and_then(|a| ctx.attr_as_str(a))
            .map(str::to_string);
        let bounds = ["starts", "ends", "steps"]
            .map(|name| array_attr(ctx, op, name).and_then(|v| v.first().copied()));
        let args: Vec<Vec<Dim>> = operands
            .iter()
            .map(|v| self.dims_of(*v))
            .collect::<Option<_>>()?;
        if !args.iter().flatten().any(|d| matches!(d, Dim::Size { .. })) {
            return None;
        }
        let out = match kind {
            GraphOps::ReshapeOp(_) if args.len() == 1 => args[0].clone(),
            GraphOps::ConcatOp(_) => args.concat(),
            GraphOps::CastOp(_) if elem == Type::I1 => args[0]
                .iter()
                .map(|d| match d {
                    Dim::Known(k) => Some(Dim::Known((*k != 0) as i64)),
                    Dim::Size { .. } => None,
                })
                .collect::<Option<_>>()?,
            GraphOps::CastOp(_) => args[0].clone(),
            GraphOps::GatherOp(_) => {
                let (data, idx) = (&args[0], args.get(1)?);
                let len = data.len() as i64;
                idx.iter()
                    .map(|i| match *i {
                        Dim::Known(i) if (-len..len).contains(&i) => {
                            Some(data[i.rem_euclid(len) as usize])
                        }
                        _ => None,
                    })
                    .collect::<Option<_>>()?
            }
            GraphOps::SliceOp(_) => {
                let [start, end, step] = bounds;
                slice(&args[0], start?, end?, step?)?
            }
            GraphOps::CmpOp(_) => {
                let equal = match predicate?.as_str() {
                    "eq" => true,
                    "ne" => false,
                    _ => return None,
                };
                broadcast2(&args[0], &args[1], n)?
                    .map(|(a, b)| dims_equal(a, b).map(|e| Dim::Known((e == equal) as i64)))
                    .collect::<Option<_>>()?
            }
            GraphOps::SelectOp(_) => {
                let (c, a, b) = (&args[0], args.get(1)?, args.get(2)?);
                let pick = |i: usize, v: &[Dim]| v.get(if v.len() == 1 { 0 } else { i }).copied();
                (0..n)
                    .map(|i| match pick(i, c)? {
                        Dim::Known(0) => pick(i, b),
                        Dim::Known(_) => pick(i, a),
                        Dim::Size { .. } => None,
                    })
                    .collect::<Option<_>>()?
            }
            GraphOps::ReduceSumOp(_) | GraphOps::ReduceProdOp(_) if n == 1 => {
                let op = match kind {
                    GraphOps::ReduceSumOp(_) => Arith::Add,
                    _ => Arith::Mul,
                };
                let init = Dim::Known((op == Arith::Mul) as i64);
                let total = args[0]
                    .iter()
                    .try_fold(init, |acc, &d| self.arith(op, acc, d))?;
                vec![total]
            }
            kind => {
                let op = Arith::of(kind)?;
                let pairs: Vec<(Dim, Dim)> = broadcast2(&args[0], args.get(1)?, n)?.collect();
                pairs
                    .into_iter()
                    .map(|(a, b)| self.arith(op, a, b))
                    .collect::<Option<_>>()?
            }
        };
        (out.len() == n).then_some(out)
    }
}

/// A product of a constant and run-time sizes (never negative).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Monomial {
    coef: i64,
    /// The sizes multiplied, sorted.
    factors: Vec<Value>,
}

impl Monomial {
    fn times(&self, other: &Monomial) -> Option<Monomial> {
        let mut factors = [self.factors.as_slice(), &other.factors].concat();
        factors.sort();
        Some(Monomial {
            coef: self.coef.checked_mul(other.coef)?,
            factors,
        })
    }

    /// `self / other` when it divides exactly: a constant that divides, and factors it has.
    fn over(&self, other: &Monomial) -> Option<Monomial> {
        if other.coef <= 0 || self.coef % other.coef != 0 {
            return None;
        }
        let mut factors = self.factors.clone();
        for f in &other.factors {
            let at = factors.iter().position(|g| g == f)?;
            factors.remove(at);
        }
        Some(Monomial {
            coef: self.coef / other.coef,
            factors,
        })
    }
}

fn nonneg(d: Dim) -> bool {
    match d {
        Dim::Known(k) => k >= 0,
        Dim::Size { nonneg, .. } => nonneg,
    }
}

/// Whether `a == b` is decided at import time: both known, the same value, or a size that
/// is never negative against a negative integer.
fn dims_equal(a: Dim, b: Dim) -> Option<bool> {
    match (a, b) {
        (Dim::Known(x), Dim::Known(y)) => Some(x == y),
        _ if a == b => Some(true),
        (Dim::Known(k), d) | (d, Dim::Known(k)) if k < 0 && nonneg(d) => Some(false),
        _ => None,
    }
}

/// The pairs of elements of `a` and `b` broadcast to `n` (a one-element side repeats).
fn broadcast2<'a>(
    a: &'a [Dim],
    b: &'a [Dim],
    n: usize,
) -> Option<impl Iterator<Item = (Dim, Dim)> + 'a> {
    let fits = |v: &[Dim]| v.len() == 1 || v.len() == n;
    if !fits(a) || !fits(b) {
        return None;
    }
    let at = |v: &'a [Dim], i: usize| v[if v.len() == 1 { 0 } else { i }];
    Some((0..n).map(move |i| (at(a, i), at(b, i))))
}

/// numpy's `v[start:end:step]` of a vector (the graph dialect's slice, clamped).
fn slice(v: &[Dim], start: i64, end: i64, step: i64) -> Option<Vec<Dim>> {
    if step == 0 {
        return None;
    }
    let len = v.len() as i64;
    let clamp = |i: i64, low: i64, high: i64| {
        let i = if i < 0 { i.saturating_add(len) } else { i };
        i.clamp(low, high)
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, end) = (clamp(start, 0, len), clamp(end, 0, len));
        while i < end {
            out.push(v[i as usize]);
            i += step;
        }
    } else {
        let (mut i, end) = (clamp(start, -1, len - 1), clamp(end, -1, len - 1));
        while i > end {
            out.push(v[i as usize]);
            i += step;
        }
    }
    Some(out)
}

/// The `array<i64: ...>` attribute `name` of `op`.
pub(crate) fn array_attr(ctx: &dlc_ir::Context, op: Op, name: &str) -> Option<Vec<i64>> {
    match ctx.attr_kind(ctx.attr(op, name)?) {
        AttrKind::DenseArray { values, .. } => Some(values.to_vec()),
        _ => None,
    }
}

/// A shape tensor's dims as a constant when all are known.
pub(crate) fn known(dims: &[Dim]) -> Option<Vec<i64>> {
    dims.iter()
        .map(|d| match d {
            Dim::Known(k) => Some(*k),
            Dim::Size { .. } => None,
        })
        .collect()
}
