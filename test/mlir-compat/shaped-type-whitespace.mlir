// Whitespace around the `x` of a shape is allowed, as in MLIR, and the type prints compactly.
// RUN: dlc-opt %s > %t.dlc
// RUN: mlir-opt %s > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK: func.func @f(%arg0: vector<4x4xf32>, %arg1: tensor<2x?xf32>) -> vector<4xi32>
func.func @f(%a: vector<4 x 4 x f32>, %b: tensor<2 x ? xf32>) -> vector<4 x i32> {
  %c = arith.constant dense<0> : vector<4 x i32>
  return %c : vector<4 x i32>
}
