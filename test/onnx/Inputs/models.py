"""Writes the small ONNX models (and .npy data) the lit tests in test/onnx use, into DIR.

Usage: python3 models.py DIR
Models are built with onnx.helper, so the tests need only the onnx and numpy packages that
scripts/setup.sh installs.
"""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = h.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def tensor(name, array):
    return nh.from_array(np.asarray(array), name)


def value(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def cnn():
    """Conv → BatchNormalization → Relu → GlobalAveragePool → Flatten → Gemm → Softmax."""
    rng = np.random.default_rng(0)
    inits = [
        tensor("w", rng.standard_normal((4, 3, 3, 3)).astype(np.float32)),
        tensor("b", np.zeros(4, np.float32)),
        tensor("scale", np.ones(4, np.float32)),
        tensor("shift", np.zeros(4, np.float32)),
        tensor("mean", np.full(4, 0.5, np.float32)),
        tensor("var", np.full(4, 2.0, np.float32)),
        tensor("fc", rng.standard_normal((2, 4)).astype(np.float32)),
        tensor("fc_b", np.zeros(2, np.float32)),
    ]
    nodes = [
        h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["n"], name="bn"),
        h.make_node("Relu", ["n"], ["r"], name="relu"),
        h.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
        h.make_node("Flatten", ["p"], ["f"], name="flatten"),
        h.make_node("Gemm", ["f", "fc", "fc_b"], ["l"], name="fc", transB=1),
        h.make_node("Softmax", ["l"], ["y"], name="softmax"),
    ]
    return model(nodes, [value("x", T.FLOAT, ["batch", 3, 8, 8])], [value("y", T.FLOAT, ["batch", 2])], inits)


def reshape_by_input():
    """Reshape whose shape is a graph input."""
    nodes = [h.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [value("x", T.FLOAT, [2, 6]), value("shape", T.INT64, [2])], [value("y", T.FLOAT, None)])


def unsupported_op():
    nodes = [h.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool", kernel_shape=[2])]
    inputs = [value("x", T.FLOAT, [1, 1, 2]), value("i", T.INT64, [1, 1, 2])]
    return model(nodes, inputs, [value("y", T.FLOAT, None)])


def unknown_attribute():
    nodes = [h.make_node("Relu", ["x"], ["y"], foo=3)]
    return model(nodes, [value("x", T.FLOAT, [4])], [value("y", T.FLOAT, [4])])


def cycle():
    nodes = [
        h.make_node("Relu", ["b"], ["a"], name="first"),
        h.make_node("Relu", ["a"], ["b"], name="second"),
    ]
    return model(nodes, [value("x", T.FLOAT, [4])], [value("b", T.FLOAT, [4])])


def shared_dim():
    """Two inputs whose first dims are both the dim_param 'n', used by ops that never meet."""
    nodes = [h.make_node("Relu", ["a"], ["ra"]), h.make_node("Relu", ["b"], ["rb"])]
    inputs = [value("a", T.FLOAT, ["n", 4]), value("b", T.FLOAT, ["n", 4])]
    return model(nodes, inputs, [value("ra", T.FLOAT, ["n", 4]), value("rb", T.FLOAT, ["n", 4])])


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    models = {
        "cnn": cnn(),
        "reshape": reshape_by_input(),
        "unsupported": unsupported_op(),
        "attribute": unknown_attribute(),
        "cycle": cycle(),
        "shared_dim": shared_dim(),
    }
    for name, m in models.items():
        onnx.save(m, out / f"{name}.onnx")
    # The cnn's input and its expected output, computed by onnx's reference evaluator.
    from onnx.reference import ReferenceEvaluator

    x = np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)
    (y,) = ReferenceEvaluator(models["cnn"]).run(None, {"x": x})
    np.save(out / "cnn_x.npy", x)
    np.save(out / "cnn_y.npy", y)
    np.save(out / "cnn_wrong.npy", y[:, ::-1].copy())
    np.save(out / "reshape_x.npy", np.arange(12, dtype=np.float32).reshape(2, 6))
    np.save(out / "reshape_shape.npy", np.array([3, 4], np.int64))
    np.save(out / "rows3.npy", np.ones((3, 4), np.float32))
    np.save(out / "rows5.npy", np.ones((5, 4), np.float32))
    # A truncated model: the cnn cut in the middle of its weights.
    data = (out / "cnn.onnx").read_bytes()
    (out / "truncated.onnx").write_bytes(data[: len(data) // 2])


if __name__ == "__main__":
    main()
