// A misspelt float format is an unknown type in both tools. A constant of a format dlc only
// parses and prints is a clear error in dlc (mlir-opt-22 accepts it: the one disagreement).
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: not mlir-opt %s --split-input-file -allow-unregistered-dialect 2>&1 | FileCheck %s

// CHECK: error: expected non-function type
// expected-error @+1 {{expected non-function type}}
"t.op"() : () -> f8E4M3FX

// -----

// CHECK-NOT: error
// expected-error @+1 {{'f80' constants are not supported by dlc}}
"t.op"() {a = 1.0 : f80} : () -> ()
