// Malformed 0-d and other vector types, malformed dimensions, dense constants that do not fit a
// 0-d vector, and arith ops whose 0-d vector operands and results do not agree: both tools report
// each chunk with the same expected diagnostic.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{failed to verify 'elementType': VectorElementTypeInterface instance}}
func.func private @f(%a: vector<vector<f32>>)

// -----

// expected-error @+1 {{failed to verify 'elementType': VectorElementTypeInterface instance}}
func.func private @f(%a: vector<complex<f32>>)

// -----

// expected-error @+1 {{failed to verify 'elementType': VectorElementTypeInterface instance}}
func.func private @f(%a: vector<none>)

// -----

// expected-error @+1 {{vector types must have positive constant sizes but got 0}}
func.func private @f(%a: vector<0xf32>)

// -----

// expected-error @+1 {{vector types must have positive constant sizes but got 2, 0}}
func.func private @f(%a: vector<2x0xf32>)

// -----

// expected-error @+1 {{vector types must have positive constant sizes but got 0}}
func.func private @f(%a: vector<[0]xf32>)

// -----

// expected-error @+1 {{expected '>' in vector type}}
func.func private @f(%a: vector<f32, i32>)

// -----

func.func @f() {
  // expected-error @+1 {{inferred shape of elements literal ([1]) does not match type ([])}}
  %0 = arith.constant dense<[1]> : vector<i32>
  return
}

// -----

func.func @f(%a: vector<i32>) {
  // expected-error @+1 {{'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpi"(%a, %a) {predicate = 0 : i64} : (vector<i32>, vector<i32>) -> vector<1xi1>
  return
}

// -----

func.func @f(%a: vector<i32>) {
  // expected-error @+1 {{'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands}}
  %0 = "arith.cmpi"(%a, %a) {predicate = 0 : i64} : (vector<i32>, vector<i32>) -> i1
  return
}

// -----

func.func @f(%a: vector<i32>, %b: vector<1xi32>) {
  // expected-error @+1 {{'arith.addi' op requires the same type for all operands and results}}
  %0 = "arith.addi"(%a, %b) : (vector<i32>, vector<1xi32>) -> vector<i32>
  return
}

// -----

func.func @f(%c: vector<1xi1>, %a: vector<i32>) {
  // expected-error @+1 {{'arith.select' op failed to verify that condition is signless i1 or has matching shape}}
  %0 = arith.select %c, %a, %a : vector<1xi1>, vector<i32>
  return
}

// -----

func.func @f(%a: vector<i32>) {
  // expected-error @+1 {{'arith.extsi' op requires the same shape for all operands and results}}
  %0 = arith.extsi %a : vector<i32> to vector<1xi64>
  return
}

// -----

func.func @f(%a: i32) {
  // expected-error @+1 {{'arith.extsi' op requires the same shape for all operands and results}}
  %0 = arith.extsi %a : i32 to vector<i64>
  return
}

// -----

func.func @f(%a: vector<f32>) {
  // expected-error @+1 {{'arith.addi' op operand #0 must be signless-integer-like, but got 'vector<f32>'}}
  %0 = arith.addi %a, %a : vector<f32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = dense<1> : vector<i32>}> : () -> vector<1xi32>
  return
}

// -----

func.func @f(%a: vector<f32>) {
  // expected-error @+1 {{'arith.bitcast' op operand type 'vector<f32>' and result type 'vector<i64>' are cast incompatible}}
  %0 = arith.bitcast %a : vector<f32> to vector<i64>
  return
}

// -----

func.func @f(%a: vector<i32>) {
  // expected-error @+1 {{'arith.addui_extended' op if an operand is non-scalar, then all results must be non-scalar}}
  %0:2 = arith.addui_extended %a, %a : vector<i32>, i1
  return
}

// -----

// expected-error @+1 {{invalid dimension}}
func.func private @f(%a: vector<[]xf32>)

// -----

// expected-error @+1 {{invalid dimension}}
func.func private @f(%a: vector<2x[?]xf32>)

// -----

// expected-error @+1 {{invalid dimension}}
func.func private @f(%a: vector<[9223372036854775808]xf32>)

// -----

// expected-error @+1 {{invalid dimension}}
func.func private @f(%a: tensor<2x99999999999999999999x4xf32>)

// -----

// expected-error @+1 {{missing ']' closing scalable dimension}}
func.func private @f(%a: vector<[2x]f32>)

// -----

// expected-error @+1 {{expected 'x' in dimension list}}
func.func private @f(%a: vector<2x[4]>)
