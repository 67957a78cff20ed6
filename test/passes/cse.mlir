// RUN: dlc-opt %s --pipeline=cse --split-input-file -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(cse))' --split-input-file -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(cse))' --disable-threading --split-input-file -allow-unregistered-dialect | FileCheck %s
// RUN: mlir-opt %s --cse --split-input-file -allow-unregistered-dialect | FileCheck %s

// cse merges a pure op into an equal op that dominates it, and erases pure ops that are already
// unused when visited. mlir-opt's `--cse` gives the same output on every case here (third RUN
// line).
// The nested pipeline runs functions in parallel and serially; both give the same text.

// Doc example 1: a repeated expression; addi is commutative, so swapped operands are equal.

// CHECK-LABEL: func.func @repeat(%arg0: i32, %arg1: i32) -> (i32, i32) {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: return %0, %0 : i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @repeat(%a: i32, %b: i32) -> (i32, i32) {
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %b, %a : i32
  return %0, %1 : i32, i32
}

// -----

// Doc example 2: a value computed in the entry block is reused in a block it dominates.

// CHECK-LABEL: func.func @dominated(%arg0: i32, %arg1: i1) -> i32 {
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: "t.cond_br"(%arg1)[^bb1, ^bb2] : (i1) -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @dominated(%a: i32, %c: i1) -> i32 {
  %0 = arith.muli %a, %a : i32
  "t.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  %1 = arith.muli %a, %a : i32
  return %1 : i32
^bb2:
  return %0 : i32
}

// -----

// subi is not commutative: only the copy with the same operand order goes.

// CHECK-LABEL: func.func @not_commutative(%arg0: i32, %arg1: i32) -> (i32, i32, i32) {
// CHECK-NEXT: %0 = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.subi %arg1, %arg0 : i32
// CHECK-NEXT: return %0, %1, %0 : i32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @not_commutative(%a: i32, %b: i32) -> (i32, i32, i32) {
  %0 = arith.subi %a, %b : i32
  %1 = arith.subi %b, %a : i32
  %2 = arith.subi %a, %b : i32
  return %0, %1, %2 : i32, i32, i32
}

// -----

// Equal constants merge; the same value of another type, or another value, does not.

// CHECK-LABEL: func.func @constants() -> (i32, i32, i64, i32) {
// CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT: %c1_i64 = arith.constant 1 : i64
// CHECK-NEXT: %c2_i32 = arith.constant 2 : i32
// CHECK-NEXT: return %c1_i32, %c1_i32, %c1_i64, %c2_i32 : i32, i32, i64, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @constants() -> (i32, i32, i64, i32) {
  %0 = arith.constant 1 : i32
  %1 = arith.constant 1 : i32
  %2 = arith.constant 1 : i64
  %3 = arith.constant 2 : i32
  return %0, %1, %2, %3 : i32, i32, i64, i32
}

// -----

// Attributes are part of the key: another predicate or other fastmath flags keep an op.

// CHECK-LABEL: func.func @attributes(%arg0: i32, %arg1: i32, %arg2: f32) -> (i1, i1, i1, f32, f32, f32) {
// CHECK-NEXT: %0 = arith.cmpi slt, %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.cmpi sle, %arg0, %arg1 : i32
// CHECK-NEXT: %2 = arith.addf %arg2, %arg2 : f32
// CHECK-NEXT: %3 = arith.addf %arg2, %arg2 fastmath<fast> : f32
// CHECK-NEXT: return %0, %1, %0, %2, %3, %2 : i1, i1, i1, f32, f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @attributes(%a: i32, %b: i32, %x: f32) -> (i1, i1, i1, f32, f32, f32) {
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.cmpi sle, %a, %b : i32
  %2 = arith.cmpi slt, %a, %b : i32
  %3 = arith.addf %x, %x : f32
  %4 = arith.addf %x, %x fastmath<fast> : f32
  %5 = arith.addf %x, %x : f32
  return %0, %1, %2, %3, %4, %5 : i1, i1, i1, f32, f32, f32
}

// -----

// Merging one op makes its users equal too, in the same walk.

// CHECK-LABEL: func.func @chain(%arg0: i32) -> (i32, i32) {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.muli %0, %0 : i32
// CHECK-NEXT: return %1, %1 : i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @chain(%a: i32) -> (i32, i32) {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %0, %0 : i32
  %2 = arith.addi %a, %a : i32
  %3 = arith.muli %2, %2 : i32
  return %1, %3 : i32, i32
}

// -----

// An op that is unused when visited is erased (num-dce), as MLIR's cse does.

// CHECK-LABEL: func.func @trivially_dead(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @trivially_dead(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %a, %a : i32
  return %1 : i32
}

// -----

// Counter-example: calls may have side effects, so two equal calls both stay.

// CHECK-LABEL: func.func private @f(i32) -> i32
// CHECK-LABEL: func.func @calls(%arg0: i32) -> (i32, i32) {
// CHECK-NEXT: %0 = call @f(%arg0) : (i32) -> i32
// CHECK-NEXT: %1 = call @f(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0, %1 : i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @f(i32) -> i32

func.func @calls(%a: i32) -> (i32, i32) {
  %0 = func.call @f(%a) : (i32) -> i32
  %1 = func.call @f(%a) : (i32) -> i32
  return %0, %1 : i32, i32
}

// -----

// Counter-example: unregistered ops may have side effects.

// CHECK-LABEL: func.func @unregistered(%arg0: i32) -> (i32, i32) {
// CHECK-NEXT: %0 = "t.op"(%arg0) : (i32) -> i32
// CHECK-NEXT: %1 = "t.op"(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0, %1 : i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @unregistered(%a: i32) -> (i32, i32) {
  %0 = "t.op"(%a) : (i32) -> i32
  %1 = "t.op"(%a) : (i32) -> i32
  return %0, %1 : i32, i32
}

// -----

// Counter-example: neither branch dominates the other or the join, so nothing merges.

// CHECK-LABEL: func.func @sibling_blocks(%arg0: i32, %arg1: i1) -> i32 {
// CHECK-NEXT: "t.cond_br"(%arg1)[^bb1, ^bb2] : (i1) -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: "t.br"(%0)[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: "t.br"(%1)[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb3(%2: i32):  // 2 preds: ^bb1, ^bb2
// CHECK-NEXT: %3 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %4 = arith.muli %2, %3 : i32
// CHECK-NEXT: return %4 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @sibling_blocks(%a: i32, %c: i1) -> i32 {
  "t.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  %0 = arith.addi %a, %a : i32
  "t.br"(%0)[^bb3] : (i32) -> ()
^bb2:
  %1 = arith.addi %a, %a : i32
  "t.br"(%1)[^bb3] : (i32) -> ()
^bb3(%2: i32):
  %3 = arith.addi %a, %a : i32
  %4 = arith.muli %2, %3 : i32
  return %4 : i32
}

// -----

// A loop: the header dominates the exit, so the exit reuses the header's values; the
// loop-invariant product in the header is the entry's.

// CHECK-LABEL: func.func @loop(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: "t.br"(%0)[^bb1] : (i32) -> ()
// CHECK-NEXT: ^bb1(%1: i32):  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT: %2 = arith.addi %1, %0 : i32
// CHECK-NEXT: %3 = arith.cmpi slt, %2, %arg1 : i32
// CHECK-NEXT: "t.cond_br"(%3, %2)[^bb1, ^bb2] : (i1, i32) -> ()
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT: %4 = arith.addi %0, %2 : i32
// CHECK-NEXT: return %4 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @loop(%a: i32, %n: i32) -> i32 {
  %0 = arith.muli %a, %a : i32
  "t.br"(%0)[^bb1] : (i32) -> ()
^bb1(%1: i32):
  %2 = arith.muli %a, %a : i32
  %3 = arith.addi %1, %2 : i32
  %4 = arith.cmpi slt, %3, %n : i32
  "t.cond_br"(%4, %3)[^bb1, ^bb2] : (i1, i32) -> ()
^bb2:
  %5 = arith.muli %a, %a : i32
  %6 = arith.addi %1, %2 : i32
  %7 = arith.addi %5, %6 : i32
  return %7 : i32
}

// -----

// Nested regions: the region of an unregistered op may be isolated from above, so it does not
// see the function's values (as in MLIR), but equal ops inside it merge.

// CHECK-LABEL: func.func @nested_region(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: "t.region"() ({
// CHECK-NEXT: %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: "t.use"(%1, %1) : (i32, i32) -> ()
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @nested_region(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  "t.region"() ({
    %1 = arith.addi %a, %a : i32
    %2 = arith.addi %a, %a : i32
    "t.use"(%1, %2) : (i32, i32) -> ()
    "t.yield"() : () -> ()
  }) : () -> ()
  return %0 : i32
}

// -----

// Counter-example: sibling regions do not dominate each other.

// CHECK-LABEL: func.func @sibling_regions(%arg0: i32) {
// CHECK-NEXT: "t.two_regions"() ({
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: "t.use"(%0) : (i32) -> ()
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: "t.use"(%0) : (i32) -> ()
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @sibling_regions(%a: i32) {
  "t.two_regions"() ({
    %0 = arith.muli %a, %a : i32
    "t.use"(%0) : (i32) -> ()
    "t.yield"() : () -> ()
  }, {
    %1 = arith.muli %a, %a : i32
    "t.use"(%1) : (i32) -> ()
    "t.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Edge case: an empty function.

// CHECK-LABEL: func.func @empty() {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @empty() {
  return
}

// -----

// Counter-example: unregistered multi-result ops are not pure (a pure multi-result op is covered
// by the unit tests in passes/tests/library/cse.rs).

// CHECK-LABEL: func.func @multi_result(%arg0: i32) -> (i32, i32, i32, i32) {
// CHECK-NEXT: %0:2 = "t.pair"(%arg0) : (i32) -> (i32, i32)
// CHECK-NEXT: %1:2 = "t.pair"(%arg0) : (i32) -> (i32, i32)
// CHECK-NEXT: return %0#0, %0#1, %1#0, %1#1 : i32, i32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @multi_result(%a: i32) -> (i32, i32, i32, i32) {
  %0:2 = "t.pair"(%a) : (i32) -> (i32, i32)
  %1:2 = "t.pair"(%a) : (i32) -> (i32, i32)
  return %0#0, %0#1, %1#0, %1#1 : i32, i32, i32, i32
}

// -----

// Blocks unreachable from the entry are not visited.

// CHECK-LABEL: func.func @unreachable(%arg0: i32) -> i32 {
// CHECK-NEXT: "t.br"()[^bb2] : () -> ()
// CHECK-NEXT: ^bb1:  // no predecessors
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: "t.use"(%0, %1) : (i32, i32) -> ()
// CHECK-NEXT: "t.br"()[^bb2] : () -> ()
// CHECK-NEXT: ^bb2:  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @unreachable(%a: i32) -> i32 {
  "t.br"()[^bb2] : () -> ()
^bb1:
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  "t.use"(%0, %1) : (i32, i32) -> ()
  "t.br"()[^bb2] : () -> ()
^bb2:
  return %a : i32
}

// -----

// Functions are isolated from above: nothing is shared between them.

// CHECK-LABEL: func.func @two_functions_a(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @two_functions_b(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.muli %0, %0 : i32
// CHECK-NEXT: return %1 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @two_functions_a(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
func.func @two_functions_b(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
