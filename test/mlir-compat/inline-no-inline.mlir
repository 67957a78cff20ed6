// `inline` keeps calls that MLIR's `no_inline` unit attribute marks, on the call or on the
// callee, and prints them as mlir-opt-22 does; the custom and the generic form match byte for
// byte.
// RUN: dlc-opt %s --pipeline='inline{default-pipeline=}' > %t.dlc
// RUN: mlir-opt %s --inline='default-pipeline=' > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline='inline{default-pipeline=}' -mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s --inline='default-pipeline=' -mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %s --pipeline=inline | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NEXT: %0 = call @sq(%arg0) {no_inline} : (i32) -> i32
// CHECK-NEXT: %1 = arith.muli %0, %0 : i32
// CHECK-NEXT: %2 = call @cube(%arg0) : (i32) -> i32

func.func private @sq(%a: i32) -> i32 {
  %0 = arith.muli %a, %a : i32
  return %0 : i32
}
func.func private @cube(%a: i32) -> i32 attributes {no_inline} {
  %0 = arith.muli %a, %a : i32
  %1 = arith.muli %0, %a : i32
  return %1 : i32
}
func.func @main(%x: i32) -> (i32, i32, i32) {
  %0 = func.call @sq(%x) {no_inline} : (i32) -> i32
  %1 = func.call @sq(%0) : (i32) -> i32
  %2 = func.call @cube(%x) : (i32) -> i32
  return %0, %1, %2 : i32, i32, i32
}
