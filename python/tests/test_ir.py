"""`dlc.ir`, `dlc.passmanager` and `dlc.passes()`: parse, print, verify and walk IR, run
pipelines on it, list the pass registry.

Run by scripts/test.sh after it installs the wheel (`python3 -m pytest -q python/tests`).
"""

import collections
import pathlib
import re
import threading
import warnings

import pytest

import dlc
import dlc.ir
from dlc.passmanager import PassManager

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"

ADD_ZERO = """func.func @f(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %y = arith.addi %x, %c0 : i32
  return %y : i32
}
"""

# Parses, but does not verify: the operands of graph.add do not broadcast.
BAD_ADD = """func.func @f(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xf32> {
  %y = graph.add %a, %b : tensor<4xf32>, tensor<5xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
"""


def example(name):
    path = EXAMPLES / name
    return dlc.ir.Module.parse(path.read_text(), source_name=str(path))


def ops_of(module):
    ops = []
    module.operation.walk(ops.append, dlc.ir.WalkOrder.PRE_ORDER)
    return ops


def test_context_registers_dlc_dialects():
    ctx = dlc.ir.Context()
    assert {"builtin", "func", "arith", "graph", "loop"} <= set(ctx.dialects)
    m = dlc.ir.Module.parse(ADD_ZERO, ctx)
    assert m.context is ctx
    assert m.operation.context is ctx


def test_print_parse_round_trip():
    text = (EXAMPLES / "transformer_block.mlir").read_text()
    once = str(dlc.ir.Module.parse(text))
    assert once.startswith("module {\n  func.func @transformer_block(%arg0: tensor<?x16x32xf32>")
    twice = str(dlc.ir.Module.parse(once))
    assert once == twice
    assert str(dlc.ir.Module.parse(text).operation) == once


def test_parse_error_is_located():
    text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = graph.relu %x : tensor<8xf32>\n  return %y : tensor<4xf32>\n}\n"
    with pytest.raises(dlc.CompileError) as e:
        dlc.ir.Module.parse(text)
    message = str(e.value)
    assert message.startswith("<string>:2:19: error: use of value '%x' expects different type")
    assert "  %y = graph.relu %x : tensor<8xf32>\n                  ^" in message
    with pytest.raises(dlc.CompileError, match=r"^model\.mlir:1:9: error: expected valid '@'-identifier"):
        dlc.ir.Module.parse("func.func", source_name="model.mlir")


def test_verify_fails_with_the_located_message():
    expected = r"^<string>:2:8: error: 'graph.add' op operands are not broadcast-compatible"
    with pytest.raises(dlc.CompileError, match=expected):
        dlc.ir.Module.parse(BAD_ADD)
    m = dlc.ir.Module.parse(BAD_ADD, verify=False)
    with pytest.raises(dlc.CompileError, match=expected) as e:
        m.operation.verify()
    assert "  %y = graph.add %a, %b" in str(e.value)
    add = m.body.operations[0].regions[0].blocks[0].operations[0]
    with pytest.raises(dlc.CompileError, match=expected):
        add.verify()
    assert example("softmax.mlir").operation.verify() is True


def test_walk_ops_attributes_and_types():
    m = example("transformer_block.mlir")
    names = collections.Counter(op.name for op in ops_of(m))
    assert names["builtin.module"] == 1 and names["func.func"] == 1
    assert names["graph.linear"] == 6 and names["graph.layer_norm"] == 2
    assert names["graph.add"] == 2 and names["func.return"] == 1
    post = []
    m.operation.walk(lambda op: post.append(op.name))
    assert post[-2:] == ["func.func", "builtin.module"] and len(post) == sum(names.values())

    func = m.body.operations[0]
    assert func.parent == m.operation and m.operation.parent is None
    assert func.attributes["sym_name"] == '"transformer_block"'
    with pytest.raises(TypeError):
        func.attributes["sym_name"] = '"g"'
    block = func.regions[0].blocks[0]
    assert block.owner == func and func.regions[0].owner == func
    args = block.arguments
    assert len(args) == 17 and args[0].type == "tensor<?x16x32xf32>"
    assert args[0].owner == block and str(args[0]) == "%arg0 : tensor<?x16x32xf32>"

    ln = block.operations[0]
    assert ln.name == "graph.layer_norm"
    assert dict(ln.attributes) == {"axis": "2 : i64", "epsilon": "1.000000e-05 : f64"}
    assert [v.type for v in ln.operands] == ["tensor<?x16x32xf32>", "tensor<32xf32>", "tensor<32xf32>"]
    assert ln.operands[1] == args[1] and hash(ln.operands[1]) == hash(args[1])
    (h,) = ln.results
    assert h.owner == ln and h.get_name() == "%0"
    assert re.fullmatch(r'loc\(".*transformer_block\.mlir":\d+:8\)', ln.location)
    assert str(ln).startswith("%0 = graph.layer_norm %arg0, %arg1, %arg2 {axis = 2 : i64")
    assert "loc(" in ln.get_asm(enable_debug_info=True)
    assert ln.get_asm(print_generic_op_form=True).startswith('%0 = "graph.layer_norm"(%arg0')
    uses = [op for op in block.operations if any(v == h for v in op.operands)]
    assert [op.name for op in uses] == ["graph.linear"] * 3


def test_walk_skip_and_interrupt():
    m = example("transformer_block.mlir")
    seen = []

    def skip_functions(op):
        seen.append(op.name)
        return dlc.ir.WalkResult.SKIP if op.name == "func.func" else None

    m.operation.walk(skip_functions, walk_order=dlc.ir.WalkOrder.PRE_ORDER)
    assert seen == ["builtin.module", "func.func"]
    first = []

    def stop_at_first_linear(op):
        first.append(op)
        return dlc.ir.WalkResult.INTERRUPT if op.name == "graph.linear" else dlc.ir.WalkResult.ADVANCE

    m.operation.walk(stop_at_first_linear)
    assert [op.name for op in first] == ["graph.layer_norm", "graph.linear"]
    with pytest.raises(TypeError, match="WalkResult"):
        m.operation.walk(lambda op: 1)


def test_nested_and_flat_pipelines_fuse():
    nested = example("transformer_block.mlir")
    pm = PassManager.parse("builtin.module(func.func(decompose,fuse))")
    assert str(pm).startswith("builtin.module(func.func(decompose{keep=},fuse{")
    pm.run(nested)
    flat = example("transformer_block.mlir")
    PassManager.parse("decompose,fuse").run(flat.operation)
    for m in (nested, flat):
        names = collections.Counter(op.name for op in ops_of(m))
        assert names["graph.fusion"] == 10 and names["graph.linear"] == 0
        assert m.operation.verify()
    assert str(nested) == str(flat)


def test_canonicalize_folds_and_erased_handles_raise():
    m = dlc.ir.Module.parse(ADD_ZERO)
    func = m.body.operations[0]
    const, add, ret = func.regions[0].blocks[0].operations
    (y,) = add.results
    PassManager.parse("canonicalize").run(m)
    assert str(m) == "module {\n  func.func @f(%arg0: i32) -> i32 {\n    return %arg0 : i32\n  }\n}"
    assert ret.operands[0].get_name() == "%arg0" and func.name == "func.func"
    for use in (lambda: add.name, lambda: add.results, lambda: str(add), lambda: y.type, lambda: const.verify()):
        with pytest.raises(RuntimeError, match="'arith.(addi|constant)' operation .* was erased|value .* was erased"):
            use()
    assert repr(add) == "<dlc.ir.Operation 'arith.addi' (erased)>"
    assert repr(y) == "<dlc.ir.Value (erased)>"
    with pytest.raises(RuntimeError, match="erased"):
        PassManager.parse("canonicalize").run(add)


def test_pipeline_errors():
    with pytest.raises(ValueError, match=r"unknown pass or pipeline 'fusee' \(did you mean 'fuse'\?\)"):
        PassManager.parse("decompose,fusee")
    with pytest.raises(ValueError, match=r"pipeline:31: error: expected '\)' to close 'builtin\.module\(' opened at column 1"):
        PassManager.parse("builtin.module(func.func(fuse)")
    with pytest.raises(ValueError, match="pass 'fuse': unknown option 'nope'"):
        PassManager.parse("fuse{nope=1}")
    with pytest.raises(TypeError, match="dlc.ir.Module or dlc.ir.Operation"):
        PassManager.parse("cse").run("module {}")


def test_pass_failure_raises_its_diagnostic():
    m = example("softmax.mlir")
    with pytest.raises(dlc.CompileError) as e:
        PassManager.parse("lower").run(m)
    message = str(e.value)
    assert re.match(r".*softmax\.mlir:4:8: error: 'graph\.softmax' is a composite op; run 'decompose' before 'lower'", message)
    assert "  %p = graph.softmax %x {axis = 1 : i64}" in message


def test_warnings_and_verifier_and_contexts():
    m = dlc.ir.Module.parse("module {}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PassManager.parse("builtin.module(func.func(cse))").run(m)
    assert [str(w.message).splitlines()[0] for w in caught] == [
        "<string>:1:1: warning: no 'func.func' op to run on: pass 'cse' did nothing"
    ]
    # Warning handlers run with the context unlocked: they may read its IR.
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda *args: seen.append(str(m))
        PassManager.parse("builtin.module(func.func(cse))").run(m)
    assert seen == [str(m)]
    pm = PassManager.parse("canonicalize", context=dlc.ir.Context())
    pm.enable_verifier(False)
    with pytest.raises(ValueError, match="another dlc.ir.Context"):
        pm.run(m)


def test_handles_from_threads():
    m = example("transformer_block.mlir")
    counts = []

    def count():
        counts.append(len(ops_of(m)))

    threads = [threading.Thread(target=count) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counts == [15] * 4


def test_passes_lists_the_registry_with_docs():
    passes = {p.name: p for p in dlc.passes()}
    assert {"fuse", "simplify", "canonicalize", "decompose", "lower", "cse"} <= set(passes)
    fuse = passes["fuse"]
    assert fuse.anchor == ["func.func"] and passes["canonicalize"].anchor == []
    assert set(passes["simplify"].anchor) == {"loop.kernel", "func.func"}
    assert fuse.summary.startswith("Groups graph ops that can run as one kernel")
    options = {o.name: o for o in fuse.options}
    assert options["max-group-size"].type == "int" and options["max-group-size"].default == "64"
    assert ("num-groups", "Number of fusion groups formed") in fuse.statistics
    assert fuse.doc.startswith("Source: `passes/src/graph/fuse.rs`. Runs on: `func.func`.")
    assert "### Applies when" in fuse.doc and "### Changes to the IR" in fuse.doc
    assert "\n## " not in fuse.doc
    # Every registered pass has its section of docs/passes.md, and it is its own.
    for p in passes.values():
        assert "### Applies when" in p.doc, p.name
        assert p.summary.split("`")[0][:40] in " ".join(p.doc.split()), p.name
    assert dlc.passes is dlc.passmanager.passes


def test_invalid_ir_is_not_given_to_passes():
    m = dlc.ir.Module.parse(BAD_ADD, verify=False)
    with pytest.raises(dlc.CompileError) as e:
        PassManager.parse("decompose,fuse").run(m)
    assert str(e.value).startswith("<string>:2:8: error: 'graph.add' op operands are not broadcast-compatible")
    assert "note: the IR is invalid before the pipeline runs" in str(e.value)
