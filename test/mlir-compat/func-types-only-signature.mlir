// A function with a types-only signature may have a body whose explicit entry block names the
// arguments; it prints with the usual named signature, as mlir-opt-22 prints it. The entry
// block must match the signature (func-types-only-signature-invalid.mlir).
// RUN: dlc-opt %s > %t.dlc
// RUN: mlir-opt %s > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK: func.func @f(%arg0: f32, %arg1: i32) -> f32 {
// CHECK-NEXT: return %arg0 : f32
func.func @f(f32, i32) -> f32 {
^bb0(%a: f32, %b: i32):
  return %a : f32
}

// Any entry block label will do; a declaration keeps its types-only form.
// CHECK: func.func @g(%arg0: i1) -> i1 {
// CHECK-NEXT: return %arg0 : i1
// CHECK: func.func private @h(i32)
func.func @g(i1) -> i1 {
^entry(%c: i1):
  return %c : i1
}
func.func private @h(i32)
