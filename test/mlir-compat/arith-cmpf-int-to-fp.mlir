// `CmpFIntToFPConst`: a float comparison of sitofp/uitofp(x) with a float constant becomes an
// integer comparison of x or a constant, exactly as mlir-opt-22's canonicalizer does it. (Checked
// against mlir-opt-22 over every type pair of i1..i128 and f16/bf16/f32/f64, both conversions,
// 14 predicates and 32 constants; `false` and `true` predicates are left out because
// mlir-opt-22 crashes on them, dlc leaves them alone.)
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK-LABEL: func.func @unsigned_le_zero
// CHECK: %[[C:.*]] = arith.constant 0 : i32
// CHECK: arith.cmpi ule, %arg0, %[[C]] : i32
func.func @unsigned_le_zero(%x: i32) -> i1 {
  %c = arith.constant 0.0 : f64
  %f = arith.uitofp %x : i32 to f64
  %r = arith.cmpf ole, %f, %c : f64
  return %r : i1
}

// A fractional constant: x < 4.4 is x <= 4; x == 4.4 is false.
// CHECK-LABEL: func.func @fractional
// CHECK-DAG: %false = arith.constant false
// CHECK-DAG: %[[C:.*]] = arith.constant 4 : i16
// CHECK: arith.cmpi sle, %arg0, %[[C]] : i16
func.func @fractional(%x: i16) -> (i1, i1) {
  %c = arith.constant 4.4 : f32
  %f = arith.sitofp %x : i16 to f32
  %lt = arith.cmpf olt, %f, %c : f32
  %eq = arith.cmpf oeq, %f, %c : f32
  return %lt, %eq : i1, i1
}

// Beyond the integer's range, the constant decides alone.
// CHECK-LABEL: func.func @out_of_range
// CHECK-DAG: %true = arith.constant true
// CHECK-DAG: %false = arith.constant false
func.func @out_of_range(%x: i8) -> (i1, i1, i1) {
  %big = arith.constant 300.0 : f32
  %neg = arith.constant -1.5 : f32
  %s = arith.sitofp %x : i8 to f32
  %u = arith.uitofp %x : i8 to f32
  %a = arith.cmpf olt, %s, %big : f32
  %b = arith.cmpf ugt, %u, %neg : f32
  %c = arith.cmpf oeq, %u, %big : f32
  return %a, %b, %c : i1, i1, i1
}

// A converted integer is never NaN: ord is true, uno false.
// CHECK-LABEL: func.func @ordered
// CHECK-DAG: %true = arith.constant true
// CHECK-DAG: %false = arith.constant false
func.func @ordered(%x: i32) -> (i1, i1) {
  %c = arith.constant 1.0 : f64
  %f = arith.sitofp %x : i32 to f64
  %o = arith.cmpf ord, %f, %c : f64
  %u = arith.cmpf uno, %f, %c : f64
  return %o, %u : i1, i1
}

// Counter-examples: the conversion may round (i64 to f32 near 2^40), the constant's integer
// part does not fit (i32 max as f32 is 2^31), or the operands are vectors. (A NaN constant is
// left to cmpf's own fold.)
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: arith.cmpf
func.func @kept(%x: i64, %y: i32, %v: vector<4xi32>) -> (i1, i1, i1, vector<4xi1>) {
  %big = arith.constant 1099511627776.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %edge = arith.constant 2147483648.0 : f32
  %s = arith.sitofp %x : i64 to f32
  %a = arith.cmpf olt, %s, %big : f32
  %t = arith.sitofp %y : i32 to f32
  %b = arith.cmpf olt, %t, %nan : f32
  %c = arith.cmpf oeq, %t, %edge : f32
  %cv = arith.constant dense<1.0> : vector<4xf32>
  %w = arith.sitofp %v : vector<4xi32> to vector<4xf32>
  %d = arith.cmpf olt, %w, %cv : vector<4xf32>
  return %a, %b, %c, %d : i1, i1, i1, vector<4xi1>
}

// Infinity against an integer the format cannot overflow from (i16 to f16 can: 65535 rounds
// to inf in f16, so that comparison stays).
// CHECK-LABEL: func.func @infinity
func.func @infinity(%x: i8, %y: i16) -> (i1, i1) {
  %inf = arith.constant 0x7C00 : f16
  %s = arith.sitofp %x : i8 to f16
  %a = arith.cmpf olt, %s, %inf : f16
  %u = arith.uitofp %y : i16 to f16
  %b = arith.cmpf olt, %u, %inf : f16
  return %a, %b : i1, i1
}
