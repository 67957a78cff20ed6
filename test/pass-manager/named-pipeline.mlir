// A named pipeline (registered text) is used like a pass: in flat or nested pipelines or as a
// flag, it expands in place. dlc-opt registers `test-cleanup-pipeline` for this test.

// RUN: dlc-opt %s --pipeline='strip-debuginfo,test-cleanup-pipeline' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefixes=DUMP,OUT
// RUN: dlc-opt %s -p 'builtin.module(strip-debuginfo,test-cleanup-pipeline)' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefixes=DUMP,OUT
// RUN: dlc-opt %s --strip-debuginfo --test-cleanup-pipeline --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefixes=DUMP,OUT
// DUMP: Pass Manager with builtin.module(strip-debuginfo,cse,func.func(canonicalize{top-down=true max-iterations=2 max-num-rewrites=-1 test-convergence=false disable-patterns= enable-patterns=}),symbol-dce)
// OUT-LABEL: func.func @f(
// OUT-NEXT:    %0 = arith.addi %arg0, %arg0 : i32
// OUT-NEXT:    %1 = arith.muli %0, %0 : i32
// OUT-NOT:   @g

// RUN: dlc-opt --list-passes | FileCheck %s --check-prefix=LIST
// LIST:      Pipelines:
// LIST:        --test-cleanup-pipeline {{.*}} (cse,func.func(canonicalize{max-iterations=2}),symbol-dce)

// RUN: not dlc-opt %s --pipeline='cse,test-cleanup-pipeline{x=1}' 2>&1 | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: --pipeline:5: error: named pipeline 'test-cleanup-pipeline' takes no options
// RUN: not dlc-opt %s --pipeline='test-cleanup-pipelin' 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: --pipeline:1: error: unknown pass or pipeline 'test-cleanup-pipelin' (did you mean 'test-cleanup-pipeline'?)

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func private @g() {
  return
}
