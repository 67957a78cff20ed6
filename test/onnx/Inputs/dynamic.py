"""Writes the dynamic-shape ONNX models and .npy data test/onnx/dynamic.mlir uses, into DIR,
with reference outputs from onnxruntime: shapes computed from `Shape` of inputs whose dims are
`dim_param`s, as exporters write them.

- mha.onnx: multi-head self-attention over x [batch, seq, 32] with 4 heads, splitting and
  merging the heads with Reshapes whose targets are Concats of Gathers of Shape(x) (and a
  Reshape to [0, 0, -1]); run at (batch, seq) = (1, 1), (2, 7), (1, 128).
- shapes.onnx: Flatten of [a, b, c, 4] at axis 2 (both halves dynamic), Expand of a
  [1, c] row to Shape(x)[0:2] + [c]-style targets, ConstantOfShape(Shape(x)), Size, and a
  Reshape to [-1] of a tensor with three dynamic dims, and Shape(x) used as data (cast to
  float and squared); run at two sizes.
- windows.onnx: Conv (strided, padded; depthwise), MaxPool, AveragePool, nearest Resize by 2
  and a ConvTranspose with kernel = strides over [1, 3, ?, ?] (both `?`: paddle2onnx's way of
  writing unknown dims, which are not one size); run at 9x14 and 32x20.
- positions.onnx: token plus position embeddings with the position ids a Range up to
  Shape(ids)[1], and a strided Range from 1; run at (batch, seq) = (2, 5) and (1, 1).
- kernels.onnx: over x [a, s]: Tile by constant repeats and by repeats from Shape(x), Trilu
  with a k given at run time, CumSum forward and reversed exclusive along the `?` axis,
  GatherElements with indices [a, t] (negative ones too), a Range from −s to s by 2, Slices
  and a Pad whose bounds and amounts are computed from s; run at (a, s, t) = (2, 5, 3),
  (3, 9, 11) and (1, 1, 2).
- resize.onnx: x [1, 2, h, w] resized to Shape(skip)[2:4] (an FPN's upsample-to-match), nearest
  (half_pixel, round_prefer_floor) and bilinear (align_corners, antialias = 0 written out as
  opset-18 exporters do); run at (h, w, H, W) =
  (5, 7, 10, 14) and (6, 9, 4, 13) (down one axis, up the other).
- attention.onnx: opset-23 Attention over 3-D q [b, s, 32] and k, v [b, s, 16] (4 query heads
  sharing 2 key heads), causal, with a past key/value cache of p positions; run at
  (b, s, p) = (1, 1, 3) and (2, 6, 4).

Usage: python3 dynamic.py DIR
"""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
import onnxruntime


def value(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, initializers=()):
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def const(name, array):
    return h.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(array, name))


def mha():
    """Self-attention with 4 heads of 8 over a hidden size of 32."""
    rng = np.random.default_rng(7)
    weights = {n: (rng.standard_normal((32, 32)) / 6).astype(np.float32)
               for n in ("wq", "wk", "wv", "wo")}
    inits = [onnx.numpy_helper.from_array(w, n) for n, w in weights.items()]
    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        const("i0", np.array(0, np.int64)),
        const("i1", np.array(1, np.int64)),
        const("ax0", np.array([0], np.int64)),
        const("heads", np.array([4, 8], np.int64)),
        const("merged", np.array([0, 0, -1], np.int64)),
        const("scale", np.array(np.sqrt(8.0), np.float32)),
        h.make_node("Gather", ["shape", "i0"], ["b"], axis=0),
        h.make_node("Gather", ["shape", "i1"], ["s"], axis=0),
        h.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        h.make_node("Unsqueeze", ["s", "ax0"], ["s1"]),
        h.make_node("Concat", ["b1", "s1", "heads"], ["split"], axis=0),
    ]
    for n in ("q", "k", "v"):
        nodes += [
            h.make_node("MatMul", ["x", "w" + n], [n + "_p"]),
            h.make_node("Reshape", [n + "_p", "split"], [n + "_h"]),
            h.make_node("Transpose", [n + "_h"], [n + "_t"], perm=[0, 2, 1, 3]),
        ]
    nodes += [
        h.make_node("Transpose", ["k_h"], ["k_tt"], perm=[0, 2, 3, 1]),
        h.make_node("MatMul", ["q_t", "k_tt"], ["scores"]),
        h.make_node("Div", ["scores", "scale"], ["scaled"]),
        h.make_node("Softmax", ["scaled"], ["p"], axis=-1),
        h.make_node("MatMul", ["p", "v_t"], ["o_t"]),
        h.make_node("Transpose", ["o_t"], ["o_h"], perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["o_h", "merged"], ["o"]),
        h.make_node("MatMul", ["o", "wo"], ["y"]),
    ]
    return model(nodes, [value("x", T.FLOAT, ["batch", "seq", 32])],
                 [value("y", T.FLOAT, ["batch", "seq", 32])], inits)


def shapes():
    """Flatten, Expand, ConstantOfShape, Size and Reshape over dynamic dims."""
    nodes = [
        h.make_node("Flatten", ["x"], ["flat"], axis=2),
        h.make_node("Shape", ["x"], ["shape"]),
        const("start", np.array([0], np.int64)),
        const("stop", np.array([3], np.int64)),
        h.make_node("Slice", ["shape", "start", "stop"], ["lead"]),
        h.make_node("Expand", ["row", "lead"], ["expanded"]),
        h.make_node("ConstantOfShape", ["lead"], ["ones"],
                    value=onnx.numpy_helper.from_array(np.array([1.5], np.float32))),
        h.make_node("Add", ["expanded", "ones"], ["filled"]),
        h.make_node("Size", ["x"], ["count"]),
        const("all", np.array([-1], np.int64)),
        h.make_node("Reshape", ["x", "all"], ["line"]),
        h.make_node("Cast", ["shape"], ["shape_f"], to=T.FLOAT),
        h.make_node("Mul", ["shape_f", "shape_f"], ["squares"]),
    ]
    return model(nodes, [value("x", T.FLOAT, ["a", "b", "c", 4]), value("row", T.FLOAT, [1, 1, "c"])],
                 [value("flat", T.FLOAT, ["ab", "c4"]), value("filled", T.FLOAT, ["a", "b", "c"]),
                  value("count", T.INT64, []), value("line", T.FLOAT, ["n"]),
                  value("squares", T.FLOAT, [4])])


def windows():
    """Windows over dynamic height and width: a strided padded Conv, a depthwise Conv, MaxPool,
    AveragePool (padded, count_include_pad 0), nearest Resize by 2 and a ConvTranspose whose
    kernel equals its strides."""
    rng = np.random.default_rng(3)
    tensors = {
        "w1": (rng.standard_normal((4, 3, 3, 3)) / 4).astype(np.float32),
        "b1": (rng.standard_normal(4) / 4).astype(np.float32),
        "w2": (rng.standard_normal((4, 1, 3, 3)) / 4).astype(np.float32),
        "wt": (rng.standard_normal((4, 2, 2, 2)) / 4).astype(np.float32),
        "bt": (rng.standard_normal(2) / 4).astype(np.float32),
        "scales": np.array([1, 1, 2, 2], np.float32),
        "roi": np.array([], np.float32),
    }
    inits = [onnx.numpy_helper.from_array(v, k) for k, v in tensors.items()]
    nodes = [
        h.make_node("Conv", ["x", "w1", "b1"], ["c1"], strides=[2, 2], pads=[1, 1, 1, 1]),
        h.make_node("Conv", ["c1", "w2"], ["c2"], group=4, pads=[1, 1, 1, 1]),
        h.make_node("MaxPool", ["c2"], ["mp"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        h.make_node("AveragePool", ["c2"], ["ap"], kernel_shape=[2, 3], strides=[1, 2], pads=[0, 1, 0, 1]),
        h.make_node("Resize", ["mp", "roi", "scales"], ["up"], mode="nearest",
                    coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        h.make_node("ConvTranspose", ["up", "wt", "bt"], ["ct"], kernel_shape=[2, 2], strides=[2, 2]),
    ]
    return model(nodes, [value("x", T.FLOAT, [1, 3, "?", "?"])],
                 [value("ap", T.FLOAT, [1, 4, "h", "w"]), value("ct", T.FLOAT, [1, 2, "h2", "w2"])],
                 inits)


def positions():
    """Token and position embeddings as GPT-2 exports them: the position ids are
    Range(0, Shape(ids)[1], 1), gathered from a table of 64 rows; a second Range with a start
    and a stride counts the odd positions; a float Range up to the length cast to float, plus
    0.5, makes the cell centres of a detector's anchor grid."""
    rng = np.random.default_rng(5)
    inits = [
        onnx.numpy_helper.from_array(rng.standard_normal((50, 8)).astype(np.float32), "wte"),
        onnx.numpy_helper.from_array(rng.standard_normal((64, 8)).astype(np.float32), "wpe"),
    ]
    nodes = [
        h.make_node("Shape", ["ids"], ["shape"]),
        const("one", np.array(1, np.int64)),
        const("zero", np.array(0, np.int64)),
        const("two", np.array(2, np.int64)),
        h.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        h.make_node("Range", ["zero", "seq", "one"], ["pos"]),
        h.make_node("Gather", ["wte", "ids"], ["tok"], axis=0),
        h.make_node("Gather", ["wpe", "pos"], ["pe"], axis=0),
        h.make_node("Add", ["tok", "pe"], ["y"]),
        h.make_node("Range", ["one", "seq", "two"], ["odd"]),
        h.make_node("Cast", ["seq"], ["seqf"], to=T.FLOAT),
        const("zerof", np.array(0.0, np.float32)),
        const("onef", np.array(1.0, np.float32)),
        const("halff", np.array(0.5, np.float32)),
        h.make_node("Range", ["zerof", "seqf", "onef"], ["cells"]),
        h.make_node("Add", ["cells", "halff"], ["centres"]),
    ]
    return model(nodes, [value("ids", T.INT64, ["batch", "seq"])],
                 [value("y", T.FLOAT, ["batch", "seq", 8]), value("odd", T.INT64, ["half"]),
                  value("centres", T.FLOAT, ["seq"])],
                 inits)


def kernels():
    """Tile, Trilu, CumSum, GatherElements, Range, Slice and Pad over `?` dims: the Slices
    are x[:, 1 : s − 1] and x[:, s − 3 :: 2] (a start of either sign), the Pad adds s − 2
    columns before (crops when negative) and 2 after, and one row below, with 2.5."""
    nodes = [
        h.make_node("Shape", ["x"], ["shape"]),
        const("zero", np.array(0, np.int64)),
        const("one", np.array(1, np.int64)),
        const("two", np.array(2, np.int64)),
        const("first", np.array([0], np.int64)),
        const("second", np.array([1], np.int64)),
        const("twice", np.array([2, 1], np.int64)),
        h.make_node("Tile", ["x", "twice"], ["tiled"]),
        h.make_node("Slice", ["shape", "first", "second"], ["a"]),
        h.make_node("Concat", ["second", "a"], ["reps"], axis=0),
        h.make_node("Tile", ["x", "reps"], ["wide"]),
        h.make_node("Trilu", ["x", "diag"], ["lower"], upper=0),
        h.make_node("CumSum", ["x", "one"], ["sums"]),
        h.make_node("CumSum", ["x", "one"], ["rsums"], exclusive=1, reverse=1),
        h.make_node("GatherElements", ["x", "idx"], ["picked"], axis=1),
        h.make_node("Gather", ["shape", "one"], ["s"], axis=0),
        h.make_node("Sub", ["zero", "s"], ["start"]),
        h.make_node("Range", ["start", "s", "two"], ["steps"]),
        const("big", np.array([100], np.int64)),
        const("pairs", np.array([2], np.int64)),
        const("three", np.array([3], np.int64)),
        const("pad_value", np.array(2.5, np.float32)),
        h.make_node("Unsqueeze", ["s", "first"], ["s1"]),
        h.make_node("Sub", ["s1", "second"], ["inner_end"]),
        h.make_node("Slice", ["x", "second", "inner_end", "second"], ["inner"]),
        h.make_node("Sub", ["s1", "three"], ["tail_start"]),
        h.make_node("Slice", ["x", "tail_start", "big", "second", "pairs"], ["tail"]),
        h.make_node("Sub", ["s1", "pairs"], ["low"]),
        h.make_node("Concat", ["first", "low", "second", "pairs"], ["pads"], axis=0),
        h.make_node("Pad", ["x", "pads", "pad_value"], ["padded"]),
    ]
    outputs = [value(n, T.FLOAT, [f"{n}0", f"{n}1"])
               for n in ("tiled", "wide", "lower", "sums", "rsums", "picked")]
    outputs.append(value("steps", T.INT64, ["n"]))
    outputs += [value(n, T.FLOAT, [f"{n}0", f"{n}1"]) for n in ("inner", "tail", "padded")]
    return model(nodes,
                 [value("x", T.FLOAT, ["a", "s"]), value("diag", T.INT64, []),
                  value("idx", T.INT64, ["a", "t"])],
                 outputs)


def resize():
    """Resizes to sizes computed from another tensor's Shape."""
    nodes = [
        h.make_node("Shape", ["skip"], ["shape"]),
        const("from", np.array([2], np.int64)),
        const("to", np.array([4], np.int64)),
        const("nc", np.array([1, 2], np.int64)),
        h.make_node("Slice", ["shape", "from", "to"], ["hw"]),
        h.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0),
        h.make_node("Resize", ["x", "", "", "sizes"], ["near"], mode="nearest"),
        h.make_node("Resize", ["x", "", "", "sizes"], ["bilinear"], mode="linear",
                    coordinate_transformation_mode="align_corners", antialias=0),
    ]
    out = [value(n, T.FLOAT, [1, 2, "H", "W"]) for n in ("near", "bilinear")]
    graph = h.make_graph(nodes, "g", [value("x", T.FLOAT, [1, 2, "h", "w"]),
                                      value("skip", T.FLOAT, [1, 2, "H", "W"])], out)
    # Opset 18, whose exporters write antialias = 0 explicitly.
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])


def attention():
    """Grouped-query causal self-attention with a past cache, as the opset-23 op."""
    nodes = [h.make_node("Attention", ["q", "k", "v", "", "past_k", "past_v"],
                         ["y", "present_k", "present_v"], q_num_heads=4, kv_num_heads=2,
                         is_causal=1)]
    inputs = [value("q", T.FLOAT, ["b", "s", 32]), value("k", T.FLOAT, ["b", "s", 16]),
              value("v", T.FLOAT, ["b", "s", 16]), value("past_k", T.FLOAT, ["b", 2, "p", 8]),
              value("past_v", T.FLOAT, ["b", 2, "p", 8])]
    outputs = [value("y", T.FLOAT, ["b", "s", 32]),
               value("present_k", T.FLOAT, ["b", 2, "total", 8]),
               value("present_v", T.FLOAT, ["b", 2, "total", 8])]
    graph = h.make_graph(nodes, "g", inputs, outputs)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 23)])


def data(rng, name, shape, feeds):
    """The input `name` of `shape`: token ids, a Trilu diagonal, indices into x's last axis
    (from −s to s − 1), or floats."""
    if name == "ids":
        return rng.integers(0, 50, shape)
    if name == "diag":
        return np.array(rng.integers(-2, 3), np.int64)
    if name == "idx":
        s = feeds["x"][-1]
        return rng.integers(-s, s, shape)
    return rng.standard_normal(shape).astype(np.float32)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    cases = {
        "mha": (mha(), [{"x": (1, 1, 32)}, {"x": (2, 7, 32)}, {"x": (1, 128, 32)}]),
        "shapes": (shapes(), [{"x": (2, 3, 5, 4), "row": (1, 1, 5)},
                              {"x": (1, 6, 2, 4), "row": (1, 1, 2)}]),
        "windows": (windows(), [{"x": (1, 3, 9, 14)}, {"x": (1, 3, 32, 20)}]),
        "positions": (positions(), [{"ids": (2, 5)}, {"ids": (1, 1)}]),
        "kernels": (kernels(), [{"x": (2, 5), "diag": (), "idx": (2, 3)},
                                {"x": (3, 9), "diag": (), "idx": (3, 11)},
                                {"x": (1, 1), "diag": (), "idx": (1, 2)}]),
        "resize": (resize(), [{"tag": "up", "x": (1, 2, 5, 7), "skip": (1, 2, 10, 14)},
                              {"tag": "mixed", "x": (1, 2, 6, 9), "skip": (1, 2, 4, 13)}]),
        "attention": (attention(), [
            {"tag": "b1s1p3", "q": (1, 1, 32), "k": (1, 1, 16), "v": (1, 1, 16),
             "past_k": (1, 2, 3, 8), "past_v": (1, 2, 3, 8)},
            {"tag": "b2s6p4", "q": (2, 6, 32), "k": (2, 6, 16), "v": (2, 6, 16),
             "past_k": (2, 2, 4, 8), "past_v": (2, 2, 4, 8)}]),
    }
    for name, (m, runs) in cases.items():
        onnx.checker.check_model(m)
        path = out / f"{name}.onnx"
        onnx.save(m, path)
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for feeds in runs:
            tag = feeds.pop("tag", None) or "_".join(
                "x".join(map(str, s)) for s in feeds.values() if s)
            arrays = {k: data(rng, k, s, feeds) for k, s in feeds.items()}
            for k, a in arrays.items():
                np.save(out / f"{name}_{tag}_{k}.npy", a)
            for i, y in enumerate(session.run(None, arrays)):
                np.save(out / f"{name}_{tag}_y{i}.npy", y)


if __name__ == "__main__":
    main()
