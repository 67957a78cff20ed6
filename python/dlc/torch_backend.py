"""dlc as a ``torch.compile`` backend: ``torch.compile(module, backend="dlc")``.

torch's Dynamo captures the module's forward as an FX graph; AOTAutograd (``aot_autograd``)
lowers it to ATen ops with torch's own decompositions to the core ATen set
(``torch._decomp.core_aten_decompositions``) and hands this backend the inference graph, with
the parameters as inputs. The backend maps the ATen nodes onto dlc's graph dialect directly
(graph IR text, no ONNX), compiles each run of consecutive nodes it can map with
:func:`dlc.compile` and leaves the others to eager PyTorch: torch's capability-based
partitioner (``torch.fx.passes.infra.partitioner``) splits the graph, so an op dlc cannot map
is a graph break, never a wrong result. A partition that does not compile runs eagerly too
(``dlc.torch_backend.last_report`` says why). Dynamic dims (``torch.compile(dynamic=True)``)
become dlc's ``?`` dims.

Tensors cross without copies: a contiguous CPU tensor's memory is read in place through
``Tensor.numpy()`` (dlc reads numpy arrays in place), and an output array becomes a tensor
through ``torch.from_numpy``.

The backend is registered under the name ``dlc`` through torch's entry point group
``torch_dynamo_backends`` (python/pyproject.toml); :func:`dlc_backend` can also be passed
itself: ``torch.compile(m, backend=dlc.torch_backend.dlc_backend)``.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
from torch._decomp import core_aten_decompositions
from torch._dynamo.backends.common import aot_autograd
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupport

import dlc

__all__ = ["dlc_backend", "last_report"]

aten = torch.ops.aten

#: What the last compile did: one line per partition (compiled, or left to PyTorch and why),
#: and the ops left to PyTorch.
last_report: List[str] = []

_DTYPES = {
    torch.float32: "f32",
    torch.float64: "f64",
    torch.float16: "f16",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "ui8",
    torch.bool: "i1",
}


class Unsupported(Exception):
    """A node dlc does not map (the message says why)."""


class _Value:
    """A tensor of the IR being written: its SSA name, dims (``None`` for ``?``) and dtype."""

    __slots__ = ("name", "dims", "dtype")

    def __init__(self, name: str, dims: Tuple[Optional[int], ...], dtype: torch.dtype):
        self.name, self.dims, self.dtype = name, dims, dtype

    @property
    def type(self) -> str:
        return _tensor_type(self.dims, self.dtype)


def _tensor_type(dims: Sequence[Optional[int]], dtype: torch.dtype) -> str:
    if dtype not in _DTYPES:
        raise Unsupported(f"dtype {dtype}")
    shape = "".join(("?" if d is None else str(d)) + "x" for d in dims)
    return f"tensor<{shape}{_DTYPES[dtype]}>"


def _dims(shape) -> Tuple[Optional[int], ...]:
    """A torch shape as dims: a symbolic size (a ``SymInt`` not known to be a constant) is
    ``None``."""
    dims = []
    for d in shape:
        if isinstance(d, int):
            dims.append(d)
        elif isinstance(d, torch.SymInt) and d.node.is_constant():
            dims.append(int(d))
        else:
            dims.append(None)
    return tuple(dims)


def _meta(node: torch.fx.Node) -> torch.Tensor:
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        raise Unsupported(f"{node.name} has no tensor value (meta 'val')")
    return val


def _array(values: Sequence[int]) -> str:
    return "array<i64: " + ", ".join(str(int(v)) for v in values) + ">"


def _float(v: float) -> str:
    if math.isnan(v) or math.isinf(v):
        raise Unsupported(f"the constant {v}")
    return f"{float(v):.17e}"


class _Writer:
    """Writes one function of graph IR: its arguments, ops and return."""

    def __init__(self):
        self.args: List[_Value] = []
        self.lines: List[str] = []
        self.count = 0

    def arg(self, dims, dtype) -> _Value:
        v = _Value(f"%arg{len(self.args)}", tuple(dims), dtype)
        v.type  # an unsupported dtype is refused here
        self.args.append(v)
        return v

    def op(self, name: str, operands: Sequence[_Value], dims, dtype, attrs: str = "") -> _Value:
        """``%r = graph.<name> operands {attrs} : types``, the result of dims and dtype."""
        result = _Value(f"%v{self.count}", tuple(dims), dtype)
        self.count += 1
        types = [o.type for o in operands]
        attrs = f" {{{attrs}}}" if attrs else ""
        if types and all(t == result.type for t in types):
            sig = result.type
        else:
            sig = f"{', '.join(types)} -> {result.type}" if types else result.type
        names = ", ".join(o.name for o in operands)
        self.lines.append(f"  {result.name} = graph.{name} {names}{attrs} : {sig}")
        return result

    def constant(self, value: float, dtype: torch.dtype) -> _Value:
        """A rank-0 constant."""
        result = _Value(f"%v{self.count}", (), dtype)
        self.count += 1
        text = ("true" if value else "false") if dtype == torch.bool else (
            _float(value) if dtype.is_floating_point else str(int(value))
        )
        self.lines.append(f"  {result.name} = graph.constant dense<{text}> : {result.type}")
        return result

    def text(self, outputs: Sequence[_Value]) -> str:
        args = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        results = ", ".join(o.type for o in outputs)
        body = "\n".join(self.lines)
        ret = ", ".join(o.name for o in outputs)
        return (
            f"func.func @main({args}) -> ({results}) {{\n{body}\n"
            f"  return {ret} : {results}\n}}\n"
        )


# ---------------------------------------------------------------------------------------------
# The ATen ops dlc maps, each a function (writer, node, operand) -> value, where operand(i)
# is the i-th argument of the node as a _Value (a tensor) or its Python value.

_UNARY = {
    aten.relu.default: "relu",
    aten.sigmoid.default: "sigmoid",
    aten.tanh.default: "tanh",
    aten.exp.default: "exp",
    aten.log.default: "log",
    aten.sqrt.default: "sqrt",
    aten.rsqrt.default: "rsqrt",
    aten.neg.default: "neg",
    aten.abs.default: "abs",
    aten.erf.default: "erf",
    aten.sin.default: "sin",
    aten.cos.default: "cos",
    aten.reciprocal.default: "reciprocal",
    aten.floor.default: "floor",
    aten.ceil.default: "ceil",
}
_BINARY = {
    aten.add.Tensor: "add",
    aten.sub.Tensor: "sub",
    aten.mul.Tensor: "mul",
    aten.div.Tensor: "div",
    aten.maximum.default: "max",
    aten.minimum.default: "min",
    aten.pow.Tensor_Scalar: "pow",
    aten.pow.Tensor_Tensor: "pow",
}
# The `.Scalar` overloads: a tensor and a number.
_BINARY.update(
    {
        aten.add.Scalar: "add",
        aten.sub.Scalar: "sub",
        aten.mul.Scalar: "mul",
        aten.div.Scalar: "div",
    }
)
_CMP = {
    aten.gt.Tensor: "gt",
    aten.gt.Scalar: "gt",
    aten.lt.Tensor: "lt",
    aten.lt.Scalar: "lt",
    aten.ge.Tensor: "ge",
    aten.ge.Scalar: "ge",
    aten.le.Tensor: "le",
    aten.le.Scalar: "le",
    aten.eq.Tensor: "eq",
    aten.eq.Scalar: "eq",
    aten.ne.Tensor: "ne",
    aten.ne.Scalar: "ne",
}
_REDUCE = {
    aten.sum.dim_IntList: "reduce_sum",
    aten.mean.dim: "reduce_mean",
    aten.amax.default: "reduce_max",
    aten.amin.default: "reduce_min",
}
_IDENTITY = {aten.clone.default, aten.alias.default, aten.detach.default, aten.lift_fresh_copy.default}


def _cast(w: _Writer, v: _Value, dtype: torch.dtype) -> _Value:
    return v if v.dtype == dtype else w.op("cast", [v], v.dims, dtype)


def _tensor(w: _Writer, x: Any, dtype: torch.dtype) -> _Value:
    """A tensor operand of `dtype`: `x` cast, or a scalar as a rank-0 constant."""
    if isinstance(x, _Value):
        return _cast(w, x, dtype)
    if isinstance(x, (bool, int, float)):
        return w.constant(x, dtype)
    raise Unsupported(f"operand {x!r}")


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _out(node: torch.fx.Node):
    val = _meta(node)
    return _dims(val.shape), val.dtype


def _reshape(w: _Writer, x: _Value, dims, dtype=None) -> _Value:
    dtype = dtype or x.dtype
    if sum(d is None for d in dims) > 1:
        raise Unsupported("a reshape to more than one dynamic dim")
    shape = [-1 if d is None else d for d in dims]
    return w.op("reshape", [x], dims, dtype, f"shape = {_array(shape)}")


def _map_node(w: _Writer, node: torch.fx.Node, operand: Callable[[Any], Any]) -> _Value:
    t = node.target
    args = [operand(a) for a in node.args]
    dims, dtype = _out(node)
    kwargs = node.kwargs
    if t in _IDENTITY:
        return args[0]
    if t in _UNARY:
        return w.op(_UNARY[t], [_cast(w, args[0], dtype)], dims, dtype)
    if t == aten.rsub.Scalar:
        if kwargs.get("alpha", 1) != 1:
            raise Unsupported("alpha")
        a, b = (_tensor(w, v, dtype) for v in args[:2])
        return w.op("sub", [b, a], dims, dtype)
    if t in _BINARY:
        if t in (aten.add.Tensor, aten.sub.Tensor, aten.add.Scalar, aten.sub.Scalar) and kwargs.get(
            "alpha", 1
        ) != 1:
            raise Unsupported("alpha")
        if t == aten.div.Tensor and kwargs.get("rounding_mode") is not None:
            raise Unsupported("rounding_mode")
        a, b = (_tensor(w, x, dtype) for x in args[:2])
        return w.op(_BINARY[t], [a, b], dims, dtype)
    if t in _CMP:
        a, b = args[:2]
        common = a.dtype if isinstance(a, _Value) else b.dtype
        a, b = _tensor(w, a, common), _tensor(w, b, common)
        return _cmp(w, _CMP[t], a, b, dims)
    if t in (aten.clamp.default, aten.hardtanh.default):
        x = _cast(w, args[0], dtype)
        if t == aten.hardtanh.default:
            low = args[1] if len(args) > 1 else kwargs.get("min_val", -1.0)
            high = args[2] if len(args) > 2 else kwargs.get("max_val", 1.0)
        else:
            low = args[1] if len(args) > 1 else kwargs.get("min")
            high = args[2] if len(args) > 2 else kwargs.get("max")
        if isinstance(low, _Value) or isinstance(high, _Value):
            raise Unsupported("a clamp to tensor bounds")
        if low is not None:
            x = w.op("max", [x, w.constant(low, dtype)], dims, dtype)
        if high is not None:
            x = w.op("min", [x, w.constant(high, dtype)], dims, dtype)
        return x
    if t == aten.leaky_relu.default:
        x = args[0]
        slope = args[1] if len(args) > 1 else kwargs.get("negative_slope", 0.01)
        positive = _cmp(w, "gt", x, w.constant(0.0, dtype), dims)
        scaled = w.op("mul", [x, w.constant(slope, dtype)], dims, dtype)
        return w.op("select", [positive, x, scaled], dims, dtype)
    if t == aten.embedding.default:
        weight, indices = args[:2]
        if any(isinstance(v, bool) and v for v in args[3:]):
            raise Unsupported("an embedding with scale_grad_by_freq or sparse")
        return w.op("gather", [weight, indices], dims, dtype, "axis = 0 : i64")
    if t == aten.index_select.default:
        x, axis, index = args[:3]
        return w.op("gather", [x, index], dims, dtype, f"axis = {_axis(axis, len(x.dims))} : i64")
    if t == aten.constant_pad_nd.default:
        x, pad = args[0], list(args[1])
        value = args[2] if len(args) > 2 else kwargs.get("value", 0)
        rank = len(x.dims)
        if len(pad) % 2 or len(pad) > 2 * rank or any(p < 0 for p in pad):
            raise Unsupported("a pad that crops")
        low, high = [0] * rank, [0] * rank
        for k in range(len(pad) // 2):
            low[rank - 1 - k], high[rank - 1 - k] = pad[2 * k], pad[2 * k + 1]
        scalar = _float(value) if dtype.is_floating_point else str(int(value))
        attrs = (
            f"high = {_array(high)}, low = {_array(low)}, "
            f"value = {scalar} : {_DTYPES[dtype]}"
        )
        return w.op("pad", [x], dims, dtype, attrs)
    if t == aten.where.self:
        cond = args[0]
        a, b = (_tensor(w, x, dtype) for x in args[1:3])
        return w.op("select", [cond, a, b], dims, dtype)
    if t == aten._to_copy.default:
        if set(kwargs) - {"dtype", "layout", "device", "memory_format"}:
            raise Unsupported("_to_copy options")
        return _cast(w, args[0], dtype)
    if t in (aten.sum.default, aten.mean.default):
        x = args[0]
        if kwargs.get("dtype") is not None:
            raise Unsupported("a reduction's dtype")
        name = "reduce_sum" if t == aten.sum.default else "reduce_mean"
        return w.op(name, [x], dims, dtype, f"axes = {_array(range(len(x.dims)))}")
    if t in _REDUCE:
        x = args[0]
        axes = args[1] if len(args) > 1 else list(range(len(x.dims)))
        axes = sorted(_axis(a, len(x.dims)) for a in ([axes] if isinstance(axes, int) else axes))
        keepdim = bool(args[2]) if len(args) > 2 else bool(kwargs.get("keepdim", False))
        if kwargs.get("dtype") is not None:
            raise Unsupported("a reduction's dtype")
        attrs = f"axes = {_array(axes)}" + (", keepdim = true" if keepdim else "")
        return w.op(_REDUCE[t], [x], dims, dtype, attrs)
    if t in (aten.mm.default, aten.bmm.default):
        return w.op("matmul", args[:2], dims, dtype)
    if t == aten.addmm.default:
        if kwargs.get("beta", 1) != 1 or kwargs.get("alpha", 1) != 1:
            raise Unsupported("addmm's beta or alpha")
        bias, x, y = args[:3]
        product = w.op("matmul", [x, y], dims, dtype)
        return w.op("add", [product, bias], dims, dtype)
    if t == aten.permute.default:
        perm = [_axis(p, len(args[0].dims)) for p in args[1]]
        return w.op("transpose", [args[0]], dims, dtype, f"perm = {_array(perm)}")
    if t in (aten.t.default, aten.transpose.int):
        x = args[0]
        perm = list(range(len(x.dims)))
        if len(perm) >= 2:
            i, j = (-2, -1) if t == aten.t.default else (args[1], args[2])
            i, j = _axis(i, len(perm)), _axis(j, len(perm))
            perm[i], perm[j] = perm[j], perm[i]
        return w.op("transpose", [x], dims, dtype, f"perm = {_array(perm)}")
    if t in (
        aten.view.default,
        aten._unsafe_view.default,
        aten.reshape.default,
        aten.squeeze.dim,
        aten.squeeze.dims,
        aten.squeeze.default,
        aten.unsqueeze.default,
    ):
        return _reshape(w, args[0], dims)
    if t == aten.expand.default:
        shape = [-1 if d is None else d for d in dims]
        return w.op("broadcast_to", [args[0]], dims, dtype, f"shape = {_array(shape)}")
    if t == aten.cat.default:
        tensors = [_cast(w, x, dtype) for x in args[0]]
        axis = _axis(args[1] if len(args) > 1 else 0, len(dims))
        return w.op("concat", tensors, dims, dtype, f"axis = {axis} : i64")
    if t == aten.slice.Tensor:
        x = args[0]
        rank = len(x.dims)
        axis = _axis(args[1] if len(args) > 1 else 0, rank)
        start = args[2] if len(args) > 2 and args[2] is not None else 0
        end = args[3] if len(args) > 3 and args[3] is not None else 2**62
        step = args[4] if len(args) > 4 else 1
        if not all(isinstance(v, int) for v in (start, end, step)):
            raise Unsupported("a slice with dynamic bounds")
        starts, ends, steps = [0] * rank, [2**62] * rank, [1] * rank
        starts[axis], ends[axis], steps[axis] = start, min(end, 2**62), step
        attrs = f"ends = {_array(ends)}, starts = {_array(starts)}, steps = {_array(steps)}"
        return w.op("slice", [x], dims, dtype, attrs)
    if t == aten.select.int:
        x = args[0]
        rank = len(x.dims)
        axis, index = _axis(args[1], rank), args[2]
        if not isinstance(index, int):
            raise Unsupported("a select at a dynamic index")
        starts, ends, steps = [0] * rank, [2**62] * rank, [1] * rank
        starts[axis], ends[axis] = index, (index + 1) if index != -1 else 2**62
        sliced_dims = list(x.dims)
        sliced_dims[axis] = 1
        attrs = f"ends = {_array(ends)}, starts = {_array(starts)}, steps = {_array(steps)}"
        sliced = w.op("slice", [x], sliced_dims, dtype, attrs)
        return _reshape(w, sliced, dims)
    if t == aten._softmax.default:
        x = args[0]
        return w.op("softmax", [x], dims, dtype, f"axis = {_axis(args[1], len(x.dims))} : i64")
    if t == aten._log_softmax.default:
        x = args[0]
        return w.op("log_softmax", [x], dims, dtype, f"axis = {_axis(args[1], len(x.dims))} : i64")
    if t == aten.gelu.default:
        if kwargs.get("approximate", "none") != "none":
            raise Unsupported("gelu's tanh approximation")
        return w.op("gelu", [args[0]], dims, dtype)
    if t == aten.silu.default:
        return w.op("silu", [args[0]], dims, dtype)
    if t == aten.convolution.default:
        return _convolution(w, args, dims, dtype)
    if t == aten._transformer_encoder_layer_fwd.default:
        return _encoder_layer(w, args, kwargs, dims, dtype)
    if t == aten.avg_pool2d.default:
        x, kernel = args[0], list(args[1])
        strides = list(args[2]) if len(args) > 2 and args[2] else kernel
        padding = list(args[3]) if len(args) > 3 else [0, 0]
        extra = args[4:]
        if any(padding) or (extra and any(extra[:1])) or (len(extra) > 2 and extra[2] is not None):
            raise Unsupported("avg_pool2d with padding, ceil_mode or a divisor")
        attrs = f"kernel = {_array(kernel)}, padding = {_array([0, 0, 0, 0])}, strides = {_array(strides)}"
        return w.op("avg_pool2d", [x], dims, dtype, attrs)
    raise Unsupported(f"{t}")


def _cmp(w: _Writer, pred: str, a: _Value, b: _Value, dims) -> _Value:
    # `graph.cmp` prints its predicate first.
    result = _Value(f"%v{w.count}", tuple(dims), torch.bool)
    w.count += 1
    types = f"{a.type}, {b.type} -> {result.type}"
    w.lines.append(f"  {result.name} = graph.cmp {pred}, {a.name}, {b.name} : {types}")
    return result


def _convolution(w: _Writer, args, dims, dtype) -> _Value:
    x, weight, bias, stride, padding, dilation, transposed, _, groups = args[:9]
    if transposed or len(x.dims) != 4:
        raise Unsupported("a convolution that is not 2-D or is transposed")
    pads = [padding[0], padding[1], padding[0], padding[1]]
    attrs = (
        f"dilations = {_array(dilation)}, groups = {int(groups)} : i64, "
        f"padding = {_array(pads)}, strides = {_array(stride)}"
    )
    out = w.op("conv2d", [x, weight], dims, dtype, attrs)
    if bias is None:
        return out
    channels = bias.dims[0]
    b = _reshape(w, bias, (channels, 1, 1))
    return w.op("add", [out, b], dims, dtype)


def _encoder_layer(w: _Writer, args, kwargs, dims, dtype) -> _Value:
    """``nn.TransformerEncoderLayer``'s fused inference op (its "fast path" in eval mode with
    ``batch_first``): self-attention and the feed-forward block, each with a residual add and
    a layer norm before (``norm_first``) or after it."""
    (x, embed, heads, qkv_w, qkv_b, proj_w, proj_b, use_gelu, norm_first, eps) = args[:10]
    n1w, n1b, n2w, n2b, f1w, f1b, f2w, f2b = args[10:18]
    mask = args[18] if len(args) > 18 else kwargs.get("mask")
    if mask is not None or len(x.dims) != 3 or embed % heads:
        raise Unsupported("an encoder layer with a mask, or unbatched")
    batch, seq = x.dims[0], x.dims[1]
    head = embed // heads

    def linear(v: _Value, weight: _Value, bias: _Value) -> _Value:
        n, k = weight.dims
        w_t = w.op("transpose", [weight], (k, n), dtype, f"perm = {_array([1, 0])}")
        return w.op("linear", [v, w_t, bias], v.dims[:-1] + (n,), dtype)

    def norm(v: _Value, gamma: _Value, beta: _Value) -> _Value:
        attrs = f"axis = 2 : i64, epsilon = {_float(eps)} : f64"
        return w.op("layer_norm", [v, gamma, beta], v.dims, dtype, attrs)

    def attention(v: _Value) -> _Value:
        qkv = linear(v, qkv_w, qkv_b)
        per_head = []
        for i in range(3):
            attrs = (
                f"ends = {_array([2**62, 2**62, (i + 1) * embed])}, "
                f"starts = {_array([0, 0, i * embed])}, steps = {_array([1, 1, 1])}"
            )
            part = w.op("slice", [qkv], (batch, seq, embed), dtype, attrs)
            split = _reshape(w, part, (batch, seq, heads, head))
            perm = f"perm = {_array([0, 2, 1, 3])}"
            per_head.append(w.op("transpose", [split], (batch, heads, seq, head), dtype, perm))
        scale = f"scale = {_float(1.0 / math.sqrt(head))} : f64"
        att = w.op("sdpa", per_head, (batch, heads, seq, head), dtype, scale)
        back = w.op("transpose", [att], (batch, seq, heads, head), dtype, f"perm = {_array([0, 2, 1, 3])}")
        return linear(_reshape(w, back, (batch, seq, embed)), proj_w, proj_b)

    def feed_forward(v: _Value) -> _Value:
        h = linear(v, f1w, f1b)
        h = w.op("gelu" if use_gelu else "relu", [h], h.dims, dtype)
        return linear(h, f2w, f2b)

    def add(a: _Value, b: _Value) -> _Value:
        return w.op("add", [a, b], a.dims, dtype)

    if norm_first:
        x = add(x, attention(norm(x, n1w, n1b)))
        return add(x, feed_forward(norm(x, n2w, n2b)))
    x = norm(add(x, attention(x)), n1w, n1b)
    return norm(add(x, feed_forward(x)), n2w, n2b)


def _tuple_node(w: _Writer, node: torch.fx.Node, index: int, operand) -> _Value:
    """Output `index` of an ATen op with several results (the others must be unused)."""
    t = node.target
    args = [operand(a) for a in node.args]
    val = node.meta.get("val")
    if not isinstance(val, (tuple, list)) or not isinstance(val[index], torch.Tensor):
        raise Unsupported(f"{node.name}'s value")
    dims, dtype = _dims(val[index].shape), val[index].dtype
    if index != 0:
        raise Unsupported(f"result {index} of {t}")
    if t == aten.native_layer_norm.default:
        x, shape, weight, bias, eps = args[:5]
        if weight is None or bias is None:
            raise Unsupported("a layer norm without weight or bias")
        axis = len(x.dims) - len(shape)
        return w.op(
            "layer_norm", [x, weight, bias], dims, dtype,
            f"axis = {axis} : i64, epsilon = {_float(eps)} : f64",
        )
    if t == aten._native_batch_norm_legit_no_training.default:
        x, weight, bias, mean, var, _momentum, eps = args[:7]
        channels = x.dims[1]
        per_channel = (channels,) + (1,) * (len(x.dims) - 2)
        shaped = [_reshape(w, v, per_channel) for v in (mean, var)]
        scale = w.op("rsqrt", [w.op("add", [shaped[1], w.constant(eps, dtype)], per_channel, dtype)], per_channel, dtype)
        if weight is not None:
            scale = w.op("mul", [scale, _reshape(w, weight, per_channel)], per_channel, dtype)
        y = w.op("mul", [w.op("sub", [x, shaped[0]], dims, dtype), scale], dims, dtype)
        if bias is not None:
            y = w.op("add", [y, _reshape(w, bias, per_channel)], dims, dtype)
        return y
    if t == aten.max_pool2d_with_indices.default:
        x, kernel = args[0], list(args[1])
        strides = list(args[2]) if len(args) > 2 and args[2] else kernel
        padding = list(args[3]) if len(args) > 3 else [0, 0]
        dilation = list(args[4]) if len(args) > 4 else [1, 1]
        ceil_mode = bool(args[5]) if len(args) > 5 else False
        if dilation != [1, 1] or ceil_mode:
            raise Unsupported("max_pool2d with dilation or ceil_mode")
        pads = [padding[0], padding[1], padding[0], padding[1]]
        attrs = f"kernel = {_array(kernel)}, padding = {_array(pads)}, strides = {_array(strides)}"
        return w.op("max_pool2d", [x], dims, dtype, attrs)
    if t == aten._scaled_dot_product_flash_attention_for_cpu.default:
        q, k, v = args[:3]
        dropout = args[3] if len(args) > 3 else node.kwargs.get("dropout_p", 0.0)
        causal = args[4] if len(args) > 4 else node.kwargs.get("is_causal", False)
        mask = node.kwargs.get("attn_mask")
        scale = node.kwargs.get("scale")
        if dropout or causal or mask is not None:
            raise Unsupported("attention with dropout, a causal flag or a mask")
        scale = 1.0 / math.sqrt(q.dims[-1]) if scale is None else scale
        return w.op("sdpa", [q, k, v], dims, dtype, f"scale = {_float(scale)} : f64")
    raise Unsupported(f"{t}")


_TUPLE_OPS = {
    aten.native_layer_norm.default,
    aten._native_batch_norm_legit_no_training.default,
    aten.max_pool2d_with_indices.default,
    aten._scaled_dot_product_flash_attention_for_cpu.default,
}


def _translate(gm: torch.fx.GraphModule) -> Tuple[str, List[torch.fx.Node]]:
    """The graph IR of `gm` (a partition: placeholders, ATen nodes, one output) and the nodes
    its arguments are, in order."""
    w = _Writer()
    values: Dict[torch.fx.Node, Any] = {}
    inputs: List[torch.fx.Node] = []

    def operand(a):
        if isinstance(a, torch.fx.Node):
            if a not in values:
                raise Unsupported(f"{a.name} is not a value here")
            return values[a]
        if isinstance(a, (list, tuple)):
            return type(a)(operand(x) for x in a)
        return a

    outputs: List[_Value] = []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            val = _meta(node)
            values[node] = w.arg(_dims(val.shape), val.dtype)
            inputs.append(node)
        elif node.op == "call_function" and node.target == operator.getitem:
            source, index = node.args
            values[node] = _tuple_node(w, source, index, operand)
        elif node.op == "call_function" and node.target in _TUPLE_OPS:
            values[node] = None  # read through getitem
        elif node.op == "call_function":
            values[node] = _map_node(w, node, operand)
        elif node.op == "output":
            results = node.args[0]
            results = results if isinstance(results, (list, tuple)) else [results]
            for r in results:
                if not isinstance(values.get(r), _Value):
                    raise Unsupported(f"output {r}")
                outputs.append(values[r])
        else:
            raise Unsupported(f"a {node.op} node")
    return w.text(outputs), inputs


def _node_supported(node: torch.fx.Node) -> bool:
    """Whether dlc maps `node`: it is translated alone, its tensor operands as arguments."""
    if node.op != "call_function":
        return False
    if node.target in _TUPLE_OPS:
        return all(
            u.target == operator.getitem and u.args[1] == 0 and _node_supported(u)
            for u in node.users
        )
    w = _Writer()

    def operand(a):
        if isinstance(a, torch.fx.Node):
            val = a.meta.get("val")
            if not isinstance(val, torch.Tensor):
                raise Unsupported("a non-tensor operand")
            return w.arg(_dims(val.shape), val.dtype)
        if isinstance(a, (list, tuple)):
            return type(a)(operand(x) for x in a)
        return a

    try:
        if node.target == operator.getitem:
            source, index = node.args
            if not isinstance(source, torch.fx.Node) or source.target not in _TUPLE_OPS:
                return False
            _tuple_node(w, source, index, operand)
        else:
            _map_node(w, node, operand)
            _out(node)
        return True
    except (Unsupported, TypeError, ValueError, IndexError, AttributeError):
        return False


class _Support(OperatorSupport):
    def is_node_supported(self, submodules, node: torch.fx.Node) -> bool:
        return _node_supported(node)


class _Compiled(torch.nn.Module):
    """A partition compiled by dlc, called on its placeholders' tensors: each is read in place
    (``Tensor.numpy()`` shares a contiguous CPU tensor's memory), and each output array becomes a
    tensor without a copy (``torch.from_numpy``). ``single``: the partition returned one tensor,
    not a tuple."""

    def __init__(self, model: dlc.CompiledModel, single: bool):
        super().__init__()
        self.model, self.single = model, single

    def forward(self, *tensors):
        arrays = [t.detach().contiguous().numpy() for t in tensors]
        outputs = tuple(torch.from_numpy(a) for a in self.model(*arrays))
        return outputs[0] if self.single else outputs


def _compile_partitions(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """`gm` with each partition of nodes dlc maps replaced by its compiled model."""
    del last_report[:]
    partitioner = CapabilityBasedPartitioner(gm, _Support(), allows_single_node_partition=True)
    fused = partitioner.partition_and_fuse()
    for node in fused.graph.nodes:
        if node.op == "call_function" and node.target not in (operator.getitem,):
            last_report.append(f"left to PyTorch: {node.target}")
    for name, module in list(fused.named_children()):
        if not name.startswith("fused_"):
            continue
        try:
            text, _ = _translate(module)
            model = dlc.compile(text)
        except (Unsupported, dlc.Error) as e:
            last_report.append(f"{name}: left to PyTorch ({str(e).splitlines()[0]})")
            continue
        outputs = [n for n in module.graph.nodes if n.op == "output"][0].args[0]
        setattr(fused, name, _Compiled(model, single=not isinstance(outputs, (list, tuple))))
        last_report.append(f"{name}: compiled by dlc ({model.num_kernels} kernels)")
    fused.recompile()
    return fused


def _fw_compiler(gm: torch.fx.GraphModule, example_inputs) -> Callable:
    """AOTAutograd's forward compiler: the inference graph, partitioned and compiled."""
    return _compile_partitions(gm)


#: The ``torch.compile`` backend: ``torch.compile(m, backend=dlc_backend)`` or, once the
#: package is installed, ``backend="dlc"``.
dlc_backend = aot_autograd(
    fw_compiler=_fw_compiler,
    decompositions=core_aten_decompositions(),
)
