// RUN: dlc-opt %s --pipeline='canonicalize{max-iterations=1 test-convergence=true}' \
// RUN:   --split-input-file --verify-diagnostics
// RUN: dlc-opt %s --pipeline='canonicalize{max-iterations=2 test-convergence=true}' \
// RUN:   --split-input-file | FileCheck %s
// RUN: not dlc-opt %s --pipeline='canonicalize{max-iterations=-2}' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// An iteration that changes the IR must be followed by one that does not, so with one
// iteration allowed any change means no fixpoint was reached; `test-convergence` turns that
// into an error at the first op the last iteration changed. mlir-opt fails the same way
// without a message. Two iterations are enough for these cases.

// CHECK-LABEL: func.func @needs_two
// CHECK-NEXT: return %arg0 : i32
func.func @needs_two(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{canonicalizer did not converge after 1 iteration}}
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}

// -----

// Nothing to change: one iteration reaches the fixpoint.
// CHECK-LABEL: func.func @already_canonical
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
func.func @already_canonical(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}

// BAD: max-iterations and max-num-rewrites must be -1 (no limit) or more
