#!/usr/bin/env python3
"""Compile-speed benchmark: dlc-opt against mlir-opt-22 on the same large arith function.

Both tools run as whole processes (parse + verify + print, output to /dev/null) on one file, in
the same run, alternating, so machine noise hits both alike. Reports the median wall time, the
peak RSS and the ratio. Usage (from the repository root):

    python3 tools/bench/compile_speed.py [--ops 1000000] [--reps 5] [--extra-args "..."]
    python3 tools/bench/compile_speed.py --scaling 10000,100000,1000000 --extra-args "--cse --canonicalize"

It builds the release binaries first. Generated files are cached under target/bench/. With
--scaling it times dlc-opt alone at each size, subtracts the cost of running on a one-op file,
and reports each size's time per op against the mean (linear time means equal cost per op).
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_once(cmd):
    """Runs cmd; returns (seconds, peak RSS in MiB). Fails loudly on a non-zero exit."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"benchmark command failed: {shlex.join(cmd)}\n{stderr}")
    return elapsed, usage.ru_maxrss / 1024.0


def generated(ops):
    """The cached gen-arith file with `ops` ops."""
    bench_dir = os.path.join(ROOT, "target", "bench")
    os.makedirs(bench_dir, exist_ok=True)
    path = os.path.join(bench_dir, f"arith-{ops}.mlir")
    if not os.path.exists(path):
        subprocess.run([os.path.join(ROOT, "target", "release", "gen-arith"), str(ops), path], check=True)
    return path


def scaling(sizes, args):
    """Times dlc-opt at each size; subtracts the fixed cost of a process on a one-op file and
    reports how far each size's time per op is from their mean (a straight line through the
    origin)."""
    extra = shlex.split(args.extra_args)

    def median_time(n):
        cmd = [os.path.join(ROOT, "target", "release", "dlc-opt"), generated(n), "-o", "/dev/null", *extra]
        return statistics.median(run_once(cmd)[0] for _ in range(args.reps))

    startup = median_time(1)
    points = [(n, median_time(n) - startup) for n in sizes]
    mean_per_op = statistics.mean(t / n for n, t in points)
    print(f"dlc-opt {args.extra_args or '(parse+verify+print)'}; {args.reps} runs each; process startup {startup * 1000:.1f} ms subtracted")
    print(f"{'ops':>10} {'median s':>9} {'ns/op':>7} {'deviation':>9}")
    worst = 0.0
    for n, t in points:
        dev = t / n / mean_per_op - 1
        worst = max(worst, abs(dev))
        print(f"{n:>10} {t:>9.4f} {t / n * 1e9:>7.0f} {dev:>+8.1%}")
    print(f"largest deviation from a straight line: {worst:.1%}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=1_000_000, help="arith ops in the generated function")
    ap.add_argument("--reps", type=int, default=5, help="runs per tool (median reported)")
    ap.add_argument("--extra-args", default="", help="flags given to both tools, e.g. '--cse --canonicalize'")
    ap.add_argument("--mlir-opt", default="mlir-opt-22")
    ap.add_argument("--scaling", default="", help="comma-separated op counts: check dlc-opt's time is linear")
    args = ap.parse_args()

    subprocess.run(["cargo", "build", "--release", "-q", "-p", "dlc-opt", "-p", "dlc-bench"], cwd=ROOT, check=True)
    if args.scaling:
        scaling([int(n) for n in args.scaling.split(",")], args)
        return
    path = generated(args.ops)
    size_mb = os.path.getsize(path) / 1e6
    with open(path) as f:
        lines = sum(1 for _ in f)

    extra = shlex.split(args.extra_args)
    tools = {
        "dlc-opt": [os.path.join(ROOT, "target", "release", "dlc-opt"), path, "-o", "/dev/null", *extra],
        "mlir-opt-22": [args.mlir_opt, path, "-o", "/dev/null", *extra],
    }
    results = {name: [] for name in tools}
    for _ in range(args.reps):
        for name, cmd in tools.items():
            results[name].append(run_once(cmd))

    print(f"file: {path} ({lines} lines, {size_mb:.1f} MB); flags: {args.extra_args or '(none)'}; {args.reps} runs each")
    print(f"{'tool':<12} {'median s':>9} {'min s':>7} {'max s':>7} {'peak RSS MiB':>13}")
    medians = {}
    for name, runs in results.items():
        times = [t for t, _ in runs]
        rss = max(r for _, r in runs)
        medians[name] = (statistics.median(times), rss)
        print(f"{name:<12} {medians[name][0]:>9.3f} {min(times):>7.3f} {max(times):>7.3f} {rss:>13.0f}")
    (dlc_t, dlc_rss), (mlir_t, mlir_rss) = medians["dlc-opt"], medians["mlir-opt-22"]
    print(f"speedup (mlir-opt-22 / dlc-opt): {mlir_t / dlc_t:.1f}x; peak RSS ratio: {mlir_rss / dlc_rss:.1f}x")


if __name__ == "__main__":
    main()
