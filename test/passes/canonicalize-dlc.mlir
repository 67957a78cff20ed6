// RUN: dlc-opt %s --pipeline=canonicalize --split-input-file | FileCheck %s

// Where dlc's canonicalize deliberately differs from mlir-opt's.

// Combining `(x +nsw 100) +nsw 100` on i8 gives `x + -56`, which may overflow where the
// original did not (x = -100): the flag is dropped. MLIR keeps the flags both ops share
// unconditionally. `nuw` survives here because 20 + 30 cannot wrap.
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
