#!/usr/bin/env bash
# The main job, for now: build dlc-opt and run it over every example in docs/examples — parse,
# verify and print each one, send its generic form through mlir-opt-22 and back to show that the
# two tools read each other's output, and run a cleanup pipeline on it (plus decompose and fuse on
# graph-level examples, once those passes exist).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --quiet --release -p dlc-opt
opt=target/release/dlc-opt
passes=$("$opt" --list-passes)
has_pass() { grep -q -- "--$1 " <<<"$passes"; }

for f in docs/examples/*.mlir; do
  echo "== $f"
  "$opt" "$f"
  echo "-- generic form through mlir-opt-22 and back:"
  "$opt" --print-generic "$f" | mlir-opt-22 --allow-unregistered-dialect --mlir-print-op-generic \
    | "$opt" - | diff -u <("$opt" "$f") - && echo "identical"
  pipeline="canonicalize,cse"
  if grep -q "graph\." "$f"; then
    if has_pass decompose; then pipeline="decompose,$pipeline"; fi
    if has_pass fuse; then pipeline="$pipeline,fuse"; fi
  elif grep -q "func.call\|call @" "$f"; then
    pipeline="inline,$pipeline,symbol-dce"
  fi
  echo "-- after --pipeline=$pipeline:"
  "$opt" "$f" --pipeline="$pipeline" --pass-statistics
done
