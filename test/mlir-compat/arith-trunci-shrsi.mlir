// canonicalize turns `trunci(shrsi(x, c))` into `trunci(shrui(x, c))` exactly where mlir-opt-22
// does (the whole output is diffed): when `c`, a scalar or splat constant, is the number of
// bits the trunci drops, so both shifts leave the kept bits as `x`'s top ones. A smaller or
// larger `c`, a `c` that is not constant or not a splat, and a `shrui` are left alone; the
// trunci keeps `nuw`. (MLIR also keeps `nsw`, which the shrui value can break: see
// test/passes/canonicalize-dlc.mlir.)
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline=canonicalize --mlir-print-debuginfo --mlir-print-local-scope \
// RUN:   | FileCheck %s --check-prefix=LOC
// RUN: mlir-opt %s --canonicalize --mlir-print-debuginfo --mlir-print-local-scope \
// RUN:   | FileCheck %s --check-prefix=LOC
// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @fires
// CHECK: %0 = arith.shrui %arg0, %c24_i32 : i32
// CHECK: %1 = arith.trunci %0 : i32 to i8
// CHECK: %2 = arith.shrui %arg0, %c16_i32 : i32
// CHECK: %3 = arith.trunci %2 : i32 to i16
// CHECK: %4 = arith.shrui %arg1, %c63_i64 : i64
// CHECK: %5 = arith.trunci %4 : i64 to i1
// CHECK: %6 = arith.shrui %arg2, %cst : vector<4xi32>
// CHECK: %7 = arith.trunci %6 : vector<4xi32> to vector<4xi8>
// CHECK: %8 = arith.shrui %arg0, %c24_i32 : i32
// CHECK: %9 = arith.trunci %8 overflow<nuw> : i32 to i8
func.func @fires(%x: i32, %y: i64, %v: vector<4xi32>) -> (i8, i16, i1, vector<4xi8>, i8) {
  %c24 = arith.constant 24 : i32
  %0 = arith.shrsi %x, %c24 : i32
  %1 = arith.trunci %0 : i32 to i8
  %c16 = arith.constant 16 : i32
  %2 = arith.shrsi %x, %c16 : i32
  %3 = arith.trunci %2 : i32 to i16
  %c63 = arith.constant 63 : i64
  %4 = arith.shrsi %y, %c63 : i64
  %5 = arith.trunci %4 : i64 to i1
  %s24 = arith.constant dense<24> : vector<4xi32>
  %6 = arith.shrsi %v, %s24 : vector<4xi32>
  %7 = arith.trunci %6 : vector<4xi32> to vector<4xi8>
  %8 = arith.shrsi %x, %c24 : i32
  %9 = arith.trunci %8 overflow<nuw> : i32 to i8
  return %1, %3, %5, %7, %9 : i8, i16, i1, vector<4xi8>, i8
}

// CHECK-LABEL: func.func @does_not_fire
// CHECK: %0 = arith.shrsi %arg0, %c23_i32 : i32
// CHECK: %2 = arith.shrsi %arg0, %c25_i32 : i32
// CHECK: %4 = arith.shrsi %arg0, %arg1 : i32
// CHECK: %6 = arith.shrsi %arg0, %c24_i32 : i32
// CHECK: %8 = arith.shrsi %arg2, %cst : vector<2xi32>
func.func @does_not_fire(%x: i32, %n: i32, %v: vector<2xi32>) -> (i8, i8, i8, i16, vector<2xi8>, i8) {
  %c23 = arith.constant 23 : i32
  %0 = arith.shrsi %x, %c23 : i32
  %1 = arith.trunci %0 : i32 to i8
  %c25 = arith.constant 25 : i32
  %2 = arith.shrsi %x, %c25 : i32
  %3 = arith.trunci %2 : i32 to i8
  %4 = arith.shrsi %x, %n : i32
  %5 = arith.trunci %4 : i32 to i8
  %c24 = arith.constant 24 : i32
  %6 = arith.shrsi %x, %c24 : i32
  %7 = arith.trunci %6 : i32 to i16
  %mixed = arith.constant dense<[24, 16]> : vector<2xi32>
  %8 = arith.shrsi %v, %mixed : vector<2xi32>
  %9 = arith.trunci %8 : vector<2xi32> to vector<2xi8>
  %10 = arith.shrui %x, %c24 : i32
  %11 = arith.trunci %10 : i32 to i8
  return %1, %3, %5, %7, %9, %11 : i8, i8, i8, i16, vector<2xi8>, i8
}

// The new ops (and a new constant, which the folder merges with the old one) have the fused
// location of the trunci and the constant, as MLIR's generated rewrite gives them; where the
// old constant has another use, the merged one has an unknown location.
// CHECK-LABEL: func.func @locations
// CHECK: %0 = arith.shrui %arg0, %c8_i16 : i16
// LOC-LABEL: func.func @locations
// LOC: arith.constant 8 : i16 loc(fused["trunc", "c"])
// LOC: arith.shrui %arg0, %c8_i16 : i16 loc(fused["trunc", "c"])
// LOC: arith.trunci %0 : i16 to i8 loc(fused["trunc", "c"])
// LOC-LABEL: func.func @locations_shared
// LOC: arith.constant 8 : i16 loc(unknown)
// LOC: arith.shrui %arg0, %c8_i16 : i16 loc(fused["trunc", "c"])
// LOC: arith.trunci %0 : i16 to i8 loc(fused["trunc", "c"])
func.func @locations(%x: i16) -> i8 {
  %c8 = arith.constant 8 : i16 loc("c")
  %0 = arith.shrsi %x, %c8 : i16 loc("shift")
  %1 = arith.trunci %0 : i16 to i8 loc("trunc")
  return %1 : i8
}
func.func @locations_shared(%x: i16) -> (i8, i16) {
  %c8 = arith.constant 8 : i16 loc("c")
  %0 = arith.shrsi %x, %c8 : i16 loc("shift")
  %1 = arith.trunci %0 : i16 to i8 loc("trunc")
  return %1, %c8 : i8, i16
}
