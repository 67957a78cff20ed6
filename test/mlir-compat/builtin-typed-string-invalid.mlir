// A typed string or an opaque attribute is not a number: arith.constant rejects one with
// mlir-opt-22's messages whether its type matches the result's or not. Both tools check the same
// expected diagnostics.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

func.func @f() {
  // expected-error @+1 {{'arith.constant' op value must be an integer, float, or elements attribute}}
  %0 = arith.constant "foo" : i32
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op value must be an integer, float, or elements attribute}}
  %0 = "arith.constant"() <{value = "foo" : i32}> : () -> i32
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = "foo"}> : () -> i32
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = "foo" : i64}> : () -> i32
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op value must be an integer, float, or elements attribute}}
  %0 = arith.constant #foo.x : i32
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op value must be an integer, float, or elements attribute}}
  %0 = "arith.constant"() <{value = "foo"}> : () -> none
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{expected non-function type}}
  "t.op"() {a = "foo" : } : () -> ()
  return
}
