// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// The graph folders, run by the canonicalize pass: identities and constant folding of small
// tensors (folded constants become graph.constant).

// x + (-0.0) and 0 + i fold; x + (+0.0) does not (it would turn -0.0 into +0.0).
// CHECK-LABEL: func.func @add_zero(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
// CHECK-NEXT: %0 = graph.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %1 = graph.add %arg0, %0 : tensor<4xf32>
// CHECK-NEXT: return %arg0, %arg1, %1 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
// CHECK-NEXT: }
func.func @add_zero(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %z = graph.constant dense<-0.0> : tensor<4xf32>
  %p = graph.constant dense<0.0> : tensor<4xf32>
  %zi = graph.constant dense<0> : tensor<4xi32>
  %0 = graph.add %x, %z : tensor<4xf32>
  %1 = graph.add %zi, %i : tensor<4xi32>
  %2 = graph.add %x, %p : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// An identity folds only when the operand has the result type: here x + 0 broadcasts.
// CHECK-LABEL: func.func @add_zero_broadcasts(%arg0: tensor<4xf32>) -> tensor<2x4xf32> {
// CHECK-NEXT: %0 = graph.constant dense<-0.000000e+00> : tensor<2x4xf32>
// CHECK-NEXT: %1 = graph.add %arg0, %0 : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %1 : tensor<2x4xf32>
// CHECK-NEXT: }
func.func @add_zero_broadcasts(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  %z = graph.constant dense<-0.0> : tensor<2x4xf32>
  %0 = graph.add %x, %z : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// x - (+0.0) and i / 1 fold.
// CHECK-LABEL: func.func @sub_div_zero_one(%arg0: tensor<4xf32>, %arg1: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
// CHECK-NEXT: return %arg0, %arg1 : tensor<4xf32>, tensor<4xi64>
// CHECK-NEXT: }
func.func @sub_div_zero_one(%x: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %z = graph.constant dense<0.0> : tensor<4xf32>
  %o = graph.constant dense<1> : tensor<4xi64>
  %0 = graph.sub %x, %z : tensor<4xf32>
  %1 = graph.div %i, %o : tensor<4xi64>
  return %0, %1 : tensor<4xf32>, tensor<4xi64>
}

// 1 * x and i * 1 fold (the constant on either side).
// CHECK-LABEL: func.func @mul_one(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
// CHECK-NEXT: return %arg0, %arg1 : tensor<4xf32>, tensor<4xi32>
// CHECK-NEXT: }
func.func @mul_one(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %one = graph.constant dense<1.0> : tensor<4xf32>
  %onei = graph.constant dense<1> : tensor<4xi32>
  %0 = graph.mul %one, %x : tensor<4xf32>
  %1 = graph.mul %i, %onei : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// x * 0 is not 0 for floats (NaN, inf, -0.0).
// CHECK-LABEL: func.func @mul_zero_float_stays(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = graph.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %1 = graph.mul %arg0, %0 : tensor<4xf32>
// CHECK-NEXT: return %1 : tensor<4xf32>
// CHECK-NEXT: }
func.func @mul_zero_float_stays(%x: tensor<4xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  %z = graph.constant dense<0.0> : tensor<4xf32>
  %0 = graph.mul %x, %z : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @neg_neg(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: return %arg0 : tensor<4xf32>
// CHECK-NEXT: }
func.func @neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.neg %x : tensor<4xf32>
  %1 = graph.neg %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Two transposes become one with the composed permutation, or nothing when it is the identity.
// CHECK-LABEL: func.func @transpose_transpose(%arg0: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
// CHECK-NEXT: %0 = graph.transpose %arg0 {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: return %0, %arg0, %arg0 : tensor<3x4x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
// CHECK-NEXT: }
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = graph.transpose %0 {perm = array<i64: 2, 0, 1>} : tensor<4x2x3xf32> -> tensor<3x4x2xf32>
  %2 = graph.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  %3 = graph.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %1, %2, %3 : tensor<3x4x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// reshape(reshape(x)) reshapes x once; a reshape to the same shape (a -1 for the one ? dim) is x.
// CHECK-LABEL: func.func @reshape_reshape(%arg0: tensor<2x3x4xf32>, %arg1: tensor<?x4xf32>) -> (tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<?x4xf32>) {
// CHECK-NEXT: %0 = graph.reshape %arg0 {shape = array<i64: 4, -1>} : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %0, %arg0, %arg1 : tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<?x4xf32>
// CHECK-NEXT: }
func.func @reshape_reshape(%x: tensor<2x3x4xf32>, %d: tensor<?x4xf32>) -> (tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<?x4xf32>) {
  %0 = graph.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = graph.reshape %0 {shape = array<i64: 4, -1>} : tensor<6x4xf32> -> tensor<4x6xf32>
  %2 = graph.reshape %0 {shape = array<i64: 2, 3, 4>} : tensor<6x4xf32> -> tensor<2x3x4xf32>
  %3 = graph.reshape %d {shape = array<i64: -1, 4>} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %1, %2, %3 : tensor<4x6xf32>, tensor<2x3x4xf32>, tensor<?x4xf32>
}

// broadcast_to the same static shape, full-range slices (negative starts, clamped ends, i64 max on ? dims) and casts to the same type fold away.
// CHECK-LABEL: func.func @identities(%arg0: tensor<2x3xf32>, %arg1: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>) {
// CHECK-NEXT: %0 = graph.slice %arg0 {ends = array<i64: 2, 2>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x2xf32>
// CHECK-NEXT: return %arg0, %arg0, %arg1, %arg0, %0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>
// CHECK-NEXT: }
func.func @identities(%x: tensor<2x3xf32>, %d: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>) {
  %0 = graph.broadcast_to %x {shape = array<i64: 2, 3>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = graph.slice %0 {ends = array<i64: 2, 100>, starts = array<i64: -2, 0>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = graph.slice %d {ends = array<i64: 9223372036854775807, 3>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<?x3xf32> -> tensor<?x3xf32>
  %3 = graph.cast %1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %4 = graph.slice %x {ends = array<i64: 2, 2>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %1, %3, %2, %0, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>
}

// Small dense constants fold through elementwise ops, with broadcasting.
// CHECK-LABEL: func.func @constant_fold_float() -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<3xf32>) {
// CHECK-NEXT: %0 = graph.constant dense<{{\[\[}}-1.100000e+01, -4.400000e+01, -9.900000e+01], [-5.600000e+01, -1.250000e+02, -2.160000e+02]]> : tensor<2x3xf32>
// CHECK-NEXT: %1 = graph.constant dense<false> : tensor<2x3xi1>
// CHECK-NEXT: %2 = graph.constant dense<[2.300000e+01, 8.700000e+01, 2.390000e+02]> : tensor<3xf32>
// CHECK-NEXT: return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<3xf32>
// CHECK-NEXT: }
func.func @constant_fold_float() -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<3xf32>) {
  %a = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = graph.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = graph.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = graph.neg %0 : tensor<2x3xf32>
  %2 = graph.mul %1, %a : tensor<2x3xf32>
  %3 = graph.cmp gt, %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  %4 = graph.sqrt %b : tensor<3xf32>
  %5 = graph.exp %4 : tensor<3xf32>
  %6 = graph.floor %5 : tensor<3xf32>
  return %2, %3, %6 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<3xf32>
}

// Integer division and remainder truncate toward zero; casts truncate floats and wrap integers.
// CHECK-LABEL: func.func @constant_fold_int() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi8>, tensor<4xi1>) {
// CHECK-NEXT: %0 = graph.constant dense<[3, -3, 33, -1]> : tensor<4xi32>
// CHECK-NEXT: %1 = graph.constant dense<[1, -1, 1, 1]> : tensor<4xi32>
// CHECK-NEXT: %2 = graph.constant dense<[7.000000e+00, -7.000000e+00, 1.000000e+02, 3.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: %3 = graph.constant dense<[7, -7, 100, 3]> : tensor<4xi8>
// CHECK-NEXT: %4 = graph.constant dense<[true, true, false, true]> : tensor<4xi1>
// CHECK-NEXT: return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi8>, tensor<4xi1>
// CHECK-NEXT: }
func.func @constant_fold_int() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi8>, tensor<4xi1>) {
  %a = graph.constant dense<[7, -7, 100, 3]> : tensor<4xi32>
  %b = graph.constant dense<[2, 2, 3, -2]> : tensor<4xi32>
  %0 = graph.div %a, %b : tensor<4xi32>
  %1 = graph.rem %a, %b : tensor<4xi32>
  %2 = graph.cast %a : tensor<4xi32> -> tensor<4xf32>
  %3 = graph.cast %a : tensor<4xi32> -> tensor<4xi8>
  %f = graph.constant dense<[2.7, -2.7, 0.0, 0.5]> : tensor<4xf32>
  %4 = graph.cast %f : tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi8>, tensor<4xi1>
}

// Integer division by zero is an interpreter error, so it is not folded.
// CHECK-LABEL: func.func @division_by_zero_stays() -> tensor<2xi32> {
// CHECK-NEXT: %0 = graph.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-NEXT: %1 = graph.constant dense<[1, 0]> : tensor<2xi32>
// CHECK-NEXT: %2 = graph.div %0, %1 : tensor<2xi32>
// CHECK-NEXT: return %2 : tensor<2xi32>
// CHECK-NEXT: }
func.func @division_by_zero_stays() -> tensor<2xi32> {
  %a = graph.constant dense<[1, 2]> : tensor<2xi32>
  %z = graph.constant dense<[1, 0]> : tensor<2xi32>
  %0 = graph.div %a, %z : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// transpose, reshape and broadcast_to of constants.
// CHECK-LABEL: func.func @constant_data_movement() -> (tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>) {
// CHECK-NEXT: %0 = graph.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-NEXT: %1 = graph.constant dense<{{\[\[}}1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// CHECK-NEXT: %2 = graph.constant dense<{{\[\[}}[1, 2, 3], [4, 5, 6]], {{\[\[}}1, 2, 3], [4, 5, 6]]]> : tensor<2x2x3xi32>
// CHECK-NEXT: return %0, %1, %2 : tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>
// CHECK-NEXT: }
func.func @constant_data_movement() -> (tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>) {
  %a = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = graph.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xi32> -> tensor<3x2xi32>
  %1 = graph.reshape %a {shape = array<i64: 3, 2>} : tensor<2x3xi32> -> tensor<3x2xi32>
  %2 = graph.broadcast_to %a {shape = array<i64: 2, 2, 3>} : tensor<2x3xi32> -> tensor<2x2x3xi32>
  return %0, %1, %2 : tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x2x3xi32>
}

// Constants above 1024 elements are not folded.
// CHECK-LABEL: func.func @large_constants_stay() -> tensor<2048xf32> {
// CHECK-NEXT: %0 = graph.constant dense<1.000000e+00> : tensor<2048xf32>
// CHECK-NEXT: %1 = graph.exp %0 : tensor<2048xf32>
// CHECK-NEXT: return %1 : tensor<2048xf32>
// CHECK-NEXT: }
func.func @large_constants_stay() -> tensor<2048xf32> {
  %a = graph.constant dense<1.0> : tensor<2048xf32>
  %0 = graph.exp %a : tensor<2048xf32>
  return %0 : tensor<2048xf32>
}

// -----

// An i64 → f32 cast rounds once, as numpy and the interpreter do (through f64 it would round
// twice and give 2^60 and 2^53).
// CHECK-LABEL: func.func @cast_rounds_once
// CHECK: graph.constant dense<[1.15292164E+18, 9.007200e+15]> : tensor<2xf32>
func.func @cast_rounds_once() -> tensor<2xf32> {
  %e = graph.constant dense<[1152921573326323713, 9007199791611905]> : tensor<2xi64>
  %3 = graph.cast %e : tensor<2xi64> -> tensor<2xf32>
  return %3 : tensor<2xf32>
}
