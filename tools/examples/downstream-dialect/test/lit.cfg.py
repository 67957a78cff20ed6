# lit configuration of the downstream-dialect example's own tests. Run from the repository root
# after building the workspace: lit -v tools/examples/downstream-dialect/test
#
# RUN lines call `act-opt`, `dlc-run`, `FileCheck` and `not` by name: act-opt and dlc-run from
# $DLC_BIN_DIR, else target/debug; FileCheck and not from $LLVM_BIN_DIR, else /usr/lib/llvm-22/bin.

import os

import lit.formats

config.name = "downstream-dialect"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.abspath(os.path.join(config.test_source_root, "..", "..", "..", ".."))
config.test_exec_root = os.path.join(repo, "target", "lit-downstream-dialect")

bin_dir = os.environ.get("DLC_BIN_DIR") or os.path.join(repo, "target", "debug")
llvm_bin = os.environ.get("LLVM_BIN_DIR") or "/usr/lib/llvm-22/bin"
for directory, tool in [(bin_dir, "act-opt"), (bin_dir, "dlc-run"), (llvm_bin, "FileCheck")]:
    if not os.access(os.path.join(directory, tool), os.X_OK):
        lit_config.fatal(f"'{tool}' not found in {directory}: build the workspace or set DLC_BIN_DIR")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
