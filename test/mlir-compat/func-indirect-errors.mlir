// func.constant and func.call_indirect reject what mlir-opt-22 rejects, with its messages: a
// missing function, a type that is not the function's, arguments or results that do not match
// the callee's type, a callee that is not a function.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics
func.func @f(%a: i32) -> i32 {
  // expected-error @+1 {{'func.constant' op reference to undefined function 'g'}}
  %f = func.constant @g : (i32) -> i32
  return %a : i32
}
// -----
func.func @f(%a: i32) -> i32 {
  // expected-error @+1 {{'func.constant' op reference to function with mismatched type}}
  %f = func.constant @f : (i32) -> i64
  return %a : i32
}
// -----
func.func @f(%a: i32) -> i32 {
  %f = func.constant @f : (i32) -> i32
  // expected-error @+1 {{'func.call_indirect' op failed to verify that callee result types match result types}}
  %0 = "func.call_indirect"(%f, %a) : ((i32) -> i32, i32) -> i64
  return %a : i32
}
// -----
func.func @f(%a: i32) -> i32 {
  %f = func.constant @f : (i32) -> i32
  // expected-error @+1 {{'func.call_indirect' op failed to verify that callee input types match argument types}}
  %0 = "func.call_indirect"(%f, %a, %a) : ((i32) -> i32, i32, i32) -> i32
  return %a : i32
}
// -----
func.func @f(%a: i32) -> i32 {
  // expected-error @+1 {{'func.call_indirect' op operand #0 must be function type, but got 'i32'}}
  %0 = "func.call_indirect"(%a, %a) : (i32, i32) -> i32
  return %a : i32
}
