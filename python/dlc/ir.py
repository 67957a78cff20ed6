"""dlc's IR from Python, as MLIR's Python bindings (``mlir.ir``) have it.

Parse dlc IR text into a module, print it, verify it and walk its operations::

    import dlc.ir
    module = dlc.ir.Module.parse(open("model.mlir").read(), source_name="model.mlir")
    print(module)                                  # dlc's printer, as dlc-opt prints
    module.operation.verify()                      # True, or dlc.CompileError
    names = []
    module.operation.walk(lambda op: names.append(op.name))
    func = module.body.operations[0]
    [(v.get_name(), v.type) for v in func.regions[0].blocks[0].arguments]

Handles are read-only views of IR owned by a :class:`Context`: nothing here creates or edits
ops; passes change IR (:mod:`dlc.passmanager`). A handle keeps its context alive; a handle to
an op that a pass erased raises ``RuntimeError`` when used. Lists (``op.operands``,
``block.operations``, ...) are snapshots taken when read. Attributes and types are their text.
The objects may be shared between threads: each call takes its context's lock.
"""

from __future__ import annotations

from ._dlc import ir as _ir

__all__ = [
    "Context",
    "Module",
    "Operation",
    "Region",
    "Block",
    "Value",
    "WalkOrder",
    "WalkResult",
]

Context = _ir.Context
Module = _ir.Module
Operation = _ir.Operation
Region = _ir.Region
Block = _ir.Block
Value = _ir.Value
WalkOrder = _ir.WalkOrder
WalkResult = _ir.WalkResult
