"""onnx's backend node tests, run by onnx's own runner (``onnx.backend.test.BackendTest``)
through ``dlc.onnx_backend``, against the statuses dlc's Rust harness records for the same cases
(test/onnx/expectations.tsv, written by compiler/driver/tests/onnx_conformance.rs).

A case passes through the runner exactly where the Rust harness records a pass. The default
tier runs every 32nd case (in name order); ``DLC_TEST_SCALE=N`` runs every (32 // N)th, and the
long tier (N ≥ 10) all of them.
"""

import os
import unittest
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.backend.test import BackendTest  # noqa: E402

import dlc  # noqa: E402
import dlc.onnx_backend as backend  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXPECTATIONS = ROOT / "test" / "onnx" / "expectations.tsv"


def rust_statuses():
    statuses = {}
    for line in EXPECTATIONS.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, status = line.split("\t")[:2]
        statuses[name] = status
    return statuses


def test_node_suite_passes_where_the_rust_harness_does():
    statuses = rust_statuses()
    cases = BackendTest(backend, __name__).test_cases["OnnxBackendNodeModelTest"]
    names = sorted(n for n in dir(cases) if n.startswith("test_") and n.endswith("_cpu"))
    assert len(names) == len(statuses), "the onnx package is not the one the Rust harness ran"
    scale = max(1, int(os.environ.get("DLC_TEST_SCALE", "1")))
    step = 1 if scale >= 10 else max(1, 32 // scale)
    sample = names[::step]

    result = unittest.TestResult()
    unittest.TestSuite(cases(n) for n in sample).run(result)
    problems = {t._testMethodName: text for t, text in result.failures + result.errors}
    skipped = {t._testMethodName for t, _ in result.skipped}
    passed = {n for n in sample if n not in problems and n not in skipped}
    rust_passed = {n for n in sample if statuses.get(n[: -len("_cpu")]) == "pass"}

    only_here = sorted(passed - rust_passed)
    only_rust = sorted(rust_passed - passed)
    detail = "\n".join(f"{n}: {problems[n].strip().splitlines()[-1]}" for n in only_rust[:10])
    assert not only_here and not only_rust, (
        f"passed through onnx's runner only: {only_here}\n"
        f"passed in the Rust harness only: {only_rust}\n{detail}"
    )
    print(
        f"onnx backend node tests through dlc.onnx_backend: {len(passed)} of {len(sample)} "
        f"run pass ({len(names)} cases, 1 in {step} run), as in the Rust harness"
    )


def reshape_model():
    """y = reshape(x, shape) + 1, the shape a graph input."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Add", ["r", "one"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "reshape_add", [x, shape], [y], [one])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_an_input_needed_as_a_constant_is_compiled_per_value():
    model = reshape_model()
    with pytest.raises(dlc.CompileError, match="graph input 'shape' must be a constant") as e:
        dlc.compile(model)
    assert "example_inputs" in str(e.value)
    rep = backend.prepare(model)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for shape in ([3, 2], [6, 1], [3, 2]):
        (y,) = rep.run([x, np.array(shape, np.int64)])
        np.testing.assert_array_equal(y, x.reshape(shape) + 1)
    # Two values of `shape`, two compiles.
    assert len(rep._specialized) == 2
    # dlc.compile takes the values too, and leaves the specialized input out of the call.
    m = dlc.compile(model, example_inputs=[x, np.array([1, 6], np.int64)])
    assert [i.name for i in m.inputs] == ["x"]
    np.testing.assert_array_equal(m(x)[0], x.reshape(1, 6) + 1)


def test_run_model_and_the_errors():
    model = reshape_model()
    x = np.ones((2, 3), np.float32)
    outputs = backend.run_model(model, [x, np.array([3, 2], np.int64)])
    assert outputs._fields == ("y",) and outputs.y.shape == (3, 2)
    assert backend.supports_device("CPU") and not backend.supports_device("CUDA")
    with pytest.raises(ValueError, match="CPU only"):
        backend.prepare(model, "CUDA")
    with pytest.raises(dlc.InputError, match="expected 2 inputs"):
        backend.prepare(model).run([x])
    with pytest.raises(NotImplementedError):
        backend.run_node(model.graph.node[0], [x])
    with pytest.raises(dlc.InputError, match="example input 1: expected a numpy array"):
        dlc.compile(model, example_inputs=[x, [3, 2]])
    with pytest.raises(ValueError, match="example_inputs applies to ONNX models only"):
        dlc.compile("func.func @f() { return }", example_inputs=[])
