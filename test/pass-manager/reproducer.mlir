// --crash-reproducer: when a pass fails, the module as it was just before that pass is written
// with a configuration line that runs only that pass, nested as it was, with all its options;
// --run-reproducer replays it and fails the same way.

// canonicalize with test-convergence fails on @g, which needs a second iteration; cse has
// already run on @g (one addi is gone) and both passes on @f.
// RUN: not dlc-opt %s -p 'builtin.module(func.func(cse,canonicalize{max-iterations=1 test-convergence=true}))' --crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: FileCheck %s --check-prefix=REPRO < %t.repro.mlir
// RUN: not dlc-opt %t.repro.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=REPLAY
// The mlir-opt spelling works too.
// RUN: not dlc-opt %s -p 'builtin.module(func.func(cse,canonicalize{max-iterations=1 test-convergence=true}))' --mlir-pass-pipeline-crash-reproducer=%t.repro2.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: diff %t.repro.mlir %t.repro2.mlir

// REPRO:      // dlc crash reproducer: `canonicalize` on 'func.func' operation: @g failed.
// REPRO-NEXT: // Replay it with `dlc-opt <this file> --run-reproducer`.
// REPRO-NEXT: // configuration: --pass-pipeline='builtin.module(func.func(canonicalize{top-down=true max-iterations=1 max-num-rewrites=-1 test-convergence=true disable-patterns= enable-patterns=}))' --verify-each=true
// REPRO-NEXT: // full pipeline: builtin.module(func.func(cse,canonicalize{
// REPRO-NEXT: module {
// REPRO-NEXT:   func.func @f(%arg0: i32) -> i32 {
// REPRO-NEXT:     return %arg0 : i32 loc(
// REPRO-NEXT:   } loc(
// REPRO-NEXT:   func.func @g(%arg0: i32) -> i32 {
// REPRO-NEXT:     %c0_i32 = arith.constant 0 : i32 loc(
// REPRO-NEXT:     %0 = arith.addi %arg0, %c0_i32 : i32 loc("{{.*}}reproducer.mlir":[[ADDI:[0-9]+]]:8)
// REPRO-NEXT:     %1 = arith.muli %0, %0 : i32 loc(
// REPRO-NEXT:     return %1 : i32 loc(
// REPRO-NEXT:   } loc(
// REPRO-NEXT: } loc(

// The replay reports the error at the original location (the reproducer keeps locations).

func.func @f(%a: i32) -> i32 {
  return %a : i32
}
func.func @g(%a: i32) -> i32 {
  %c = arith.constant 0 : i32
  // FAIL: reproducer.mlir:[[@LINE+3]]:8: error: canonicalizer did not converge after 1 iteration
  // FAIL: note: pipeline failed while executing `canonicalize` on 'func.func' operation: @g: reproducer generated at '{{.*}}.mlir'
  // REPLAY: reproducer.mlir:[[@LINE+1]]:8: error: canonicalizer did not converge after 1 iteration
  %0 = arith.addi %a, %c : i32
  %1 = arith.addi %a, %c : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
