#!/usr/bin/env bash
# Runs every dlc test: the cargo tests of the workspace, then the lit/FileCheck suite in test/
# against the freshly built dlc-opt. Installs what is missing first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== cargo test"
cargo test --workspace --quiet

echo "== lit"
cargo build --quiet -p dlc-opt
export DLC_BIN_DIR="$PWD/target/debug"
python3 -c "import sys, lit.main; sys.exit(lit.main.main())" -sv test/
