// A `truncf` rounding mode must be one of MLIR's five: both tools reject the others with
// mlir-opt-22's messages, in the custom form (a string, a dictionary entry) and the generic one.
// Other casts take no rounding mode.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics
func.func @f(%x: f32) -> f16 {
  // expected-error @+1 {{invalid roundingmode attribute specification: "sideways"}}
  %0 = arith.truncf %x "sideways" : f32 to f16
  return %0 : f16
}
// -----
func.func @f(%x: f32) -> f16 {
  // expected-error @+1 {{'arith.truncf' op attribute 'roundingmode' failed to satisfy constraint: Floating point rounding mode}}
  %0 = arith.truncf %x {roundingmode = 7 : i32} : f32 to f16
  return %0 : f16
}
// -----
func.func @f(%x: f32) -> f16 {
  // expected-error @+1 {{'arith.truncf' op attribute 'roundingmode' failed to satisfy constraint: Floating point rounding mode}}
  %0 = arith.truncf %x {roundingmode = 1 : i64} : f32 to f16
  return %0 : f16
}
// -----
func.func @f(%x: f32) -> f16 {
  // expected-error @+1 {{invalid properties {roundingmode = 5 : i32} for op arith.truncf: Invalid attribute `roundingmode` in property conversion: 5 : i32}}
  %0 = "arith.truncf"(%x) <{roundingmode = 5 : i32}> : (f32) -> f16
  return %0 : f16
}
// -----
func.func @f(%x: f32) -> f16 {
  // expected-error @+1 {{invalid properties {fastmath = #arith.fastmath<fast>, roundingmode = -1 : i32} for op arith.truncf: Invalid attribute `roundingmode` in property conversion: -1 : i32}}
  %0 = "arith.truncf"(%x) <{fastmath = #arith.fastmath<fast>, roundingmode = -1 : i32}> : (f32) -> f16
  return %0 : f16
}
// -----
func.func @f(%x: f32) -> f16 {
  // expected-error @+1 {{Invalid attribute `roundingmode` in property conversion: "upward"}}
  %0 = "arith.truncf"(%x) <{roundingmode = "upward"}> : (f32) -> f16
  return %0 : f16
}
// -----
func.func @f(%x: f32) -> f16 {
  // The mode comes before the flags; after them it is no keyword the op knows.
  // expected-error @+1 {{expected ':'}}
  %0 = arith.truncf %x fastmath<fast> downward : f32 to f16
  return %0 : f16
}
// -----
func.func @f(%x: f16) -> f32 {
  // expected-error @+1 {{expected ':'}}
  %0 = arith.extf %x downward : f16 to f32
  return %0 : f32
}
// -----
func.func @f(%x: f32) -> f32 {
  // expected-error @+1 {{'arith.truncf' op operand type 'f32' and result type 'f32' are cast incompatible}}
  %0 = arith.truncf %x downward : f32 to f32
  return %0 : f32
}
