// The verifier rejects misuse of the added arith ops with mlir-opt-22's messages: both tools
// check the same expected diagnostics.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics
func.func @f(%a: i32) {
  // expected-error @+1 {{'arith.addui_extended' op result #1 must be bool-like, but got 'i32'}}
  %0:2 = arith.addui_extended %a, %a : i32, i32
  return
}
// -----
func.func @f(%v: vector<4xi32>) {
  // expected-error @+1 {{'arith.addui_extended' op if an operand is non-scalar, then all results must be non-scalar}}
  %0:2 = arith.addui_extended %v, %v : vector<4xi32>, i1
  return
}
// -----
func.func @f(%a: f32) {
  // expected-error @+1 {{'arith.mulsi_extended' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0:2 = arith.mulsi_extended %a, %a : f32
  return
}
// -----
func.func @f(%a: i32) {
  // expected-error @+1 {{'arith.mulsi_extended' op failed to verify that all of {lhs, rhs, low, high} have same type}}
  %0:2 = "arith.mulsi_extended"(%a, %a) : (i32, i32) -> (i32, i64)
  return
}
// -----
func.func @f(%a: i32) {
  // expected-error @+1 {{'arith.addui_extended' op failed to verify that all of {lhs, rhs, sum} have same type}}
  %0:2 = "arith.addui_extended"(%a, %a) : (i32, i32) -> (i64, i1)
  return
}
// -----
func.func @f(%a: i32) {
  // expected-error @+1 {{'arith.uitofp' op result #0 must be floating-point-like, but got 'i32'}}
  %0 = arith.uitofp %a : i32 to i32
  return
}
// -----
func.func @f(%a: i32) {
  // expected-error @+1 {{'arith.index_castui' op operand type 'i32' and result type 'i64' are cast incompatible}}
  %0 = arith.index_castui %a : i32 to i64
  return
}
// -----
func.func @f(%a: f32) {
  // expected-error @+1 {{'arith.fptoui' op result #0 must be signless-fixed-width-integer-like, but got 'index'}}
  %0 = arith.fptoui %a : f32 to index
  return
}
// -----
func.func @f(%a: f32) {
  // expected-error @+1 {{'arith.ceildivsi' op operand #0 must be signless-integer-like, but got 'f32'}}
  %0 = arith.ceildivsi %a, %a : f32
  return
}
// -----
func.func @f(%a: i32) {
  // expected-error @+1 {{'arith.maxnumf' op operand #0 must be floating-point-like, but got 'i32'}}
  %0 = arith.maxnumf %a, %a : i32
  return
}
// -----
func.func @f(%a: vector<4xi32>) {
  // expected-error @+1 {{'arith.uitofp' op requires the same shape for all operands and results}}
  %0 = "arith.uitofp"(%a) : (vector<4xi32>) -> vector<3xf32>
  return
}
