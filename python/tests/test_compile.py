"""The `dlc` Python package: compile and run IR and ONNX models, metadata, threads, errors.

Run by scripts/test.sh after it installs the wheel (`python3 -m pytest -q python/tests`).
"""

import os
import pathlib
import re
import threading

import numpy as np
import pytest

import dlc

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


def rng(seed=0):
    return np.random.default_rng(seed)


def random_inputs(model, batch=2, seed=0):
    r = rng(seed)
    return [
        r.uniform(-1, 1, [batch if d is None else d for d in i.shape]).astype(i.dtype)
        for i in model.inputs
    ]


def onnx_mlp(dim="N"):
    """relu(x @ w + b) with x: [dim, 4], w: [4, 3] and b: [3] initializers."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    r = rng(1)
    w = r.uniform(-1, 1, (4, 3)).astype(np.float32)
    b = r.uniform(-1, 1, (3,)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["xw"]),
            helper.make_node("Add", ["xw", "b"], ["xwb"]),
            helper.make_node("Relu", ["xwb"], ["y"]),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [dim, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [dim, 3])],
        initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model, lambda x: np.maximum(x @ w + b, 0)


@pytest.fixture(scope="module")
def mlp_ir():
    return dlc.compile(EXAMPLES / "mlp.mlir")


@pytest.fixture(scope="module")
def onnx_model():
    model, reference = onnx_mlp()
    return dlc.compile(model, opt="quick"), reference


def test_transformer_block_runs_at_its_dynamic_batch():
    m = dlc.compile(str(EXAMPLES / "transformer_block.mlir"))
    assert len(m.inputs) == 17 and len(m.outputs) == 1
    assert m.inputs[0].shape == (None, 16, 32)
    assert m.inputs[0].dtype == np.float32
    (out,) = m(*random_inputs(m, batch=3))
    assert out.shape == (3, 16, 32) and out.dtype == np.float32
    assert np.isfinite(out).all()
    # The one-liner of docs/python.md.
    (ones,) = m(*[np.ones([d or 1 for d in i.shape], i.dtype) for i in m.inputs])
    assert ones.shape == (1, 16, 32)


def test_mlp_file_matches_numpy(mlp_ir):
    m = mlp_ir
    assert [i.name for i in m.inputs] == [f"%arg{i}" for i in range(5)]
    assert [o.name for o in m.outputs] == ["result 0"]
    assert m.outputs[0].shape == (8, 10)
    x, w1, b1, w2, b2 = random_inputs(m)
    (y,) = m(x, w1, b1, w2, b2)
    expected = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    assert y.shape == (8, 10) and y.flags.c_contiguous and y.flags.owndata
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    # A non-contiguous input is copied into C order first.
    wt = np.asfortranarray(w1)
    np.testing.assert_allclose(m(x, wt, b1, w2, b2)[0], expected, rtol=1e-5, atol=1e-5)


def aligned(array, offset=0):
    """A copy of `array` whose data starts `offset` bytes past a multiple of 64 bytes."""
    raw = np.empty(array.nbytes + 128, np.uint8)
    start = (-raw.__array_interface__["data"][0]) % 64 + offset
    out = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def address(array):
    return array.__array_interface__["data"][0]


def test_inputs_are_read_in_place(mlp_ir):
    m = mlp_ir
    arrays = random_inputs(m)
    expected = m(*arrays)[0]
    # The compiled code reads each input where numpy keeps it, at any element-aligned address:
    # numpy's own allocation, 64-byte aligned memory, or 4 and 20 bytes past it.
    for offset in (None, 0, 4, 20):
        inputs = arrays if offset is None else [aligned(a, offset) for a in arrays]
        assert m._model.input_addresses(inputs) == [address(a) for a in inputs], offset
        np.testing.assert_array_equal(m(*inputs)[0], expected)
    # One whose float32 elements are not aligned (2 bytes off) is copied first, with the same
    # result.
    shifted = list(arrays)
    shifted[0] = aligned(arrays[0], offset=2)
    got = m._model.input_addresses(shifted)
    assert got[0] != address(shifted[0]) and got[1:] == [address(a) for a in arrays[1:]]
    np.testing.assert_array_equal(m(*shifted)[0], expected)


def test_ir_text_with_a_dynamic_dim_and_two_outputs():
    text = (EXAMPLES / "softmax.mlir").read_text()
    m = dlc.compile(text)
    assert [i.shape for i in m.inputs] == [(None, 16)]
    assert [o.shape for o in m.outputs] == [(None, 16), (None, 16)]
    for rows in (3, 7):
        x = rng(rows).uniform(-3, 3, (rows, 16)).astype(np.float32)
        p, log_p = m(x)
        e = np.exp(x - x.max(axis=1, keepdims=True))
        expected = e / e.sum(axis=1, keepdims=True)
        assert p.shape == (rows, 16)
        np.testing.assert_allclose(p, expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(log_p, np.log(expected), rtol=1e-5, atol=1e-5)
    named = m.run({"%arg0": x})
    assert list(named) == ["result 0", "result 1"]
    np.testing.assert_array_equal(named["result 0"], p)


def test_onnx_model_proto_names_and_two_sizes(onnx_model):
    m, reference = onnx_model
    assert [(i.name, i.dtype, i.shape) for i in m.inputs] == [("x", np.float32, (None, 4))]
    assert [(o.name, o.dtype, o.shape) for o in m.outputs] == [("y", np.float32, (None, 3))]
    for n in (1, 5):
        x = rng(n).uniform(-1, 1, (n, 4)).astype(np.float32)
        (y,) = m(x)
        np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-6)
        out = m.run({"x": x})
        assert list(out) == ["y"]
        np.testing.assert_allclose(out["y"], reference(x), rtol=1e-5, atol=1e-6)


def test_onnx_as_bytes_and_as_a_path(tmp_path):
    model, reference = onnx_mlp()
    x = rng(2).uniform(-1, 1, (6, 4)).astype(np.float32)
    data = model.SerializeToString()
    path = tmp_path / "mlp.onnx"
    path.write_bytes(data)
    for source in (data, path, str(path)):
        m = dlc.compile(source, opt="quick")
        assert [i.name for i in m.inputs] == ["x"]
        np.testing.assert_allclose(m(x)[0], reference(x), rtol=1e-5, atol=1e-6)


def test_onnx_input_shapes_compile_static_shapes():
    model, reference = onnx_mlp()
    m = dlc.compile(model, input_shapes={"x": (2, 4)}, opt="quick")
    assert m.inputs[0].shape == (2, 4) and m.outputs[0].shape == (2, 3)
    x = rng(3).uniform(-1, 1, (2, 4)).astype(np.float32)
    np.testing.assert_allclose(m(x)[0], reference(x), rtol=1e-5, atol=1e-6)
    with pytest.raises(dlc.InputError, match="shape"):
        m(np.zeros((3, 4), np.float32))


def test_cache_dir_is_used(tmp_path):
    text = (EXAMPLES / "softmax.mlir").read_text()
    first = dlc.compile(text, cache_dir=tmp_path, opt="quick")
    assert any(tmp_path.iterdir()), "the kernel cache stays empty"
    second = dlc.compile(text, cache_dir=tmp_path, opt="quick")
    x = np.ones((2, 16), np.float32)
    np.testing.assert_array_equal(first(x)[0], second(x)[0])


def test_eight_threads_call_one_model(onnx_model):
    m, reference = onnx_model
    barrier = threading.Barrier(8)
    failures = []

    def work(k):
        try:
            barrier.wait()
            for i in range(20):
                n = 1 + (k + i) % 9
                x = np.full((n, 4), k - 3.5 + i / 10, np.float32)
                x[:, 1] = -x[:, 1]
                (y,) = m(x)
                if y.shape != (n, 3) or not np.allclose(y, reference(x), rtol=1e-5, atol=1e-6):
                    failures.append((k, i))
        except Exception as e:  # reported below
            failures.append((k, repr(e)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_errors_are_dlc_errors():
    for e in (dlc.CompileError, dlc.InputError, dlc.ExecutionError):
        assert issubclass(e, dlc.Error)
    assert issubclass(dlc.Error, Exception)
    assert dlc.CompileError.__module__ == "dlc"


def test_bad_ir_text_is_a_located_compile_error():
    text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = graph.nope %x : tensor<4xf32>\n  return %y : tensor<4xf32>\n}\n"
    with pytest.raises(dlc.CompileError) as e:
        dlc.compile(text)
    assert re.search(r"<string>:2:\d+: error: ", str(e.value)), str(e.value)


def test_an_ir_file_that_does_not_verify(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return\n}\n")
    with pytest.raises(dlc.CompileError) as e:
        dlc.compile(path)
    assert re.search(r"bad\.mlir:\d+:\d+: error: ", str(e.value)), str(e.value)


def test_a_malformed_onnx_file(tmp_path):
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x0a\xff\xff\xff\x0fnot a model")
    with pytest.raises(dlc.CompileError, match="broken.onnx: error: "):
        dlc.compile(path)
    with pytest.raises(dlc.CompileError, match="<bytes>: error: "):
        dlc.compile(b"\x0a\xff\xff\xff\x0fnot a model")


def test_input_errors(mlp_ir):
    m = mlp_ir
    args = random_inputs(m)
    with pytest.raises(dlc.InputError, match="expected 5 inputs, got 4"):
        m(*args[:4])
    with pytest.raises(dlc.InputError, match=r"input 0 \('%arg0'\): expected dtype float32, got float64"):
        m(args[0].astype(np.float64), *args[1:])
    with pytest.raises(dlc.InputError, match=r"input 1 .*expected shape \(16, 32\), got \(32, 16\)"):
        m(args[0], args[1].T.copy(), *args[2:])
    with pytest.raises(dlc.InputError, match="expected shape"):
        m(args[0][None], *args[1:])
    with pytest.raises(dlc.InputError, match="expected a numpy array of dtype float32, got list"):
        m(args[0].tolist(), *args[1:])
    with pytest.raises(dlc.InputError, match="missing inputs"):
        m.run({"%arg0": args[0]})
    with pytest.raises(dlc.InputError, match="unknown inputs"):
        m.run({**{i.name: a for i, a in zip(m.inputs, args)}, "z": args[0]})


def test_option_errors(tmp_path):
    path = EXAMPLES / "mlp.mlir"
    with pytest.raises(ValueError, match="unknown opt 'O4'"):
        dlc.compile(path, opt="O4")
    with pytest.raises(ValueError, match="unknown target 'cuda'.*CPU only"):
        dlc.compile(path, target="cuda")
    with pytest.raises(ValueError, match="ONNX models only"):
        dlc.compile(path, input_shapes={"x": [1]})
    with pytest.raises(ValueError, match="neither an existing file nor IR text"):
        dlc.compile("no such model")
    with pytest.raises(FileNotFoundError):
        dlc.compile(tmp_path / "missing.onnx")
    with pytest.raises(TypeError):
        dlc.compile(42)


def test_public_names_are_documented():
    for name in dlc.__all__:
        assert getattr(dlc, name).__doc__, name
    for name in ("run", "__call__"):
        assert getattr(dlc.CompiledModel, name).__doc__, name
    assert "input_shapes" in dlc.compile.__doc__
    assert os.path.basename(dlc._dlc.__file__).startswith("_dlc")


def test_dynamic_dims_that_must_agree():
    m = dlc.compile(
        "func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {\n"
        "  %c = graph.add %a, %b : tensor<?xf32>\n"
        "  return %c : tensor<?xf32>\n"
        "}\n"
    )
    a = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(m(a, a)[0], a + a)
    with pytest.raises(dlc.InputError, match=r"input 1 \('%arg1'\): dim 0 is 4 but must equal dim 0 of input 0 \(3\)"):
        m(a, np.zeros(4, np.float32))


def test_a_failed_run_is_a_located_execution_error():
    # An outer product of three vectors: its one buffer (the fused kernels write it
    # directly) would take 2^48 floats, more than the address space.
    m = dlc.compile(
        "func.func @outer(%a: tensor<?x1x1xf32>, %b: tensor<1x?x1xf32>, %c: tensor<1x1x?xf32>) -> tensor<?x?x?xf32> {\n"
        "  %ab = graph.mul %a, %b : tensor<?x1x1xf32>, tensor<1x?x1xf32> -> tensor<?x?x1xf32>\n"
        "  %abc = graph.mul %ab, %c : tensor<?x?x1xf32>, tensor<1x1x?xf32> -> tensor<?x?x?xf32>\n"
        "  return %abc : tensor<?x?x?xf32>\n"
        "}\n"
    )
    ones = lambda *shape: np.ones(shape, np.float32)  # noqa: E731
    assert m(ones(2, 1, 1), ones(1, 3, 1), ones(1, 1, 4))[0].shape == (2, 3, 4)
    n = 1 << 16
    with pytest.raises(dlc.ExecutionError, match=r"<string>:\d+:\d+: error: .*cannot allocate"):
        m(ones(n, 1, 1), ones(1, n, 1), ones(1, 1, n))


class _LyingArray(np.ndarray):
    """An ndarray subclass whose __array_interface__ claims 2**24 elements."""

    @property
    def __array_interface__(self):
        interface = dict(np.asarray(self).__array_interface__)
        interface["shape"] = (1 << 24,)
        return interface

    @property
    def nbytes(self):
        return 4 << 24


def test_an_array_cannot_lie_about_its_memory():
    m = dlc.compile("func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                    "  %y = graph.neg %x : tensor<?xf32>\n  return %y : tensor<?xf32>\n}")
    lying = np.arange(4, dtype=np.float32).view(_LyingArray)
    # The public call reads the plain ndarray the subclass views: its 4 real elements.
    np.testing.assert_array_equal(m(lying)[0], -np.arange(4, dtype=np.float32))
    # The native layer takes exactly numpy.ndarray, whatever it is handed.
    with pytest.raises(dlc.InputError, match="not a numpy.ndarray"):
        m._model.run([lying], [np.dtype(np.float32)])


def test_bool_inputs_follow_numpy_whatever_their_bytes():
    m = dlc.compile("func.func @f(%x: tensor<4xi1>) -> tensor<4xi1> {\n"
                    "  %y = graph.not %x : tensor<4xi1>\n  return %y : tensor<4xi1>\n}")
    x = np.array([2, 0, 1, 255], np.uint8).view(np.bool_)
    for array in (x, aligned(x), aligned(x, offset=1)):
        np.testing.assert_array_equal(m(array)[0], [False, True, False, False])


def test_a_byte_order_mismatch_says_so(mlp_ir):
    x, w1, b1, w2, b2 = random_inputs(mlp_ir)
    with pytest.raises(dlc.InputError, match=r"expected dtype <f4, got >f4"):
        mlp_ir(x.astype(">f4"), w1, b1, w2, b2)


# A least-squares step: the gradient from the `grad` pass, the update beside it, one program.
REGRESSION_STEP = """
func.func private @loss(%w: tensor<3x1xf32>, %x: tensor<8x3xf32>, %y: tensor<8x1xf32>) -> tensor<f32> {
  %p = graph.matmul %x, %w : tensor<8x3xf32>, tensor<3x1xf32> -> tensor<8x1xf32>
  %d = graph.sub %p, %y : tensor<8x1xf32>
  %s = graph.mul %d, %d : tensor<8x1xf32>
  %l = graph.reduce_mean %s {axes = array<i64: 0, 1>, keepdim = false} : tensor<8x1xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func private @loss_grad(tensor<3x1xf32>, tensor<8x3xf32>, tensor<8x1xf32>) -> (tensor<f32>, tensor<3x1xf32>)
func.func @step(%w: tensor<3x1xf32>, %x: tensor<8x3xf32>, %y: tensor<8x1xf32>) -> (tensor<f32>, tensor<3x1xf32>, tensor<3x1xf32>) {
  %l, %g = func.call @loss_grad(%w, %x, %y) : (tensor<3x1xf32>, tensor<8x3xf32>, tensor<8x1xf32>) -> (tensor<f32>, tensor<3x1xf32>)
  %lr = graph.constant dense<1.000000e-01> : tensor<1x1xf32>
  %u = graph.mul %g, %lr : tensor<3x1xf32>, tensor<1x1xf32> -> tensor<3x1xf32>
  %w2 = graph.sub %w, %u : tensor<3x1xf32>
  return %l, %g, %w2 : tensor<f32>, tensor<3x1xf32>, tensor<3x1xf32>
}
"""


def test_a_training_step_compiles_with_grad():
    step = dlc.compile(
        REGRESSION_STEP,
        pipeline="grad{func=loss wrt=0},inline,symbol-dce,decompose,fuse,lower,cpu-default",
        entry="step",
    )
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    w_true = np.array([[1.5], [-2.0], [0.5]], np.float32)
    y = x @ w_true
    w = np.zeros((3, 1), np.float32)
    losses = []
    for _ in range(300):
        loss, g, w_next = step(w, x, y)
        # The gradient of mean((xw - y)^2) is 2/n xᵀ(xw - y).
        np.testing.assert_allclose(g, 2.0 / 8 * x.T @ (x @ w - y), rtol=1e-4, atol=1e-6)
        losses.append(float(loss))
        w = w_next
    assert losses[-1] < 1e-6 * losses[0]
    np.testing.assert_allclose(w, w_true, rtol=1e-2)
    with pytest.raises(ValueError, match="apply to IR only"):
        dlc.compile(b"not onnx", pipeline="decompose")
    with pytest.raises(dlc.CompileError, match="no function named"):
        dlc.compile(REGRESSION_STEP, entry="nope")


# A `graph.if` on the gradient's path: its regions are recomputed and differentiated in a
# `graph.if` on the same condition (the else branch's softmax keeps its rule, its layer_norm is
# decomposed inside the region).
BRANCH = """
func.func @branch(%x: tensor<4xf64>, %w: tensor<4xf64>, %c: tensor<i1>) -> tensor<f64> {
  %s = graph.mul %x, %w : tensor<4xf64>
  %r = graph.if %c : tensor<i1> -> tensor<4xf64> {
    %a = graph.mul %s, %s : tensor<4xf64>
    graph.yield %a : tensor<4xf64>
  } else {
    %b = graph.softmax %x {axis = 0 : i64} : tensor<4xf64>
    %e = graph.layer_norm %b, %w, %w {axis = 0 : i64, epsilon = 1.0e-5 : f64} : tensor<4xf64>, tensor<4xf64>, tensor<4xf64> -> tensor<4xf64>
    %t = graph.tanh %e : tensor<4xf64>
    graph.yield %t : tensor<4xf64>
  }
  %l = graph.reduce_sum %r {axes = array<i64: 0>, keepdim = false} : tensor<4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
"""
# What `grad{func=branch}` defines, declared: the pass defines the declaration.
BRANCH_GRAD = """
func.func private @branch_grad(tensor<4xf64>, tensor<4xf64>, tensor<i1>) -> (tensor<f64>, tensor<4xf64>, tensor<4xf64>)
"""


def test_gradients_through_a_branch_match_finite_differences():
    f = dlc.compile(BRANCH, entry="branch")
    grad = dlc.compile(
        BRANCH + BRANCH_GRAD,
        pipeline="grad{func=branch wrt=0,1},decompose,fuse,lower,cpu-default",
        entry="branch_grad",
    )
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(4), rng.standard_normal(4)
    for c in (True, False):
        cond = np.array(c)
        loss, gx, gw = grad(x, w, cond)
        np.testing.assert_allclose(loss, f(x, w, cond)[0], rtol=1e-12)
        for arg, g in ((0, gx), (1, gw)):
            d = rng.standard_normal(4)
            h = 1e-6
            plus = [x, w]
            minus = [x, w]
            plus[arg] = plus[arg] + h * d
            minus[arg] = minus[arg] - h * d
            fd = (f(*plus, cond)[0] - f(*minus, cond)[0]) / (2 * h)
            np.testing.assert_allclose(float(g @ d), float(fd), rtol=1e-6, atol=1e-9)


def _check_gradients(text, name, arg_shapes, seed=0, fixed=()):
    """Holds `grad`'s gradients of @name w.r.t. its f64 arguments (shapes `arg_shapes`) to
    central differences; `fixed` are further, non-float arguments (arrays), passed last."""
    rng = np.random.default_rng(seed)
    f = dlc.compile(text, entry=name)

    def ty(shape, elem="f64"):
        return f"tensor<{'x'.join(map(str, shape))}x{elem}>" if shape else f"tensor<{elem}>"

    elem = {np.dtype(np.int64): "i64", np.dtype(np.bool_): "i1"}
    args = [ty(s) for s in arg_shapes] + [ty(a.shape, elem[a.dtype]) for a in fixed]
    results = ["tensor<f64>"] + [ty(s) for s in arg_shapes]
    decl = f"func.func private @{name}_grad({', '.join(args)}) -> ({', '.join(results)})\n"
    grad = dlc.compile(
        text + decl,
        pipeline=f"grad{{func={name}}},decompose,fuse,lower,cpu-default",
        entry=f"{name}_grad",
    )
    xs = [rng.uniform(0.5, 1.5, s) * rng.choice([-1.0, 1.0], s) for s in arg_shapes]
    out = grad(*xs, *fixed)
    np.testing.assert_allclose(out[0], f(*xs, *fixed)[0], rtol=1e-12)
    for i in range(len(arg_shapes)):
        d = rng.standard_normal(arg_shapes[i])
        h = 1e-6
        plus, minus = list(xs), list(xs)
        plus[i] = xs[i] + h * d
        minus[i] = xs[i] - h * d
        fd = (f(*plus, *fixed)[0] - f(*minus, *fixed)[0]) / (2 * h)
        analytic = float(np.sum(out[1 + i] * d))
        np.testing.assert_allclose(analytic, float(fd), rtol=1e-6, atol=1e-9, err_msg=f"argument {i}")


def test_gradients_of_strided_slices_empty_reductions_and_powers():
    # A strided slice whose result type says `?` where the size is known, a slice to a negative
    # end, a reduction over no axes (the identity), a power and a reduction over one axis.
    text = """
func.func @f(%x: tensor<9x4xf64>, %p: tensor<4xf64>) -> tensor<f64> {
  %a = graph.slice %x {starts = array<i64: 1, 0>, ends = array<i64: 8, 4>, steps = array<i64: 3, 1>} : tensor<9x4xf64> -> tensor<?x4xf64>
  %b = graph.slice %x {starts = array<i64: 2, 1>, ends = array<i64: -1, 4>, steps = array<i64: 1, 2>} : tensor<9x4xf64> -> tensor<6x2xf64>
  %c = graph.reduce_sum %a {axes = array<i64>, keepdim = false} : tensor<?x4xf64> -> tensor<?x4xf64>
  %ap = graph.abs %c : tensor<?x4xf64>
  %d = graph.pow %ap, %p : tensor<?x4xf64>, tensor<4xf64> -> tensor<?x4xf64>
  %e = graph.reduce_sum %d {axes = array<i64: 0, 1>, keepdim = false} : tensor<?x4xf64> -> tensor<f64>
  %g = graph.reduce_max %b {axes = array<i64: 1>, keepdim = false} : tensor<6x2xf64> -> tensor<6xf64>
  %h = graph.reduce_sum %g {axes = array<i64: 0>, keepdim = false} : tensor<6xf64> -> tensor<f64>
  %l = graph.add %e, %h : tensor<f64>
  return %l : tensor<f64>
}
"""
    _check_gradients(text, "f", [(9, 4), (4,)])


def test_gradients_through_a_loop_match_finite_differences():
    # The carried value, a scan output, and a parameter read from above the body.
    text = """
func.func @looped(%x: tensor<3xf64>, %w: tensor<3xf64>, %m: tensor<i64>) -> tensor<f64> {
  %c = graph.constant dense<true> : tensor<i1>
  %r, %s = graph.loop (%m, %c, %x) : (tensor<i64>, tensor<i1>, tensor<3xf64>) -> (tensor<3xf64>, tensor<?x3xf64>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<3xf64>):
    %t = graph.tanh %acc : tensor<3xf64>
    %n = graph.mul %t, %w : tensor<3xf64>
    %e = graph.sin %acc : tensor<3xf64>
    graph.yield %cond, %n, %e : tensor<i1>, tensor<3xf64>, tensor<3xf64>
  }
  %a = graph.reduce_sum %r {axes = array<i64: 0>, keepdim = false} : tensor<3xf64> -> tensor<f64>
  %b = graph.reduce_sum %s {axes = array<i64: 0, 1>, keepdim = false} : tensor<?x3xf64> -> tensor<f64>
  %l = graph.add %a, %b : tensor<f64>
  return %l : tensor<f64>
}
"""
    for trips in (0, 1, 4):
        _check_gradients(text, "looped", [(3,), (3,)], seed=trips, fixed=(np.array(trips, np.int64),))
