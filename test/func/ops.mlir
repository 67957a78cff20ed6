// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s

// func.func, func.call and func.return round-trip in custom and generic form, printed as
// mlir-opt prints them.

// CHECK-LABEL: func.func @no_args_no_results() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @no_args_no_results() {
  return
}

// CHECK-LABEL: func.func @one_result(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
func.func @one_result(%arg0: i32) -> i32 {
  return %arg0 : i32
}

// CHECK-LABEL: func.func @multiple_results(%arg0: i32, %arg1: f32, %arg2: tensor<2xf32>) -> (tensor<2xf32>, i32, f32) {
// CHECK-NEXT: return %arg2, %arg0, %arg1 : tensor<2xf32>, i32, f32
// CHECK-NEXT: }
func.func @multiple_results(%a: i32, %b: f32, %c: tensor<2xf32>) -> (tensor<2xf32>, i32, f32) {
  return %c, %a, %b : tensor<2xf32>, i32, f32
}

// CHECK-LABEL: func.func @function_typed(%arg0: (i32) -> i32) -> ((i32) -> i32) {
// CHECK-NEXT: return %arg0 : (i32) -> i32
// CHECK-NEXT: }
func.func @function_typed(%f: (i32) -> i32) -> ((i32) -> i32) {
  return %f : (i32) -> i32
}

// CHECK-LABEL: func.func private @private_declaration(i32, f32) -> (i1, i8)
func.func private @private_declaration(i32, f32) -> (i1, i8)

// CHECK-LABEL: func.func nested @nested_visibility() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func nested @nested_visibility() {
  return
}

// CHECK-LABEL: func.func public @explicitly_public() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func public @explicitly_public() {
  return
}

// CHECK-LABEL: func.func private @private_definition(%arg0: index) -> index {
// CHECK-NEXT: return %arg0 : index
// CHECK-NEXT: }
func.func private @private_definition(%x: index) -> index {
  return %x : index
}

// CHECK-LABEL: func.func @"quoted name with spaces"() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @"quoted name with spaces"() {
  return
}

// CHECK-LABEL: func.func @argument_and_result_attributes(%arg0: i32 {dlc.align = 16 : i64, dlc.noalias}, %arg1: f32, %arg2: i8 {dlc.name = "c"}) -> (i32 {dlc.result}, f32) {
// CHECK-NEXT: return %arg0, %arg1 : i32, f32
// CHECK-NEXT: }
func.func @argument_and_result_attributes(%a: i32 {dlc.noalias, dlc.align = 16 : i64}, %b: f32, %c: i8 {dlc.name = "c"}) -> (i32 {dlc.result}, f32) {
  return %a, %b : i32, f32
}

// CHECK-LABEL: func.func private @declaration_with_attributes(i32 {dlc.arg}) -> (i32 {dlc.res = 1 : i32})
func.func private @declaration_with_attributes(i32 {dlc.arg}) -> (i32 {dlc.res = 1 : i32})

// CHECK-LABEL: func.func @function_attributes() attributes {dlc.inline, dlc.level = 3 : i32, llvm.emit_c_interface} {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @function_attributes() attributes {dlc.inline, dlc.level = 3 : i32, llvm.emit_c_interface} {
  return
}

// CHECK-LABEL: func.func @calls(%arg0: i32, %arg1: f32) -> (i32, f32) {
// CHECK-NEXT: call @no_args_no_results() : () -> ()
// CHECK-NEXT: %0 = call @one_result(%arg0) : (i32) -> i32
// CHECK-NEXT: %1:2 = call @calls(%0, %arg1) : (i32, f32) -> (i32, f32)
// CHECK-NEXT: call @"quoted name with spaces"() {dlc.tail} : () -> ()
// CHECK-NEXT: %2:2 = call @private_declaration(%1#0, %1#1) : (i32, f32) -> (i1, i8)
// CHECK-NEXT: return %1#0, %1#1 : i32, f32
// CHECK-NEXT: }
func.func @calls(%a: i32, %b: f32) -> (i32, f32) {
  func.call @no_args_no_results() : () -> ()
  %0 = call @one_result(%a) : (i32) -> i32
  %1:2 = call @calls(%0, %b) : (i32, f32) -> (i32, f32)
  func.call @"quoted name with spaces"() {dlc.tail} : () -> ()
  %2:2 = call @private_declaration(%1#0, %1#1) : (i32, f32) -> (i1, i8)
  return %1#0, %1#1 : i32, f32
}

// CHECK-LABEL: func.func @return_with_attributes(%arg0: i32) -> i32 {
// CHECK-NEXT: return {dlc.note = "x"} %arg0 : i32
// CHECK-NEXT: }
func.func @return_with_attributes(%a: i32) -> i32 {
  return {dlc.note = "x"} %a : i32
}

// CHECK-LABEL: func.func @written_generically(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @written_generically(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
func.func @written_generically(%a: i32) -> i32 {
  %0 = "func.call"(%a) <{callee = @written_generically}> : (i32) -> i32
  "func.return"(%0) : (i32) -> ()
}

// CHECK-LABEL: func.func private @whole_function_generic(%arg0: i64 {dlc.x}) -> i64 attributes {dlc.extra = 1 : i32} {
// CHECK-NEXT: return %arg0 : i64
// CHECK-NEXT: }
"func.func"() <{function_type = (i64) -> i64, sym_name = "whole_function_generic", sym_visibility = "private", arg_attrs = [{dlc.x}], res_attrs = [{}]}> ({
^bb0(%arg0: i64):
  "func.return"(%arg0) : (i64) -> ()
}) {dlc.extra = 1 : i32} : () -> ()
