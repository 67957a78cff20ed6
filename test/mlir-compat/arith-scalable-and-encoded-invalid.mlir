// The arith verifier's checks on scalable vectors and signed constants, with mlir-opt-22's
// messages: both tools check the same expected diagnostics.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics
func.func @f() {
  // expected-error @+1 {{'arith.constant' op intializing scalable vectors with elements attribute is not supported unless it's a vector splat}}
  %c = arith.constant dense<[1, 2]> : vector<[2]xi32>
  return
}
// -----
func.func @f(%a: vector<[4]xi32>) {
  // expected-error @+1 {{'arith.sitofp' op requires the same shape for all operands and results}}
  %0 = arith.sitofp %a : vector<[4]xi32> to vector<4xf32>
  return
}
// -----
func.func @f(%a: vector<4xf32>) {
  // expected-error @+1 {{'arith.fptosi' op requires the same shape for all operands and results}}
  %0 = arith.fptosi %a : vector<4xf32> to vector<[4]xi32>
  return
}
// -----
func.func @f(%a: vector<2x[4]xf32>) {
  // expected-error @+1 {{'arith.extf' op requires the same shape for all operands and results}}
  %0 = arith.extf %a : vector<2x[4]xf32> to vector<2x4xf64>
  return
}
// -----
func.func @f(%a: vector<[4]xi32>, %m: vector<4xi1>) {
  // expected-error @+1 {{'arith.select' op all non-scalar operands/results must have the same shape and base type}}
  %0 = arith.select %m, %a, %a : vector<4xi1>, vector<[4]xi32>
  return
}
// -----
func.func @f() {
  // expected-error @+1 {{'arith.constant' op integer return type must be signless}}
  %c = arith.constant 0 : ui32
  return
}
// -----
func.func @f() {
  // expected-error @+1 {{'arith.constant' op integer return type must be signless}}
  %c = arith.constant 7 : si8
  return
}
