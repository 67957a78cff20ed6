// RUN: dlc-opt %s --allow-unregistered-dialect | dlc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | dlc-opt --allow-unregistered-dialect | FileCheck %s

// Builtin types round-trip through dlc-opt's custom and generic forms, printed as mlir-opt
// prints them.

// CHECK-LABEL: func.func @integers(%arg0: i1, %arg1: i8, %arg2: i16, %arg3: i32, %arg4: i64) -> (i1, i8, i16, i32, i64) {
// CHECK-NEXT: return %arg0, %arg1, %arg2, %arg3, %arg4 : i1, i8, i16, i32, i64
// CHECK-NEXT: }
func.func @integers(%a: i1, %b: i8, %c: i16, %d: i32, %e: i64) -> (i1, i8, i16, i32, i64) {
  return %a, %b, %c, %d, %e : i1, i8, i16, i32, i64
}

// CHECK-LABEL: func.func @odd_widths(%arg0: i2, %arg1: i7, %arg2: i33, %arg3: i128, %arg4: i1024) -> i7 {
// CHECK-NEXT: return %arg1 : i7
// CHECK-NEXT: }
func.func @odd_widths(%a: i2, %b: i7, %c: i33, %d: i128, %e: i1024) -> i7 {
  return %b : i7
}

// CHECK-LABEL: func.func @index_and_none(%arg0: index, %arg1: none) -> (index, none) {
// CHECK-NEXT: return %arg0, %arg1 : index, none
// CHECK-NEXT: }
func.func @index_and_none(%a: index, %b: none) -> (index, none) {
  return %a, %b : index, none
}

// CHECK-LABEL: func.func @floats(%arg0: f16, %arg1: bf16, %arg2: f32, %arg3: f64) -> (f64, f32, bf16, f16) {
// CHECK-NEXT: return %arg3, %arg2, %arg1, %arg0 : f64, f32, bf16, f16
// CHECK-NEXT: }
func.func @floats(%a: f16, %b: bf16, %c: f32, %d: f64) -> (f64, f32, bf16, f16) {
  return %d, %c, %b, %a : f64, f32, bf16, f16
}

// CHECK-LABEL: func.func @tensors(%arg0: tensor<4xf32>, %arg1: tensor<?xi8>, %arg2: tensor<2x?x3xindex>, %arg3: tensor<f64>, %arg4: tensor<0x4xi1>, %arg5: tensor<?x?xbf16>) -> tensor<f64> {
// CHECK-NEXT: return %arg3 : tensor<f64>
// CHECK-NEXT: }
func.func @tensors(%a: tensor<4xf32>, %b: tensor<?xi8>, %c: tensor<2x?x3xindex>, %d: tensor<f64>, %e: tensor<0x4xi1>, %f: tensor<?x?xbf16>) -> tensor<f64> {
  return %d : tensor<f64>
}

// CHECK-LABEL: func.func @vectors(%arg0: vector<4xf32>, %arg1: vector<2x3xi1>, %arg2: vector<1x1x8xf16>, %arg3: vector<3xindex>) -> vector<4xf32> {
// CHECK-NEXT: return %arg0 : vector<4xf32>
// CHECK-NEXT: }
func.func @vectors(%a: vector<4xf32>, %b: vector<2x3xi1>, %c: vector<1x1x8xf16>, %d: vector<3xindex>) -> vector<4xf32> {
  return %a : vector<4xf32>
}

// CHECK-LABEL: func.func private @function_types(() -> (), (i32) -> i32, (i32, f32) -> (i1, i8)) -> ((i32) -> (f32, (i1) -> i8))
func.func private @function_types(() -> (), (i32) -> i32, (i32, f32) -> (i1, i8)) -> ((i32) -> (f32, (i1) -> i8))

// CHECK-LABEL: func.func private @nested_function_types(((i32) -> i64) -> ((f32) -> f64), (() -> ()) -> ()) -> (() -> (() -> ()))
func.func private @nested_function_types(((i32) -> i64) -> ((f32) -> f64), (() -> ()) -> ()) -> (() -> (() -> ()))

// CHECK-LABEL: func.func @types_of_generic_ops() {
// CHECK-NEXT: %0:4 = "t.types"() : () -> (i3, tensor<2x?xf16>, vector<8xbf16>, (index) -> none)
// CHECK-NEXT: "t.use"(%0#3, %0#1) : ((index) -> none, tensor<2x?xf16>) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @types_of_generic_ops() {
  %0:4 = "t.types"() : () -> (i3, tensor<2x?xf16>, vector<8xbf16>, (index) -> none)
  "t.use"(%0#3, %0#1) : ((index) -> none, tensor<2x?xf16>) -> ()
  return
}
