// RUN: dlc-opt %s --pipeline=canonicalize --split-input-file | FileCheck %s

// Where dlc's canonicalize deliberately differs from mlir-opt's.

// Combining `(x +nsw 100) +nsw 100` on i8 gives `x + -56`, which may overflow where the
// original did not (x = -100): the flag is dropped. MLIR keeps the flags both ops share
// unconditionally. `nuw` survives here because 20 + 30 cannot wrap. (A flag also survives a
// wrapping constant when no `x` keeps both original ops in range, as in MLIR: see
// test/mlir-compat/arith-reassociate-flags.mlir.)
// CHECK-LABEL: func.func @flags_dropped_on_overflow
// CHECK-DAG: %[[M56:.+]] = arith.constant -56 : i8
// CHECK-DAG: %[[C50:.+]] = arith.constant 50 : i8
// CHECK: %[[A:.+]] = arith.addi %arg0, %[[M56]] : i8
// CHECK: %[[B:.+]] = arith.addi %arg0, %[[C50]] overflow<nuw> : i8
// CHECK: return %[[A]], %[[B]]
func.func @flags_dropped_on_overflow(%x: i8) -> (i8, i8) {
  %c100 = arith.constant 100 : i8
  %0 = arith.addi %x, %c100 overflow<nsw> : i8
  %1 = arith.addi %0, %c100 overflow<nsw> : i8
  %c20 = arith.constant 20 : i8
  %c30 = arith.constant 30 : i8
  %2 = arith.addi %x, %c20 overflow<nuw> : i8
  %3 = arith.addi %2, %c30 overflow<nuw> : i8
  return %1, %3 : i8, i8
}

// An `index_cast` round trip through a narrower type loses the high bits (`index → i32 →
// index` keeps only the low 32), so it stays; MLIR drops it as if it were the identity. The
// round trips through a type that holds the value whole go, as in MLIR (see
// test/mlir-compat/arith-canonicalize-casts.mlir).
// CHECK-LABEL: func.func @lossy_index_round_trips
// CHECK-NEXT: %0 = arith.index_cast %arg0 : index to i32
// CHECK-NEXT: %1 = arith.index_cast %0 : i32 to index
// CHECK-NEXT: %2 = arith.index_castui %arg0 : index to i16
// CHECK-NEXT: %3 = arith.index_castui %2 : i16 to index
// CHECK-NEXT: %4 = arith.index_cast %arg1 : i128 to index
// CHECK-NEXT: %5 = arith.index_cast %4 : index to i128
// CHECK-NEXT: return %1, %3, %5, %arg2
func.func @lossy_index_round_trips(%i: index, %w: i128, %n: i64) -> (index, index, i128, i64) {
  %0 = arith.index_cast %i : index to i32
  %1 = arith.index_cast %0 : i32 to index
  %2 = arith.index_castui %i : index to i16
  %3 = arith.index_castui %2 : i16 to index
  %4 = arith.index_cast %w : i128 to index
  %5 = arith.index_cast %4 : index to i128
  %6 = arith.index_cast %n : i64 to index
  %7 = arith.index_cast %6 : index to i64
  return %1, %3, %5, %7 : index, index, i128, i64
}

// The same for the other rules: `(x -nuw 5) +nuw 2` holds for x = 5, but `x +nuw 253` does
// not (c1 - c0 goes below zero unsigned), so only `nsw` stays; `127 - (x + -2)` loses `nsw`:
// 127 - -2 is beyond i8 signed, and x = 2 keeps both ops in range but overflows
// `-127 -nsw x`; its `nuw` stays, as no `x` keeps `x +nuw 254` and `127 -nuw` of it in range.
// MLIR keeps every shared flag.
// `2 -nuw (5 -nuw x)` holds for x in [3, 5] and is x - 3, but `x +nuw 253` overflows there:
// `nuw` goes.
// CHECK-LABEL: func.func @sub_flags_dropped_on_overflow
// CHECK-DAG: %[[M3:.+]] = arith.constant -3 : i8
// CHECK-DAG: %[[C:.+]] = arith.constant -127 : i8
// CHECK: %[[A:.+]] = arith.addi %arg0, %[[M3]] overflow<nsw> : i8
// CHECK: %[[B:.+]] = arith.subi %[[C]], %arg0 overflow<nuw> : i8
// CHECK: %[[D:.+]] = arith.addi %arg0, %[[M3]] overflow<nsw> : i8
// CHECK: return %[[A]], %[[B]], %[[D]]
func.func @sub_flags_dropped_on_overflow(%x: i8) -> (i8, i8, i8) {
  %c5 = arith.constant 5 : i8
  %c2 = arith.constant 2 : i8
  %0 = arith.subi %x, %c5 overflow<nsw, nuw> : i8
  %1 = arith.addi %0, %c2 overflow<nsw, nuw> : i8
  %cm2 = arith.constant -2 : i8
  %c127 = arith.constant 127 : i8
  %2 = arith.addi %x, %cm2 overflow<nsw, nuw> : i8
  %3 = arith.subi %c127, %2 overflow<nsw, nuw> : i8
  %4 = arith.subi %c5, %x overflow<nsw, nuw> : i8
  %5 = arith.subi %c2, %4 overflow<nsw, nuw> : i8
  return %1, %3, %5 : i8, i8, i8
}

// `trunci(shrsi(x, 24))` from i32 to i8 becomes `trunci(shrui(x, 24))` as in MLIR, but without
// the trunci's `nsw`: the shrsi value (x's top byte, sign-extended) always fits i8 signed, the
// shrui one (zero-extended) does not for negative x, so `nsw` would make x = -1 poison where
// the original gives -1. `nuw` stays: the shrui value always fits. MLIR keeps both.
// CHECK-LABEL: func.func @trunci_shrsi_drops_nsw
// CHECK: %[[S:.+]] = arith.shrui %arg0, %{{.+}} : i32
// CHECK: %[[T:.+]] = arith.trunci %[[S]] overflow<nuw> : i32 to i8
// CHECK: %[[U:.+]] = arith.shrui %arg0, %{{.+}} : i32
// CHECK: %[[V:.+]] = arith.trunci %[[U]] : i32 to i8
// CHECK: return %[[T]], %[[V]]
func.func @trunci_shrsi_drops_nsw(%x: i32) -> (i8, i8) {
  %c24 = arith.constant 24 : i32
  %0 = arith.shrsi %x, %c24 : i32
  %1 = arith.trunci %0 overflow<nsw, nuw> : i32 to i8
  %2 = arith.shrsi %x, %c24 : i32
  %3 = arith.trunci %2 overflow<nsw> : i32 to i8
  return %1, %3 : i8, i8
}
