// canonicalize keeps `overflow<nsw, nuw>` when it gathers constants, as mlir-opt-22 does (the
// whole output is diffed), for every add/sub rule but `(x + c0) - c1` (which MLIR builds
// without flags) and for `(x * c0) * c1`; flags on only one of the two ops are dropped. The
// cases where MLIR's kept flag would be wrong (the combined constant wraps) are in
// test/passes/canonicalize-dlc.mlir.
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: %0 = arith.addi %arg0, %c3_i8 overflow<nsw, nuw> : i8
// CHECK: %2 = arith.addi %arg0, %c-1_i8 : i8
// CHECK: %9 = arith.muli %arg0, %c4_i8 overflow<nsw> : i8
// CHECK-LABEL: func.func @one_sided
// CHECK: arith.addi %arg0, %c3_i8 : i8
// CHECK: arith.subi %arg0, %c3_i8 overflow<nuw> : i8
func.func @f(%x: i8) -> (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8) {
  %c1 = arith.constant 1 : i8
  %c2 = arith.constant 2 : i8
  %0 = arith.addi %x, %c1 overflow<nsw, nuw> : i8
  %1 = arith.addi %0, %c2 overflow<nsw, nuw> : i8
  %2 = arith.subi %x, %c1 overflow<nsw, nuw> : i8
  %3 = arith.addi %2, %c2 overflow<nsw, nuw> : i8
  %4 = arith.subi %0, %c2 overflow<nsw, nuw> : i8
  %5 = arith.subi %c2, %0 overflow<nsw, nuw> : i8
  %6 = arith.subi %2, %c2 overflow<nsw, nuw> : i8
  %7 = arith.subi %c1, %x overflow<nsw, nuw> : i8
  %8 = arith.subi %7, %c1 overflow<nsw, nuw> : i8
  %9 = arith.subi %c2, %2 overflow<nsw, nuw> : i8
  %10 = arith.subi %c2, %7 overflow<nsw, nuw> : i8
  %11 = arith.addi %7, %c2 overflow<nsw, nuw> : i8
  %12 = arith.muli %x, %c2 overflow<nsw> : i8
  %13 = arith.muli %12, %c2 overflow<nsw> : i8
  return %1, %3, %4, %5, %6, %8, %9, %10, %11, %13 : i8, i8, i8, i8, i8, i8, i8, i8, i8, i8
}
func.func @one_sided(%x: i8) -> (i8, i8) {
  %c1 = arith.constant 1 : i8
  %c2 = arith.constant 2 : i8
  %0 = arith.addi %x, %c1 overflow<nsw> : i8
  %1 = arith.addi %0, %c2 overflow<nuw> : i8
  %2 = arith.subi %x, %c1 overflow<nuw> : i8
  %3 = arith.subi %2, %c2 overflow<nsw, nuw> : i8
  return %1, %3 : i8, i8
}
