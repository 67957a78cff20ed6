#!/usr/bin/env python3
"""Time `torch.compile(model, backend="dlc")` against eager PyTorch and `torch.compile` with
inductor (torch's default backend) on the models of python/tests/test_torch_backend.py, in one
process (issue 36, item 7).

For each model and backend: the first call (Dynamo's capture and the backend's compile
included), then the median of many calls, outputs compared with eager first. PyTorch runs on
this machine's cores (torch.get_num_threads()), dlc on its pool. Prints a markdown table,
`lscpu`'s model line and which build of dlc's module it timed (time the release build; see
tools/bench/python_calls.py).

Usage: python3 tools/bench/torch_calls.py [--calls N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

import torch
import torch.nn as nn

import dlc


def cpu_model() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def models():
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.GELU(), nn.Linear(512, 10))
    cnn = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 8 * 8, 10),
    )
    encoder = nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True)
    return [
        ("mlp 64x256", mlp, torch.randn(64, 256)),
        ("cnn 8x3x32x32", cnn, torch.randn(8, 3, 32, 32)),
        ("encoder layer 8x64x128", encoder, torch.randn(8, 64, 128)),
    ]


def time_calls(f, x, calls: int):
    start = time.perf_counter()
    first_out = f(x)
    first = time.perf_counter() - start
    for _ in range(5):
        f(x)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        f(x)
        samples.append(time.perf_counter() - start)
    return first, statistics.median(samples), first_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    print(
        f"`lscpu`: \"{cpu_model()}\", {os.cpu_count()} cores; torch {torch.__version__} on "
        f"{torch.get_num_threads()} threads; median of {args.calls} calls; dlc's "
        f"{dlc._dlc.BUILD} build\n"
    )
    print("| model | eager ms | inductor ms | dlc ms | dlc / eager | dlc / inductor | first call: inductor s | dlc s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, model, x in models():
        model.eval()
        with torch.no_grad():
            _, eager, expected = time_calls(model, x, args.calls)
            row = {}
            for backend in ("inductor", "dlc"):
                torch._dynamo.reset()
                compiled = torch.compile(model, backend=backend)
                first, median, out = time_calls(compiled, x, args.calls)
                torch.testing.assert_close(out, expected, rtol=1e-4, atol=1e-4)
                row[backend] = (first, median)
        ind, dl = row["inductor"], row["dlc"]
        print(
            f"| {name} | {eager * 1e3:.3f} | {ind[1] * 1e3:.3f} | {dl[1] * 1e3:.3f} | "
            f"{dl[1] / eager:.2f}x | {dl[1] / ind[1]:.2f}x | {ind[0]:.1f} | {dl[0]:.1f} |"
        )


if __name__ == "__main__":
    main()
