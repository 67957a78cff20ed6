//! A dialect written outside dlc: `act`, three activation functions on float tensors, with a
//! custom syntax (declarative formats), a verifier, a folder, an interface implementation and a pass that lowers
//! them to graph ops (a dialect conversion), so that everything dlc does with a graph program (fusion, lowering,
//! code generation) then applies.
//!
//! ```text
//! %y = act.scale %x, 0.5 : tensor<4xf32>        // x * 0.5
//! %y = act.clamp %x, 0.0, 6.0 : tensor<4xf32>   // min(max(x, 0), 6)
//! %y = act.hard_swish %x : tensor<4xf32>        // x * clamp(x + 3, 0, 6) / 6
//! ```
//!
//! `src/main.rs` is `act-opt`, a dlc-opt-like tool that knows dlc's dialects and passes and this
//! crate's (`act-opt input.mlir 'lower-act,canonicalize'`); `test/` holds its lit tests.
//! docs/tutorial.md builds this dialect step by step; its snippets are this crate's doctests.

#[cfg(doctest)]
#[doc = include_str!("../../../../docs/tutorial.md")]
pub struct Tutorial;

use dlc_func::FuncOp;
use dlc_graph::shapes::DimExpr;
use dlc_graph::{build_binary, build_splat, tensor_parts, InferShapes, TensorType};
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRegistry, PassRun};
use dlc_ir::rewrite::TypeConverter;
use dlc_ir::rewrite::{apply_conversion, ConversionTarget, PatternSet, RewritePattern, Rewriter};
use dlc_ir::NamedAttr;
use dlc_ir::{define_op, op_error, op_set, Attribute, Context, DenseValue, Diagnostic, Dialect};
use dlc_ir::{FoldResult, InsertPoint, Op, Traits};
use dlc_ir::{Type, Value};
use smallvec::SmallVec;

/// The traits every `act` op has: pure, and its result has its operand's type.
const ACT: Traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);

define_op! {
    /// Multiplies every element by the float attribute `factor`.
    pub struct ScaleOp = "act.scale";
    traits = ACT;
    operands = [input];
    results = [result];
    attributes = [factor: f64];
    interfaces = [dyn InferShapes => SameShape];
    format = "$input `,` $factor attr-dict `:` type($input)";
    verify = verify_float_input;
    fold = fold_scale;
}

define_op! {
    /// Limits every element to `[low, high]`.
    pub struct ClampOp = "act.clamp";
    traits = ACT;
    operands = [input];
    results = [result];
    attributes = [low: f64, high: f64];
    interfaces = [dyn InferShapes => SameShape];
    format = "$input `,` $low `,` $high attr-dict `:` type($input)";
    verify = verify_clamp;
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

fn verify_clamp(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_float_input(ctx, op)?;
    let [low, high] = clamp_bounds(ctx, ClampOp(op));
    if low.is_nan() || high.is_nan() || low > high {
        return Err(op_error(
            ctx,
            op,
            format!("low {low} must not exceed high {high}"),
        ));
    }
    Ok(())
}

fn clamp_bounds(ctx: &Context, op: ClampOp) -> [f64; 2] {
    [op.low(ctx), op.high(ctx)].map(|v| v.unwrap_or(f64::NAN))
}

/// `act.scale %x, 1.0` is `%x`.
fn fold_scale(
    ctx: &mut Context,
    op: Op,
    _: &[Option<Attribute>],
) -> Option<SmallVec<[FoldResult; 1]>> {
    let factor = ScaleOp(op).factor(ctx)?;
    (factor == 1.0).then(|| SmallVec::from_elem(FoldResult::Value(ctx.operand(op, 0)), 1))
}

/// Every `act` op's result has its operand's type, and its operand's symbolic shape: the
/// result-type check of graph ops that read it and dlc's symbolic shape analysis
/// (`dlc_graph::shapes::SymbolicShapes`) see through `act` ops.
struct SameShape;

impl InferShapes for SameShape {
    fn infer(
        &self,
        ctx: &Context,
        operands: &[Type],
        _: &[NamedAttr],
    ) -> Result<TensorType, String> {
        let input = operands.first().ok_or("expects one operand")?;
        tensor_parts(ctx, *input).ok_or_else(|| "operand must be a tensor".into())
    }

    fn infer_symbolic(&self, operands: &[Vec<DimExpr>], _: &[NamedAttr]) -> Option<Vec<DimExpr>> {
        operands.first().cloned()
    }
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
        let mut count = 0;
        ctx.for_each_op(run.op(), &mut |op| {
            count += ActOps::of(ctx, op).is_some() as u64
        });
        // A dialect conversion: every act op must go, and the driver says where one is left.
        let mut target = ConversionTarget::new();
        target.add_illegal_dialect("act");
        let mut patterns = PatternSet::new();
        patterns.add(LowerActOp);
        apply_conversion(ctx, run.op(), &target, &patterns, &TypeConverter::new())?;
        run.add_stat("lowered", count);
        Ok(())
    }
}

/// The conversion pattern: any act op becomes the graph ops [`lower`] builds.
struct LowerActOp;

impl RewritePattern for LowerActOp {
    fn name(&self) -> &str {
        "LowerActOp"
    }

    fn root(&self) -> Option<&'static str> {
        None
    }

    fn match_and_rewrite(&self, op: Op, rewriter: &mut Rewriter<'_>) -> bool {
        let Some(act) = ActOps::of(rewriter.ctx(), op) else {
            return false;
        };
        // The builders fail only on shapes that do not broadcast, which a verified act op
        // cannot have (its constants are scalars); the op then stays and the driver reports it.
        match lower(rewriter.ctx_mut(), act) {
            Ok(value) => {
                rewriter.replace_op(op, &[value]);
                true
            }
            Err(_) => false,
        }
    }
}

/// Builds the graph ops that compute `act` just before it.
fn lower(ctx: &mut Context, act: ActOps) -> Result<Value, Diagnostic> {
    let (op, at) = (act.op(), InsertPoint::Before(act.op()));
    let (x, loc) = (ctx.operand(op, 0), ctx.op_loc(op));
    let scalar_ty = ctx.tensor_type(&[], ctx.element_type(ctx.value_type(x)));
    let scalar =
        |ctx: &mut Context, v: f64| build_splat(ctx, at, scalar_ty, DenseValue::Float(v), loc);
    let clamp = |ctx: &mut Context, x: Value, [low, high]: [f64; 2]| {
        let (low, high) = (scalar(ctx, low), scalar(ctx, high));
        let above = build_binary(ctx, at, "graph.max", x, low, loc)?;
        build_binary(ctx, at, "graph.min", above, high, loc)
    };
    match act {
        ActOps::ScaleOp(s) => {
            let factor = s.factor(ctx).unwrap_or(f64::NAN);
            let factor = scalar(ctx, factor);
            build_binary(ctx, at, "graph.mul", x, factor, loc)
        }
        ActOps::ClampOp(c) => clamp(ctx, x, clamp_bounds(ctx, c)),
        ActOps::HardSwishOp(_) => {
            let three = scalar(ctx, 3.0);
            let shifted = build_binary(ctx, at, "graph.add", x, three, loc)?;
            let gate = clamp(ctx, shifted, [0.0, 6.0])?;
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
