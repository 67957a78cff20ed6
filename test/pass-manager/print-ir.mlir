// IR printing around passes, in mlir-opt's format, on stderr: a header naming the pass (its
// argument twice: dlc passes have no separate class name), the op the pass ran on, a blank line.
// Function passes run on one thread here so that the dumps come in a fixed order.

// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --disable-threading --print-ir-before=cse -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE:      // -----// IR Dump Before cse (cse) //----- //
// BEFORE-NEXT: func.func @f(%arg0: i32) -> i32 {
// BEFORE-NEXT:   %0 = arith.addi %arg0, %arg0 : i32
// BEFORE-NEXT:   %1 = arith.addi %arg0, %arg0 : i32
// BEFORE:      // -----// IR Dump Before cse (cse) //----- //
// BEFORE-NEXT: func.func private @g()
// BEFORE-NOT:  IR Dump

// A list of passes; the mlir- spelling works too.
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --disable-threading --mlir-print-ir-after=symbol-dce,dce -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER-NOT:   IR Dump
// AFTER:       // -----// IR Dump After symbol-dce (symbol-dce) //----- //
// AFTER-NEXT:  module {
// AFTER-NEXT:    func.func @f(%arg0: i32) -> i32 {
// AFTER-NEXT:      %0 = arith.addi %arg0, %arg0 : i32
// AFTER-NEXT:      %1 = arith.muli %0, %0 : i32
// AFTER-NOT:   @g
// AFTER-NOT:   IR Dump

// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --disable-threading --print-ir-before-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE-ALL
// BEFORE-ALL:     IR Dump Before cse (cse)
// BEFORE-ALL-NEXT: func.func @f(
// BEFORE-ALL:     IR Dump Before cse (cse)
// BEFORE-ALL-NEXT: func.func private @g()
// BEFORE-ALL:     IR Dump Before symbol-dce (symbol-dce)
// BEFORE-ALL-NEXT: module {
// BEFORE-ALL:      func.func private @g()
// BEFORE-ALL-NOT: IR Dump

// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --disable-threading --print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER-ALL
// AFTER-ALL:      IR Dump After cse (cse)
// AFTER-ALL-NEXT: func.func @f(
// AFTER-ALL:      IR Dump After cse (cse)
// AFTER-ALL-NEXT: func.func private @g()
// AFTER-ALL:      IR Dump After symbol-dce (symbol-dce)
// AFTER-ALL-NOT:  IR Dump

// After-change: cse changes @f but not @g; symbol-dce erases @g.
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --disable-threading --print-ir-after-all --print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// CHANGE:      IR Dump After cse (cse)
// CHANGE-NEXT: func.func @f(
// CHANGE-NOT:  IR Dump After cse
// CHANGE:      IR Dump After symbol-dce (symbol-dce)
// CHANGE-NOT:  IR Dump
// Alone it narrows nothing, so prints nothing (as in mlir-opt).
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --print-ir-after-change -o /dev/null 2>&1 | count 0

// After-failure: only the failing pass is printed, marked as failed.
// RUN: not dlc-opt %s -p 'builtin.module(func.func(cse),test-pass-failure)' --disable-threading --print-ir-after-failure -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAILURE
// FAILURE-NOT:  IR Dump After cse
// FAILURE:      // -----// IR Dump After test-pass-failure Failed (test-pass-failure) //----- //
// FAILURE-NEXT: module {
// FAILURE:      error: test-pass-failure failed, as it always does

// Module scope: the header names the op the pass ran on, and the whole module is printed.
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce)' --print-ir-before=cse --print-ir-module-scope -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCOPE
// SCOPE:      // -----// IR Dump Before cse (cse) ('func.func' operation: @f) //----- //
// SCOPE-NEXT: module {
// SCOPE-NEXT:   func.func @f(%arg0: i32) -> i32 {
// SCOPE:        func.func private @g()
// SCOPE:      // -----// IR Dump Before cse (cse) ('func.func' operation: @g) //----- //
// SCOPE-NEXT: module {
// SCOPE-NEXT:   func.func @f(%arg0: i32) -> i32 {

// With threads the dumps come in the order the functions finish; each dump is whole.
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse))' --print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS-DAG: IR Dump After cse (cse) //----- //{{$}}
// THREADS-DAG: func.func @f(%arg0: i32) -> i32 {
// THREADS-DAG: func.func private @g()

// The dumps go to stderr: stdout has only the result.
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse))' --print-ir-after-all 2>/dev/null | FileCheck %s --check-prefix=STDOUT
// STDOUT-NOT: IR Dump
// STDOUT: module {

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func private @g() {
  return
}
