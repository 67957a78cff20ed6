#!/usr/bin/env python3
"""Export the ONNX backend node tests to disk, optionally checking them on onnxruntime.

onnx builds its node test cases in memory (`onnx.backend.test.loader.load_model_tests(kind="node")`):
each is a `TestCase` with `.name`, `.model` (a ModelProto), `.rtol`, `.atol` and `.data_sets`, a list
of `(inputs, outputs)` pairs whose items are numpy arrays, numpy scalars, TensorProtos (the float8 /
int4 / float16 cases), lists (sequences) or None (an empty optional), positionally matching
graph.input and graph.output. bfloat16 arrays, which numpy cannot store, are written widened to
float32 (exactly). This script writes, for data set 0 of every case:

    OUT/index.json              list of the exported case names, in loader order
    OUT/cases.tsv               one line per case for readers without JSON: name, rtol, atol,
                                input count, output count, expanded (0/1), skip, ort, op types
                                (comma-separated); tab-separated, "-" for null
    OUT/<name>/model.onnx       the serialized ModelProto
    OUT/<name>/input_<i>.npy    the i-th graph input (C order, numpy.save)
    OUT/<name>/output_<i>.npy   the i-th graph output, the expected value
    OUT/<name>/meta.json        {"name", "rtol", "atol", "opset", "op_types", "inputs", "outputs",
                                 "expanded", "skip", "ort"}

"opset" is the version of the ai.onnx ("") opset import (null when the model imports none);
"op_types" lists the top-level nodes' op types, sorted and unique, as "<domain>.<op>" for domains
other than ai.onnx. A case whose values are not plain tensors that numpy stores portably (sequences,
optionals, strings, float8, int4, ...) has "skip" set to a one-line reason and no npy
files. With --ort, every case that is not skipped is run on onnxruntime's CPU provider and compared
the way onnx's backend test runner does (output count, shape, dtype, then assert_allclose with the
case's rtol/atol); "ort" is "pass" or "fail: <reason>" (null without --ort or when skipped).

Each exported case directory is recreated, so reruns overwrite earlier output.

Usage: python3 scripts/onnx_node_tests.py --out target/onnx-node [--ort] [--filter REGEX]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import shutil
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

# dtypes whose .npy files any reader (numpy without ml_dtypes, Rust npy readers) understands.
PORTABLE_DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64"]
)
MAX_REASON = 160
# "<source path>:<line> <C++ signature> " that onnxruntime puts before the message of a failed check.
ORT_SOURCE_LOCATION = re.compile(r"/onnxruntime_src/\S+:\d+ [^(]*\((?:[^()]|\([^()]*\))*\)(?: const)? ")


def load_cases(pattern: str | None) -> list:
    """The node test cases in loader order, restricted to names matching `pattern` (re.search)."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        # Building the reference outputs triggers numpy overflow / divide-by-zero warnings.
        warnings.simplefilter("ignore")
        cases = load_model_tests(kind="node")
    if pattern is None:
        return cases
    regex = re.compile(pattern)
    return [c for c in cases if regex.search(c.name)]


def normalize(value):
    """A data-set item as the runner sees it: TensorProto and numpy scalars become ndarrays."""
    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value


def unsupported(value) -> str | None:
    """Why `value` cannot be stored as a portable .npy file, or None if it can."""
    if value is None:
        return "optional (None)"
    if isinstance(value, (list, tuple)):
        return "sequence"
    if not isinstance(value, np.ndarray):
        return f"value of type {type(value).__name__}"
    if value.dtype == object or value.dtype.kind in "SU":
        return "string tensor"
    if value.dtype.name not in PORTABLE_DTYPES and value.dtype.name != "bfloat16":
        return f"dtype {value.dtype.name}"
    return None


def portable(value) -> np.ndarray:
    """`value` as numpy stores it portably: bfloat16 (numpy has none) widened to float32, which
    holds every bfloat16 exactly, as dlc's own .npy writer does (readers narrow it back by the
    model's declared type)."""
    array = np.asarray(value, order="C")
    return array.astype(np.float32) if array.dtype.name == "bfloat16" else array


def skip_reason(inputs: list, outputs: list, graph: onnx.GraphProto) -> str | None:
    """The first unsupported input or output, as '<category>: <role> <i> (<name>)'."""
    for role, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
        for i, (value, info) in enumerate(zip(values, infos)):
            category = unsupported(value)
            if category is not None:
                return f"{category}: {role} {i} ({info.name})"
    return None


def one_line(text: str) -> str:
    """Collapse a (multi-line) message into one line of at most MAX_REASON characters."""
    text = ORT_SOURCE_LOCATION.sub("", str(text))
    line = "; ".join(part.strip() for part in text.splitlines() if part.strip())
    line = re.sub(r"\s+", " ", line)
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 3] + "..."


def mismatch(expected: list, actual: list, rtol: float, atol: float) -> str | None:
    """How `actual` differs from `expected`, checked as onnx's backend runner does, or None.

    The runner compares the output count, then per output the shape, the dtype and
    numpy.testing.assert_allclose(actual, expected, rtol, atol).
    """
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, expected {len(expected)}"
    for i, (ref, out) in enumerate(zip(expected, actual)):
        if out.shape != ref.shape:
            return f"output {i}: shape {out.shape}, expected {ref.shape}"
        if out.dtype != ref.dtype:
            return f"output {i}: dtype {out.dtype}, expected {ref.dtype}"
        try:
            with np.errstate(all="ignore"):
                np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)
        except AssertionError as e:
            lines = [l for l in str(e).splitlines() if not l.startswith("Not equal to tolerance")]
            return f"output {i}: " + one_line("\n".join(lines))
    return None


def run_ort(model: onnx.ModelProto, inputs: list, outputs: list, rtol: float, atol: float) -> str:
    """'pass' or 'fail: <reason>' for running `model` on onnxruntime's CPU provider."""
    import onnxruntime as ort

    graph = model.graph
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - any failure is a result to record
        return "fail: " + one_line(f"session: {e}")
    feed = {info.name: value for info, value in zip(graph.input, inputs)}
    try:
        actual = session.run([info.name for info in graph.output], feed)
    except Exception as e:  # noqa: BLE001
        return "fail: " + one_line(f"run: {e}")
    reason = mismatch(outputs, actual, rtol, atol)
    return "pass" if reason is None else "fail: " + one_line(reason)


def opset_version(model: onnx.ModelProto) -> int | None:
    """The ai.onnx opset the model imports, or None."""
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            return opset.version
    return None


def op_types(graph: onnx.GraphProto) -> list[str]:
    """Sorted unique op types of the graph's top-level nodes, domain-qualified outside ai.onnx."""
    return sorted(
        {n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}" for n in graph.node}
    )


def export_case(case, out: Path, with_ort: bool) -> dict:
    """Write one case's directory and return its meta.json content."""
    model = case.model
    graph = model.graph
    inputs_raw, outputs_raw = case.data_sets[0]
    inputs = [normalize(v) for v in inputs_raw]
    outputs = [normalize(v) for v in outputs_raw]
    skip = skip_reason(inputs, outputs, graph)

    case_dir = out / case.name
    shutil.rmtree(case_dir, ignore_errors=True)
    case_dir.mkdir(parents=True)
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    if skip is None:
        for role, values in (("input", inputs), ("output", outputs)):
            for i, value in enumerate(values):
                np.save(case_dir / f"{role}_{i}.npy", portable(value))

    name = case.name
    meta = {
        "name": name,
        "rtol": case.rtol,
        "atol": case.atol,
        "opset": opset_version(model),
        "op_types": op_types(graph),
        "inputs": [info.name for info in graph.input],
        "outputs": [info.name for info in graph.output],
        "expanded": name.endswith("_expanded") or "_expanded_" in name,
        "skip": skip,
        "ort": run_ort(model, inputs, outputs, case.rtol, case.atol) if with_ort and skip is None else None,
    }
    (case_dir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def ort_failure_stage(result: str) -> str:
    """'session', 'run' or 'mismatch' for an "ort" result 'fail: <reason>'."""
    stage = result.removeprefix("fail: ").split(":", 1)[0]
    return stage if stage in ("session", "run") else "mismatch"


def summarize(metas: list[dict], with_ort: bool, seconds: float) -> str:
    """Counts of cases, skips by category and onnxruntime results."""
    skips = collections.Counter(m["skip"].split(":", 1)[0] for m in metas if m["skip"])
    lines = [f"{len(metas)} cases, {sum(skips.values())} skipped, {seconds:.1f}s"]
    lines += [f"  skipped {n:4d}  {category}" for category, n in skips.most_common()]
    if with_ort:
        results = [m["ort"] for m in metas if m["ort"] is not None]
        stages = collections.Counter(ort_failure_stage(r) for r in results if r != "pass")
        detail = ", ".join(f"{stage} {n}" for stage, n in stages.most_common())
        lines.append(f"onnxruntime: {results.count('pass')} pass, {sum(stages.values())} fail ({detail})")
    return "\n".join(lines)


def tsv_line(meta: dict) -> str:
    """The case's cases.tsv line."""
    def field(value) -> str:
        return "-" if value is None else str(value).replace("\t", " ")
    return "\t".join([
        meta["name"], field(meta["rtol"]), field(meta["atol"]), str(len(meta["inputs"])),
        str(len(meta["outputs"])), "1" if meta["expanded"] else "0", field(meta["skip"]),
        field(meta["ort"]), ",".join(meta["op_types"]) or "-",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--ort", action="store_true", help="check each case on onnxruntime")
    parser.add_argument("--filter", metavar="REGEX", help="only cases whose name matches (re.search)")
    args = parser.parse_args()

    if args.ort:
        import onnxruntime as ort

        ort.set_default_logger_severity(4)  # fatal only: failures are recorded in meta.json
    start = time.monotonic()
    cases = load_cases(args.filter)
    args.out.mkdir(parents=True, exist_ok=True)
    metas = [export_case(case, args.out, args.ort) for case in cases]
    (args.out / "index.json").write_text(json.dumps([m["name"] for m in metas], indent=1) + "\n")
    (args.out / "cases.tsv").write_text("".join(tsv_line(m) + "\n" for m in metas))
    print(summarize(metas, args.ort, time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
