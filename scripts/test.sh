#!/usr/bin/env bash
# Runs every dlc test: the cargo tests of the workspace, then the lit/FileCheck suite in test/
# against the freshly built dlc-opt. Installs what is missing first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== cargo test"
cargo test --workspace --quiet

echo "== lit"
cargo build --quiet -p dlc-opt -p dlc-run
export DLC_BIN_DIR="$PWD/target/debug"
log=$(mktemp)
status=0
python3 -c "import sys, lit.main; sys.exit(lit.main.main())" -sv test/ 2>&1 | tee "$log" || status=$?
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
rm -f "$log"
echo "lit: ${passed:-0} passed, ${failed:-0} failed"
[ "$status" -eq 0 ] || exit "$status"

echo "== benchmark smoke run (the full run: docs/benchmarks.md)"
cargo run --quiet -p dlc-bench --bin dlc-bench -- --size smoke --runs 2 \
  --md target/bench/benchmarks.md --png target/bench/benchmarks.png
