//! The operator handlers: one function per ONNX operator type, found by [`handler`].
//!
//! A handler reads its node's inputs and attributes through [`NodeCx`] and builds graph ops
//! with it, returning one value per ONNX output it produces. It follows the ONNX changelog:
//! where an operator moved an attribute to an input (Reshape's shape, Slice's bounds, the
//! reduce axes, Pad's pads, Clip's bounds, Squeeze/Unsqueeze axes), it reads whichever the
//! model's opset has. The thin builders below are what every handler shares.
//!
//! - [`elementwise`]: math, comparison and logic ops, casts, activations.
//! - [`movement`]: constants, shapes, reshape, slicing, gather, concat, pad, expand.
//! - [`reduce`]: reductions and arg-reductions.
//! - [`nn`]: matmul, gemm, convolution, pooling, normalization, softmax.
//! - [`pool`]: pools by unfolded windows (dilated, 3-D, LpPool, MaxPool's indices).
//! - [`resize`]: the Resize and Upsample operators.
//! - [`attention`]: the Attention operator (heads, masks, caches).
//! - [`loss`]: the NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss operators.
//! - [`layout`]: DepthToSpace, SpaceToDepth, CenterCropPad, EyeLike.
//! - [`indexing`]: GatherND, ScatterElements (Scatter), ScatterND.
//! - [`einsum`]: Einsum, as diagonals, sums and batched matmuls.
//! - [`control`]: If, Loop and Scan, imported inline (branches selected, loops unrolled).
//! - [`stateful`]: CausalConvWithState and LinearAttention (opset 27).
//! - [`topk`]: TopK by pairwise ranks (no sort).
//! - [`quant`]: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the integer and
//!   quantized products (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv).
//! - [`flex_attention`]: FlexAttention, of domain `ai.onnx.preview`.
//! - [`training`]: the optimizers Adagrad, Adam and Momentum, of domain
//!   `ai.onnx.preview.training`.
//! - [`contrib`]: the onnxruntime `com.microsoft` quantized operators int8 models use.
//! - [`signal`]: window generators, MelWeightMatrix, DFT and STFT.
//! - [`sampling`]: GridSample and AffineGrid.
//! - [`blocks`]: RotaryEmbedding, SwiGLU, LRN, Col2Im.
//! - [`sequence`]: ReverseSequence and TensorScatter.
//! - [`linalg`]: Det, by Gaussian elimination.
//! - [`recurrent`]: the LSTM, GRU and RNN operators (a GEMM, then one `graph.rnn`).
//!
//! Operators of other domains than `ai.onnx` are found by [`domain_handler`].

mod attention;
mod blocks;
mod compact;
mod contrib;
mod control;
mod einsum;
mod elementwise;
mod flex_attention;
mod indexing;
mod layout;
mod linalg;
mod loss;
mod movement;
mod nms;
mod nn;
mod pool;
mod quant;
mod recurrent;
mod reduce;
mod resize;
mod sampling;
mod sequence;
mod signal;
mod stateful;
mod topk;
mod training;

use crate::importer::{NodeCx, NodeResult, MAX_FOLD_ELEMENTS};
use crate::shape_values::Dim;
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal};

/// A handler: builds the node's ops and returns its outputs.
pub type Handler = fn(&mut NodeCx) -> NodeResult<Vec<Value>>;

/// Every handler table, one per file.
const TABLES: [&[(&str, Handler)]; 22] = [
    elementwise::OPS,
    movement::OPS,
    reduce::OPS,
    nn::OPS,
    resize::OPS,
    attention::OPS,
    loss::OPS,
    layout::OPS,
    indexing::OPS,
    einsum::OPS,
    control::OPS,
    compact::OPS,
    nms::OPS,
    stateful::OPS,
    topk::OPS,
    quant::OPS,
    signal::OPS,
    sampling::OPS,
    blocks::OPS,
    sequence::OPS,
    linalg::OPS,
    recurrent::OPS,
];

/// The handler of ONNX operator `op_type` (domain `ai.onnx`), if dlc imports it.
pub fn handler(op_type: &str) -> Option<Handler> {
    TABLES
        .iter()
        .flat_map(|t| t.iter())
        .find(|(n, _)| *n == op_type)
        .map(|(_, h)| *h)
}

/// The domains besides `ai.onnx` dlc imports operators of, with their handlers.
const DOMAINS: [(&str, &[(&str, Handler)]); 3] = [
    ("ai.onnx.preview", flex_attention::OPS),
    ("ai.onnx.preview.training", training::OPS),
    ("com.microsoft", contrib::OPS),
];

/// The handler of operator `op_type` of `domain` (one of [`DOMAINS`]), if dlc imports it.
pub fn domain_handler(domain: &str, op_type: &str) -> Option<Handler> {
    DOMAINS
        .iter()
        .find(|(d, _)| *d == domain)?
        .1
        .iter()
        .find(|(n, _)| *n == op_type)
        .map(|(_, h)| *h)
}

/// The domains dlc imports operators of, `ai.onnx` first, for messages: "ai.onnx,
/// ai.onnx.preview, ai.onnx.preview.training and com.microsoft".
pub fn domain_list() -> String {
    let names: Vec<&str> = std::iter::once("ai.onnx")
        .chain(DOMAINS.iter().map(|(d, _)| *d))
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The operator types of `domain` dlc imports, sorted; `None` for a domain it does not know.
pub fn domain_ops(domain: &str) -> Option<Vec<&'static str>> {
    let (_, table) = DOMAINS.iter().find(|(d, _)| *d == domain)?;
    let mut ops: Vec<&str> = table.iter().map(|(name, _)| *name).collect();
    ops.sort_unstable();
    Some(ops)
}

/// Every operator type dlc imports, sorted (for docs and `dlc-import --list-ops`): those of
/// `ai.onnx`, then those of the other [`DOMAINS`] with the domain as a prefix
/// (`ai.onnx.preview.FlexAttention`, `com.microsoft.QGemm`).
pub fn supported_ops() -> Vec<String> {
    let mut ops: Vec<&str> = TABLES
        .iter()
        .flat_map(|t| t.iter())
        .map(|(name, _)| *name)
        .collect();
    ops.sort_unstable();
    let mut out: Vec<String> = ops.into_iter().map(String::from).collect();
    for (domain, _) in DOMAINS {
        let ops = domain_ops(domain).unwrap_or_default();
        out.extend(ops.into_iter().map(|op| format!("{domain}.{op}")));
    }
    out
}

/// Normalizes a possibly negative `axis` of a rank-`rank` tensor.
fn axis(axis: i64, rank: usize) -> NodeResult<i64> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(format!("axis {axis} is out of range for rank {rank}").into());
    }
    Ok(if axis < 0 { axis + r } else { axis })
}

/// Checks that a constant table of `count` elements (an index table, a mask, a matrix) stays
/// within [`MAX_FOLD_ELEMENTS`], and returns the count.
fn table(count: i128) -> NodeResult<usize> {
    match usize::try_from(count) {
        Ok(n) if n <= MAX_FOLD_ELEMENTS => Ok(n),
        _ => Err(format!(
            "a constant table of {count} elements is needed (dlc builds at most {MAX_FOLD_ELEMENTS})"
        )
        .into()),
    }
}

/// Normalizes every axis of `axes` (rank `rank`), rejecting duplicates.
fn axes(list: &[i64], rank: usize) -> NodeResult<Vec<i64>> {
    let mut out = Vec::with_capacity(list.len());
    for a in list {
        let a = axis(*a, rank)?;
        if out.contains(&a) {
            return Err(format!("axis {a} is repeated in {list:?}").into());
        }
        out.push(a);
    }
    Ok(out)
}

/// The interpreter dtype of element type `ty`.
fn dtype(ty: Type) -> DType {
    DType::ALL
        .into_iter()
        .find(|d| d.to_type() == ty)
        .unwrap_or(DType::F32)
}

impl NodeCx<'_, '_> {
    /// A constant of `like`'s float element type, of `shape`, from f64 values (weights,
    /// interpolation matrices).
    pub fn float_table(&mut self, like: Value, shape: &[usize], values: &[f64]) -> Value {
        let dt = dtype(self.elem(like));
        let t = if dt.is_float() {
            Literal::from_f64(dt, shape, values)
        } else {
            let ints: Vec<i64> = values.iter().map(|v| *v as i64).collect();
            Literal::from_i64(dt, shape, &ints)
        };
        self.constant(t)
    }

    /// `x` multiplied along `axis` by the matrix `w` (`[n, m]`): the axis is moved last,
    /// `graph.matmul` applied (a rank-1 `x` lifted to a row), and moved back; the axis becomes
    /// `m` long.
    pub fn matmul_along(&mut self, x: Value, axis: usize, w: Value) -> NodeResult<Value> {
        let shape = self.shape(x);
        let rank = shape.len();
        let mut perm: Vec<i64> = (0..rank as i64).filter(|d| *d != axis as i64).collect();
        perm.push(axis as i64);
        let inverse: Vec<i64> = (0..rank as i64)
            .map(|d| perm.iter().position(|p| *p == d).unwrap_or(0) as i64)
            .collect();
        let moved = self.transpose(x, &perm)?;
        if rank == 1 {
            let row = self.reshape(moved, &[1, shape[0]])?;
            let y = self.op("graph.matmul", &[row, w], &[])?;
            let m = self.shape(y)[1];
            return self.reshape(y, &[m]);
        }
        let y = self.op("graph.matmul", &[moved, w], &[])?;
        self.transpose(y, &inverse)
    }

    /// `(x − mean) / √(var + ε)` over `axes` (kept as 1), with the mean and the reciprocal
    /// standard deviation: the normalizations' shared core.
    pub fn standardize(&mut self, x: Value, axes: &[i64], eps: f64) -> NodeResult<[Value; 3]> {
        let mean = self.reduce("graph.reduce_mean", x, axes, true)?;
        let d = self.binary("graph.sub", x, mean)?;
        let sq = self.binary("graph.mul", d, d)?;
        let var = self.reduce("graph.reduce_mean", sq, axes, true)?;
        let e = self.scalar(eps, var);
        let ve = self.binary("graph.add", var, e)?;
        let inv = self.unary("graph.rsqrt", ve)?;
        let n = self.binary("graph.mul", d, inv)?;
        Ok([n, mean, inv])
    }

    /// `graph.slice` of `x` with per-axis `starts`, `ends` and `steps`.
    pub fn slice(
        &mut self,
        x: Value,
        starts: &[i64],
        ends: &[i64],
        steps: &[i64],
    ) -> NodeResult<Value> {
        let (s, e, t) = (
            self.array_attr(starts),
            self.array_attr(ends),
            self.array_attr(steps),
        );
        self.op(
            "graph.slice",
            &[x],
            &[("starts", s), ("ends", e), ("steps", t)],
        )
    }

    /// `x` padded by `low`/`high` per axis with `value` (converted to `x`'s element type); a
    /// negative amount crops that side instead (a `graph.slice` after the pad).
    pub fn pad_or_crop(
        &mut self,
        x: Value,
        low: &[i64],
        high: &[i64],
        value: f64,
    ) -> NodeResult<Value> {
        let elem = self.elem(x);
        let fill = if self.is_float(x) {
            self.ctx().float_attr(value, elem)
        } else {
            self.ctx().integer_attr(value as i128, elem)
        };
        let grow = |v: &[i64]| v.iter().map(|p| (*p).max(0)).collect::<Vec<_>>();
        let mut y = x;
        if low.iter().chain(high).any(|p| *p > 0) {
            let (l, h) = (self.array_attr(&grow(low)), self.array_attr(&grow(high)));
            y = self.op(
                "graph.pad",
                &[y],
                &[("low", l), ("high", h), ("value", fill)],
            )?;
        }
        if low.iter().chain(high).any(|p| *p < 0) {
            let starts: Vec<i64> = low.iter().map(|p| p.saturating_neg().max(0)).collect();
            let ends: Vec<i64> = high
                .iter()
                .map(|p| if *p < 0 { *p } else { i64::MAX })
                .collect();
            y = self.slice(y, &starts, &ends, &vec![1; low.len()])?;
        }
        Ok(y)
    }

    /// A rank-0 constant `v` of element type `ty`.
    pub fn scalar_of(&mut self, v: f64, ty: Type) -> Value {
        let dt = dtype(ty);
        let t = if dt.is_float() {
            Literal::from_f64(dt, &[], &[v])
        } else if dt.is_bool() {
            Literal::from_bools(&[], &[v != 0.0])
        } else {
            Literal::from_i64(dt, &[], &[v as i64])
        };
        self.constant(t)
    }

    /// A rank-0 constant `v` of `like`'s element type (broadcasts against anything).
    pub fn scalar(&mut self, v: f64, like: Value) -> Value {
        let ty = self.elem(like);
        self.scalar_of(v, ty)
    }

    /// An `i64` constant of shape `[values.len()]`.
    pub fn i64_vector(&mut self, values: &[i64]) -> Value {
        self.constant(Literal::from_i64(DType::I64, &[values.len()], values))
    }

    /// A unary op.
    pub fn unary(&mut self, name: &str, x: Value) -> NodeResult<Value> {
        self.op(name, &[x], &[])
    }

    /// A broadcasting binary op.
    pub fn binary(&mut self, name: &str, a: Value, b: Value) -> NodeResult<Value> {
        self.op(name, &[a, b], &[])
    }

    /// `graph.cmp predicate`.
    pub fn cmp(&mut self, predicate: &str, a: Value, b: Value) -> NodeResult<Value> {
        let p = self.ctx().string_attr(predicate);
        self.op("graph.cmp", &[a, b], &[("predicate", p)])
    }

    /// `graph.select`.
    pub fn select(&mut self, c: Value, a: Value, b: Value) -> NodeResult<Value> {
        self.op("graph.select", &[c, a, b], &[])
    }

    /// `graph.cast` to element type `ty` (none when it already is).
    pub fn cast(&mut self, x: Value, ty: Type) -> NodeResult<Value> {
        if self.elem(x) == ty {
            return Ok(x);
        }
        let shape = self.shape(x);
        let result = self.ctx().tensor_type(&shape, ty);
        self.op_typed("graph.cast", &[x], &[], result)
    }

    /// `graph.reshape` to `shape` (one −1 inferred).
    pub fn reshape(&mut self, x: Value, shape: &[i64]) -> NodeResult<Value> {
        if self.shape(x) == shape {
            return Ok(x);
        }
        let s = dlc_graph::i64_array(self.ctx(), shape);
        self.op("graph.reshape", &[x], &[("shape", s)])
    }

    /// `graph.reshape` to `dims`, each known size static and each run-time one a `?` dim
    /// given by an `index` operand.
    pub fn sized_reshape(&mut self, x: Value, dims: &[Dim]) -> NodeResult<Value> {
        let mut shape = Vec::with_capacity(dims.len());
        let mut operands = vec![x];
        for &d in dims {
            match d {
                Dim::Known(k) if k >= 0 => shape.push(k),
                Dim::Known(k) => return Err(format!("a reshape to a negative dim {k}").into()),
                Dim::Size { value, .. } => {
                    shape.push(-1);
                    operands.push(value);
                }
            }
        }
        if operands.len() == 1 {
            return self.reshape(x, &shape);
        }
        let s = dlc_graph::i64_array(self.ctx(), &shape);
        self.op("graph.reshape", &operands, &[("shape", s)])
    }

    /// `graph.transpose` by `perm`.
    pub fn transpose(&mut self, x: Value, perm: &[i64]) -> NodeResult<Value> {
        if perm.iter().enumerate().all(|(i, p)| i as i64 == *p) {
            return Ok(x);
        }
        let p = dlc_graph::i64_array(self.ctx(), perm);
        self.op("graph.transpose", &[x], &[("perm", p)])
    }

    /// A reduction over (normalized) `axes`.
    pub fn reduce(
        &mut self,
        name: &str,
        x: Value,
        axes: &[i64],
        keepdim: bool,
    ) -> NodeResult<Value> {
        let a = dlc_graph::i64_array(self.ctx(), axes);
        let k = self.ctx().bool_attr(keepdim);
        self.op(name, &[x], &[("axes", a), ("keepdim", k)])
    }

    /// An `i64` attribute.
    pub fn int_attr(&mut self, v: i64) -> dlc_ir::Attribute {
        dlc_graph::i64_attr(self.ctx(), v)
    }

    /// An `array<i64: ...>` attribute.
    pub fn array_attr(&mut self, v: &[i64]) -> dlc_ir::Attribute {
        dlc_graph::i64_array(self.ctx(), v)
    }

    /// A float attribute of type `f64` (epsilons, scales).
    pub fn f64_attr(&mut self, v: f64) -> dlc_ir::Attribute {
        self.ctx().float_attr(v, Type::F64)
    }

    /// Errors unless the node has at most `n` outputs.
    pub fn at_most_outputs(&self, n: usize) -> NodeResult<()> {
        match self.node.output.iter().skip(n).position(|o| !o.is_empty()) {
            Some(i) => Err(format!(
                "output #{} ('{}') is not supported (dlc produces only the first {n})",
                n + i,
                self.node.output[n + i]
            )
            .into()),
            None => Ok(()),
        }
    }
}
