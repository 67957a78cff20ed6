// RUN: dlc-opt %s -split-input-file -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --split-input-file --allow-unregistered-dialect --output-split-marker="// =====" \
// RUN:   | FileCheck %s --check-prefix=MARKER
// RUN: not dlc-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: dlc-opt %s --allow-unregistered-dialect | FileCheck %s --check-prefix=WHOLE

// --split-input-file processes each chunk between marker lines on its own: each gets its own
// module, value and symbol names, and diagnostics report lines of the whole file. A failing chunk
// does not stop the others, but makes the exit code 1. Without the flag the marker is only a
// comment.

// CHECK:      module {
// CHECK-NEXT:   func.func private @f()
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
// MARKER:      module {
// MARKER-NEXT:   func.func private @f()
// MARKER-NEXT: }
// MARKER-EMPTY:
// MARKER-NEXT: // =====
// WHOLE:      module {
// WHOLE-NEXT:   func.func private @f()
// WHOLE-NEXT:   %0 = "t.a"() : () -> i32
// WHOLE-NEXT:   %1 = "t.a"() : () -> i32
// WHOLE-NEXT:   func.func private @g()
// WHOLE-NEXT: }
func.func private @f()

// -----

// CHECK-NEXT: module {
// CHECK-NEXT:   %0 = "t.a"() : () -> i32
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: // -{{-}}---
// MARKER-NEXT: module {
// ERR: split-input-file.mlir:[[@LINE+1]]:6: error: operation 't.a' belongs to unregistered dialect 't'
%x = "t.a"() : () -> i32

// -----

// The same SSA name in another chunk is a different value.
// CHECK-NEXT: module {
// CHECK-NEXT:   %0 = "t.a"() : () -> i32
// CHECK-NEXT:   func.func private @g()
// CHECK-NEXT: }
// CHECK-NOT:  // -{{-}}---
// ERR: split-input-file.mlir:[[@LINE+1]]:6: error: operation 't.a' belongs to unregistered dialect 't'
%y = "t.a"() : () -> i32
func.func private @g()
