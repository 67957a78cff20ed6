// act.scale by 1 folds to its operand; any other factor stays.
// RUN: act-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @unit_factor
func.func @unit_factor(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: act.scale
  // CHECK: return %arg0
  %y = act.scale %x, 1.0 : tensor<4xf32>
  return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @other_factor
func.func @other_factor(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[Y:.*]] = act.scale %arg0, -1.000000e+00
  // CHECK: return %[[Y]]
  %y = act.scale %x, -1.0 : tensor<4xf32>
  return %y : tensor<4xf32>
}
