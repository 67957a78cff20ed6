#!/usr/bin/env bash
# Runs every dlc test: the cargo tests of the workspace, the lit/FileCheck suites in test/ and
# tools/examples/downstream-dialect/test/ against the freshly built tools, a smoke run of the
# benchmark, and the Python package's pytest suite (python/tests) against its wheel, built from
# the cargo build and installed — all but the cargo tests beside them, which leave part of the
# cores idle. Installs what is missing first (scripts/setup.sh).
#
# Everything is built once, with the `checked` profile (Cargo.toml): optimized code, with debug
# assertions and overflow checks still on, so the differential tests do not run the interpreters
# and passes at opt-level 0 (docs/testing.md says why and what it saves). DLC_TEST_SCALE=N runs
# the long tier: N times the random programs of every differential and property test.
#
# At the end it prints the wall time of each stage and the slowest test binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

PROFILE=checked
BIN_DIR="$PWD/target/$PROFILE"

mkdir -p target
stages=target/test-stages.txt
: >"$stages"

# stage NAME COMMAND...: runs COMMAND, printing a header, and records its wall time (a failed
# stage too, marked as such); a failure then stops the script.
stage() {
  local name=$1 start status=0
  shift
  echo "== $name"
  start=$(date +%s%N)
  "$@" || status=$?
  [ "$status" -eq 0 ] || name="$name (FAILED)"
  printf '%s\t%s\n' "$name" "$(($(date +%s%N) - start))" >>"$stages"
  return "$status"
}

# beside NAME LOG COMMAND...: runs COMMAND in the background, its output into LOG, and records
# its wall time as a part of the stage it runs beside (not added to the total again). The
# caller waits for it (`wait $!`) and prints LOG.
beside() {
  local name=$1 log=$2 start status=0
  shift 2
  start=$(date +%s%N)
  "$@" >"$log" 2>&1 || status=$?
  [ "$status" -eq 0 ] || name="$name (FAILED)"
  printf '%s\t%s\tbeside\n' "$name" "$(($(date +%s%N) - start))" >>"$stages"
  return "$status"
}

# Every target at once (libraries, binaries, tests, examples), so the dev-dependencies' features
# are unified the way `cargo test` sees them and the test stage reuses all of it. Not
# `--all-targets`, which also builds a unit-test binary of every library and binary marked
# `test = false` (those without unit tests: scripts/check_test_targets.py).
build() {
  cargo build --workspace --profile "$PROFILE" --lib --bins --tests --examples --quiet
}

# The Python package: its wheel, packed from the extension module the cargo build linked
# (scripts/python_wheel.py says why not `maturin build`, which would link it again), installed
# over any earlier one.
python_wheel() {
  rm -f target/wheels/dlc-*.whl
  python3 scripts/python_wheel.py --module "target/$PROFILE/lib_dlc.so" --out target/wheels &&
    python3 -m pip install -q --root-user-action=ignore --force-reinstall --no-deps \
      target/wheels/dlc-*.whl
}

python_tests() {
  python3 -m pytest -q python/tests
}

# The cargo tests, with cargo's "Running <binary>" lines kept so each binary's time can be read
# from its "test result: ... finished in Ns" line.
cargo_log=target/test-cargo.log
cargo_tests() {
  local status=0
  cargo test --workspace --profile "$PROFILE" --no-fail-fast -- -q 2>&1 | tee "$cargo_log" \
    || status=$?
  return "$status"
}

lit_tests() {
  local log status=0 passed failed
  log=$(mktemp)
  DLC_BIN_DIR="$BIN_DIR" python3 -c "import sys, lit.main; sys.exit(lit.main.main())" -sv test/ \
    tools/examples/downstream-dialect/test/ \
    2>&1 | tee "$log" || status=$?
  passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
  failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
  rm -f "$log"
  echo "lit: ${passed:-0} passed, ${failed:-0} failed"
  return "$status"
}

bench_smoke() {
  "$BIN_DIR/dlc-bench" --size smoke --runs 2 \
    --md target/bench/benchmarks.md --png target/bench/benchmarks.png
}

# The cargo tests keep the two cores only about 80% busy (binaries that start one after
# another, the ONNX export, the last cases of a binary): the Python wheel and tests, the lit
# suite, then the benchmark's smoke run (it checks that every workload runs; its times are not a
# measurement) run beside them and fill the gaps (docs/testing.md has the measurement). Their
# output follows.
wheel_log=target/test-python-wheel.log
pytest_log=target/test-pytest.log
lit_log=target/test-lit.log
bench_log=target/test-bench-smoke.log
beside_tests() {
  local status=0
  if beside "Python wheel and its install" "$wheel_log" python_wheel; then
    beside "pytest (python/tests)" "$pytest_log" python_tests || status=$?
  else
    status=1
    echo "not run: the wheel did not build or install" >"$pytest_log"
  fi
  beside "lit" "$lit_log" lit_tests || status=$?
  beside "benchmark smoke (the full run: docs/benchmarks.md)" "$bench_log" bench_smoke \
    || status=$?
  return "$status"
}

tests_and_the_rest() {
  local pid status=0 beside_status=0
  beside_tests &
  pid=$!
  cargo_tests || status=$?
  wait "$pid" || beside_status=$?
  echo "== Python wheel (built and installed beside the cargo tests)"
  cat "$wheel_log"
  echo "== pytest (ran beside the cargo tests)"
  cat "$pytest_log"
  echo "== lit (ran beside the cargo tests)"
  cat "$lit_log"
  echo "== benchmark smoke (ran beside the cargo tests)"
  cat "$bench_log"
  [ "$status" -ne 0 ] || status=$beside_status
  return "$status"
}

# The slowest test binaries: each "Running" line names a binary, the next "test result" line
# gives its time.
slowest_binaries() {
  awk '
    $1 == "Running" {
      # "Running tests/x.rs (target/checked/deps/x-0123abcd)" or "Running unittests src/lib.rs
      # (target/checked/deps/dlc_ir-0123abcd)": the binary without its hash.
      bin = $NF; sub(/\)$/, "", bin); sub(/.*\//, "", bin); sub(/-[0-9a-f]+$/, "", bin)
      name = ($2 == "unittests") ? bin " (unit tests)" : bin
    }
    $1 == "Doc-tests" { name = $2 " (doc tests)" }
    /^test result:/ && name != "" {
      t = $NF; sub(/s$/, "", t); printf "%8.1f s  %s\n", t, name; name = ""
    }' "$cargo_log" | sort -rn | head -n 8
}

summary() {
  echo "== timings ($(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, DLC_TEST_SCALE=${DLC_TEST_SCALE:-1})"
  # A part run beside a stage is recorded before the stage ends: print it after the stage.
  awk -F'\t' '$3 == "beside" { parts = parts sprintf("%8.1f s    beside it: %s\n", $2 / 1e9, $1); next }
    { printf "%8.1f s  %s\n%s", $2 / 1e9, $1, parts; parts = ""; total += $2 }
    END { printf "%8.1f s  total\n", total / 1e9 }' "$stages"
  if [ -s "$cargo_log" ]; then
    echo "slowest test binaries:"
    slowest_binaries
  fi
}
trap summary EXIT

stage "setup" bash scripts/setup.sh
stage "op-name comparisons (docs/architecture.md, Finding ops)" python3 scripts/op_name_comparisons.py
stage "crates marked without unit tests have none" python3 scripts/check_test_targets.py
stage "cargo build" build
stage "cargo test; the Python wheel and tests, lit and the benchmark smoke beside it" \
  tests_and_the_rest
