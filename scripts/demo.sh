#!/usr/bin/env bash
# The main job, for now: build dlc-opt and run it over the examples in docs/examples — parse,
# verify and print each one, pass the printed text through mlir-opt-22 and back to show that the
# two tools read each other's output, and optimize it with the generic cleanup pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --quiet --release -p dlc-opt
opt=target/release/dlc-opt

for f in docs/examples/*.mlir; do
  echo "== $f"
  "$opt" "$f"
  echo "-- through mlir-opt-22 and back:"
  "$opt" "$f" | mlir-opt-22 | "$opt" - | diff -u <("$opt" "$f") - && echo "identical"
  echo "-- optimized (inline, canonicalize, cse, symbol-dce):"
  "$opt" "$f" --pipeline='inline,canonicalize,cse,symbol-dce' --pass-statistics
done
