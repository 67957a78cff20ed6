// Bad act ops are diagnosed at their location, and the tool exits with 1.
// RUN: split-file --leading-lines %s %t
// RUN: not act-opt %t/clamp.mlir 2>&1 | FileCheck %s --check-prefix=CLAMP
// RUN: not act-opt %t/int.mlir 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not act-opt %t/syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not act-opt %t/range.mlir 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not act-opt %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

//--- clamp.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CLAMP: clamp.mlir:[[@LINE+1]]:8: error: 'act.clamp' op low 6 exceeds high 0
  %y = act.clamp %x, range<6.0, 0.0> : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- int.mlir
func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  // INT: int.mlir:[[@LINE+1]]:8: error: 'act.hard_swish' op operand must be a tensor of floats
  %y = act.hard_swish %x : tensor<4xi32>
  return %y : tensor<4xi32>
}

//--- syntax.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // SYNTAX: syntax.mlir:[[@LINE+1]]:20: error: expected ','
  %y = act.scale %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- range.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // RANGE: range.mlir:[[@LINE+1]]:31: error: expected ','
  %y = act.clamp %x, range<0.0 6.0> : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- missing.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // MISSING: missing.mlir:[[@LINE+1]]:8: error: 'act.clamp' op requires a #act.range attribute 'range'
  %y = "act.clamp"(%x) {range = 6.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
