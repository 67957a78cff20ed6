"""Writes the recurrent (LSTM, GRU, RNN) ONNX models and .npy data test/onnx/recurrent.mlir uses,
into DIR, with reference outputs from onnx's reference evaluator.

Usage: python3 recurrent.py DIR
"""

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh
from onnx.reference import ReferenceEvaluator


def model(node, inputs, outputs, initializers=()):
    graph = h.make_graph([node], "g", inputs, outputs, list(initializers))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 22)])


def value(name, shape):
    return h.make_tensor_value_info(name, T.FLOAT, shape)


def lstm(hidden=4, features=3, **attrs):
    """An LSTM over a symbolic number of steps, its weights initializers, all three outputs."""
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((1, 4 * hidden, features)) * 0.5).astype(np.float32)
    r = (rng.standard_normal((1, 4 * hidden, hidden)) * 0.5).astype(np.float32)
    b = (rng.standard_normal((1, 8 * hidden)) * 0.5).astype(np.float32)
    inits = [nh.from_array(w, "w"), nh.from_array(r, "r"), nh.from_array(b, "b")]
    attrs.setdefault("hidden_size", hidden)
    node = h.make_node("LSTM", ["x", "w", "r", "b"], ["y", "y_h", "y_c"], name="lstm", **attrs)
    outs = [value(n, None) for n in ("y", "y_h", "y_c")]
    return model(node, [value("x", ["steps", 2, features])], outs, inits)


def gru_bidirectional():
    """A bidirectional GRU with linear_before_reset; weights are graph inputs."""
    node = h.make_node(
        "GRU", ["x", "w", "r"], ["y", "y_h"], hidden_size=3, direction="bidirectional",
        linear_before_reset=1,
    )
    inputs = [value("x", [5, 2, 4]), value("w", [2, 9, 4]), value("r", [2, 9, 3])]
    return model(node, inputs, [value("y", None), value("y_h", None)])


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    m = lstm()
    onnx.save(m, out / "lstm.onnx")
    # Two lengths for the one model with its symbolic step count.
    for steps in (3, 7):
        x = rng.standard_normal((steps, 2, 3)).astype(np.float32)
        np.save(out / f"lstm_x{steps}.npy", x)
        for i, y in enumerate(ReferenceEvaluator(m).run(None, {"x": x})):
            np.save(out / f"lstm_x{steps}_y{i}.npy", y)
    g = gru_bidirectional()
    onnx.save(g, out / "gru.onnx")
    feeds = {
        "x": rng.standard_normal((5, 2, 4)).astype(np.float32),
        "w": rng.standard_normal((2, 9, 4)).astype(np.float32),
        "r": rng.standard_normal((2, 9, 3)).astype(np.float32),
    }
    for name, v in feeds.items():
        np.save(out / f"gru_{name}.npy", v)
    for i, y in enumerate(ReferenceEvaluator(g).run(None, feeds)):
        np.save(out / f"gru_y{i}.npy", y)
    onnx.save(lstm(direction="sideways"), out / "bad_direction.onnx")
    onnx.save(lstm(layout=2), out / "bad_layout.onnx")
    onnx.save(lstm(activations=["Sigmoid", "Tanh"]), out / "bad_activations.onnx")
    onnx.save(lstm(activations=["Sigmoid", "Swish", "Tanh"]), out / "bad_function.onnx")
    onnx.save(lstm(hidden_size=5), out / "bad_hidden.onnx")
    onnx.save(lstm(clip=-1.0), out / "bad_clip.onnx")


if __name__ == "__main__":
    main()
