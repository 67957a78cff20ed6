# lit configuration of dlc's regression suite. Run from the repository root:
#   cargo build -p dlc-opt && lit -v test/
#
# RUN lines call `dlc-opt`, `FileCheck`, `not` and `mlir-opt` by name:
#   dlc-opt         $DLC_BIN_DIR, else target/release if it holds dlc-opt, else target/debug
#   FileCheck, not  $LLVM_BIN_DIR, else /usr/lib/llvm-22/bin
#   mlir-opt        mlir-opt in that LLVM directory, else mlir-opt-22 or mlir-opt on PATH

import os
import shutil

import lit.formats

config.name = "dlc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Output"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

repo = os.path.dirname(config.test_source_root)
# Temporary files (Output/ directories) go under target/, not into the source tree.
config.test_exec_root = os.path.join(repo, "target", "lit")


def dlc_bin_dir():
    if os.environ.get("DLC_BIN_DIR"):
        return os.environ["DLC_BIN_DIR"]
    release = os.path.join(repo, "target", "release")
    if os.path.isfile(os.path.join(release, "dlc-opt")):
        return release
    return os.path.join(repo, "target", "debug")


def require(directory, tool, hint):
    path = os.path.join(directory, tool)
    if not os.access(path, os.X_OK):
        lit_config.fatal(f"'{tool}' not found in {directory}; {hint}")
    return path


dlc_bin = dlc_bin_dir()
debug_opt = os.path.join(repo, "target", "debug", "dlc-opt")
if dlc_bin.endswith("release") and os.path.isfile(debug_opt):
    if os.path.getmtime(debug_opt) > os.path.getmtime(os.path.join(dlc_bin, "dlc-opt")):
        lit_config.warning("target/release/dlc-opt is older than target/debug/dlc-opt; "
                           "rebuild it or set DLC_BIN_DIR=target/debug")
llvm_bin = os.environ.get("LLVM_BIN_DIR") or "/usr/lib/llvm-22/bin"
dlc_opt = require(dlc_bin, "dlc-opt", "run 'cargo build -p dlc-opt' or set DLC_BIN_DIR")
require(llvm_bin, "FileCheck", "install LLVM 22 or set LLVM_BIN_DIR")
require(llvm_bin, "not", "install LLVM 22 or set LLVM_BIN_DIR")
lit_config.note(f"testing {dlc_opt}")

mlir_opt = (
    shutil.which("mlir-opt", path=llvm_bin)
    or shutil.which("mlir-opt-22")
    or shutil.which("mlir-opt")
)
if not mlir_opt:
    lit_config.fatal("mlir-opt not found: install mlir-22-tools or set LLVM_BIN_DIR")

config.environment["PATH"] = os.pathsep.join(
    [dlc_bin, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
# `mlir-opt` as a command word (not inside a path or flag) is the one found above.
config.substitutions.append((r"(?<![\w./-])mlir-opt(?![\w.-])", mlir_opt))
