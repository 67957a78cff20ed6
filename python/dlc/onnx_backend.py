"""dlc as an ONNX backend: the ``prepare``/``run`` interface of ``onnx.backend.base.Backend``.

onnx's own test runner drives any module with that interface, as it drives onnxruntime's,
TVM's and tinygrad's::

    import onnx.backend.test
    import dlc.onnx_backend

    tests = onnx.backend.test.BackendTest(dlc.onnx_backend, __name__)
    globals().update(tests.test_cases)      # unittest/pytest classes, one test per case

or one model at a time::

    rep = dlc.onnx_backend.prepare(model_proto)         # compiles it for this CPU
    outputs = rep.run([x, y])                           # one array per graph input, in order
    outputs = dlc.onnx_backend.run_model(model_proto, [x, y])

``prepare`` compiles the model with :func:`dlc.compile`. A model that needs some graph inputs
as constants (a Reshape's shape, Slice bounds, pads or axes given as inputs) cannot compile
before their values are known: ``prepare`` then keeps the model, and ``run`` compiles it on
its inputs (``example_inputs``), once per distinct value of those inputs, as ``dlc-run
--inputs`` does. Any other compile error is raised by ``prepare``, a :class:`dlc.CompileError`.
Only the CPU device is supported; ``run_node`` (one node without a model) is not.
python/tests/test_onnx_backend.py runs onnx's node tests through this module and checks that
they pass exactly where dlc's Rust harness (compiler/driver/tests/onnx_conformance.rs) records
a pass.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
from onnx import ModelProto
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

import dlc

__all__ = ["DlcBackend", "DlcRep", "prepare", "run_model", "run_node", "supports_device"]

# What the importer says of an input it needs as a constant when it has no value for it.
_NEEDS_CONSTANT = "must be a constant"


class DlcRep(BackendRep):
    """A model prepared by :meth:`DlcBackend.prepare`: call :meth:`run` on its inputs."""

    def __init__(self, model: ModelProto, compiled: Optional[dlc.CompiledModel], kwargs: Dict):
        initializers = {t.name for t in model.graph.initializer}
        #: The graph inputs a run takes, in order (initializers listed as inputs left out).
        self.input_names: List[str] = [
            i.name for i in model.graph.input if i.name not in initializers
        ]
        #: The graph outputs, in order.
        self.output_names: List[str] = [o.name for o in model.graph.output]
        self._bytes = model.SerializeToString()
        self._kwargs = kwargs
        self._compiled = compiled
        # Per value of the inputs compiled as constants: their names, copies of their values
        # and the model compiled on them.
        self._specialized: List[Tuple[List[str], List[np.ndarray], dlc.CompiledModel]] = []

    def run(self, inputs: Any, **kwargs: Any) -> Tuple[np.ndarray, ...]:
        """Runs the model on ``inputs`` (one numpy array per graph input, in order, or a
        single array) and returns the outputs as a named tuple (by graph output name)."""
        arrays = _arrays(inputs)
        if len(arrays) != len(self.input_names):
            raise dlc.InputError(
                f"expected {len(self.input_names)} inputs ({self.input_names}), "
                f"got {len(arrays)}"
            )
        model = self._compiled or self._compile_on(arrays)
        by_name = dict(zip(self.input_names, arrays))
        outputs = model(*(by_name[i.name] for i in model.inputs))
        names = [o.name for o in model.outputs]
        if names != self.output_names:
            names = [f"output_{k}" for k in range(len(outputs))]
        return namedtupledict("Outputs", names)(*outputs)

    def _compile_on(self, arrays: List[np.ndarray]) -> dlc.CompiledModel:
        """The model compiled with ``arrays`` as its example inputs (cached per value of the
        inputs it specialized)."""
        by_name = dict(zip(self.input_names, arrays))
        for names, values, model in self._specialized:
            if all(_same(by_name[n], v) for n, v in zip(names, values)):
                return model
        model = dlc.compile(self._bytes, example_inputs=arrays, **self._kwargs)
        arguments = {i.name for i in model.inputs}
        names = [n for n in self.input_names if n not in arguments]
        values = [np.array(by_name[n], copy=True) for n in names]
        self._specialized.append((names, values, model))
        return model


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two values are the same: dtype, shape and bytes."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _arrays(inputs: Any) -> List[np.ndarray]:
    if isinstance(inputs, dict):
        raise dlc.InputError("run() takes a list of arrays in graph input order, not a dict")
    if isinstance(inputs, (np.ndarray, np.generic)):
        inputs = [inputs]
    return [np.asarray(a) for a in inputs]


class DlcBackend(Backend):
    """dlc as an ``onnx.backend.base.Backend``: compiles models for this CPU."""

    @classmethod
    def prepare(cls, model: ModelProto, device: str = "CPU", **kwargs: Any) -> DlcRep:
        """Compiles ``model`` (an ``onnx.ModelProto``) for the CPU and returns a
        :class:`DlcRep`. ``kwargs`` are :func:`dlc.compile`'s (``opt``, ``cache_dir``,
        ``input_shapes``). Raises :class:`dlc.CompileError` when it does not compile, unless
        the only reason is an input it needs as a constant: then the first :meth:`DlcRep.run`
        compiles it on its inputs."""
        if not cls.supports_device(device):
            raise ValueError(f"dlc runs ONNX models on the CPU only, not on {device!r}")
        options = {k: v for k, v in kwargs.items() if k in ("opt", "cache_dir", "input_shapes")}
        try:
            compiled = dlc.compile(model, **options)
        except dlc.CompileError as e:
            if _NEEDS_CONSTANT not in str(e):
                raise
            compiled = None
        return DlcRep(model, compiled, options)

    @classmethod
    def run_model(
        cls, model: ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any
    ) -> Tuple[np.ndarray, ...]:
        """``prepare(model, device, **kwargs).run(inputs)``."""
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: Any, inputs: Any, device: str = "CPU", **kwargs: Any) -> None:
        """Not supported: dlc compiles whole models (``onnx.helper.make_model`` makes one of a
        node)."""
        raise NotImplementedError(
            "dlc.onnx_backend runs whole models: wrap the node in a graph and a model "
            "(onnx.helper.make_graph, make_model) and call run_model"
        )

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """True for the CPU, the one device dlc runs models on."""
        return Device(device).type == DeviceType.CPU


prepare = DlcBackend.prepare
run_model = DlcBackend.run_model
run_node = DlcBackend.run_node
supports_device = DlcBackend.supports_device
