// Malformed f80 and f128 constants get mlir-opt-22's errors: both tools check the same
// expected diagnostics.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics

func.func @f() {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = arith.constant 1 : f80
  return
}

// -----

func.func @f() {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = arith.constant -7 : f128
  return
}

// -----

func.func @f() {
  // 81 bits: one more than an f80 has.
  // expected-error @+1 {{hexadecimal float constant out of range for type}}
  %0 = arith.constant 0x1FFFF8000000000000000 : f80
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{hexadecimal float constant out of range for type}}
  %0 = arith.constant dense<[1.0, 0x100000000000000000000]> : tensor<2xf80>
  return
}

// -----

func.func @f() {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = arith.constant dense<[1.5, 2]> : tensor<2xf128>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() {value = 1.5 : f80} : () -> f128
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() {value = dense<1.5> : tensor<2xf128>} : () -> tensor<2xf80>
  return
}
