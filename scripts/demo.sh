#!/usr/bin/env bash
# The main job: compile the transformer block example for this CPU with dlc-run (graph IR through
# decompose,fuse,lower,cpu-default and the LLVM JIT), check it against the graph interpreter and
# time it. Then show the other examples: each parsed, verified, round-tripped through mlir-opt-22
# and compiled and checked by dlc-run when it is a graph program.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --quiet --release -p dlc-opt -p dlc-run
opt=target/release/dlc-opt
run=target/release/dlc-run

echo "== main job: docs/examples/transformer_block.mlir"
"$run" docs/examples/transformer_block.mlir --check --bench 100

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
  if grep -q "graph\." "$f"; then
    echo "-- compiled and checked by dlc-run:"
    "$run" "$f" --check
  fi
done
