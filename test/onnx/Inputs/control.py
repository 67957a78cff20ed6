"""Writes the control-flow (If, Loop, Scan) ONNX models and .npy data test/onnx/control.mlir
uses, into DIR, with reference outputs from onnxruntime (which scripts/setup.sh installs; onnx's
reference evaluator concatenates a Loop's scan outputs instead of stacking them, and fails on a
loop of no iterations).

Usage: python3 control.py DIR
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


def model(nodes, inputs, outputs):
    graph = h.make_graph(nodes, "g", inputs, outputs)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def const(name, array):
    return h.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(array, name))


def if_by_input():
    """An If whose condition is a graph input; its branches give 3 and 6 elements."""
    then = h.make_graph(
        [const("two", np.array(2.0, np.float32)), h.make_node("Mul", ["x", "two"], ["t"])],
        "then", [], [value("t", T.FLOAT, [3])])
    other = h.make_graph(
        [h.make_node("Concat", ["x", "x"], ["e"], axis=0)],
        "else", [], [value("e", T.FLOAT, [6])])
    node = h.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other, name="if")
    return model([node], [value("c", T.BOOL, []), value("x", T.FLOAT, [3])],
                 [value("y", T.FLOAT, ["n"])])


def loop_by_input():
    """A Loop whose trip count is a graph input and whose body decides when to stop: it carries
    v (v ← v·1.5 + i, an If inside adding 1 on odd iterations), stops once sum(v) passes 40,
    and scans v."""
    odd_then = h.make_graph(
        [const("one", np.array(1.0, np.float32)), h.make_node("Add", ["w", "one"], ["wo"])],
        "odd", [], [value("wo", T.FLOAT, [2, 3])])
    odd_else = h.make_graph(
        [h.make_node("Identity", ["w"], ["we"])], "even", [], [value("we", T.FLOAT, [2, 3])])
    body = h.make_graph(
        [
            const("k", np.array(1.5, np.float32)),
            const("limit", np.array(40.0, np.float32)),
            const("two", np.array(2, np.int64)),
            h.make_node("Mul", ["v", "k"], ["scaled"]),
            h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
            h.make_node("Add", ["scaled", "fi"], ["w"]),
            h.make_node("Mod", ["i", "two"], ["parity"]),
            h.make_node("Cast", ["parity"], ["odd"], to=T.BOOL),
            h.make_node("If", ["odd"], ["v2"], then_branch=odd_then, else_branch=odd_else),
            h.make_node("ReduceSum", ["v2"], ["total"], keepdims=0),
            h.make_node("Less", ["total", "limit"], ["go"]),
            h.make_node("Identity", ["v2"], ["scan"]),
        ],
        "body",
        [value("i", T.INT64, []), value("cond", T.BOOL, []), value("v", T.FLOAT, [2, 3])],
        [value("go", T.BOOL, []), value("v2", T.FLOAT, [2, 3]), value("scan", T.FLOAT, [2, 3])])
    node = h.make_node("Loop", ["m", "c", "x"], ["v_final", "vs"], body=body, name="loop")
    return model(
        [const("c", np.array(True)), node],
        [value("m", T.INT64, []), value("x", T.FLOAT, [2, 3])],
        [value("v_final", T.FLOAT, [2, 3]), value("vs", T.FLOAT, ["trips", 2, 3])])


def long_scan(steps=40):
    """A Scan over `steps` steps (40: past the unroll bound; a name: a dynamic length): a
    running sum of a reversed input, its outputs stacked along axis 1 in reverse."""
    body = h.make_graph(
        [
            h.make_node("Add", ["s", "xt"], ["s2"]),
            const("half", np.array(0.5, np.float32)),
            h.make_node("Mul", ["s2", "half"], ["out"]),
        ],
        "body",
        [value("s", T.FLOAT, [4]), value("xt", T.FLOAT, [4])],
        [value("s2", T.FLOAT, [4]), value("out", T.FLOAT, [4])])
    node = h.make_node("Scan", ["s0", "x"], ["s_final", "ys"], body=body, num_scan_inputs=1,
                       scan_input_directions=[1], scan_output_axes=[1],
                       scan_output_directions=[1], name="scan")
    return model(
        [node],
        [value("s0", T.FLOAT, [4]), value("x", T.FLOAT, [steps, 4])],
        [value("s_final", T.FLOAT, [4]), value("ys", T.FLOAT, [4, steps])])


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)

    def save(name, m, cases):
        onnx.checker.check_model(m)
        onnx.save(m, out / f"{name}.onnx")
        ref = onnxruntime.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        for case, feeds in cases.items():
            for k, v in feeds.items():
                np.save(out / f"{name}_{case}_{k}.npy", v)
            for i, y in enumerate(ref.run(None, feeds)):
                np.save(out / f"{name}_{case}_y{i}.npy", y)

    x3 = rng.standard_normal(3).astype(np.float32)
    save("if", if_by_input(), {
        "then": {"c": np.array(True), "x": x3},
        "else": {"c": np.array(False), "x": x3},
    })
    x23 = rng.standard_normal((2, 3)).astype(np.float32)
    save("loop", loop_by_input(), {
        "m10": {"m": np.array(10, np.int64), "x": x23},
        "m2": {"m": np.array(2, np.int64), "x": x23},
        "m0": {"m": np.array(0, np.int64), "x": x23},
    })
    save("scan", long_scan(), {
        "run": {"s0": rng.standard_normal(4).astype(np.float32),
                "x": rng.standard_normal((40, 4)).astype(np.float32)},
    })
    save("scan_dyn", long_scan("steps"), {
        f"t{t}": {"s0": rng.standard_normal(4).astype(np.float32),
                  "x": rng.standard_normal((t, 4)).astype(np.float32)}
        for t in (3, 25)
    })


if __name__ == "__main__":
    main()
