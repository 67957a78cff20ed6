// --verify-each (on by default) verifies the op after every pass: test-invalid-ir erases the
// terminator of each function, and the verifier stops the pipeline there, naming the pass.
// With --verify-each=false the broken IR goes on to the next pass and is printed.

// RUN: not dlc-opt %s --pipeline=test-invalid-ir,strip-debuginfo 2>&1 | FileCheck %s --check-prefix=ON
// RUN: not dlc-opt %s --pipeline=test-invalid-ir,strip-debuginfo --verify-each 2>&1 | FileCheck %s --check-prefix=ON
// RUN: not dlc-opt %s --pipeline=test-invalid-ir,strip-debuginfo --verify-each=true 2>&1 | FileCheck %s --check-prefix=ON
// RUN: dlc-opt %s --pipeline=test-invalid-ir,strip-debuginfo --verify-each=false --print-debuginfo 2>&1 | FileCheck %s --check-prefix=OFF

// ON: verify-each.mlir:[[@LINE+10]]:8: error: block with no terminator, has 'arith.addi'
// ON: note: the IR is invalid after pass 'test-invalid-ir'
// ON-NOT: module

// OFF-NOT: error
// OFF-LABEL: func.func @f(
// OFF-NEXT:    %0 = arith.addi %arg0, %arg0 : i32 loc(unknown)
// OFF-NEXT:  } loc(unknown)

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
