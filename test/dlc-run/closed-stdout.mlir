// A reader that stops early (`| head`) closes dlc-run's stdout: dlc-run ends quietly with
// status 0 instead of panicking on the broken pipe. A real pipe needs a real shell (lit's own
// shell buffers the whole output), with pipefail so dlc-run's status counts.
// RUN: bash -c 'set -o pipefail; dlc-run "$0" --print-kernels | head -n 1' %s | FileCheck %s --check-prefix=OUT
// RUN: python3 %S/../onnx/Inputs/models.py %t
// RUN: bash -c 'set -o pipefail; dlc-import "$0" | head -n 1' %t/cnn.onnx | FileCheck %s --check-prefix=IMPORT

// OUT: closed-stdout.mlir: 1 kernels
// IMPORT: module {

func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = graph.exp %x : tensor<64x64xf32>
  %1 = graph.add %0, %x : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
