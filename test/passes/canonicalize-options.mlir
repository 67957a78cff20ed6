// RUN: dlc-opt %s --pipeline='canonicalize{disable-patterns=AddIAddConstant}' \
// RUN:   | FileCheck %s --check-prefix=DISABLE
// RUN: dlc-opt %s --pipeline='canonicalize{enable-patterns=XOrINotCmpI}' \
// RUN:   | FileCheck %s --check-prefix=ENABLE
// RUN: dlc-opt %s --pipeline='canonicalize{top-down=false}' | FileCheck %s --check-prefix=BOTTOMUP
// RUN: mlir-opt %s --canonicalize=top-down=false | FileCheck %s --check-prefix=BOTTOMUP
// RUN: dlc-opt %s --pipeline='canonicalize{disable-patterns=NoSuchPattern}' -o %t 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WARN
// RUN: dlc-opt %s --canonicalize --pass-statistics -o %t 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: dlc-opt %s --canonicalize --dump-pass-pipeline -o %t 2>&1 | FileCheck %s --check-prefix=PIPE

// The options of canonicalize. Patterns are named as in MLIR; disabling one keeps the folds
// (here `x + 0` and the merging of constants), enabling a list applies only those patterns.
// Bottom-up, the ops are visited from the last one backwards, as mlir-opt does.

// DISABLE-LABEL: func.func @options
// DISABLE-NEXT: %c5_i32 = arith.constant 5 : i32
// DISABLE-NEXT: %c7_i32 = arith.constant 7 : i32
// DISABLE-NEXT: %0 = arith.addi %arg0, %c5_i32 : i32
// DISABLE-NEXT: %1 = arith.addi %0, %c7_i32 : i32
// DISABLE-NEXT: %2 = arith.cmpi sge, %arg1, %arg2 : i32
// DISABLE-NEXT: return %1, %2, %arg0 : i32, i1, i32

// ENABLE-LABEL: func.func @options
// ENABLE-NEXT: %c5_i32 = arith.constant 5 : i32
// ENABLE-NEXT: %c7_i32 = arith.constant 7 : i32
// ENABLE-NEXT: %0 = arith.addi %arg0, %c5_i32 : i32
// ENABLE-NEXT: %1 = arith.addi %0, %c7_i32 : i32
// ENABLE-NEXT: %2 = arith.cmpi sge, %arg1, %arg2 : i32
// ENABLE-NEXT: return %1, %2, %arg0 : i32, i1, i32

// BOTTOMUP-LABEL: func.func @options
// BOTTOMUP-NEXT: %c12_i32 = arith.constant 12 : i32
// BOTTOMUP-NEXT: %0 = arith.addi %arg0, %c12_i32 : i32
// BOTTOMUP-NEXT: %1 = arith.cmpi sge, %arg1, %arg2 : i32
// BOTTOMUP-NEXT: return %0, %1, %arg0 : i32, i1, i32

// A name that matches no pattern is most likely a typo: it is reported, and nothing fails.
// WARN: warning: canonicalize: disable-patterns names no pattern 'NoSuchPattern'

// STATS: canonicalize
// STATS-NEXT: (S) 1 ops-folded - Number of ops folded
// STATS-NEXT: (S) 6 ops-erased - Number of unused pure ops erased
// STATS-NEXT: (S) 2 patterns-applied - Number of pattern rewrites
// STATS-NEXT: (S) 0 constants-merged - Number of constants merged into an equal one
// STATS-NEXT: (S) 2 iterations - Number of iterations over the IR

// PIPE: canonicalize{top-down=true max-iterations=10 max-num-rewrites=-1 test-convergence=false disable-patterns= enable-patterns=}
func.func @options(%x: i32, %a: i32, %b: i32) -> (i32, i1, i32) {
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %0 = arith.addi %x, %c5 : i32
  %1 = arith.addi %0, %c7 : i32
  %true = arith.constant true
  %2 = arith.cmpi slt, %a, %b : i32
  %3 = arith.xori %2, %true : i1
  %c0 = arith.constant 0 : i32
  %4 = arith.addi %x, %c0 : i32
  return %1, %3, %4 : i32, i1, i32
}
