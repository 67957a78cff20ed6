"""dlc's pass pipelines from Python, as MLIR's ``mlir.passmanager`` has them.

Parse a pipeline in dlc's textual syntax, nested or flat, and run it on a module in place::

    import dlc.ir
    from dlc.passmanager import PassManager
    module = dlc.ir.Module.parse(text)
    PassManager.parse("builtin.module(func.func(decompose,fuse))").run(module)
    PassManager.parse("decompose,fuse,canonicalize").run(module.operation)   # flat

The pipeline runs as written (dlc-opt's ``--pass-pipeline``). A malformed pipeline or an
unknown pass is a ``ValueError`` with the parser's message; a pass that fails, or leaves
invalid IR, raises :class:`dlc.CompileError` with its located diagnostics. :func:`passes`
(also ``dlc.passes()``) lists the registry: every pass with its options, statistics and
documentation.
"""

from __future__ import annotations

from ._dlc import passmanager as _pm

__all__ = ["PassManager", "PassInfo", "PassOption", "passes"]

PassManager = _pm.PassManager
PassInfo = _pm.PassInfo
PassOption = _pm.PassOption
passes = _pm.passes
