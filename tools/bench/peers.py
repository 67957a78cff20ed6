#!/usr/bin/env python3
"""Times the benchmark workloads in numpy and onnxruntime, the peers dlc is compared with.

Each workload of tools/bench/workloads/ is built again here, at the sizes of
workloads/sizes.json (the file dlc's side reads too), as numpy code and as an ONNX graph made
with onnx.helper. Both run on 2 threads (OpenBLAS and onnxruntime's intra-op pool), after a
warm-up, and the median/min/max of the timed runs is printed as JSON on stdout:

  {"gelu_bias": {"numpy": {"median_ms": .., "min_ms": .., "max_ms": ..},
                 "onnxruntime": {...}, "ort_session_ms": .., "max_abs_err": ..,
                 "ort_graph": "Gelu-20 approximate=tanh"}, ...}

max_abs_err compares numpy's output with onnxruntime's on the same inputs (a self-check that
both compute the same function); ort_graph says how the graph was expressed (onnxruntime's fused
Gelu when the opset has it, else primitive ops).

Usage: python3 tools/bench/peers.py --workloads gelu_bias,softmax --size full|smoke --runs 10
"""

import argparse
import json
import os
import sys
import time

THREADS = 2
# OpenBLAS reads its thread count when numpy is imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(THREADS))
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
import onnxruntime as ort  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = os.path.join(HERE, "workloads", "sizes.json")
F32 = np.float32
SQRT_2_OVER_PI = F32(0.7978845608028654)


# ---------------------------------------------------------------------------------------------
# numpy versions: float32 throughout (constants are np.float32 so nothing promotes to f64).

def np_gelu_tanh(h):
    return F32(0.5) * h * (F32(1.0) + np.tanh(SQRT_2_OVER_PI * (h + F32(0.044715) * h * h * h)))


def np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def np_layer_norm(x, gamma, beta):
    d = x - x.mean(axis=-1, keepdims=True)
    var = (d * d).mean(axis=-1, keepdims=True)
    return d / np.sqrt(var + F32(1e-5)) * gamma + beta


def np_rms_norm(x, gamma):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + F32(1e-6)) * gamma


def np_conv(x, w, b):
    """3x3 convolution, stride 1, padding 1 (NCHW, OIHW), + b, relu: im2col and one matmul."""
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # n c h w 3 3
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * wd, c * 9)
    y = (cols @ w.reshape(w.shape[0], -1).T).reshape(n, h, wd, -1).transpose(0, 3, 1, 2)
    return np.maximum(y + b, F32(0.0))


def np_gpt2_block(x, g1, be1, wq, bq, wk, bk, wv, bv, wo, bo, g2, be2, w1, b1, w2, b2, heads):
    s, e = x.shape
    d = e // heads
    h = np_layer_norm(x, g1, be1)
    split = lambda t: t.reshape(s, heads, d).transpose(1, 0, 2)
    q, k, v = split(h @ wq + bq), split(h @ wk + bk), split(h @ wv + bv)
    mask = np.where(np.triu(np.ones((s, s), dtype=bool), 1), F32(-1e9), F32(0.0))
    p = np_softmax(q @ k.transpose(0, 2, 1) * F32(1.0 / np.sqrt(d)) + mask)
    o = (p @ v).transpose(1, 0, 2).reshape(s, e)
    a = x + (o @ wo + bo)
    return a + (np_gelu_tanh(np_layer_norm(a, g2, be2) @ w1 + b1) @ w2 + b2)


NUMPY = {
    "gelu_bias": lambda x, w, b: np_gelu_tanh(x * w + b),
    "softmax": np_softmax,
    "layer_norm": np_layer_norm,
    "matmul": lambda a, b: a @ b,
    "attention": lambda q, k, v: np_softmax((q @ k.T) * F32(1.0 / np.sqrt(q.shape[1]))) @ v,
    "mlp": lambda x, w1, b1, w2, b2: np_gelu_tanh(x @ w1 + b1) @ w2 + b2,
    "rms_norm": np_rms_norm,
    "conv": np_conv,
    # The head count comes from the sizes (bench binds it).
    "gpt2_block": np_gpt2_block,
}


def input_shapes(name, p):
    """Argument shapes, in the order of the .mlir template's function arguments."""
    if name in ("gelu_bias", "layer_norm"):
        return [[p["M"], p["N"]], [p["N"]], [p["N"]]]
    if name == "softmax":
        return [[p["M"], p["N"]]]
    if name == "matmul":
        return [[p["M"], p["K"]], [p["K"], p["N"]]]
    if name == "attention":
        return [[p["S"], p["D"]]] * 3
    if name == "mlp":
        b, d, h = p["B"], p["D"], p["H"]
        return [[b, d], [d, h], [h], [h, d], [d]]
    if name == "rms_norm":
        return [[p["M"], p["N"]], [p["N"]]]
    if name == "conv":
        return [[p["N"], p["C"], p["H"], p["W"]], [p["O"], p["C"], 3, 3], [p["O"], 1, 1]]
    if name == "gpt2_block":
        s, e, f = p["S"], p["E"], p["F"]
        ln, sq = [[e], [e]], [[e, e], [e]]
        return [[s, e]] + ln + sq * 4 + ln + [[e, f], [f], [f, e], [e]]
    raise ValueError(f"unknown workload {name}")


def output_shape(name, p):
    if name in ("gelu_bias", "softmax", "layer_norm", "matmul", "rms_norm"):
        return [p["M"], p["N"]]
    if name == "attention":
        return [p["S"], p["D"]]
    if name == "mlp":
        return [p["B"], p["D"]]
    if name == "conv":
        return [p["N"], p["O"], p["H"], p["W"]]
    if name == "gpt2_block":
        return [p["S"], p["E"]]
    raise ValueError(f"unknown workload {name}")


# ---------------------------------------------------------------------------------------------
# ONNX graphs.

def const(name, value):
    return helper.make_tensor(name, TensorProto.FLOAT, [], [float(value)])


class Graph:
    """A small builder: named nodes, f32 scalar constants as initializers."""

    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def fresh(self, hint):
        self.n += 1
        return f"{hint}{self.n}"

    def op(self, op_type, inputs, domain="", out=None, **attrs):
        out = out or self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], domain=domain, **attrs))
        return out

    def const_i64(self, values):
        name = self.fresh("i")
        self.inits.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
        return name

    def scalar(self, value):
        name = self.fresh("c")
        self.inits.append(const(name, value))
        return name


def gelu_tanh(g, h, fused, out=None):
    """gelu with the tanh approximation: one Gelu-20 node, or 9 primitive ops."""
    if fused:
        return g.op("Gelu", [h], approximate="tanh", out=out)
    h3 = g.op("Mul", [g.op("Mul", [h, h]), h])
    inner = g.op("Add", [h, g.op("Mul", [h3, g.scalar(0.044715)])])
    t = g.op("Tanh", [g.op("Mul", [inner, g.scalar(SQRT_2_OVER_PI)])])
    half_h = g.op("Mul", [h, g.scalar(0.5)])
    return g.op("Mul", [half_h, g.op("Add", [t, g.scalar(1.0)])], out=out)


def softmax_last(g, x, out=None):
    return g.op("Softmax", [x], axis=-1, out=out)


def build_onnx(name, shapes, p, fused_gelu):
    """The workload as an ONNX model with inputs in0.. and output y; returns (model, note)."""
    g = Graph()
    ins = [f"in{i}" for i in range(len(shapes))]
    note = "primitive ops"
    opset = 20
    if name == "gelu_bias":
        h = g.op("Add", [g.op("Mul", [ins[0], ins[1]]), ins[2]])
        gelu_tanh(g, h, fused_gelu, out="y")
        note = "Gelu-20 approximate=tanh" if fused_gelu else "gelu as 9 primitive ops"
    elif name == "softmax":
        softmax_last(g, ins[0], out="y")
        note = "Softmax-13"
    elif name == "layer_norm":
        g.op("LayerNormalization", ins, axis=-1, epsilon=1e-5, out="y")
        note = "LayerNormalization-17"
    elif name == "matmul":
        g.op("MatMul", ins, out="y")
        note = "MatMul"
    elif name == "attention":
        q, k, v = ins
        kt = g.op("Transpose", [k], perm=[1, 0])
        s = g.op("Mul", [g.op("MatMul", [q, kt]), g.scalar(1.0 / np.sqrt(p["D"]))])
        g.op("MatMul", [softmax_last(g, s), v], out="y")
        note = "MatMul, Transpose, Mul, Softmax"
    elif name == "mlp":
        x, w1, b1, w2, b2 = ins
        h = g.op("Add", [g.op("MatMul", [x, w1]), b1])
        a = gelu_tanh(g, h, fused_gelu)
        g.op("Add", [g.op("MatMul", [a, w2]), b2], out="y")
        note = "MatMul+Add, " + ("Gelu-20 approximate=tanh" if fused_gelu else "gelu as 9 primitive ops")
    elif name == "rms_norm":
        x, gamma = ins
        if fused_gelu:
            g.op("RMSNormalization", ins, axis=-1, epsilon=1e-6, out="y")
            note = "RMSNormalization-23"
            opset = 23
        else:
            ms = g.op("ReduceMean", [g.op("Mul", [x, x]), g.const_i64([-1])], keepdims=1)
            r = g.op("Reciprocal", [g.op("Sqrt", [g.op("Add", [ms, g.scalar(1e-6)])])])
            g.op("Mul", [g.op("Mul", [x, r]), gamma], out="y")
            note = "Mul, ReduceMean, Add, Sqrt, Reciprocal, Mul"
    elif name == "conv":
        x, w, b = ins
        c = g.op("Conv", [x, w], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        g.op("Relu", [g.op("Add", [c, b])], out="y")
        note = "Conv, Add, Relu"
    elif name == "gpt2_block":
        s, e, heads, d = p["S"], p["E"], p["H"], p["D"]
        x, g1, be1, wq, bq, wk, bk, wv, bv, wo, bo, g2, be2, w1, b1, w2, b2 = ins
        h = g.op("LayerNormalization", [x, g1, be1], axis=-1, epsilon=1e-5)
        split_shape = g.const_i64([s, heads, d])
        split = lambda w, bias: g.op("Transpose", [g.op("Reshape", [
            g.op("Add", [g.op("MatMul", [h, w]), bias]), split_shape])], perm=[1, 0, 2])
        q, k, v = split(wq, bq), split(wk, bk), split(wv, bv)
        kt = g.op("Transpose", [k], perm=[0, 2, 1])
        mask = np.where(np.triu(np.ones((s, s), dtype=bool), 1), F32(-1e9), F32(0.0))
        mask_name = g.fresh("mask")
        g.inits.append(helper.make_tensor(mask_name, TensorProto.FLOAT, [s, s], mask.ravel()))
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, kt]), g.scalar(1.0 / np.sqrt(d))]),
                              mask_name])
        o = g.op("MatMul", [softmax_last(g, scores), v])
        o = g.op("Reshape", [g.op("Transpose", [o], perm=[1, 0, 2]), g.const_i64([s, e])])
        a = g.op("Add", [x, g.op("Add", [g.op("MatMul", [o, wo]), bo])])
        h2 = g.op("LayerNormalization", [a, g2, be2], axis=-1, epsilon=1e-5)
        u = gelu_tanh(g, g.op("Add", [g.op("MatMul", [h2, w1]), b1]), fused_gelu)
        g.op("Add", [a, g.op("Add", [g.op("MatMul", [u, w2]), b2])], out="y")
        note = "LayerNormalization, MatMul+Add, Reshape, Transpose, Softmax, " + (
            "Gelu-20 approximate=tanh" if fused_gelu else "gelu as 9 primitive ops")
    else:
        raise ValueError(f"unknown workload {name}")
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in zip(ins, shapes)]
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape(name, p))
    graph = helper.make_graph(g.nodes, name, inputs, [output], initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 10 if opset <= 21 else 11)
    onnx.checker.check_model(model)
    return model, note


def ort_session(model):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = THREADS
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def make_session(name, shapes, p):
    """Builds and compiles the ONNX model, preferring the fused Gelu; returns (session, ms, note)."""
    last_error = None
    for fused in (True, False):
        try:
            model, note = build_onnx(name, shapes, p, fused)
            start = time.perf_counter()
            sess = ort_session(model)
            return sess, (time.perf_counter() - start) * 1e3, note
        except Exception as e:  # an opset or kernel this onnxruntime lacks: try primitives
            last_error = e
    raise RuntimeError(f"onnxruntime cannot run {name}: {last_error}")


# ---------------------------------------------------------------------------------------------
# Timing.

def time_runs(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return {
        "median_ms": round(float(np.median(times)), 6),
        "min_ms": round(times[0], 6),
        "max_ms": round(times[-1], 6),
    }


def bench(name, p, runs, warmup):
    shapes = input_shapes(name, p)
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s, dtype=F32) for s in shapes]
    ref = NUMPY[name]
    if name == "gpt2_block":
        ref = lambda *a: np_gpt2_block(*a, heads=p["H"])  # noqa: E731
    result = {"numpy": time_runs(lambda: ref(*args), runs, warmup)}
    sess, session_ms, note = make_session(name, shapes, p)
    feed = {f"in{i}": a for i, a in enumerate(args)}
    result["onnxruntime"] = time_runs(lambda: sess.run(None, feed), runs, warmup)
    result["ort_session_ms"] = round(session_ms, 3)
    result["ort_graph"] = note
    expected = ref(*args)
    got = sess.run(None, feed)[0]
    result["max_abs_err"] = float(np.max(np.abs(expected.astype(np.float64) - got)))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", default="all", help="comma-separated names, or all")
    parser.add_argument("--size", choices=["full", "smoke"], default="full")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per tool")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs first")
    args = parser.parse_args()
    with open(SIZES) as f:
        sizes = json.load(f)
    names = list(sizes) if args.workloads in ("", "all") else args.workloads.split(",")
    unknown = [n for n in names if n not in sizes]
    if unknown:
        print(f"peers.py: unknown workload(s) {', '.join(unknown)}; known: {', '.join(sizes)}",
              file=sys.stderr)
        return 2
    out = {n: bench(n, sizes[n][args.size], max(args.runs, 1), max(args.warmup, 0)) for n in names}
    out["_meta"] = {
        "threads": THREADS,
        "size": args.size,
        "runs": args.runs,
        "numpy": np.__version__,
        "onnxruntime": ort.__version__,
    }
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
