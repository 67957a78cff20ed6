#!/usr/bin/env python3
"""Time to first inference: dlc-run cold and warm beside onnxruntime, in one run.

For every model in DIR that scripts/onnx_real_models.py wrote (NAME.onnx with
NAME.input_<i>.npy), three times each, median reported:
- dlc cold: `dlc-run NAME.onnx --inputs ...` with an empty DLC_CACHE_DIR; the time is the
  "first result ... after start" dlc-run prints (from the start of its main function to the
  first run's outputs), kernels compiled quick and optimized in the background (the default);
- dlc warm: the same command again with the cache it filled;
- onnxruntime: a fresh Python process per measurement, timing InferenceSession creation plus
  the first run (imports and input loading left out), CPU provider, intra-op threads = cores.
The three take turns (cold, warm, onnxruntime, then again), so that a drift of the machine's
speed moves both sides of a ratio. With --steady RUNS it also times `dlc-run --bench RUNS`
after the tier-up against `dlc-run --no-tiers --no-cache --bench RUNS` (the full compile), in
turns, three times each. Every row also counts dlc's
kernels (launches of the entry function), the model's ONNX nodes and the nodes of the model
onnxruntime saves after its own graph optimizations (ORT_ENABLE_ALL,
`optimized_model_filepath`; layout reorders it inserts count as nodes).

Usage: python3 scripts/time_to_first.py --models target/onnx-models [--only a,b]
       [--dlc-run target/release/dlc-run] [--steady 30]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPEATS = 3

ORT_FIRST = """
import sys, time
import numpy as np, onnxruntime as ort
path, inputs = sys.argv[1], sys.argv[2:]
xs = [np.load(p) for p in inputs]
start = time.perf_counter()
options = ort.SessionOptions()
options.intra_op_num_threads = {threads}
session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
feed = {{i.name: x for i, x in zip(session.get_inputs(), xs)}}
session.run(None, feed)
print((time.perf_counter() - start) * 1e3)
"""


def models(directory: Path, only: set[str] | None) -> list[tuple[str, Path, list[Path]]]:
    """(name, model file, input files) of every model with unsized inputs in `directory`."""
    found = []
    for onnx in sorted(directory.glob("*.onnx")):
        name = onnx.stem
        inputs = sorted(directory.glob(f"{name}.input_*.npy"))
        if inputs and (only is None or name in only):
            found.append((name, onnx, inputs))
    return found


ORT_NODES = """
import os, sys, tempfile
import onnx, onnxruntime as ort
path = sys.argv[1]
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "optimized.onnx")
    options = ort.SessionOptions()
    options.optimized_model_filepath = out
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    optimized = onnx.load(out, load_external_data=False)
print(len(onnx.load(path, load_external_data=False).graph.node), len(optimized.graph.node))
"""


def ort_nodes(python: str, onnx: Path) -> tuple[int, int]:
    """The model's ONNX nodes, and onnxruntime's after its graph optimizations."""
    cmd = [python, "-c", ORT_NODES, str(onnx)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    return int(out[-2]), int(out[-1])


def dlc_first(dlc_run: str, onnx: Path, inputs: list[Path], cache: str) -> tuple[float, int]:
    """dlc-run's "first result" time, ms, with the cache in `cache`, and its kernel launches
    (a kernel that several launches share, `merge-kernels`, counts once per launch)."""
    env = dict(os.environ, DLC_CACHE_DIR=cache)
    cmd = [dlc_run, str(onnx), "--inputs", ",".join(map(str, inputs))]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    found = re.search(r"first result ([0-9.]+) ms after start", out)
    kernels = re.search(r"kernels \((?:[0-9]+ distinct, )?([0-9]+) launches\)", out)
    if not found or not kernels:
        raise RuntimeError(f"no first-result or kernel line in: {out}")
    return float(found.group(1)), int(kernels.group(1))


def dlc_bench(dlc_run: str, onnx: Path, inputs: list[Path], runs: int, extra: list[str],
              cache: str) -> float:
    """dlc-run --bench's median, ms."""
    env = dict(os.environ, DLC_CACHE_DIR=cache)
    cmd = [dlc_run, str(onnx), "--inputs", ",".join(map(str, inputs)), "--bench", str(runs)]
    out = subprocess.run(cmd + extra, env=env, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def ort_first(python: str, onnx: Path, inputs: list[Path]) -> float:
    code = ORT_FIRST.format(threads=os.cpu_count() or 1)
    cmd = [python, "-c", code, str(onnx), *map(str, inputs)]
    return float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def cpu_model() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--models", required=True, type=Path, help="onnx_real_models.py --out")
    parser.add_argument("--only", help="comma-separated model names (default: all)")
    parser.add_argument("--dlc-run", default="target/release/dlc-run")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--steady", metavar="RUNS", type=int,
                        help="also compare steady-state medians after tier-up and full compile")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    print(f"`lscpu`: \"{cpu_model()}\", {os.cpu_count()} cores; {REPEATS} measurements each, "
          "median\n")
    header = ("| model | dlc cold ms | dlc warm ms | onnxruntime ms | cold / ort | warm / ort |"
              " kernels | ONNX nodes | ort nodes |")
    if args.steady:
        header += " steady tiered ms | steady full ms | tiered / full |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name, onnx, inputs in models(args.models, only):
        # dlc and onnxruntime take turns, so that a VM whose speed drifts (by a fifth within
        # minutes on the 2-core machines) moves both sides of each ratio alike.
        cold, warm, ort = [], [], []
        for _ in range(REPEATS):
            with tempfile.TemporaryDirectory() as cache:
                ms, kernels = dlc_first(args.dlc_run, onnx, inputs, cache)
                cold.append(ms)
                warm.append(dlc_first(args.dlc_run, onnx, inputs, cache)[0])
            ort.append(ort_first(args.python, onnx, inputs))
        nodes, optimized = ort_nodes(args.python, onnx)
        c, w, o = (statistics.median(v) for v in (cold, warm, ort))
        row = (f"| {name} | {c:.0f} | {w:.0f} | {o:.0f} | {c / o:.1f}x | {w / o:.1f}x |"
               f" {kernels} | {nodes} | {optimized} |")
        if args.steady:
            tiered, full = [], []
            for _ in range(REPEATS):
                with tempfile.TemporaryDirectory() as cache:
                    tiered.append(dlc_bench(args.dlc_run, onnx, inputs, args.steady, [], cache))
                with tempfile.TemporaryDirectory() as cache:
                    full.append(dlc_bench(args.dlc_run, onnx, inputs, args.steady,
                                          ["--no-tiers", "--no-cache"], cache))
            t, f = statistics.median(tiered), statistics.median(full)
            row += f" {t:.3f} | {f:.3f} | {t / f:.2f} |"
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
