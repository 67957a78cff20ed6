#!/usr/bin/env python3
"""Export real-world ONNX models (PaddleOCR, as shipped by rapidocr-onnxruntime) with reference data.

The rapidocr-onnxruntime wheel (1.4.4; install it with
`python3 -m pip install --no-deps rapidocr-onnxruntime==1.4.4`) carries three PaddleOCR models in
its package directory. This script only locates that directory; it never imports rapidocr, whose
own dependencies need not be installed. It writes:

    OUT/<short>.onnx            the model, copied unchanged
    OUT/<short>.input_0.npy     float32 input, uniform in [-1, 1), numpy default_rng(0) per model
    OUT/<short>.output_<i>.npy  onnxruntime's outputs for that input, in graph output order

for <short> in ppocr_cls (1x3x48x192 input), ppocr_rec (1x3x48x320) and ppocr_det (1x3x320x320).
onnxruntime runs on the CPU provider with intra_op_num_threads = the number of CPUs. Each model's
input, output shapes, opset and op-type histogram go to stderr. With --bench RUNS, each model is
timed for RUNS runs after 3 warm-up runs and stdout gets one JSON line per model,
{"model", "median_ms", "min_ms", "max_ms"}, and nothing else.

Usage: python3 scripts/onnx_real_models.py --out target/onnx-models [--bench RUNS]
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

PACKAGE = "rapidocr_onnxruntime"
PACKAGE_PIN = "rapidocr-onnxruntime==1.4.4"
# short name -> (file in the package's models/ directory, input shape)
MODELS = {
    "ppocr_cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", (1, 3, 48, 192)),
    "ppocr_rec": ("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320)),
    "ppocr_det": ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 320, 320)),
}
WARMUP_RUNS = 3


def log(message: str) -> None:
    print(message, file=sys.stderr)


def models_dir() -> Path:
    """The installed package's models/ directory; exits with a hint when it is missing."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"error: {PACKAGE} is not installed; run: python3 -m pip install --no-deps {PACKAGE_PIN}")
    directory = Path(list(spec.submodule_search_locations)[0]) / "models"
    missing = [name for name, _ in MODELS.values() if not (directory / name).is_file()]
    if missing:
        sys.exit(f"error: {directory} lacks {', '.join(missing)}; install {PACKAGE_PIN}")
    return directory


def make_input(shape: tuple[int, ...]) -> np.ndarray:
    """Deterministic float32 data, uniform in [-1, 1)."""
    rng = np.random.default_rng(0)
    return rng.random(shape, dtype=np.float32) * 2 - 1


def dims(value_info: onnx.ValueInfoProto) -> list:
    """A graph input's or output's declared shape, symbolic dimensions as their names."""
    return [d.dim_param if d.HasField("dim_param") else d.dim_value for d in value_info.type.tensor_type.shape.dim]


def describe(short: str, model: onnx.ModelProto, x: np.ndarray, outputs: list[np.ndarray]) -> None:
    """Log the model's interface, opset and op-type histogram to stderr."""
    graph = model.graph
    opsets = ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in model.opset_import)
    ops = collections.Counter(node.op_type for node in graph.node)
    log(f"{short}: opset {opsets}; {len(graph.node)} nodes, {len(graph.initializer)} initializers")
    for info in graph.input:
        log(f"  input  {info.name!r} declared {dims(info)}, fed {list(x.shape)} {x.dtype}")
    for info, value in zip(graph.output, outputs):
        log(f"  output {info.name!r} declared {dims(info)}, got {list(value.shape)} {value.dtype}")
    log("  ops: " + ", ".join(f"{op} {n}" for op, n in sorted(ops.items())))


def bench(session: ort.InferenceSession, feed: dict, runs: int) -> dict:
    """Wall-clock milliseconds of `runs` session runs after the warm-up runs."""
    for _ in range(WARMUP_RUNS):
        session.run(None, feed)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1e3)
    return {"median_ms": round(statistics.median(times), 3), "min_ms": round(min(times), 3),
            "max_ms": round(max(times), 3)}


def export_model(short: str, source: Path, shape: tuple[int, ...], out: Path, runs: int | None) -> None:
    """Copy one model, write its input and reference outputs, and optionally benchmark it."""
    target = out / f"{short}.onnx"
    shutil.copyfile(source, target)
    model = onnx.load(target)
    x = make_input(shape)
    np.save(out / f"{short}.input_0.npy", x)

    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    session = ort.InferenceSession(str(target), options, providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: x}
    outputs = session.run(None, feed)
    for i, value in enumerate(outputs):
        np.save(out / f"{short}.output_{i}.npy", value)
    describe(short, model, x, outputs)
    if runs is not None:
        print(json.dumps({"model": short, **bench(session, feed, runs)}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument("--bench", metavar="RUNS", type=int, help="time RUNS runs of each model")
    args = parser.parse_args()
    if args.bench is not None and args.bench < 1:
        parser.error("--bench needs RUNS >= 1")

    source_dir = models_dir()
    args.out.mkdir(parents=True, exist_ok=True)
    for short, (file_name, shape) in MODELS.items():
        export_model(short, source_dir / file_name, shape, args.out, args.bench)
    log(f"wrote {len(MODELS)} models to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
