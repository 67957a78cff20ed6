//! The graph ops: one typed wrapper per op, written with `define_op!`, and the table that says
//! which family each op belongs to.
//!
//! The family fixes an op's custom syntax, its dtype class and its shape rule, so the syntax,
//! verifier and folder dispatch on a table lookup instead of matching op names everywhere.

use dlc_ir::{define_op, Traits};

/// Traits of a pure elementwise op whose operand and result have one type.
const SAME: Traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
/// Traits of a pure commutative op.
const COMM: Traits = Traits::PURE.union(Traits::COMMUTATIVE);
const PURE: Traits = Traits::PURE;

/// Declares single-result op wrappers that differ in name, traits, operands and attributes.
macro_rules! graph_ops {
    ($($(#[doc = $doc:literal])* $name:ident = $opname:literal, $traits:expr, $operands:tt, [$($attr:ident),*];)*) => {
        $(define_op! {
            $(#[doc = $doc])*
            pub struct $name = $opname;
            traits = $traits;
            operands = $operands;
            results = [result];
            attributes = [$($attr),*];
        })*
    };
}

graph_ops! {
    /// Elementwise negation.
    NegOp = "graph.neg", SAME, [operand], [];
    /// Elementwise absolute value.
    AbsOp = "graph.abs", SAME, [operand], [];
    /// Elementwise `e^x`.
    ExpOp = "graph.exp", SAME, [operand], [];
    /// Elementwise natural logarithm.
    LogOp = "graph.log", SAME, [operand], [];
    /// Elementwise square root.
    SqrtOp = "graph.sqrt", SAME, [operand], [];
    /// Elementwise `1 / sqrt(x)`.
    RsqrtOp = "graph.rsqrt", SAME, [operand], [];
    /// Elementwise `1 / x`.
    ReciprocalOp = "graph.reciprocal", SAME, [operand], [];
    /// Elementwise hyperbolic tangent.
    TanhOp = "graph.tanh", SAME, [operand], [];
    /// Elementwise logistic function `1 / (1 + e^-x)`.
    SigmoidOp = "graph.sigmoid", SAME, [operand], [];
    /// Elementwise `max(x, 0)`.
    ReluOp = "graph.relu", SAME, [operand], [];
    /// Elementwise Gauss error function.
    ErfOp = "graph.erf", SAME, [operand], [];
    /// Elementwise sine.
    SinOp = "graph.sin", SAME, [operand], [];
    /// Elementwise cosine.
    CosOp = "graph.cos", SAME, [operand], [];
    /// Elementwise rounding toward negative infinity.
    FloorOp = "graph.floor", SAME, [operand], [];
    /// Elementwise rounding toward positive infinity.
    CeilOp = "graph.ceil", SAME, [operand], [];
    /// Elementwise rounding to nearest, ties to even.
    RoundOp = "graph.round", SAME, [operand], [];
    /// Elementwise sign: -1, 0 or 1.
    SignOp = "graph.sign", SAME, [operand], [];
    /// Elementwise logical (i1) or bitwise (integers) not.
    NotOp = "graph.not", SAME, [operand], [];
    /// Elementwise dtype conversion (float→int truncates toward zero; to i1 is `x != 0`).
    CastOp = "graph.cast", PURE, [operand], [];

    /// Elementwise addition with numpy broadcasting.
    AddOp = "graph.add", COMM, [lhs, rhs], [];
    /// Elementwise subtraction with numpy broadcasting.
    SubOp = "graph.sub", PURE, [lhs, rhs], [];
    /// Elementwise multiplication with numpy broadcasting.
    MulOp = "graph.mul", COMM, [lhs, rhs], [];
    /// Elementwise division with numpy broadcasting (integers truncate toward zero).
    DivOp = "graph.div", PURE, [lhs, rhs], [];
    /// Elementwise power with numpy broadcasting.
    PowOp = "graph.pow", PURE, [lhs, rhs], [];
    /// Elementwise maximum with numpy broadcasting.
    MaxOp = "graph.max", COMM, [lhs, rhs], [];
    /// Elementwise minimum with numpy broadcasting.
    MinOp = "graph.min", COMM, [lhs, rhs], [];
    /// Elementwise remainder with the sign of the dividend (C `fmod`, `%`).
    RemOp = "graph.rem", PURE, [lhs, rhs], [];
    /// Elementwise logical/bitwise and with numpy broadcasting.
    AndOp = "graph.and", COMM, [lhs, rhs], [];
    /// Elementwise logical/bitwise or with numpy broadcasting.
    OrOp = "graph.or", COMM, [lhs, rhs], [];
    /// Elementwise comparison giving i1 (`predicate` is eq, ne, lt, le, gt or ge).
    CmpOp = "graph.cmp", PURE, [lhs, rhs], [predicate];
    /// Elementwise `cond ? a : b`, broadcasting all three.
    SelectOp = "graph.select", PURE, [condition, true_value, false_value], [];

    /// Broadcasts to the static `shape` (-1 entries: the result type's dim), numpy rules.
    BroadcastToOp = "graph.broadcast_to", PURE, [operand], [shape];
    /// Reshapes to `shape` (one -1 entry is inferred from the element count).
    ReshapeOp = "graph.reshape", PURE, [operand], [shape];
    /// Permutes the axes: result dim `i` is operand dim `perm[i]`.
    TransposeOp = "graph.transpose", PURE, [operand], [perm];
    /// Strided slice per axis, numpy semantics (negative starts/ends count from the end).
    SliceOp = "graph.slice", PURE, [operand], [starts, ends, steps];
    /// Concatenation along `axis`.
    ConcatOp = "graph.concat", PURE, *, [axis];
    /// Constant padding by `low`/`high` elements per axis with `value` (default 0).
    PadOp = "graph.pad", PURE, [operand], [low, high, value];
    /// numpy `take` along `axis`.
    GatherOp = "graph.gather", PURE, [operand, indices], [axis];

    /// Sum over `axes`.
    ReduceSumOp = "graph.reduce_sum", PURE, [operand], [axes, keepdim];
    /// Maximum over `axes`.
    ReduceMaxOp = "graph.reduce_max", PURE, [operand], [axes, keepdim];
    /// Minimum over `axes`.
    ReduceMinOp = "graph.reduce_min", PURE, [operand], [axes, keepdim];
    /// Product over `axes`.
    ReduceProdOp = "graph.reduce_prod", PURE, [operand], [axes, keepdim];
    /// Mean over `axes`.
    ReduceMeanOp = "graph.reduce_mean", PURE, [operand], [axes, keepdim];
    /// Index (i64) of the first maximum along `axis`.
    ArgMaxOp = "graph.argmax", PURE, [operand], [axis, keepdim];
    /// Index (i64) of the first minimum along `axis`.
    ArgMinOp = "graph.argmin", PURE, [operand], [axis, keepdim];
    /// Batched matrix product with numpy `matmul` semantics (rank ≥ 2).
    MatmulOp = "graph.matmul", PURE, [lhs, rhs], [transpose_a, transpose_b];

    /// A dense tensor constant.
    ConstantOp = "graph.constant", PURE.union(Traits::CONSTANT_LIKE), [], [value];
    /// A tensor whose elements are their index along `axis`.
    IotaOp = "graph.iota", PURE, [], [axis];
    /// A tensor filled with `value`; one index operand per `?` dim of the result.
    FillOp = "graph.fill", PURE, *, [value];
    /// A dimension of a tensor as an `index`.
    DimOp = "graph.dim", PURE, [operand], [axis];

    /// Softmax along `axis`.
    SoftmaxOp = "graph.softmax", PURE, [operand], [axis];
    /// Log-softmax along `axis`.
    LogSoftmaxOp = "graph.log_softmax", PURE, [operand], [axis];
    /// Layer normalization over the axes from `axis` on, scaled by gamma and shifted by beta.
    LayerNormOp = "graph.layer_norm", PURE, [operand, gamma, beta], [axis, epsilon];
    /// RMS normalization over the axes from `axis` on, scaled by gamma.
    RmsNormOp = "graph.rms_norm", PURE, [operand, gamma], [axis, epsilon];
    /// GELU (`approximate` = "none" (erf, default) or "tanh").
    GeluOp = "graph.gelu", SAME, [operand], [approximate];
    /// SiLU: `x * sigmoid(x)`.
    SiluOp = "graph.silu", SAME, [operand], [];
    /// `x · w + b` with `w: [K, N]`, `b: [N]`.
    LinearOp = "graph.linear", PURE, [operand, weight, bias], [];
    /// 2-D convolution, NCHW input and OIHW weights.
    Conv2dOp = "graph.conv2d", PURE, [operand, weight], [strides, padding, dilations, groups];
    /// 2-D max pooling over NCHW.
    MaxPool2dOp = "graph.max_pool2d", PURE, [operand], [kernel, strides, padding];
    /// 2-D average pooling over NCHW; the count excludes padding.
    AvgPool2dOp = "graph.avg_pool2d", PURE, [operand], [kernel, strides, padding];
    /// Scaled dot-product attention: `softmax(q·kᵀ·scale + mask)·v` over the last two dims.
    SdpaOp = "graph.sdpa", PURE, *, [scale];
}

define_op! {
    /// A fused group of ops: its operands are the group's inputs (the entry block arguments), its
    /// results the operands of the `graph.yield` that ends the body.
    pub struct FusionOp = "graph.fusion";
    traits = Traits::ISOLATED_FROM_ABOVE.union(Traits::SINGLE_BLOCK);
    operands = *;
    results = *;
    regions = 1;
}

define_op! {
    /// Returns the results of a `graph.fusion`.
    pub struct YieldOp = "graph.yield";
    traits = Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE);
    operands = *;
    results = [];
}

/// The dtypes an op accepts on its tensor operands.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DTypeClass {
    /// f16, bf16, f32, f64.
    Float,
    /// Floats and i8, i32, i64 (not i1).
    Numeric,
    /// i1, i8, i32, i64.
    IntOrBool,
    /// Every graph dtype.
    Any,
}

/// The reductions, which share one shape rule.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Reduction {
    Sum,
    Max,
    Min,
    Prod,
    Mean,
}

/// The family of a graph op: its syntax, dtype class and shape rule.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Family {
    /// One operand, same type out.
    Unary(DTypeClass),
    Cast,
    /// Two operands broadcast, same element type out.
    Binary(DTypeClass),
    Cmp,
    Select,
    BroadcastTo,
    Reshape,
    Transpose,
    Slice,
    Concat,
    Pad,
    Gather,
    Reduce(Reduction),
    /// argmax (`true`) or argmin.
    ArgReduce(bool),
    Matmul,
    Constant,
    Iota,
    Fill,
    Dim,
    /// softmax (`false`) or log_softmax (`true`).
    Softmax(bool),
    LayerNorm,
    RmsNorm,
    Gelu,
    Silu,
    Linear,
    Conv2d,
    /// max (`true`) or average pooling.
    Pool2d(bool),
    Sdpa,
    Fusion,
    Yield,
}

impl Family {
    /// True for the composite ops, which have a decomposition into primitives.
    pub fn is_composite(self) -> bool {
        matches!(
            self,
            Family::Softmax(_)
                | Family::LayerNorm
                | Family::RmsNorm
                | Family::Gelu
                | Family::Silu
                | Family::Linear
                | Family::Conv2d
                | Family::Pool2d(_)
                | Family::Sdpa
        )
    }
}

/// The family of the graph op called `name`.
pub fn family(name: &str) -> Option<Family> {
    use DTypeClass::*;
    use Family::*;
    let name = name.strip_prefix("graph.")?;
    Some(match name {
        "neg" | "abs" | "relu" | "sign" => Unary(Numeric),
        "exp" | "log" | "sqrt" | "rsqrt" | "reciprocal" | "tanh" | "sigmoid" | "erf" | "sin"
        | "cos" | "floor" | "ceil" | "round" => Unary(Float),
        "not" => Unary(IntOrBool),
        "cast" => Cast,
        "add" | "sub" | "mul" | "div" | "pow" | "max" | "min" | "rem" => Binary(Numeric),
        "and" | "or" => Binary(IntOrBool),
        "cmp" => Cmp,
        "select" => Select,
        "broadcast_to" => BroadcastTo,
        "reshape" => Reshape,
        "transpose" => Transpose,
        "slice" => Slice,
        "concat" => Concat,
        "pad" => Pad,
        "gather" => Gather,
        "reduce_sum" => Reduce(Reduction::Sum),
        "reduce_max" => Reduce(Reduction::Max),
        "reduce_min" => Reduce(Reduction::Min),
        "reduce_prod" => Reduce(Reduction::Prod),
        "reduce_mean" => Reduce(Reduction::Mean),
        "argmax" => ArgReduce(true),
        "argmin" => ArgReduce(false),
        "matmul" => Matmul,
        "constant" => Constant,
        "iota" => Iota,
        "fill" => Fill,
        "dim" => Dim,
        "softmax" => Softmax(false),
        "log_softmax" => Softmax(true),
        "layer_norm" => LayerNorm,
        "rms_norm" => RmsNorm,
        "gelu" => Gelu,
        "silu" => Silu,
        "linear" => Linear,
        "conv2d" => Conv2d,
        "max_pool2d" => Pool2d(true),
        "avg_pool2d" => Pool2d(false),
        "sdpa" => Sdpa,
        "fusion" => Fusion,
        "yield" => Yield,
        _ => return None,
    })
}

dlc_ir::op_set! {
    /// Every op of the graph dialect: `GraphOps::of(ctx, op)` to dispatch on the kind of a
    /// graph op without comparing names, `GraphOps::defs()` for the dialect.
    pub enum GraphOps {
        NegOp,
        AbsOp,
        ExpOp,
        LogOp,
        SqrtOp,
        RsqrtOp,
        ReciprocalOp,
        TanhOp,
        SigmoidOp,
        ReluOp,
        ErfOp,
        SinOp,
        CosOp,
        FloorOp,
        CeilOp,
        RoundOp,
        SignOp,
        NotOp,
        CastOp,
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        PowOp,
        MaxOp,
        MinOp,
        RemOp,
        AndOp,
        OrOp,
        CmpOp,
        SelectOp,
        BroadcastToOp,
        ReshapeOp,
        TransposeOp,
        SliceOp,
        ConcatOp,
        PadOp,
        GatherOp,
        ReduceSumOp,
        ReduceMaxOp,
        ReduceMinOp,
        ReduceProdOp,
        ReduceMeanOp,
        ArgMaxOp,
        ArgMinOp,
        MatmulOp,
        ConstantOp,
        IotaOp,
        FillOp,
        DimOp,
        SoftmaxOp,
        LogSoftmaxOp,
        LayerNormOp,
        RmsNormOp,
        GeluOp,
        SiluOp,
        LinearOp,
        Conv2dOp,
        MaxPool2dOp,
        AvgPool2dOp,
        SdpaOp,
        FusionOp,
        YieldOp,
    }
}
