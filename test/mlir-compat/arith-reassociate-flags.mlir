// canonicalize keeps `overflow<nsw, nuw>` when it gathers constants, as mlir-opt-22 does (the
// whole output is diffed), for every add/sub rule but `(x + c0) - c1` (which MLIR builds
// without flags) and for `(x * c0) * c1`; flags on only one of the two ops are dropped. Where
// the combined constant wraps, a flag stays when no `x` keeps both original ops in range
// (@wrapping_but_never_defined: `(17 -nuw x) -nuw 42` needs 17 - x >= 42); the cases where
// MLIR's kept flag would be wrong are in test/passes/canonicalize-dlc.mlir. `(a - b) - a`
// becomes `0 - b` with the flags both subs share (@sub_sub_lhs).
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
// CHECK-LABEL: func.func @wrapping_but_never_defined
// CHECK: %0 = arith.subi %c-25_i8, %arg0 overflow<nsw, nuw> : i8
// CHECK: %1 = arith.addi %arg0, %c44_i8 overflow<nsw, nuw> : i8
// CHECK: %2 = arith.subi %c-100_i8, %arg0 overflow<nuw> : i8
// CHECK: %3 = arith.subi %arg0, %c44_i8 overflow<nuw> : i8
// CHECK: %4 = arith.subi %c-1_i8, %arg0 overflow<nsw> : i8
// CHECK-LABEL: func.func @sub_sub_lhs
// CHECK: %0 = arith.subi %c0_i8, %arg1 overflow<nsw, nuw> : i8
// CHECK: %1 = arith.subi %c0_i8, %arg1 overflow<nsw> : i8
// CHECK: %2 = arith.subi %c0_i8, %arg1 : i8
// CHECK: %3 = arith.subi %cst, %arg3 overflow<nuw> : vector<4xi32>
// CHECK: %4 = arith.subi %c0, %arg5 overflow<nsw> : index
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

// The combined constant wraps in each, but the flag stays: i8 `(17 - x) - 42` stays unsigned
// only for x <= 17 and then 17 - x < 42; `x + 200` is in range for x <= 55 and `+ 100` then
// overflows; `100 - (x + 200)` needs x + 200 <= 100; `(x - 200) - 100` needs x >= 300;
// `(127 - x) + 128` (the last, signed) needs x >= 0 and x >= 128.
func.func @wrapping_but_never_defined(%x: i8) -> (i8, i8, i8, i8, i8) {
  %c17 = arith.constant 17 : i8
  %c42 = arith.constant 42 : i8
  %0 = arith.subi %c17, %x overflow<nsw, nuw> : i8
  %1 = arith.subi %0, %c42 overflow<nsw, nuw> : i8
  %c200 = arith.constant 200 : i8
  %c100 = arith.constant 100 : i8
  %2 = arith.addi %x, %c200 overflow<nsw, nuw> : i8
  %3 = arith.addi %2, %c100 overflow<nsw, nuw> : i8
  %4 = arith.addi %x, %c200 overflow<nuw> : i8
  %5 = arith.subi %c100, %4 overflow<nuw> : i8
  %6 = arith.subi %x, %c200 overflow<nuw> : i8
  %7 = arith.subi %6, %c100 overflow<nuw> : i8
  %c127 = arith.constant 127 : i8
  %cm128 = arith.constant -128 : i8
  %8 = arith.subi %c127, %x overflow<nsw> : i8
  %9 = arith.subi %8, %cm128 overflow<nsw> : i8
  return %1, %3, %5, %7, %9 : i8, i8, i8, i8, i8
}

// `(a - b) - a → 0 - b`: the flags both subs have stay (only `nsw` when one has just that, none
// when they share none), on scalars, vectors and index.
func.func @sub_sub_lhs(%a: i8, %b: i8, %v: vector<4xi32>, %w: vector<4xi32>, %i: index,
                       %j: index) -> (i8, i8, i8, vector<4xi32>, index) {
  %0 = arith.subi %a, %b overflow<nsw, nuw> : i8
  %1 = arith.subi %0, %a overflow<nsw, nuw> : i8
  %2 = arith.subi %a, %b overflow<nsw> : i8
  %3 = arith.subi %2, %a overflow<nsw, nuw> : i8
  %4 = arith.subi %a, %b overflow<nsw> : i8
  %5 = arith.subi %4, %a overflow<nuw> : i8
  %6 = arith.subi %v, %w overflow<nuw> : vector<4xi32>
  %7 = arith.subi %6, %v overflow<nuw> : vector<4xi32>
  %8 = arith.subi %i, %j overflow<nsw> : index
  %9 = arith.subi %8, %i overflow<nsw> : index
  return %1, %3, %5, %7, %9 : i8, i8, i8, vector<4xi32>, index
}
