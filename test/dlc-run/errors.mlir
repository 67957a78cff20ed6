// RUN: rm -rf %t && dlc-run %S/../../docs/examples/softmax.mlir --dynamic-size 4 --outputs %t
// RUN: not dlc-run %S/../../docs/examples/layer_norm.mlir --inputs %t/out0.npy,%t/out1.npy,%t/out0.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not dlc-run %S/../../docs/examples/softmax.mlir --inputs %t/out0.npy,%t/out1.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not dlc-run %s 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not dlc-run %S/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not dlc-run %S/../../docs/examples/softmax.mlir --inputs %S/missing.npy 2>&1 | FileCheck %s --check-prefix=NPY

// A wrong shape is an error before any kernel runs, never a crash.
// RANK: layer_norm.mlir: error: input 0 ('%arg0'): expected rank 3, got shape [4, 16]
// COUNT: softmax.mlir: error: expected 1 inputs, got 2
// PARSE: errors.mlir:[[@LINE+4]]:8: error: 'graph.add' op expected 2 operands, but found 1
// MISSING: cannot read '{{.*}}missing.mlir'
// NPY: missing.npy
func.func @broken(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.add %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
