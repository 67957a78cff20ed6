// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | dlc-opt | FileCheck %s

// Every graph op round-trips through dlc-opt's custom and generic forms, and its generic form
// through mlir-opt 22 (which does not know the graph dialect). Types print in the short form
// `: T` when every operand and the result have type T (for cmp: the result is T with i1
// elements), else as `: operand types -> result type`.

// CHECK-LABEL: func.func @unary(%arg0: tensor<4x?xf32>, %arg1: tensor<8xi32>, %arg2: tensor<8xi1>) -> (tensor<4x?xf32>, tensor<8xi32>, tensor<8xi1>) {
// CHECK-NEXT: %0 = graph.neg %arg0 : tensor<4x?xf32>
// CHECK-NEXT: %1 = graph.abs %0 : tensor<4x?xf32>
// CHECK-NEXT: %2 = graph.exp %1 : tensor<4x?xf32>
// CHECK-NEXT: %3 = graph.log %2 : tensor<4x?xf32>
// CHECK-NEXT: %4 = graph.sqrt %3 : tensor<4x?xf32>
// CHECK-NEXT: %5 = graph.rsqrt %4 : tensor<4x?xf32>
// CHECK-NEXT: %6 = graph.reciprocal %5 : tensor<4x?xf32>
// CHECK-NEXT: %7 = graph.tanh %6 : tensor<4x?xf32>
// CHECK-NEXT: %8 = graph.sigmoid %7 : tensor<4x?xf32>
// CHECK-NEXT: %9 = graph.relu %8 : tensor<4x?xf32>
// CHECK-NEXT: %10 = graph.erf %9 : tensor<4x?xf32>
// CHECK-NEXT: %11 = graph.sin %10 : tensor<4x?xf32>
// CHECK-NEXT: %12 = graph.cos %11 : tensor<4x?xf32>
// CHECK-NEXT: %13 = graph.floor %12 : tensor<4x?xf32>
// CHECK-NEXT: %14 = graph.ceil %13 : tensor<4x?xf32>
// CHECK-NEXT: %15 = graph.round %14 : tensor<4x?xf32>
// CHECK-NEXT: %16 = graph.sign %15 : tensor<4x?xf32>
// CHECK-NEXT: %17 = graph.neg %arg1 : tensor<8xi32>
// CHECK-NEXT: %18 = graph.abs %17 : tensor<8xi32>
// CHECK-NEXT: %19 = graph.relu %18 : tensor<8xi32>
// CHECK-NEXT: %20 = graph.sign %19 : tensor<8xi32>
// CHECK-NEXT: %21 = graph.not %20 : tensor<8xi32>
// CHECK-NEXT: %22 = graph.not %arg2 : tensor<8xi1>
// CHECK-NEXT: return %16, %21, %22 : tensor<4x?xf32>, tensor<8xi32>, tensor<8xi1>
// CHECK-NEXT: }
func.func @unary(%x: tensor<4x?xf32>, %i: tensor<8xi32>, %b: tensor<8xi1>) -> (tensor<4x?xf32>, tensor<8xi32>, tensor<8xi1>) {
  %0 = graph.neg %x : tensor<4x?xf32>
  %1 = graph.abs %0 : tensor<4x?xf32>
  %2 = graph.exp %1 : tensor<4x?xf32>
  %3 = graph.log %2 : tensor<4x?xf32>
  %4 = graph.sqrt %3 : tensor<4x?xf32>
  %5 = graph.rsqrt %4 : tensor<4x?xf32>
  %6 = graph.reciprocal %5 : tensor<4x?xf32>
  %7 = graph.tanh %6 : tensor<4x?xf32>
  %8 = graph.sigmoid %7 : tensor<4x?xf32>
  %9 = graph.relu %8 : tensor<4x?xf32>
  %10 = graph.erf %9 : tensor<4x?xf32>
  %11 = graph.sin %10 : tensor<4x?xf32>
  %12 = graph.cos %11 : tensor<4x?xf32>
  %13 = graph.floor %12 : tensor<4x?xf32>
  %14 = graph.ceil %13 : tensor<4x?xf32>
  %15 = graph.round %14 : tensor<4x?xf32>
  %16 = graph.sign %15 : tensor<4x?xf32>
  %17 = graph.neg %i : tensor<8xi32>
  %18 = graph.abs %17 : tensor<8xi32>
  %19 = graph.relu %18 : tensor<8xi32>
  %20 = graph.sign %19 : tensor<8xi32>
  %21 = graph.not %20 : tensor<8xi32>
  %22 = graph.not %b : tensor<8xi1>
  return %16, %21, %22 : tensor<4x?xf32>, tensor<8xi32>, tensor<8xi1>
}

// CHECK-LABEL: func.func @cast(%arg0: tensor<4x?xf32>, %arg1: tensor<8xi32>) -> (tensor<4x?xi64>, tensor<8xbf16>, tensor<8xi1>, tensor<4x?xf16>) {
// CHECK-NEXT: %0 = graph.cast %arg0 : tensor<4x?xf32> -> tensor<4x?xi64>
// CHECK-NEXT: %1 = graph.cast %arg1 : tensor<8xi32> -> tensor<8xbf16>
// CHECK-NEXT: %2 = graph.cast %arg1 : tensor<8xi32> -> tensor<8xi1>
// CHECK-NEXT: %3 = graph.cast %arg0 : tensor<4x?xf32> -> tensor<4x?xf16>
// CHECK-NEXT: return %0, %1, %2, %3 : tensor<4x?xi64>, tensor<8xbf16>, tensor<8xi1>, tensor<4x?xf16>
// CHECK-NEXT: }
func.func @cast(%x: tensor<4x?xf32>, %i: tensor<8xi32>) -> (tensor<4x?xi64>, tensor<8xbf16>, tensor<8xi1>, tensor<4x?xf16>) {
  %0 = graph.cast %x : tensor<4x?xf32> -> tensor<4x?xi64>
  %1 = graph.cast %i : tensor<8xi32> -> tensor<8xbf16>
  %2 = graph.cast %i : tensor<8xi32> -> tensor<8xi1>
  %3 = graph.cast %x : tensor<4x?xf32> -> tensor<4x?xf16>
  return %0, %1, %2, %3 : tensor<4x?xi64>, tensor<8xbf16>, tensor<8xi1>, tensor<4x?xf16>
}

// CHECK-LABEL: func.func @binary(%arg0: tensor<64x128xf32>, %arg1: tensor<4x1xf32>, %arg2: tensor<1x8xf32>, %arg3: tensor<8xi64>, %arg4: tensor<8xi1>) -> (tensor<64x128xf32>, tensor<4x8xf32>, tensor<8xi64>, tensor<8xi1>) {
// CHECK-NEXT: %0 = graph.add %arg0, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %1 = graph.sub %0, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %2 = graph.mul %1, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %3 = graph.div %2, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %4 = graph.pow %3, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %5 = graph.max %4, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %6 = graph.min %5, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %7 = graph.rem %6, %arg0 : tensor<64x128xf32>
// CHECK-NEXT: %8 = graph.add %arg1, %arg2 : tensor<4x1xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %9 = graph.div %arg3, %arg3 : tensor<8xi64>
// CHECK-NEXT: %10 = graph.rem %9, %arg3 : tensor<8xi64>
// CHECK-NEXT: %11 = graph.and %10, %arg3 : tensor<8xi64>
// CHECK-NEXT: %12 = graph.or %11, %arg3 : tensor<8xi64>
// CHECK-NEXT: %13 = graph.and %arg4, %arg4 : tensor<8xi1>
// CHECK-NEXT: %14 = graph.or %13, %arg4 : tensor<8xi1>
// CHECK-NEXT: return %7, %8, %12, %14 : tensor<64x128xf32>, tensor<4x8xf32>, tensor<8xi64>, tensor<8xi1>
// CHECK-NEXT: }
func.func @binary(%a: tensor<64x128xf32>, %b: tensor<4x1xf32>, %c: tensor<1x8xf32>, %i: tensor<8xi64>, %p: tensor<8xi1>) -> (tensor<64x128xf32>, tensor<4x8xf32>, tensor<8xi64>, tensor<8xi1>) {
  %0 = graph.add %a, %a : tensor<64x128xf32>
  %1 = graph.sub %0, %a : tensor<64x128xf32>
  %2 = graph.mul %1, %a : tensor<64x128xf32>
  %3 = graph.div %2, %a : tensor<64x128xf32>
  %4 = graph.pow %3, %a : tensor<64x128xf32>
  %5 = graph.max %4, %a : tensor<64x128xf32>
  %6 = graph.min %5, %a : tensor<64x128xf32>
  %7 = graph.rem %6, %a : tensor<64x128xf32>
  %8 = graph.add %b, %c : tensor<4x1xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %9 = graph.div %i, %i : tensor<8xi64>
  %10 = graph.rem %9, %i : tensor<8xi64>
  %11 = graph.and %10, %i : tensor<8xi64>
  %12 = graph.or %11, %i : tensor<8xi64>
  %13 = graph.and %p, %p : tensor<8xi1>
  %14 = graph.or %13, %p : tensor<8xi1>
  return %7, %8, %12, %14 : tensor<64x128xf32>, tensor<4x8xf32>, tensor<8xi64>, tensor<8xi1>
}

// CHECK-LABEL: func.func @cmp_select(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<4xi32>) -> (tensor<4x8xi1>, tensor<4xi1>, tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: %0 = graph.cmp lt, %arg0, %arg0 : tensor<4x8xf32>
// CHECK-NEXT: %1 = graph.cmp ge, %arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
// CHECK-NEXT: %2 = graph.cmp eq, %arg2, %arg2 : tensor<4xi32>
// CHECK-NEXT: %3 = graph.cmp ne, %arg2, %arg2 : tensor<4xi32>
// CHECK-NEXT: %4 = graph.cmp le, %arg2, %arg2 : tensor<4xi32>
// CHECK-NEXT: %5 = graph.cmp gt, %arg2, %arg2 : tensor<4xi32>
// CHECK-NEXT: %6 = graph.select %0, %arg0, %arg0 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %7 = graph.select %1, %arg0, %arg1 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %1, %5, %6, %7 : tensor<4x8xi1>, tensor<4xi1>, tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
func.func @cmp_select(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %i: tensor<4xi32>) -> (tensor<4x8xi1>, tensor<4xi1>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.cmp lt, %a, %a : tensor<4x8xf32>
  %1 = graph.cmp ge, %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %2 = graph.cmp eq, %i, %i : tensor<4xi32>
  %3 = graph.cmp ne, %i, %i : tensor<4xi32>
  %4 = graph.cmp le, %i, %i : tensor<4xi32>
  %5 = graph.cmp gt, %i, %i : tensor<4xi32>
  %6 = graph.select %0, %a, %a : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %7 = graph.select %1, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %1, %5, %6, %7 : tensor<4x8xi1>, tensor<4xi1>, tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @movement(%arg0: tensor<2x3x4xf32>, %arg1: tensor<?x4xf32>, %arg2: tensor<5xi64>) -> (tensor<6x2x3x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<1x2x2xf32>, tensor<2x6x4xf32>, tensor<4x3x7xf32>, tensor<2x5x4xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
// CHECK-NEXT: %0 = graph.broadcast_to %arg0 {shape = array<i64: 6, 2, 3, 4>} : tensor<2x3x4xf32> -> tensor<6x2x3x4xf32>
// CHECK-NEXT: %1 = graph.reshape %arg0 {shape = array<i64: -1, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-NEXT: %2 = graph.transpose %arg0 {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: %3 = graph.slice %arg0 {ends = array<i64: 2, -1, 4>, starts = array<i64: 1, 0, 0>, steps = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<1x2x2xf32>
// CHECK-NEXT: %4 = graph.concat %arg0, %arg0 {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x6x4xf32>
// CHECK-NEXT: %5 = graph.pad %arg0 {high = array<i64: 1, 0, 2>, low = array<i64: 1, 0, 1>, value = 0.000000e+00 : f32} : tensor<2x3x4xf32> -> tensor<4x3x7xf32>
// CHECK-NEXT: %6 = graph.gather %arg0, %arg2 {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<5xi64> -> tensor<2x5x4xf32>
// CHECK-NEXT: %7 = graph.concat %arg1, %arg1 {axis = 1 : i64} : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x8xf32>
// CHECK-NEXT: %8 = graph.broadcast_to %arg1 {shape = array<i64: -1, 4>} : tensor<?x4xf32>
// CHECK-NEXT: %9 = graph.reshape %arg1 {shape = array<i64: -1, 4>} : tensor<?x4xf32>
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<6x2x3x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<1x2x2xf32>, tensor<2x6x4xf32>, tensor<4x3x7xf32>, tensor<2x5x4xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x4xf32>
// CHECK-NEXT: }
func.func @movement(%x: tensor<2x3x4xf32>, %d: tensor<?x4xf32>, %idx: tensor<5xi64>) -> (tensor<6x2x3x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<1x2x2xf32>, tensor<2x6x4xf32>, tensor<4x3x7xf32>, tensor<2x5x4xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = graph.broadcast_to %x {shape = array<i64: 6, 2, 3, 4>} : tensor<2x3x4xf32> -> tensor<6x2x3x4xf32>
  %1 = graph.reshape %x {shape = array<i64: -1, 4>} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %2 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %3 = graph.slice %x {ends = array<i64: 2, -1, 4>, starts = array<i64: 1, 0, 0>, steps = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<1x2x2xf32>
  %4 = graph.concat %x, %x {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x6x4xf32>
  %5 = graph.pad %x {high = array<i64: 1, 0, 2>, low = array<i64: 1, 0, 1>, value = 0.000000e+00 : f32} : tensor<2x3x4xf32> -> tensor<4x3x7xf32>
  %6 = graph.gather %x, %idx {axis = 1 : i64} : tensor<2x3x4xf32>, tensor<5xi64> -> tensor<2x5x4xf32>
  %7 = graph.concat %d, %d {axis = 1 : i64} : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x8xf32>
  %8 = graph.broadcast_to %d {shape = array<i64: -1, 4>} : tensor<?x4xf32> -> tensor<?x4xf32>
  %9 = graph.reshape %d {shape = array<i64: -1, 4>} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<6x2x3x4xf32>, tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<1x2x2xf32>, tensor<2x6x4xf32>, tensor<4x3x7xf32>, tensor<2x5x4xf32>, tensor<?x8xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @reductions(%arg0: tensor<64x128xf32>, %arg1: tensor<4x5xi32>) -> (tensor<64xf32>, tensor<64x1xf32>, tensor<128xf32>, tensor<f32>, tensor<64xf32>, tensor<4xi64>, tensor<1x5xi64>) {
// CHECK-NEXT: %0 = graph.reduce_sum %arg0 {axes = array<i64: 1>} : tensor<64x128xf32> -> tensor<64xf32>
// CHECK-NEXT: %1 = graph.reduce_max %arg0 {axes = array<i64: 1>, keepdim = true} : tensor<64x128xf32> -> tensor<64x1xf32>
// CHECK-NEXT: %2 = graph.reduce_min %arg0 {axes = array<i64: 0>} : tensor<64x128xf32> -> tensor<128xf32>
// CHECK-NEXT: %3 = graph.reduce_prod %arg0 {axes = array<i64: 0, 1>} : tensor<64x128xf32> -> tensor<f32>
// CHECK-NEXT: %4 = graph.reduce_mean %arg0 {axes = array<i64: 1>, keepdim = false} : tensor<64x128xf32> -> tensor<64xf32>
// CHECK-NEXT: %5 = graph.argmax %arg1 {axis = 1 : i64} : tensor<4x5xi32> -> tensor<4xi64>
// CHECK-NEXT: %6 = graph.argmin %arg1 {axis = 0 : i64, keepdim = true} : tensor<4x5xi32> -> tensor<1x5xi64>
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6 : tensor<64xf32>, tensor<64x1xf32>, tensor<128xf32>, tensor<f32>, tensor<64xf32>, tensor<4xi64>, tensor<1x5xi64>
// CHECK-NEXT: }
func.func @reductions(%x: tensor<64x128xf32>, %i: tensor<4x5xi32>) -> (tensor<64xf32>, tensor<64x1xf32>, tensor<128xf32>, tensor<f32>, tensor<64xf32>, tensor<4xi64>, tensor<1x5xi64>) {
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<64x128xf32> -> tensor<64xf32>
  %1 = graph.reduce_max %x {axes = array<i64: 1>, keepdim = true} : tensor<64x128xf32> -> tensor<64x1xf32>
  %2 = graph.reduce_min %x {axes = array<i64: 0>} : tensor<64x128xf32> -> tensor<128xf32>
  %3 = graph.reduce_prod %x {axes = array<i64: 0, 1>} : tensor<64x128xf32> -> tensor<f32>
  %4 = graph.reduce_mean %x {axes = array<i64: 1>, keepdim = false} : tensor<64x128xf32> -> tensor<64xf32>
  %5 = graph.argmax %i {axis = 1 : i64} : tensor<4x5xi32> -> tensor<4xi64>
  %6 = graph.argmin %i {axis = 0 : i64, keepdim = true} : tensor<4x5xi32> -> tensor<1x5xi64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<64xf32>, tensor<64x1xf32>, tensor<128xf32>, tensor<f32>, tensor<64xf32>, tensor<4xi64>, tensor<1x5xi64>
}

// CHECK-LABEL: func.func @matmul(%arg0: tensor<2x1x4x8xf32>, %arg1: tensor<3x8x5xf32>, %arg2: tensor<?x8xf32>, %arg3: tensor<8x?xf32>) -> (tensor<2x3x4x5xf32>, tensor<?x?xf32>) {
// CHECK-NEXT: %0 = graph.matmul %arg0, %arg1 : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
// CHECK-NEXT: %1 = graph.matmul %arg2, %arg3 : tensor<?x8xf32>, tensor<8x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT: return %0, %1 : tensor<2x3x4x5xf32>, tensor<?x?xf32>
// CHECK-NEXT: }
func.func @matmul(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>, %c: tensor<?x8xf32>, %d: tensor<8x?xf32>) -> (tensor<2x3x4x5xf32>, tensor<?x?xf32>) {
  %0 = graph.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  %1 = graph.matmul %c, %d : tensor<?x8xf32>, tensor<8x?xf32> -> tensor<?x?xf32>
  return %0, %1 : tensor<2x3x4x5xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @sources(%arg0: tensor<?x3xf32>) -> (tensor<4xf32>, tensor<2x2xi32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<?x3xf32>, index) {
// CHECK-NEXT: %0 = graph.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %1 = graph.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT: %2 = graph.iota {axis = 1 : i64} : tensor<2x3xi64>
// CHECK-NEXT: %3 = graph.fill {value = 5.000000e-01 : f32} : tensor<2x3xf32>
// CHECK-NEXT: %4 = graph.dim %arg0, 0 : tensor<?x3xf32> -> index
// CHECK-NEXT: %5 = graph.fill %4 {value = 0.000000e+00 : f32} : index -> tensor<?x3xf32>
// CHECK-NEXT: return %0, %1, %2, %3, %5, %4 : tensor<4xf32>, tensor<2x2xi32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<?x3xf32>, index
// CHECK-NEXT: }
func.func @sources(%x: tensor<?x3xf32>) -> (tensor<4xf32>, tensor<2x2xi32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<?x3xf32>, index) {
  %0 = graph.constant dense<1.000000e+00> : tensor<4xf32>
  %1 = graph.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %2 = graph.iota {axis = 1 : i64} : tensor<2x3xi64>
  %3 = graph.fill {value = 5.000000e-01 : f32} : tensor<2x3xf32>
  %4 = graph.dim %x, 0 : tensor<?x3xf32> -> index
  %5 = graph.fill %4 {value = 0.000000e+00 : f32} : index -> tensor<?x3xf32>
  return %0, %1, %2, %3, %5, %4 : tensor<4xf32>, tensor<2x2xi32>, tensor<2x3xi64>, tensor<2x3xf32>, tensor<?x3xf32>, index
}

// A reshape whose `?` dims are index operands: two dims of %x split the last into heads.
// CHECK-LABEL: func.func @sized_reshape(%arg0: tensor<?x?x32xf32>) -> tensor<?x?x4x8xf32> {
// CHECK-NEXT: %0 = graph.dim %arg0, 0 : tensor<?x?x32xf32> -> index
// CHECK-NEXT: %1 = graph.dim %arg0, 1 : tensor<?x?x32xf32> -> index
// CHECK-NEXT: %2 = graph.reshape %arg0, %0, %1 {shape = array<i64: -1, -1, 4, 8>} : tensor<?x?x32xf32>, index, index -> tensor<?x?x4x8xf32>
func.func @sized_reshape(%x: tensor<?x?x32xf32>) -> tensor<?x?x4x8xf32> {
  %b = graph.dim %x, 0 : tensor<?x?x32xf32> -> index
  %s = graph.dim %x, 1 : tensor<?x?x32xf32> -> index
  %r = graph.reshape %x, %b, %s {shape = array<i64: -1, -1, 4, 8>} : tensor<?x?x32xf32>, index, index -> tensor<?x?x4x8xf32>
  return %r : tensor<?x?x4x8xf32>
}

// A size from data: graph.read_size of a count sizes an iota.
// CHECK-LABEL: func.func @data_sizes(%arg0: tensor<i64>) -> tensor<?x2xi32> {
// CHECK-NEXT: %0 = graph.read_size %arg0 : tensor<i64> -> index
// CHECK-NEXT: %1 = graph.iota %0 {axis = 0 : i64} : index -> tensor<?x2xi32>
// CHECK-NEXT: return %1 : tensor<?x2xi32>
func.func @data_sizes(%count: tensor<i64>) -> tensor<?x2xi32> {
  %n = graph.read_size %count : tensor<i64> -> index
  %i = graph.iota %n {axis = 0 : i64} : index -> tensor<?x2xi32>
  return %i : tensor<?x2xi32>
}

// CHECK-LABEL: func.func @composites(%arg0: tensor<2x8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16x32xf32>, %arg3: tensor<32xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>) {
// CHECK-NEXT: %0 = graph.softmax %arg0 {axis = 2 : i64} : tensor<2x8x16xf32>
// CHECK-NEXT: %1 = graph.log_softmax %arg0 {axis = 1 : i64} : tensor<2x8x16xf32>
// CHECK-NEXT: %2 = graph.layer_norm %arg0, %arg1, %arg1 {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %3 = graph.rms_norm %arg0, %arg1 {axis = 2 : i64, epsilon = 9.9999999999999995E-7 : f64} : tensor<2x8x16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %4 = graph.gelu %arg0 : tensor<2x8x16xf32>
// CHECK-NEXT: %5 = graph.gelu %arg0 {approximate = "tanh"} : tensor<2x8x16xf32>
// CHECK-NEXT: %6 = graph.silu %arg0 : tensor<2x8x16xf32>
// CHECK-NEXT: %7 = graph.linear %arg0, %arg2, %arg3 : tensor<2x8x16xf32>, tensor<16x32xf32>, tensor<32xf32> -> tensor<2x8x32xf32>
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
// CHECK-NEXT: }
func.func @composites(%x: tensor<2x8x16xf32>, %g: tensor<16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>) {
  %0 = graph.softmax %x {axis = 2 : i64} : tensor<2x8x16xf32>
  %1 = graph.log_softmax %x {axis = 1 : i64} : tensor<2x8x16xf32>
  %2 = graph.layer_norm %x, %g, %g {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
  %3 = graph.rms_norm %x, %g {axis = 2 : i64, epsilon = 9.9999999999999997E-7 : f64} : tensor<2x8x16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
  %4 = graph.gelu %x : tensor<2x8x16xf32>
  %5 = graph.gelu %x {approximate = "tanh"} : tensor<2x8x16xf32>
  %6 = graph.silu %x : tensor<2x8x16xf32>
  %7 = graph.linear %x, %w, %b : tensor<2x8x16xf32>, tensor<16x32xf32>, tensor<32xf32> -> tensor<2x8x32xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
}

// CHECK-LABEL: func.func @conv_pool(%arg0: tensor<1x4x32x32xf32>, %arg1: tensor<8x2x3x3xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x8x32x32xf32>, tensor<1x4x16x16xf32>, tensor<1x4x11x11xf32>) {
// CHECK-NEXT: %0 = graph.conv2d %arg0, %arg1 {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x32x32xf32>, tensor<8x2x3x3xf32> -> tensor<1x8x16x16xf32>
// CHECK-NEXT: %1 = graph.conv2d %arg0, %arg1 {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : tensor<1x4x32x32xf32>, tensor<8x2x3x3xf32> -> tensor<1x8x32x32xf32>
// CHECK-NEXT: %2 = graph.max_pool2d %arg0 {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x32x32xf32> -> tensor<1x4x16x16xf32>
// CHECK-NEXT: %3 = graph.avg_pool2d %arg0 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 0, 0>, strides = array<i64: 3, 3>} : tensor<1x4x32x32xf32> -> tensor<1x4x11x11xf32>
// CHECK-NEXT: return %0, %1, %2, %3 : tensor<1x8x16x16xf32>, tensor<1x8x32x32xf32>, tensor<1x4x16x16xf32>, tensor<1x4x11x11xf32>
// CHECK-NEXT: }
func.func @conv_pool(%x: tensor<1x4x32x32xf32>, %w: tensor<8x2x3x3xf32>) -> (tensor<1x8x16x16xf32>, tensor<1x8x32x32xf32>, tensor<1x4x16x16xf32>, tensor<1x4x11x11xf32>) {
  %0 = graph.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x32x32xf32>, tensor<8x2x3x3xf32> -> tensor<1x8x16x16xf32>
  %1 = graph.conv2d %x, %w {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : tensor<1x4x32x32xf32>, tensor<8x2x3x3xf32> -> tensor<1x8x32x32xf32>
  %2 = graph.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x32x32xf32> -> tensor<1x4x16x16xf32>
  %3 = graph.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 0, 0>, strides = array<i64: 3, 3>} : tensor<1x4x32x32xf32> -> tensor<1x4x11x11xf32>
  return %0, %1, %2, %3 : tensor<1x8x16x16xf32>, tensor<1x8x32x32xf32>, tensor<1x4x16x16xf32>, tensor<1x4x11x11xf32>
}

// CHECK-LABEL: func.func @sdpa(%arg0: tensor<2x4x8x16xf32>, %arg1: tensor<2x4x10x16xf32>, %arg2: tensor<2x4x10x32xf32>, %arg3: tensor<8x10xf32>) -> (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>) {
// CHECK-NEXT: %0 = graph.sdpa %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32> -> tensor<2x4x8x32xf32>
// CHECK-NEXT: %1 = graph.sdpa %arg0, %arg1, %arg2, %arg3 {scale = 2.500000e-01 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>, tensor<8x10xf32> -> tensor<2x4x8x32xf32>
// CHECK-NEXT: return %0, %1 : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>
// CHECK-NEXT: }
func.func @sdpa(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<2x4x10x32xf32>, %m: tensor<8x10xf32>) -> (tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>) {
  %0 = graph.sdpa %q, %k, %v {scale = 2.500000e-01 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32> -> tensor<2x4x8x32xf32>
  %1 = graph.sdpa %q, %k, %v, %m {scale = 2.500000e-01 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>, tensor<8x10xf32> -> tensor<2x4x8x32xf32>
  return %0, %1 : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>
}

// CHECK-LABEL: func.func @fusion(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT: %0:2 = graph.fusion (%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%arg2: tensor<4xf32>, %arg3: tensor<4xf32>):
// CHECK-NEXT: %2 = graph.add %arg2, %arg3 : tensor<4xf32>
// CHECK-NEXT: %3 = graph.exp %2 : tensor<4xf32>
// CHECK-NEXT: graph.yield %2, %3 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %1 = graph.fusion (%0#0) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%arg2: tensor<4xf32>):
// CHECK-NEXT: %2 = graph.neg %arg2 : tensor<4xf32>
// CHECK-NEXT: graph.yield %2 : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %1, %0#1 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
func.func @fusion(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = graph.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %1 = graph.add %x, %y : tensor<4xf32>
    %2 = graph.exp %1 : tensor<4xf32>
    graph.yield %1, %2 : tensor<4xf32>, tensor<4xf32>
  }
  %3 = graph.fusion (%0#0) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %4 = graph.neg %x : tensor<4xf32>
    graph.yield %4 : tensor<4xf32>
  }
  return %3, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// Control flow: `graph.if` picks a region by a run-time condition (branches may yield
// different sizes under a `?` result dim); `graph.loop` carries values and stacks scan
// elements. Both regions see the values around them.
// CHECK-LABEL: func.func @control(%arg0: tensor<i1>, %arg1: tensor<4xf32>, %arg2: tensor<i64>) -> (tensor<?xf32>, tensor<4xf32>, tensor<?x4xf32>) {
// CHECK-NEXT: %0 = graph.if %arg0 : tensor<i1> -> tensor<?xf32> {
// CHECK-NEXT:   %3 = graph.neg %arg1 : tensor<4xf32>
// CHECK-NEXT:   graph.yield %3 : tensor<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %3 = graph.concat %arg1, %arg1 {axis = 0 : i64} : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
// CHECK-NEXT:   graph.yield %3 : tensor<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %1 = graph.constant dense<true> : tensor<i1>
// CHECK-NEXT: %2:2 = graph.loop (%arg2, %1, %arg1) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
// CHECK-NEXT: ^bb0(%arg3: tensor<i64>, %arg4: tensor<i1>, %arg5: tensor<4xf32>):
// CHECK-NEXT:   %3 = graph.cast %arg3 : tensor<i64> -> tensor<f32>
// CHECK-NEXT:   %4 = graph.add %arg5, %3 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK-NEXT:   graph.yield %arg4, %4, %4 : tensor<i1>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: graph.if %arg0 : tensor<i1> -> () {
// CHECK-NEXT:   graph.yield
// CHECK-NEXT: } else {
// CHECK-NEXT:   graph.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %0, %2#0, %2#1 : tensor<?xf32>, tensor<4xf32>, tensor<?x4xf32>
// CHECK-NEXT: }
func.func @control(%c: tensor<i1>, %x: tensor<4xf32>, %m: tensor<i64>) -> (tensor<?xf32>, tensor<4xf32>, tensor<?x4xf32>) {
  %r = graph.if %c : tensor<i1> -> tensor<?xf32> {
    %a = graph.neg %x : tensor<4xf32>
    graph.yield %a : tensor<4xf32>
  } else {
    %b = graph.concat %x, %x {axis = 0 : i64} : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
    graph.yield %b : tensor<8xf32>
  }
  %t = graph.constant dense<true> : tensor<i1>
  %y, %s = graph.loop (%m, %t, %x) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<4xf32>):
    %f = graph.cast %i : tensor<i64> -> tensor<f32>
    %n = graph.add %v, %f : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    graph.yield %cond, %n, %n : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  }
  graph.if %c : tensor<i1> -> () {
    graph.yield
  } else {
    graph.yield
  }
  func.return %r, %y, %s : tensor<?xf32>, tensor<4xf32>, tensor<?x4xf32>
}
