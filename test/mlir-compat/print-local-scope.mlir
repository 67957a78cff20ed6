// `-mlir-print-local-scope` is accepted: dlc-opt always prints locations in place, which is
// what the flag makes mlir-opt-22 do, so the two agree on the function's locations.
// RUN: dlc-opt %s -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s
// RUN: mlir-opt %s -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s

// CHECK: return loc("a.py":1:2)
// CHECK-NEXT: } loc("b.py":3:4)
func.func @f() {
  return loc("a.py":1:2)
} loc("b.py":3:4)
