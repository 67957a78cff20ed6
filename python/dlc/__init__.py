"""dlc, a deep-learning compiler, from Python.

Compile a model for this CPU and run it on numpy arrays::

    import dlc, numpy as np
    m = dlc.compile("model.onnx")             # or .mlir, an onnx.ModelProto, bytes, IR text
    outputs = m(*arrays)                      # a list of numpy arrays
    named = m.run({"x": x})                   # a dict: output name -> numpy array
    [(i.name, i.dtype, i.shape) for i in m.inputs]   # a ``?`` dim is None

Errors are :class:`dlc.Error` subclasses: :class:`CompileError` (the model does not parse,
verify, import or compile; the message is dlc's located diagnostic), :class:`InputError`
(the inputs of a call do not fit) and :class:`ExecutionError` (a run failed inside the
compiled code). docs/python.md has the walkthrough.

The IR and passes, as MLIR's Python bindings have them: :mod:`dlc.ir` (``Module.parse``,
printing, verifying, walking ops), :mod:`dlc.passmanager` (``PassManager.parse(pipeline)
.run(module)``) and :func:`dlc.passes` (the pass registry with each pass's documentation).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _dlc
from ._dlc import CompileError, Error, ExecutionError, InputError
from .passmanager import passes

__all__ = [
    "compile",
    "CompiledModel",
    "TensorInfo",
    "Error",
    "CompileError",
    "InputError",
    "ExecutionError",
    "OPT_LEVELS",
    "passes",
]

#: The names ``opt`` takes: LLVM configurations of dlc's code generator (``lean``, the
#: default, runs the passes dlc's kernels need; ``quick`` compiles fastest, into slower code;
#: ``O1``-``O3`` are LLVM's standard pipelines).
OPT_LEVELS: Tuple[str, ...] = tuple(_dlc.LLVM_OPTS)

# dlc's dtype names -> numpy dtypes (bf16 is ml_dtypes' bfloat16, looked up when needed).
_NUMPY_DTYPES = {
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
}


def _numpy_dtype(name: str) -> np.dtype:
    if name == "bf16":
        try:
            import ml_dtypes
        except ImportError as e:
            raise ImportError(
                "this model has bfloat16 inputs or outputs: numpy needs the ml_dtypes "
                "package for them (pip install ml_dtypes)"
            ) from e
        return np.dtype(ml_dtypes.bfloat16)
    return _NUMPY_DTYPES[name]


class TensorInfo:
    """One input or output of a :class:`CompiledModel`.

    Attributes:
        name: for an ONNX model, the ONNX graph input or output name; for IR, the runtime's
            name (``%arg0``, ``result 0``).
        dtype: the element type, a :class:`numpy.dtype`.
        shape: a tuple of sizes; a dynamic (``?``) dim is ``None``, and takes any size at
            call time (dims the model requires equal must be equal).
    """

    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name: str, dtype: np.dtype, shape: Tuple[Optional[int], ...]):
        self.name = name
        self.dtype = dtype
        self.shape = shape

    def __repr__(self) -> str:
        return f"TensorInfo(name={self.name!r}, dtype={self.dtype.name}, shape={self.shape})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorInfo):
            return NotImplemented
        return (self.name, self.dtype, self.shape) == (other.name, other.dtype, other.shape)

    __hash__ = None  # type: ignore[assignment]


def _infos(entries) -> List[TensorInfo]:
    return [TensorInfo(name, _numpy_dtype(dtype), tuple(dims)) for name, dtype, dims in entries]


class CompiledModel:
    """A model compiled for this CPU by :func:`dlc.compile`.

    Call it with one numpy array per input, in order, to get a list of numpy arrays (one per
    output, each owning its memory), or use :meth:`run` with a dict keyed by input name.
    Inputs must have exactly the dtype and shape of :attr:`inputs` (no casting); arrays that
    are not C-contiguous are copied into C order first, and the compiled code reads the
    others in place, with no copy (unless their elements are misaligned, as in an array made
    from a buffer at an odd offset): do not write to an input while a call reads it (the GIL
    is released meanwhile). The GIL is released while the model
    runs, and each call runs in its own session, so one model may be called from several
    threads at once.

    Attributes:
        inputs: a list of :class:`TensorInfo`, one per input, in call order.
        outputs: a list of :class:`TensorInfo`, one per output, in result order.
        notes: what the compile had to say (kernel-cache problems), as strings.
        num_kernels: how many kernels were compiled.
    """

    __slots__ = ("_model", "_out_dtypes", "inputs", "outputs", "notes", "num_kernels", "_name")

    def __init__(self, model: Any, name: str):
        # Made by dlc.compile, not by hand.
        self._model = model
        self._name = name
        self.inputs: List[TensorInfo] = _infos(model.inputs())
        self.outputs: List[TensorInfo] = _infos(model.outputs())
        self._out_dtypes = [o.dtype for o in self.outputs]
        self.notes: List[str] = list(model.notes())
        self.num_kernels: int = model.num_kernels()

    def __repr__(self) -> str:
        def text(infos):
            return ", ".join(
                f"{i.name}: {i.dtype.name}[{', '.join('?' if d is None else str(d) for d in i.shape)}]"
                for i in infos
            )

        return f"<dlc.CompiledModel {self._name} ({text(self.inputs)}) -> ({text(self.outputs)})>"

    def __call__(self, *arrays: np.ndarray) -> List[np.ndarray]:
        """Runs the model on ``arrays``, one numpy array per input in the order of
        :attr:`inputs`, and returns the outputs as a list of new numpy arrays.

        Raises:
            InputError: the number of arrays, a dtype or a shape does not fit the model, or
                an argument is not a numpy array (or numpy scalar).
            ExecutionError: the run failed inside the compiled model.
        """
        prepared = [_prepare(a, i, info) for i, (a, info) in enumerate(zip(arrays, self.inputs))]
        # A wrong count is reported by the native side, with the expected number.
        prepared.extend(arrays[len(prepared):])
        return self._model.run(prepared, self._out_dtypes)

    def run(self, feeds: Mapping[str, np.ndarray]) -> Dict[str, np.ndarray]:
        """Runs the model on ``feeds``, a mapping from input name (:attr:`inputs`) to numpy
        array, and returns a dict from output name (:attr:`outputs`) to numpy array.

        Raises:
            InputError: an input is missing or unknown, or does not fit (as for a call).
            ExecutionError: the run failed inside the compiled model.
        """
        if not isinstance(feeds, Mapping):
            raise InputError(
                f"run() takes a dict from input name to array, got {type(feeds).__name__}"
            )
        names = [i.name for i in self.inputs]
        unknown = [k for k in feeds if k not in names]
        if unknown:
            raise InputError(f"unknown inputs {unknown}: the model's inputs are {names}")
        missing = [n for n in names if n not in feeds]
        if missing:
            raise InputError(f"missing inputs {missing}: the model's inputs are {names}")
        results = self(*(feeds[n] for n in names))
        return {o.name: r for o, r in zip(self.outputs, results)}


def _prepare(array: Any, index: int, info: TensorInfo) -> np.ndarray:
    """``array`` as a C-contiguous numpy array, or an InputError."""
    if isinstance(array, np.generic):
        array = np.asarray(array)
    if not isinstance(array, np.ndarray):
        raise InputError(
            f"input {index} ('{info.name}'): expected a numpy array of dtype "
            f"{info.dtype.name}, got {type(array).__name__}"
        )
    # A subclass (np.matrix, a masked array, one that overrides __array_interface__) is read
    # as the plain ndarray it is a view of.
    array = np.asarray(array)
    if array.dtype != info.dtype:
        want, got = info.dtype.name, array.dtype.name
        if want == got:
            # Only the byte order differs (`>f4` is not this machine's float32).
            want, got = info.dtype.str, array.dtype.str
        raise InputError(f"input {index} ('{info.name}'): expected dtype {want}, got {got}")
    if info.dtype == np.bool_ and array.size and array.view(np.uint8).max() > 1:
        # numpy's bool is any nonzero byte; compiled code reads exactly 0 or 1.
        array = array != 0
    if not array.flags.c_contiguous:
        # Not numpy.ascontiguousarray: it makes a 0-d array 1-d.
        array = array.copy(order="C")
    return array


def _is_onnx_proto(model: Any) -> bool:
    # A ModelProto can only exist once onnx is imported: dlc never imports it itself.
    onnx = sys.modules.get("onnx")
    return onnx is not None and isinstance(model, onnx.ModelProto)


def compile(
    model: Union[str, "os.PathLike[str]", bytes, Any],
    *,
    target: str = "cpu",
    input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    example_inputs: Optional[Sequence[np.ndarray]] = None,
    cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
    opt: Optional[str] = None,
    pipeline: Optional[str] = None,
    entry: Optional[str] = None,
) -> CompiledModel:
    """Compiles ``model`` for this CPU and returns a callable :class:`CompiledModel`.

    Args:
        model: one of
            - a path (``str`` or ``os.PathLike``) to an ``.onnx`` model or an ``.mlir`` file
              of dlc IR (graph-level, or loop-level);
            - an ``onnx.ModelProto``;
            - ``bytes`` (or ``bytearray``/``memoryview``): an ONNX model file's bytes;
            - IR text: a ``str`` that is not an existing path and contains ``func.func``.
            IR runs its first ``func.func``. An ONNX model cannot keep external data
            (weights in files beside it) unless it is given as a path.
        target: ``"cpu"``, the only target a compiled model runs on for now.
        input_shapes: ONNX only: a dict from graph input name to its full shape, overriding
            the declared one (as ``dlc-run --input-shape``): dynamic dims given a size compile
            to static, usually faster, kernels.
        example_inputs: ONNX only: one numpy array per graph input, in order, that the model
            will be called with. An input the model needs as a constant (a Reshape's shape,
            Slice bounds, pads or axes given as a graph input) is specialized on its value
            here, as ``dlc-run --inputs`` does: it becomes part of the compiled model and is
            left out of :attr:`CompiledModel.inputs` (the other inputs keep their declared,
            possibly dynamic, shapes). Without it, such a model is a CompileError naming the
            input.
        cache_dir: a directory for dlc's kernel cache (compiled kernels and lowered models,
            as ``dlc-run``'s ``DLC_CACHE_DIR``): a model compiled before under the same options
            loads from it. ``None`` (the default) uses no cache.
        opt: LLVM's optimization, one of :data:`OPT_LEVELS`; ``None`` is ``"lean"``.
        pipeline: IR only: the pass pipeline, as ``dlc-run --pipeline`` takes it; ``None`` is
            ``decompose,fuse,lower,cpu-default`` for graph IR. A training step, for one:
            ``"grad{func=loss wrt=0,1},inline,symbol-dce,decompose,fuse,lower,cpu-default"``
            (docs/autodiff.md).
        entry: IR only: the function to run; ``None`` is the first ``func.func``.

    Returns:
        A :class:`CompiledModel`.

    Raises:
        CompileError: the model does not parse, verify or import, or does not compile; the
            message is dlc's diagnostic (``file:line:col: error: ...`` for IR, with the line).
        InputError: an example input that is not a numpy array of a dtype dlc has.
        ValueError: an unknown ``target`` or ``opt``, ``input_shapes`` or ``example_inputs`` for IR,
            ``pipeline`` or ``entry`` for ONNX, a string that
            is neither a file nor IR text, or a file that is neither ``.onnx`` nor ``.mlir``.
        FileNotFoundError: a path that does not exist.
        TypeError: ``model`` of another type.

    Compiling releases the GIL. Every kernel is optimized before ``compile`` returns.
    """
    if target != "cpu":
        raise ValueError(
            f"unknown target {target!r}: dlc compiles and runs models on the CPU only "
            "(target='cpu'). Its GPU path stops at PTX, emitted by dlc-opt "
            "(--pipeline='decompose,fuse,lower{target=gpu},gpu-default' --emit=ptx); "
            "nothing runs it from dlc-run or Python yet"
        )
    if opt is not None and opt not in OPT_LEVELS:
        raise ValueError(f"unknown opt {opt!r}: expected None or one of {list(OPT_LEVELS)}")
    shapes = _input_shapes(input_shapes)
    examples = _example_inputs(example_inputs)
    cache = None if cache_dir is None else os.fspath(cache_dir)
    onnx_options = dict(shapes=shapes, examples=examples, opt=opt, cache=cache)
    ir_options = dict(opt=opt, cache=cache, pipeline=pipeline, entry=entry)
    if (pipeline is not None or entry is not None) and (
        _is_onnx_proto(model)
        or isinstance(model, (bytes, bytearray, memoryview))
        or (isinstance(model, (str, os.PathLike)) and os.fspath(model).lower().endswith(".onnx"))
    ):
        raise ValueError("pipeline and entry apply to IR only (an ONNX model compiles its graph)")

    if _is_onnx_proto(model):
        data = model.SerializeToString()
        name = f"<onnx.ModelProto {model.graph.name}>" if model.graph.name else "<onnx.ModelProto>"
        return _compile_onnx(name, data=data, **onnx_options)
    if isinstance(model, (bytes, bytearray, memoryview)):
        return _compile_onnx("<bytes>", data=bytes(model), **onnx_options)
    if isinstance(model, str) and not os.path.exists(model) and "func.func" in model:
        return _compile_ir(model, "<string>", shapes, examples, **ir_options)
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not isinstance(path, str):
            path = os.fsdecode(path)
        suffix = os.path.splitext(path)[1].lower()
        if suffix not in (".onnx", ".mlir"):
            if isinstance(model, str) and not os.path.exists(path):
                raise ValueError(
                    "model is a str that is neither an existing file nor IR text (IR text "
                    "contains 'func.func')"
                )
            raise ValueError(
                f"{path}: expected an .onnx model or an .mlir file of dlc IR "
                "(other files: pass their text or bytes)"
            )
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path}: no such file")
        if suffix == ".onnx":
            return _compile_onnx(path, path=path, **onnx_options)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return _compile_ir(text, path, shapes, examples, **ir_options)
    raise TypeError(
        "model must be a path (str or os.PathLike), an onnx.ModelProto, bytes or IR text, "
        f"not {type(model).__name__}"
    )


def _input_shapes(input_shapes) -> Optional[Dict[str, List[int]]]:
    if input_shapes is None:
        return None
    if not isinstance(input_shapes, Mapping):
        raise TypeError("input_shapes must be a dict from input name to shape")
    shapes = {}
    for name, shape in input_shapes.items():
        dims = list(shape)
        if not all(isinstance(d, (int, np.integer)) and d >= 0 for d in dims):
            raise ValueError(f"input_shapes[{name!r}]: {shape!r} is not a shape of sizes >= 0")
        shapes[str(name)] = [int(d) for d in dims]
    return shapes


def _example_inputs(example_inputs) -> Optional[List[np.ndarray]]:
    if example_inputs is None:
        return None
    if isinstance(example_inputs, (np.ndarray, Mapping, str, bytes)):
        raise TypeError("example_inputs must be a sequence of numpy arrays, one per graph input")
    arrays = []
    for i, a in enumerate(example_inputs):
        if isinstance(a, np.generic):
            a = np.asarray(a)
        if not isinstance(a, np.ndarray):
            raise InputError(f"example input {i}: expected a numpy array, got {type(a).__name__}")
        a = np.asarray(a)
        arrays.append(a if a.flags.c_contiguous else a.copy(order="C"))
    return arrays


def _compile_ir(text: str, name: str, shapes, examples, *, opt, cache, pipeline, entry) -> CompiledModel:
    if shapes is not None:
        raise ValueError("input_shapes applies to ONNX models only (IR has its types)")
    if examples is not None:
        raise ValueError("example_inputs applies to ONNX models only (IR has its types)")
    model = _dlc.compile_ir(
        text, name, opt=opt, cache_dir=cache, pipeline=pipeline, entry=entry
    )
    return CompiledModel(model, name)


def _compile_onnx(name: str, *, path=None, data=None, shapes, examples, opt, cache) -> CompiledModel:
    try:
        model = _dlc.compile_onnx_model(
            name,
            path=path,
            data=data,
            input_shapes=shapes,
            example_inputs=examples,
            opt=opt,
            cache_dir=cache,
        )
    except CompileError as e:
        if examples is None and "must be a constant here" in str(e):
            # The importer names dlc-run's way of giving the value; this is Python's.
            raise CompileError(
                f"{e}\n(from Python: dlc.compile(model, example_inputs=[...]) gives the values)"
            ) from None
        raise
    return CompiledModel(model, name)
