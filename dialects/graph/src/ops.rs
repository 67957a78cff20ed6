//! The graph ops, each defined once: one `graph_ops!` entry gives an op's name, family,
//! traits, operands, results, attributes, folder and decomposition, and the list of entries is
//! the dialect's op list, [`GraphOps`], from which the family lookups ([`GraphOps::family`],
//! [`family`]) and the table of decompositions are generated.
//!
//! The family fixes an op's custom syntax, its dtype class and its shape rule: the parse,
//! print and verify hooks are one generic function each, instantiated per op with its
//! [`GraphOp::FAMILY`], and its [`InferShapes`] implementation is the family's shape rule.

use crate::autodiff::{rules, Differentiable, Rule};
use crate::decompose::{self, DecomposeFn};
use crate::infer::{InferShapes, ShapeRule};
use crate::{fold, syntax, verify};
use dlc_ir::{define_op, Context, Op, OpView, Traits};
use DTypeClass::*;
use Family::*;

/// Traits of a pure elementwise op whose operand and result have one type.
const SAME: Traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
/// Traits of a pure commutative op.
const COMM: Traits = Traits::PURE.union(Traits::COMMUTATIVE);
const PURE: Traits = Traits::PURE;

/// What a graph op's definition says of it beyond its `OpDef`.
pub trait GraphOp: OpView {
    /// The op's family: its syntax, dtype class and shape rule.
    const FAMILY: Family;
}

/// Defines the graph ops from one entry each,
/// `Name = "graph.name", family, traits, operands -> results, [attributes], hooks;`, where the
/// hooks are any of `regions = n`, `parents = [...]`, `fold = f`, `decompose = f`, `vjp = f`,
/// in this order. Every op gets the graph parse, print and verify hooks and an [`InferShapes`]
/// implementation, and an op with `vjp` its [`Differentiable`] rule (a function of
/// `autodiff/rules.rs`); the list becomes [`GraphOps`] with its family and
/// decomposition lookups.
macro_rules! graph_ops {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $opname:literal, $family:expr, $traits:expr,
            $operands:tt -> $results:tt, [$($attr:ident),*]
            $(, regions = $regions:expr)? $(, parents = $parents:expr)?
            $(, fold = $fold:expr)? $(, decompose = $decompose:expr)? $(, vjp = $vjp:expr)?;
    )*) => {
        $(
            define_op! {
                $(#[doc = $doc])*
                pub struct $name = $opname;
                traits = $traits.union($family.traits());
                operands = $operands;
                results = $results;
                attributes = [$($attr),*];
                $(regions = $regions;)?
                $(parents = $parents;)?
                interfaces = [
                    dyn InferShapes => ShapeRule { name: $opname, family: $family }
                    $(, dyn Differentiable => Rule($vjp))?
                ];
                verify = verify::verify::<$name>;
                parse = syntax::parse::<$name>;
                print = syntax::print::<$name>;
                $(fold = $fold;)?
            }

            impl GraphOp for $name {
                const FAMILY: Family = $family;
            }
        )*

        dlc_ir::op_set! {
            /// Every op of the graph dialect, the dialect's one op list: `GraphOps::of(ctx, op)`
            /// to dispatch on the kind of a graph op without comparing names,
            /// `GraphOps::defs()` for the dialect.
            pub enum GraphOps { $($name),* }
        }

        impl GraphOps {
            /// The op's family ([`GraphOp::FAMILY`]).
            pub fn family(self) -> Family {
                match self {
                    $(GraphOps::$name(_) => $family,)*
                }
            }

            /// The decomposition of the op into primitives, if it is a composite.
            pub fn decomposition(self) -> Option<DecomposeFn> {
                match self {
                    $(GraphOps::$name(_) => graph_ops!(@some $($decompose)?),)*
                }
            }

            /// Every composite op's name and decomposition, in list order.
            pub const DECOMPOSITIONS: &[(&str, DecomposeFn)] = &[$($(($opname, $decompose),)?)*];
        }

        /// The family of `op` if it is a graph op: [`GraphOps::family`], by the op's id.
        pub fn family_of(ctx: &Context, op: Op) -> Option<Family> {
            GraphOps::of(ctx, op).map(GraphOps::family)
        }

        /// The family of the graph op called `name`, for code that has a name rather than an
        /// op (parsers, builders, pass options); [`family_of`] for an op.
        pub fn family(name: &str) -> Option<Family> {
            match name {
                $($opname => Some($family),)*
                _ => None,
            }
        }
    };
    (@some) => { None };
    (@some $value:expr) => { Some($value) };
}

graph_ops! {
    /// Elementwise negation.
    NegOp = "graph.neg", Unary(Numeric), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::neg;
    /// Elementwise absolute value.
    AbsOp = "graph.abs", Unary(Numeric), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::abs;
    /// Elementwise `e^x`.
    ExpOp = "graph.exp", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::exp;
    /// Elementwise natural logarithm.
    LogOp = "graph.log", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::log;
    /// Elementwise square root.
    SqrtOp = "graph.sqrt", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::sqrt;
    /// Elementwise `1 / sqrt(x)`.
    RsqrtOp = "graph.rsqrt", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::rsqrt;
    /// Elementwise `1 / x`.
    ReciprocalOp = "graph.reciprocal", Unary(Float), SAME, [operand] -> [result], [],
        fold = fold::fold, vjp = rules::reciprocal;
    /// Elementwise hyperbolic tangent.
    TanhOp = "graph.tanh", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::tanh;
    /// Elementwise logistic function `1 / (1 + e^-x)`.
    SigmoidOp = "graph.sigmoid", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::sigmoid;
    /// Elementwise `max(x, 0)`.
    ReluOp = "graph.relu", Unary(Numeric), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::relu;
    /// Elementwise Gauss error function.
    ErfOp = "graph.erf", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::erf;
    /// Elementwise sine.
    SinOp = "graph.sin", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::sin;
    /// Elementwise cosine.
    CosOp = "graph.cos", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::cos;
    /// Elementwise rounding toward negative infinity.
    FloorOp = "graph.floor", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::zero;
    /// Elementwise rounding toward positive infinity.
    CeilOp = "graph.ceil", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::zero;
    /// Elementwise rounding to nearest, ties to even.
    RoundOp = "graph.round", Unary(Float), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::zero;
    /// Elementwise sign: -1, 0 or 1.
    SignOp = "graph.sign", Unary(Numeric), SAME, [operand] -> [result], [], fold = fold::fold, vjp = rules::zero;
    /// Elementwise logical (i1) or bitwise (integers) not.
    NotOp = "graph.not", Unary(IntOrBool), SAME, [operand] -> [result], [], fold = fold::fold;
    /// Elementwise dtype conversion (float→int truncates toward zero; to i1 is `x != 0`).
    CastOp = "graph.cast", Cast, PURE, [operand] -> [result], [], fold = fold::fold, vjp = rules::cast;
    /// Elementwise reinterpretation of the bits as another element type of the same width
    /// (`f32` ↔ `i32`/`ui32`, `i8` ↔ `ui8`, ...; not `i1`).
    BitcastOp = "graph.bitcast", Cast, PURE, [operand] -> [result], [];

    /// Elementwise addition with numpy broadcasting.
    AddOp = "graph.add", Binary(Numeric), COMM, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::add;
    /// Elementwise subtraction with numpy broadcasting.
    SubOp = "graph.sub", Binary(Numeric), PURE, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::sub;
    /// Elementwise multiplication with numpy broadcasting.
    MulOp = "graph.mul", Binary(Numeric), COMM, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::mul;
    /// Elementwise division with numpy broadcasting (integers truncate toward zero).
    DivOp = "graph.div", Binary(Numeric), PURE, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::div;
    /// Elementwise power with numpy broadcasting.
    PowOp = "graph.pow", Binary(Numeric), PURE, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::pow;
    /// Elementwise maximum with numpy broadcasting.
    MaxOp = "graph.max", Binary(Numeric), COMM, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::max;
    /// Elementwise minimum with numpy broadcasting.
    MinOp = "graph.min", Binary(Numeric), COMM, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::min;
    /// Elementwise remainder with the sign of the dividend (C `fmod`, `%`).
    RemOp = "graph.rem", Binary(Numeric), PURE, [lhs, rhs] -> [result], [], fold = fold::fold, vjp = rules::rem;
    /// Elementwise logical/bitwise and with numpy broadcasting.
    AndOp = "graph.and", Binary(IntOrBool), COMM, [lhs, rhs] -> [result], [], fold = fold::fold;
    /// Elementwise logical/bitwise or with numpy broadcasting.
    OrOp = "graph.or", Binary(IntOrBool), COMM, [lhs, rhs] -> [result], [], fold = fold::fold;
    /// Elementwise logical/bitwise exclusive or with numpy broadcasting.
    XorOp = "graph.xor", Binary(IntOrBool), COMM, [lhs, rhs] -> [result], [], fold = fold::fold;
    /// Elementwise left shift with numpy broadcasting; a shift by the width or more gives 0.
    ShlOp = "graph.shl", Binary(Integer), PURE, [lhs, rhs] -> [result], [], fold = fold::fold;
    /// Elementwise right shift with numpy broadcasting: logical for unsigned integers,
    /// arithmetic for signed ones; a shift by the width or more gives 0 (−1 for a negative
    /// signed value).
    ShrOp = "graph.shr", Binary(Integer), PURE, [lhs, rhs] -> [result], [], fold = fold::fold;
    /// Elementwise comparison giving i1 (`predicate` is eq, ne, lt, le, gt or ge).
    CmpOp = "graph.cmp", Cmp, PURE, [lhs, rhs] -> [result], [predicate], fold = fold::fold;
    /// Elementwise `cond ? a : b`, broadcasting all three.
    SelectOp = "graph.select", Select, PURE, [condition, true_value, false_value] -> [result], [],
        fold = fold::fold, vjp = rules::select;

    /// Broadcasts to the static `shape` (-1 entries: the result type's dim), numpy rules.
    BroadcastToOp = "graph.broadcast_to", BroadcastTo, PURE, [operand] -> [result], [shape],
        fold = fold::fold, vjp = rules::broadcast_to;
    /// Reshapes its first operand to `shape`. Without further operands one -1 entry is
    /// inferred from the element count; otherwise every -1 entry (a `?` dim of the result) is
    /// the next `index` operand.
    ReshapeOp = "graph.reshape", Reshape, PURE, * -> [result], [shape], fold = fold::fold, vjp = rules::reshape;
    /// Permutes the axes: result dim `i` is operand dim `perm[i]`.
    TransposeOp = "graph.transpose", Transpose, PURE, [operand] -> [result], [perm],
        fold = fold::fold, vjp = rules::transpose;
    /// Strided slice per axis, numpy semantics (negative starts/ends count from the end).
    SliceOp = "graph.slice", Slice, PURE, [operand] -> [result], [starts, ends, steps],
        fold = fold::fold, vjp = rules::slice;
    /// Concatenation along `axis`.
    ConcatOp = "graph.concat", Concat, PURE, * -> [result], [axis], vjp = rules::concat;
    /// Constant padding by `low`/`high` elements per axis with `value` (default 0).
    PadOp = "graph.pad", Pad, PURE, [operand] -> [result], [low, high, value], vjp = rules::pad;
    /// numpy `take` along `axis`.
    GatherOp = "graph.gather", Gather, PURE, [operand, indices] -> [result], [axis], vjp = rules::gather;

    /// Sum over `axes`.
    ReduceSumOp = "graph.reduce_sum", Reduce(Reduction::Sum), PURE,
        [operand] -> [result], [axes, keepdim], vjp = rules::reduce_sum;
    /// Maximum over `axes`.
    ReduceMaxOp = "graph.reduce_max", Reduce(Reduction::Max), PURE,
        [operand] -> [result], [axes, keepdim], vjp = rules::reduce_extremum;
    /// Minimum over `axes`.
    ReduceMinOp = "graph.reduce_min", Reduce(Reduction::Min), PURE,
        [operand] -> [result], [axes, keepdim], vjp = rules::reduce_extremum;
    /// Product over `axes`.
    ReduceProdOp = "graph.reduce_prod", Reduce(Reduction::Prod), PURE,
        [operand] -> [result], [axes, keepdim], vjp = rules::reduce_prod;
    /// Mean over `axes`.
    ReduceMeanOp = "graph.reduce_mean", Reduce(Reduction::Mean), PURE,
        [operand] -> [result], [axes, keepdim], vjp = rules::reduce_mean;
    /// Index (i64) of the first maximum along `axis` (of the first NaN, if any).
    ArgMaxOp = "graph.argmax", ArgReduce(true), PURE, [operand] -> [result], [axis, keepdim],
        decompose = decompose::arg_reduction;
    /// Index (i64) of the first minimum along `axis` (of the first NaN, if any).
    ArgMinOp = "graph.argmin", ArgReduce(false), PURE, [operand] -> [result], [axis, keepdim],
        decompose = decompose::arg_reduction;
    /// Batched matrix product with numpy `matmul` semantics (rank ≥ 2).
    MatmulOp = "graph.matmul", Matmul, PURE, [lhs, rhs] -> [result], [transpose_a, transpose_b], vjp = rules::matmul;

    /// A dense tensor constant.
    ConstantOp = "graph.constant", Constant, PURE.union(Traits::CONSTANT_LIKE),
        [] -> [result], [value];
    /// A tensor whose elements are their index along `axis`; one index operand per `?` dim of
    /// the result.
    IotaOp = "graph.iota", Iota, PURE, * -> [result], [axis];
    /// A tensor filled with `value`; one index operand per `?` dim of the result.
    FillOp = "graph.fill", Fill, PURE, * -> [result], [value];
    /// A dimension of a tensor as an `index`.
    DimOp = "graph.dim", Dim, PURE, [operand] -> [result], [axis];
    /// The value of a one-element integer tensor as an `index`: a size computed from data
    /// (how many elements are nonzero), for the `?` dims of a `graph.fill` or `graph.iota`.
    ReadSizeOp = "graph.read_size", ReadSize, PURE, [operand] -> [result], [];

    /// Softmax along `axis`.
    SoftmaxOp = "graph.softmax", Softmax(false), PURE, [operand] -> [result], [axis],
        decompose = decompose::softmax, vjp = rules::softmax;
    /// Log-softmax along `axis`.
    LogSoftmaxOp = "graph.log_softmax", Softmax(true), PURE, [operand] -> [result], [axis],
        decompose = decompose::log_softmax, vjp = rules::log_softmax;
    /// Layer normalization over the axes from `axis` on, scaled by gamma and shifted by beta.
    LayerNormOp = "graph.layer_norm", LayerNorm, PURE,
        [operand, gamma, beta] -> [result], [axis, epsilon],
        decompose = decompose::layer_norm;
    /// RMS normalization over the axes from `axis` on, scaled by gamma.
    RmsNormOp = "graph.rms_norm", RmsNorm, PURE, [operand, gamma] -> [result], [axis, epsilon],
        decompose = decompose::rms_norm;
    /// GELU (`approximate` = "none" (erf, default) or "tanh").
    GeluOp = "graph.gelu", Gelu, SAME, [operand] -> [result], [approximate],
        decompose = decompose::gelu;
    /// SiLU: `x * sigmoid(x)`.
    SiluOp = "graph.silu", Silu, SAME, [operand] -> [result], [], decompose = decompose::silu, vjp = rules::silu;
    /// `x · w + b` with `w: [K, N]`, `b: [N]`.
    LinearOp = "graph.linear", Linear, PURE, [operand, weight, bias] -> [result], [],
        decompose = decompose::linear;
    /// 2-D convolution, NCHW input and OIHW weights.
    Conv2dOp = "graph.conv2d", Conv2d, PURE,
        [operand, weight] -> [result], [strides, padding, dilations, groups],
        decompose = decompose::conv2d, vjp = rules::conv2d;
    /// 2-D max pooling over NCHW.
    MaxPool2dOp = "graph.max_pool2d", Pool2d(true), PURE,
        [operand] -> [result], [kernel, strides, padding],
        decompose = decompose::max_pool2d;
    /// 2-D average pooling over NCHW; the count excludes padding.
    AvgPool2dOp = "graph.avg_pool2d", Pool2d(false), PURE,
        [operand] -> [result], [kernel, strides, padding],
        decompose = decompose::avg_pool2d;
    /// Scaled dot-product attention: `softmax(q·kᵀ·scale + mask)·v` over the last two dims.
    SdpaOp = "graph.sdpa", Sdpa, PURE, * -> [result], [scale], decompose = decompose::sdpa;

    /// The recurrence of an LSTM, GRU or simple RNN layer over projected inputs, as one op
    /// (`cell` = "lstm", "gru" or "rnn"; see [`crate::recurrence`]): results `y`, `y_h` and,
    /// for lstm, `y_c`.
    RnnOp = "graph.rnn", Rnn, PURE, * -> *,
        [cell, direction, activations, activation_alpha, activation_beta, clip,
         linear_before_reset, input_forget];

    /// A fused group of ops: its operands are the group's inputs (the entry block arguments),
    /// its results the operands of the `graph.yield` that ends the body.
    FusionOp = "graph.fusion", Fusion, Traits::ISOLATED_FROM_ABOVE.union(Traits::SINGLE_BLOCK),
        * -> *, [], regions = 1;
    /// Runs one of two regions by a run-time condition (ONNX `If`): `cond` is an `i1` tensor of
    /// one element; the `then` region runs when it is true, the `else` region otherwise, and
    /// the results are what the region that ran yields (see [`crate::control`]).
    IfOp = "graph.if", If, PURE, [cond] -> *, [], regions = 2;
    /// A loop with carried values and stacked per-iteration outputs (ONNX `Loop`): operands
    /// `max_trip` (`i64`), `cond` (`i1`) and the carried values' initial values; results the
    /// final carried values, then one stacked *scan output* per further yielded value (see
    /// [`crate::control`]).
    LoopOp = "graph.loop", Loop, PURE.union(Traits::SINGLE_BLOCK), * -> *, [], regions = 1;
    /// Returns the results of a `graph.fusion`, `graph.if` or `graph.loop` region.
    YieldOp = "graph.yield", Yield, Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(PURE),
        * -> [], [], parents = &[FusionOp::NAME, IfOp::NAME, LoopOp::NAME];
}

impl MatmulOp {
    /// Its `transpose_a` and `transpose_b` flags: each absent (false), a unit attribute (true)
    /// or a bool, as the verifier and shape inference read them; every pass reads them here.
    pub fn transposes(self, ctx: &Context) -> (bool, bool) {
        let attrs = verify::Attrs::new(ctx, ctx.attrs(self.0));
        let flag = |name| attrs.flag(name).unwrap_or(false);
        (flag("transpose_a"), flag("transpose_b"))
    }
}

/// The dtypes an op accepts on its tensor operands.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DTypeClass {
    /// f16, bf16, f32, f64.
    Float,
    /// Floats and the integers i8 .. i64, ui8 .. ui64 (not i1).
    Numeric,
    /// i1 and the integers.
    IntOrBool,
    /// The integers i8 .. i64, ui8 .. ui64.
    Integer,
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
    /// `graph.read_size`: a one-element integer tensor's value as an `index`.
    ReadSize,
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
    /// `graph.rnn`: several results, each inferred by `recurrence::infer_rnn`.
    Rnn,
    Fusion,
    /// `graph.if`: two regions, results yielded by the one that runs.
    If,
    /// `graph.loop`: a body region run while the trip count and condition allow.
    Loop,
    Yield,
}

impl Family {
    /// The traits the family gives its ops, which passes ask instead of the family:
    /// `ELEMENTWISE` ([`Family::is_elementwise`]), `REDUCTION` (the `reduce_*` ops) and
    /// `CONTRACTION` (matmul, conv2d).
    pub fn traits(self) -> Traits {
        match self {
            Family::Reduce(_) => Traits::REDUCTION,
            Family::Matmul | Family::Conv2d => Traits::CONTRACTION,
            f if f.is_elementwise() => Traits::ELEMENTWISE,
            _ => Traits::empty(),
        }
    }

    /// True for the elementwise ops: each result element is computed from the elements of the
    /// (broadcast) operands at the same position (unary, binary, cast, compare, select,
    /// broadcast_to). Fusion groups them freely; lowering computes them in one loop nest.
    pub fn is_elementwise(self) -> bool {
        matches!(
            self,
            Family::Unary(_)
                | Family::Cast
                | Family::Binary(_)
                | Family::Cmp
                | Family::Select
                | Family::BroadcastTo
        )
    }

    /// True for the ops that only move or produce data without arithmetic on it (reshape,
    /// transpose, slice, concat, pad, gather, iota, fill): a kernel of their own.
    pub fn is_data_movement(self) -> bool {
        matches!(
            self,
            Family::Reshape
                | Family::Transpose
                | Family::Slice
                | Family::Concat
                | Family::Pad
                | Family::Gather
                | Family::Iota
                | Family::Fill
        )
    }

    /// True for the composite ops, which have a decomposition into primitives.
    pub fn is_composite(self) -> bool {
        matches!(
            self,
            Family::Softmax(_)
                | Family::ArgReduce(_)
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
