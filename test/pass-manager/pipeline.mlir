// The three ways to name passes, and --dump-pass-pipeline, which prints what will run: nested,
// every option spelled out.

// Flat: each pass goes where it anchors (test-invalid-ir on functions; cse anywhere).
// RUN: dlc-opt %s --pipeline='cse,canonicalize{max-iterations=3 top-down=false},symbol-dce' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=FLAT
// FLAT: Pass Manager with builtin.module(cse,canonicalize{top-down=false max-iterations=3 max-num-rewrites=-1 test-convergence=false disable-patterns= enable-patterns=},symbol-dce)
// FLAT-LABEL: func.func @f(
// FLAT-NEXT:     %[[X:.*]] = arith.muli %arg0, %arg0 : i32
// FLAT-NEXT:     return %[[X]] : i32
// FLAT-NOT:  @unused
// OUT-LABEL: func.func @f(
// OUT-NEXT:     %[[X:.*]] = arith.muli %arg0, %arg0 : i32
// OUT-NOT:  @unused

// Flat with function passes: consecutive ones share one func.func pipeline.
// RUN: dlc-opt %s --pipeline='test-pass-failure{fail=false},test-invalid-ir,test-invalid-ir,cse,test-invalid-ir' --verify-each=false --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAT-NESTING
// FLAT-NESTING: Pass Manager with builtin.module(test-pass-failure{fail=false},func.func(test-invalid-ir,test-invalid-ir),cse,func.func(test-invalid-ir))

// Nested, with --pass-pipeline and its short form -p; the flat text of the dump is accepted back.
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(cse,canonicalize),symbol-dce)' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse,canonicalize),symbol-dce)' --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: dlc-opt %s -pass-pipeline='builtin.module(func.func(cse,canonicalize),symbol-dce)' | FileCheck %s --check-prefix=OUT
// NESTED: Pass Manager with builtin.module(func.func(cse,canonicalize{top-down=true max-iterations=10 max-num-rewrites=-1 test-convergence=false disable-patterns= enable-patterns=}),symbol-dce)
// NESTED-LABEL: func.func @f(

// Passes as flags run in command-line order; `--pass=options` is `pass{options}`.
// RUN: dlc-opt %s --symbol-dce --cse --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS1
// RUN: dlc-opt %s -cse -symbol-dce --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS2
// RUN: dlc-opt %s --canonicalize=max-iterations=2 --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS3
// FLAGS1: Pass Manager with builtin.module(symbol-dce,cse)
// FLAGS2: Pass Manager with builtin.module(cse,symbol-dce)
// FLAGS3: Pass Manager with builtin.module(canonicalize{top-down=true max-iterations=2 max-num-rewrites=-1

// No passes: the dump shows an empty pipeline and the IR is printed unchanged.
// RUN: dlc-opt %s --dump-pass-pipeline 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: Pass Manager with builtin.module()
// EMPTY: arith.addi

// Only one way of naming passes per command line.
// RUN: not dlc-opt %s --pipeline=cse -p 'builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not dlc-opt %s --cse -p 'builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=TWICE-FLAGS
// TWICE: dlc-opt: error: give passes in one way only, not with --pipeline and --pass-pipeline
// TWICE-FLAGS: dlc-opt: error: give passes in one way only, not with --pass-pipeline and pass flags

func.func @f(%a: i32) -> i32 {
  %c = arith.constant 0 : i32
  %0 = arith.addi %a, %c : i32
  %1 = arith.addi %a, %c : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func private @unused() -> i32 {
  %c = arith.constant 1 : i32
  return %c : i32
}
