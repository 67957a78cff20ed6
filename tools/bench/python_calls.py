#!/usr/bin/env python3
"""Time a call from Python: `dlc.compile(model)(*arrays)` against onnxruntime's
`InferenceSession.run`, on the same ONNX model and inputs, in one process (issue 36, item 7).

For each model: the median of many calls of each (after warm-up), and the ratio dlc / onnxruntime.
The tiny model (one Add of two 1x8 float tensors) measures the per-call overhead, which the issue
bounds at 2x onnxruntime's; the real models (scripts/onnx_real_models.py writes them with their
inputs to target/onnx-models) measure calls that do work. Both run on 2 threads (onnxruntime's
intra-op threads, dlc's pool on this 2-core machine). Prints a markdown table, `lscpu`'s model
line and which build of dlc's module it timed: time the release build, the wheel users install
(`maturin build --release`, or `cargo build --release -p dlc-python` and
`scripts/python_wheel.py --module target/release/lib_dlc.so`), not the `checked` build that
scripts/test.sh installs.

Usage: python3 tools/bench/python_calls.py [--models target/onnx-models] [--only a,b] [--calls N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

import dlc


def cpu_model() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def tiny_add() -> bytes:
    """One Add of two [1, 8] float tensors."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 8])
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"])], "tiny_add", [x, y], [z])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model.SerializeToString()


def median_seconds(call, calls: int) -> float:
    for _ in range(max(3, calls // 10)):
        call()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(name: str, model: bytes, inputs: list[np.ndarray], calls: int) -> tuple:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feed = {i.name: a for i, a in zip(session.get_inputs(), inputs)}
    compiled = dlc.compile(model)
    ours = compiled(*inputs)
    theirs = session.run(None, feed)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-3)
    dlc_s = median_seconds(lambda: compiled(*inputs), calls)
    ort_s = median_seconds(lambda: session.run(None, feed), calls)
    return name, dlc_s, ort_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--models", type=Path, default=Path("target/onnx-models"))
    parser.add_argument("--only", help="comma-separated model names (default: tiny_add and all)")
    parser.add_argument("--calls", type=int, default=200, help="timed calls per model")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None

    cases = [("tiny_add", tiny_add(), [np.ones((1, 8), np.float32), np.ones((1, 8), np.float32)])]
    for path in sorted(args.models.glob("*.onnx")) if args.models.is_dir() else []:
        name = path.stem
        inputs = sorted(args.models.glob(f"{name}.input_*.npy"))
        if not inputs:
            continue
        cases.append((name, path.read_bytes(), [np.load(p) for p in inputs]))
    rows = []
    for name, model, inputs in cases:
        if only is not None and name not in only:
            continue
        rows.append(measure(name, model, inputs, args.calls))
    print(
        f"`lscpu`: \"{cpu_model()}\", {os.cpu_count()} cores; median of {args.calls} calls each; "
        f"dlc's {dlc._dlc.BUILD} build"
    )
    print()
    print("| model | dlc call ms | onnxruntime run ms | dlc / onnxruntime |")
    print("|---|---|---|---|")
    for name, ours, theirs in rows:
        print(f"| {name} | {ours * 1e3:.3f} | {theirs * 1e3:.3f} | {ours / theirs:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
