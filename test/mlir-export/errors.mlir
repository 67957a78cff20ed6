// RUN: not dlc-opt %s --emit=mlir 2>&1 | FileCheck %s

// Graph-level programs must be lowered before they can be exported: the error points at the
// first value whose type has no MLIR counterpart in loop kernels.

// CHECK: error: type 'tensor<4xf32>' has no MLIR counterpart in loop kernels
func.func @graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
