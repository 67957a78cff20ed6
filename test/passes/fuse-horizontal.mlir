// RUN: dlc-opt %s --pipeline=fuse --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=fuse{horizontal=false} --split-input-file | FileCheck %s --check-prefix=OFF

// Rule 7: two independent elementwise chains read %x over the same loop nest (a `?` row
// count that is the same symbol): one fusion with two results, one kernel reading %x once.

// CHECK-LABEL: func.func @two_chains
// CHECK-NEXT:    %0:2 = graph.fusion (%arg0, %arg1, %arg2) : (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
// CHECK-NEXT:    ^bb0(%arg3: tensor<?x8xf32>, %arg4: tensor<?x8xf32>, %arg5: tensor<?x8xf32>):
// CHECK-NEXT:      %1 = graph.exp %arg3
// CHECK-NEXT:      %2 = graph.add %1, %arg4
// CHECK-NEXT:      %3 = graph.tanh %arg3
// CHECK-NEXT:      %4 = graph.mul %3, %arg5
// CHECK-NEXT:      graph.yield %2, %4 : tensor<?x8xf32>, tensor<?x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0#0, %0#1

// With the option off the two groups stay apart.
// OFF-LABEL: func.func @two_chains
// OFF:         %0 = graph.fusion (%arg0, %arg1)
// OFF:         %1 = graph.fusion (%arg0, %arg2)
func.func @two_chains(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>, %z: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = graph.exp %x : tensor<?x8xf32>
  %1 = graph.add %0, %y : tensor<?x8xf32>
  %2 = graph.tanh %x : tensor<?x8xf32>
  %3 = graph.mul %2, %z : tensor<?x8xf32>
  return %1, %3 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Counter-example: two matmul + bias groups read the same input over the same loop nest, but
// fusions with a matmul never merge (`tile` register-blocks one reduction per k loop).

// CHECK-LABEL: func.func @qkv
// CHECK:         %0 = graph.fusion (%arg0, %arg1, %arg2)
// CHECK:         %1 = graph.fusion (%arg0, %arg3, %arg4)
// CHECK:         return %0, %1
func.func @qkv(%x: tensor<?x8xf32>, %wq: tensor<8x8xf32>, %bq: tensor<8xf32>, %wk: tensor<8x8xf32>, %bk: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = graph.matmul %x, %wq : tensor<?x8xf32>, tensor<8x8xf32> -> tensor<?x8xf32>
  %1 = graph.add %0, %bq : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %2 = graph.matmul %x, %wk : tensor<?x8xf32>, tensor<8x8xf32> -> tensor<?x8xf32>
  %3 = graph.add %2, %bk : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  return %1, %3 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Counter-example: the same input, but the second matmul's result is 4x4, another loop nest.

// CHECK-LABEL: func.func @different_nests
// CHECK:         %0 = graph.fusion (%arg0, %arg1, %arg2) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK:         %1 = graph.fusion (%arg0, %arg3, %arg4) : (tensor<4x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<4x4xf32> {
func.func @different_nests(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %v: tensor<8x4xf32>, %c: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %0 = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %1 = graph.add %0, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = graph.matmul %x, %v : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %3 = graph.add %2, %c : tensor<4x4xf32>, tensor<4xf32> -> tensor<4x4xf32>
  return %1, %3 : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// Counter-example: both groups read %x over one loop nest, but the second depends on the
// first (through a transpose and a reshape), so they stay apart.

// CHECK-LABEL: func.func @dependent
// CHECK:         %0 = graph.fusion (%arg0, %arg1)
// CHECK:         %1 = graph.transpose %0
// CHECK:         %2 = graph.reshape %1
// CHECK:         %3 = graph.fusion (%2, %arg0)
func.func @dependent(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.add %0, %y : tensor<4x8xf32>
  %2 = graph.sqrt %1 : tensor<4x8xf32>
  %3 = graph.transpose %2 {perm = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %4 = graph.reshape %3 {shape = array<i64: 4, 8>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %5 = graph.mul %4, %x : tensor<4x8xf32>
  %6 = graph.tanh %5 : tensor<4x8xf32>
  return %6 : tensor<4x8xf32>
}
