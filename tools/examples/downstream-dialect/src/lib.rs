//! A dialect written outside dlc: `act`, three activation functions on float tensors, with a
//! custom syntax (declarative formats), a dialect attribute, a verifier, a folder, a
//! canonicalization pattern, a shape interface, derivative rules (`act.scale` and `act.clamp`
//! implement `Differentiable`, so dlc's `grad` pass differentiates through them) and a pass
//! that lowers them to graph ops (a dialect conversion), after which dlc fuses, lowers and
//! compiles them like any graph program.
//!
//! ```text
//! %y = act.scale %x, 0.5 : tensor<4xf32>               // x * 0.5
//! %y = act.clamp %x, range<0.0, 6.0> : tensor<4xf32>   // min(max(x, 0), 6)
//! %y = act.hard_swish %x : tensor<4xf32>               // x * clamp(x + 3, 0, 6) / 6
//! ```
//!
//! `src/main.rs` is the tool `act-opt`; `test/` holds its lit tests. docs/tutorial.md builds
//! this dialect step by step; its snippets are this crate's doctests.

#[cfg(doctest)]
#[doc = include_str!("../../../../docs/tutorial.md")]
pub struct Tutorial;

use dlc_func::FuncOp;
use dlc_graph::autodiff::{Differentiable, Vjp, VjpResult};
use dlc_graph::{build_binary, build_splat, InferShapes, SameShape};
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRegistry, PassRun};
use dlc_ir::rewrite::{apply_conversion, ConversionTarget, FnPattern, OpPattern, PatternSet};
use dlc_ir::rewrite::{Rewriter, TypeConverter};
use dlc_ir::{define_attr, define_op, fold_to_value, op_error, op_set, AttrValue, Attribute};
use dlc_ir::{Context, DenseValue, Diagnostic, Dialect, Folded, InsertPoint, Op, Traits, Value};

/// The traits every `act` op has: pure, and its result has its operand's type.
const ACT: Traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);

define_attr! {
    /// `#act.range<low, high>`: the closed interval a clamp keeps.
    pub struct Range = "act.range";
    params = [low: f64, high: f64];
}

/// The range of ReLU6, and of the gate in hard swish.
const RELU6: Range = Range::new(0.0, 6.0);

define_op! {
    /// Multiplies every element by the float attribute `factor`.
    pub struct ScaleOp = "act.scale";
    traits = ACT;
    operands = [input];
    results = [result];
    attributes = [factor: f64];
    interfaces = [dyn InferShapes => SameShape, dyn Differentiable => ScaleVjp];
    format = "$input `,` $factor attr-dict `:` type($input)";
    verify = verify_float_input;
    fold = fold_scale;
}

define_op! {
    /// Limits every element to a range.
    pub struct ClampOp = "act.clamp";
    traits = ACT;
    operands = [input];
    results = [result];
    attributes = [range: Range];
    interfaces = [dyn InferShapes => SameShape, dyn Differentiable => ClampVjp];
    format = "$input `,` $range attr-dict `:` type($input)";
    verify = verify_clamp;
    canonicalize = || vec![Box::new(OpPattern::new("ClampOfClamp", clamp_of_clamp))];
}

define_op! {
    /// MobileNetV3's hard swish, `x * clamp(x + 3, 0, 6) / 6`.
    pub struct HardSwishOp = "act.hard_swish";
    traits = ACT;
    operands = [input];
    results = [result];
    interfaces = [dyn InferShapes => SameShape];
    format = "$input attr-dict `:` type($input)";
    verify = verify_float_input;
}

op_set! {
    /// The ops of the `act` dialect.
    pub enum ActOps { ScaleOp, ClampOp, HardSwishOp }
}

/// The `act` dialect; registering it registers the graph dialect it lowers to.
pub fn dialect() -> Dialect {
    let mut dialect = Dialect::new("act", ActOps::defs());
    dialect.attrs = vec![Range::DEF];
    dialect.dependencies = vec![dlc_graph::dialect];
    dialect
}

/// The operand must be a tensor of floats.
fn verify_float_input(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ty = ctx.value_type(ctx.operand(op, 0));
    match ctx.shape(ty).map(|_| ctx.float_kind(ctx.element_type(ty))) {
        Some(Some(_)) => Ok(()),
        _ => Err(op_error(ctx, op, "operand must be a tensor of floats")),
    }
}

/// The range must not be empty (the verifier checks that there is one, from `range: Range`).
fn verify_clamp(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_float_input(ctx, op)?;
    let Range { low, high } = ClampOp(op).range(ctx).unwrap_or(RELU6);
    let ordered = low <= high;
    let error = (!ordered).then(|| op_error(ctx, op, format!("low {low} exceeds high {high}")));
    error.map_or(Ok(()), Err)
}

/// The derivative of `act.scale`: `g · factor`.
struct ScaleVjp;

impl Differentiable for ScaleVjp {
    fn vjp(&self, v: &mut Vjp<'_, '_>) -> VjpResult {
        let factor = ScaleOp(v.op).factor(v.b.ctx).ok_or("needs a 'factor'")?;
        let g = v.g();
        let f = v.scalar(factor, g);
        Ok(vec![Some(v.mul(g, f))])
    }
}

/// The derivative of `act.clamp`: `g` where the input is inside the range (its ends included,
/// as PyTorch's `clamp`), 0 where the clamp cut it.
struct ClampVjp;

impl Differentiable for ClampVjp {
    fn vjp(&self, v: &mut Vjp<'_, '_>) -> VjpResult {
        let Range { low, high } = ClampOp(v.op).range(v.b.ctx).unwrap_or(RELU6);
        let (g, x) = (v.g(), v.x(0));
        let (lo, hi) = (v.scalar(low, x), v.scalar(high, x));
        let above = v.b.cmp("ge", x, lo);
        let below = v.b.cmp("le", x, hi);
        let inside = v.bin("graph.and", above, below);
        Ok(vec![Some(v.where_else_zero(inside, g))])
    }
}

/// `act.scale %x, 1.0` is `%x`.
fn fold_scale(ctx: &mut Context, op: Op, _: &[Option<Attribute>]) -> Folded {
    let factor = ScaleOp(op).factor(ctx)?;
    let input = ctx.operand(op, 0);
    fold_to_value(input).filter(|_| factor == 1.0)
}

/// A clamp of a clamp whose ranges overlap is one clamp to their intersection.
fn clamp_of_clamp(outer: ClampOp, rewriter: &mut Rewriter<'_>) -> bool {
    let ctx = rewriter.ctx();
    let inner = ctx.defining::<ClampOp>(outer.input(ctx));
    let ranges = inner.and_then(|inner| Some((inner.input(ctx), inner.range(ctx)?)));
    let Some(((input, a), b)) = ranges.zip(outer.range(ctx)) else {
        return false;
    };
    let (low, high) = (a.low.max(b.low), a.high.min(b.high));
    if low > high {
        return false;
    }
    let range = Range { low, high }.to_attr(rewriter.ctx_mut());
    rewriter.modify_in_place(outer.0, |ctx| {
        ctx.set_operand(outer.0, 0, input);
        ctx.set_attr(outer.0, "range", range)
    });
    true
}

/// `lower-act`: rewrites every `act` op into graph ops.
pub static LOWER_ACT: PassInfo = PassInfo {
    argument: "lower-act",
    summary: "Rewrites act ops into graph ops.",
    anchor: Anchor::op::<FuncOp>(),
    options: &[],
    statistics: &[("lowered", "Number of act ops rewritten")],
    create: |_: &OptionValues| Ok(Box::new(LowerAct)),
};

struct LowerAct;

impl Pass for LowerAct {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        // A dialect conversion: every act op must go, and the driver says where one is left.
        let mut target = ConversionTarget::new();
        target.add_illegal_dialect("act");
        let mut patterns = PatternSet::new();
        patterns.add(FnPattern::new("LowerActOp", |op, rewriter| {
            let act = ActOps::of(rewriter.ctx(), op);
            let lowered = act.and_then(|act| lower(rewriter.ctx_mut(), act).ok());
            lowered
                .map(|value| rewriter.replace_op(op, &[value]))
                .is_some()
        }));
        let lowered = apply_conversion(ctx, run.op(), &target, &patterns, &TypeConverter::new())?;
        run.add_stat("lowered", lowered as u64);
        Ok(())
    }
}

/// Builds the graph ops that compute `act` just before it.
fn lower(ctx: &mut Context, act: ActOps) -> Result<Value, Diagnostic> {
    let (op, at) = (act.op(), InsertPoint::Before(act.op()));
    let (x, loc) = (ctx.operand(op, 0), ctx.op_loc(op));
    let scalar_ty = ctx.tensor_type(&[], ctx.element_type(ctx.value_type(x)));
    let scalar =
        |ctx: &mut Context, v: f64| build_splat(ctx, at, scalar_ty, DenseValue::Float(v), loc);
    let clamp = |ctx: &mut Context, x: Value, Range { low, high }| {
        let (low, high) = (scalar(ctx, low), scalar(ctx, high));
        let above = build_binary(ctx, at, "graph.max", x, low, loc)?;
        build_binary(ctx, at, "graph.min", above, high, loc)
    };
    match act {
        ActOps::ScaleOp(s) => {
            let factor = scalar(ctx, s.factor(ctx).unwrap_or(f64::NAN));
            build_binary(ctx, at, "graph.mul", x, factor, loc)
        }
        ActOps::ClampOp(c) => match c.range(ctx) {
            Some(range) => clamp(ctx, x, range),
            None => Err(op_error(ctx, op, "has no range")),
        },
        ActOps::HardSwishOp(_) => {
            let three = scalar(ctx, 3.0);
            let shifted = build_binary(ctx, at, "graph.add", x, three, loc)?;
            let gate = clamp(ctx, shifted, RELU6)?;
            let gated = build_binary(ctx, at, "graph.mul", x, gate, loc)?;
            let six = scalar(ctx, 6.0);
            build_binary(ctx, at, "graph.div", gated, six, loc)
        }
    }
}

/// Registers this crate's passes (next to dlc's, in a tool's registry).
pub fn register(registry: &mut PassRegistry) {
    registry.register(&LOWER_ACT);
}
