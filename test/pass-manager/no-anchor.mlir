// A nested pipeline that finds no op of its anchor does nothing and says so (a warning: the run
// still succeeds and prints the IR).
// RUN: dlc-opt %s -p 'builtin.module(test.kernel(cse,dce))' 2>&1 | FileCheck %s
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse))' 2>&1 | FileCheck %s --check-prefix=FOUND

// CHECK: {{.*}}no-anchor.mlir:[[@LINE+4]]:1: warning: no 'test.kernel' op to run on: passes 'cse', 'dce' did nothing
// CHECK: func.func @f()
// FOUND-NOT: warning
// FOUND: func.func @f()
func.func @f() {
  return
}
