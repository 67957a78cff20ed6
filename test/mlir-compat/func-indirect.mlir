// func.constant and func.call_indirect print as mlir-opt-22 prints them (every function
// constant is `%f`), and canonicalize turns an indirect call of a known function into a direct
// call (dropping the call's other attributes, as MLIR does) while a call through a block
// argument stays indirect.
// RUN: dlc-opt %s > %t.dlc
// RUN: mlir-opt %s > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s -mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s -mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc.canon
// RUN: mlir-opt %s --canonicalize > %t.mlir.canon
// RUN: diff %t.dlc.canon %t.mlir.canon
// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @direct
// CHECK-NEXT: %0:2 = call @g(%arg0) : (i32) -> (i32, f32)
// CHECK-NEXT: %1:2 = call @g(%arg0) : (i32) -> (i32, f32)
// CHECK-LABEL: func.func @through_argument
// CHECK-NEXT: %0 = call_indirect %arg0(%arg1) : (i32) -> i32
func.func private @g(i32) -> (i32, f32)
func.func private @h(i32) -> i32
func.func @direct(%a: i32) -> (i32, f32) {
  %f = func.constant @g : (i32) -> (i32, f32)
  %g = func.constant {foo} @g : (i32) -> (i32, f32)
  %0:2 = func.call_indirect %f(%a) {bar} : (i32) -> (i32, f32)
  %1:2 = func.call_indirect %g(%a) : (i32) -> (i32, f32)
  return %0#0, %1#1 : i32, f32
}
func.func @through_argument(%fn: (i32) -> i32, %a: i32) -> i32 {
  %0 = func.call_indirect %fn(%a) : (i32) -> i32
  return %0 : i32
}
func.func @unused_constant() -> ((i32) -> i32) {
  %f = func.constant @h : (i32) -> i32
  %f2 = func.constant @h : (i32) -> i32
  return %f : (i32) -> i32
}
