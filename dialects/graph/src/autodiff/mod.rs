//! Reverse-mode differentiation of graph ops: the [`Differentiable`] interface, by which an op
//! states its vector-Jacobian product (VJP), and the [`Vjp`] builder its rules are written
//! with.
//!
//! A rule receives the op, the cotangents of its results (`None` for a result nothing
//! differentiates through) and which operands want one, and builds the operands' cotangents
//! with graph ops: `d(exp x) = g · exp x` is `v.mul(g, y)`. Rules read forward values (the
//! op's operands and results) where the derivative needs them, so nothing is recomputed. The
//! graph ops name their rule where they are defined (`vjp = ...` in [`crate::ops`]; the rules
//! are in `rules.rs`); a downstream dialect attaches [`Differentiable`] to its own op with
//! `interfaces = [dyn Differentiable => MyRule]` in `define_op!`, or to an op it does not own
//! with `Context::register_interface`.
//!
//! Values of integer or `i1` type carry no cotangent: a comparison, an `argmax` or a cast to
//! an integer passes no gradient on, and a rule never sees a cotangent for such a result. The
//! `grad` pass (dlc-passes) runs the rules over a function in reverse; docs/autodiff.md says
//! what it refuses.

pub(crate) mod rules;
pub mod unroll;

use crate::decompose::GraphBuilder;
use dlc_ir::{Op, Value, DYNAMIC};

/// What a rule returns: one entry per operand, its cotangent (`None`: no gradient, or a zero
/// one), or a message saying why this instance cannot be differentiated (the `grad` pass
/// reports it at the op's location).
pub type VjpResult = Result<Vec<Option<Value>>, String>;

/// A rule as a function, for [`Rule`].
pub type VjpFn = fn(&mut Vjp<'_, '_>) -> VjpResult;

/// An op that states its vector-Jacobian product: given the cotangents of its results, the
/// cotangents of its operands. Every result a rule returns has its operand's shape and element
/// type (broadcasts summed back: [`Vjp::unbroadcast`]).
pub trait Differentiable: Sync {
    /// Builds the cotangents of `v.op`'s operands through `v`.
    fn vjp(&self, v: &mut Vjp<'_, '_>) -> VjpResult;
}

/// A [`Differentiable`] implementation by a function: what `vjp = f` on a graph op attaches.
pub struct Rule(pub VjpFn);

impl Differentiable for Rule {
    fn vjp(&self, v: &mut Vjp<'_, '_>) -> VjpResult {
        (self.0)(v)
    }
}

/// The op being differentiated, its result cotangents, and a builder (positioned where the
/// backward ops go) with the helpers that rules share.
pub struct Vjp<'a, 'c> {
    /// Builds the backward ops.
    pub b: &'a mut GraphBuilder<'c>,
    /// The forward op.
    pub op: Op,
    cotangents: &'a [Option<Value>],
    wanted: &'a [bool],
}

impl<'a, 'c> Vjp<'a, 'c> {
    /// A VJP of `op` whose results have `cotangents`; `wanted[i]` says whether operand `i`
    /// needs a cotangent (a rule may skip building the others).
    pub fn new(
        b: &'a mut GraphBuilder<'c>,
        op: Op,
        cotangents: &'a [Option<Value>],
        wanted: &'a [bool],
    ) -> Self {
        Vjp {
            b,
            op,
            cotangents,
            wanted,
        }
    }

    /// Operand `i` of the forward op.
    pub fn x(&self, i: usize) -> Value {
        self.b.ctx.operand(self.op, i)
    }

    /// Result `i` of the forward op.
    pub fn y(&self, i: usize) -> Value {
        self.b.ctx.result(self.op, i)
    }

    /// The number of operands.
    pub fn arity(&self) -> usize {
        self.b.ctx.operands(self.op).len()
    }

    /// True if operand `i` needs a cotangent.
    pub fn wants(&self, i: usize) -> bool {
        self.wanted.get(i).copied().unwrap_or(false)
    }

    /// The cotangent of result `i`, zeros when nothing flows into it.
    pub fn dy(&mut self, i: usize) -> Value {
        match self.cotangents.get(i).copied().flatten() {
            Some(g) => g,
            None => {
                let y = self.y(i);
                self.zeros_like(y)
            }
        }
    }

    /// The cotangent of the only (or first) result.
    pub fn g(&mut self) -> Value {
        self.dy(0)
    }

    /// Binary op `name` (`graph.mul`, ...) with numpy broadcasting.
    pub fn bin(&mut self, name: &str, a: Value, b: Value) -> Value {
        self.b.binary(name, a, b)
    }

    /// `a · b`.
    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.bin("graph.mul", a, b)
    }

    /// Unary op `name` (`graph.neg`, ...).
    pub fn un(&mut self, name: &str, x: Value) -> Value {
        self.b.unary(name, x)
    }

    /// A constant `c` of `like`'s element type, all dims 1 (broadcasts against it).
    pub fn scalar(&mut self, c: f64, like: Value) -> Value {
        self.b.scalar_like(c, like)
    }

    /// `cond ? a : 0`, broadcast.
    pub fn where_else_zero(&mut self, cond: Value, a: Value) -> Value {
        let zero = self.scalar(0.0, a);
        self.b.select(cond, a, zero)
    }

    /// The `index` values of the `?` dims of `like` ([`GraphBuilder::dynamic_dims`]).
    pub fn dynamic_dims(&mut self, like: Value) -> Vec<Value> {
        self.b.dynamic_dims(like)
    }

    /// Dim `axis` of `v` as an `index` (`graph.dim`).
    pub fn dim(&mut self, v: Value, axis: usize) -> Value {
        self.b.dim(v, axis)
    }

    /// Zeros of `like`'s type ([`GraphBuilder::zeros_like`]).
    pub fn zeros_like(&mut self, like: Value) -> Value {
        self.b.zeros_like(like)
    }

    /// `x` reshaped to `shape` ([`GraphBuilder::reshape_to`]).
    pub fn reshape_to(&mut self, x: Value, shape: &[i64], dynamic: &[Value]) -> Value {
        self.b.reshape_to(x, shape, dynamic)
    }

    /// `x` reshaped to `like`'s type ([`GraphBuilder::reshape_like`]).
    pub fn reshape_like(&mut self, x: Value, like: Value) -> Value {
        self.b.reshape_like(x, like)
    }

    /// `g` (a cotangent of a broadcast result) summed over the dims that broadcasting gave
    /// `like`: the leading dims `like` lacks and those where `like` has 1 and `g` does not;
    /// shaped as `like`. A `?` dim of `like` is taken to be `g`'s size there (broadcasting a
    /// dim known only at run time is not seen).
    pub fn unbroadcast(&mut self, g: Value, like: Value) -> Value {
        let (gs, ls) = (self.b.shape(g), self.b.shape(like));
        let lead = gs.len().saturating_sub(ls.len());
        let axes: Vec<i64> = (0..gs.len())
            .filter(|&i| i < lead || (ls[i - lead] == 1 && gs[i] != 1))
            .map(|i| i as i64)
            .collect();
        let summed = if axes.is_empty() {
            g
        } else {
            self.b.reduce("graph.reduce_sum", g, &axes, true)
        };
        self.reshape_like(summed, like)
    }

    /// `g`, whose shape is `like`'s with some dims 1, broadcast to `like`'s shape: a
    /// `graph.broadcast_to` for a static shape, an addition to zeros of `like`'s type for one
    /// with `?` dims.
    pub fn broadcast_like(&mut self, g: Value, like: Value) -> Value {
        let shape = self.b.shape(like);
        if self.b.shape(g) == shape {
            return g;
        }
        if shape.contains(&DYNAMIC) {
            let zeros = self.zeros_like(like);
            return self.bin("graph.add", zeros, g);
        }
        self.b.broadcast_to(g, &shape)
    }

    /// `g` (a cotangent of a reduction of `x` over `axes`, kept or dropped) reshaped to keep
    /// the reduced dims as 1s, then broadcast to `x`'s shape.
    pub fn unreduce(&mut self, g: Value, x: Value, axes: &[usize]) -> Value {
        let xs = self.b.shape(x);
        let mut kept = xs.clone();
        let mut dynamic = Vec::new();
        for (axis, d) in kept.iter_mut().enumerate() {
            if axes.contains(&axis) {
                *d = 1;
            } else if *d == DYNAMIC {
                dynamic.push(self.dim(x, axis));
            }
        }
        let g = self.reshape_to(g, &kept, &dynamic);
        self.broadcast_like(g, x)
    }
}
