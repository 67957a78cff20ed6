// RUN: dlc-opt %s --pipeline=dce --split-input-file -allow-unregistered-dialect | FileCheck %s

// dce erases pure ops whose results are unused (to a fixpoint) and blocks unreachable from the
// entry. MLIR has no pass of its own for this; `mlir-opt --canonicalize` gives the same output
// on these cases, except that it also drops the unused block argument of @block_arguments,
// which dce keeps.

// Doc example 1: a chain of unused arithmetic goes in one run.

// CHECK-LABEL: func.func @chain(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @chain(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.muli %0, %0 : i32
  return %a : i32
}

// -----

// Doc example 2: an unreachable block goes, side effects and all.

// CHECK-LABEL: func.func @unreachable(%arg0: i32) -> i32 {
// CHECK-NEXT: "t.br"()[^bb1] : () -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @unreachable(%a: i32) -> i32 {
  "t.br"()[^bb2] : () -> ()
^bb1:
  "t.side_effect"() : () -> ()
  "t.br"()[^bb2] : () -> ()
^bb2:
  return %a : i32
}

// -----

// Counter-examples: a call and an unregistered op may have side effects, so they stay, and so
// does the addi the unregistered op reads.

// CHECK-LABEL: func.func private @f(i32) -> i32
// CHECK-LABEL: func.func @calls(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @f(%arg0) : (i32) -> i32
// CHECK-NEXT: %1 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %2 = "t.op"(%1) : (i32) -> i32
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @f(i32) -> i32

func.func @calls(%a: i32) -> i32 {
  %0 = func.call @f(%a) : (i32) -> i32
  %1 = arith.addi %a, %a : i32
  %2 = "t.op"(%1) : (i32) -> i32
  return %a : i32
}

// -----

// Nothing to do: every value is used.

// CHECK-LABEL: func.func @keeps_used(%arg0: i32, %arg1: f32) -> (i32, f32) {
// CHECK-NEXT: %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT: %0 = arith.muli %arg0, %c3_i32 : i32
// CHECK-NEXT: %1 = arith.negf %arg1 : f32
// CHECK-NEXT: %2 = arith.cmpi slt, %0, %arg0 : i32
// CHECK-NEXT: %3 = arith.select %2, %0, %arg0 : i32
// CHECK-NEXT: return %3, %1 : i32, f32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @keeps_used(%a: i32, %b: f32) -> (i32, f32) {
  %c = arith.constant 3 : i32
  %0 = arith.muli %a, %c : i32
  %1 = arith.negf %b : f32
  %2 = arith.cmpi slt, %0, %a : i32
  %3 = arith.select %2, %0, %a : i32
  return %3, %1 : i32, f32
}

// -----

// Unreachable blocks that use each other's values go together.

// CHECK-LABEL: func.func @unreachable_cycle(%arg0: i32) -> i32 {
// CHECK-NEXT: "t.br"()[^bb1] : () -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @unreachable_cycle(%a: i32) -> i32 {
  "t.br"()[^bb3] : () -> ()
^bb1:
  %0 = arith.addi %1, %a : i32
  "t.br"()[^bb2] : () -> ()
^bb2:
  %1 = arith.muli %0, %a : i32
  "t.br"()[^bb1] : () -> ()
^bb3:
  return %a : i32
}

// -----

// Dead ops in a reachable branch go; the blocks stay.

// CHECK-LABEL: func.func @dead_in_branches(%arg0: i32, %arg1: i1) -> i32 {
// CHECK-NEXT: "t.cond_br"(%arg1)[^bb1, ^bb2] : (i1) -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: "t.br"()[^bb2] : () -> ()
// CHECK-NEXT: ^bb2:  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @dead_in_branches(%a: i32, %c: i1) -> i32 {
  %0 = arith.addi %a, %a : i32
  "t.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  %1 = arith.muli %0, %a : i32
  "t.br"()[^bb2] : () -> ()
^bb2:
  return %a : i32
}

// -----

// An unused block argument is kept, and so is the value a branch passes to it.

// CHECK-LABEL: func.func @block_arguments(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: "t.br"(%0)[^bb1] : (i32) -> ()
// CHECK-NEXT: ^bb1(%1: i32):  // pred: ^bb0
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @block_arguments(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  "t.br"(%0)[^bb1] : (i32) -> ()
^bb1(%1: i32):
  %2 = arith.muli %1, %1 : i32
  return %a : i32
}

// -----

// Ops in a nested region go, and then the value they read.

// CHECK-LABEL: func.func @nested_region(%arg0: i32) {
// CHECK-NEXT: "t.region"() ({
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @nested_region(%a: i32) {
  %0 = arith.addi %a, %a : i32
  "t.region"() ({
    %1 = arith.muli %0, %a : i32
    %2 = arith.subi %1, %a : i32
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

// Unused constants go.

// CHECK-LABEL: func.func @constants_only() -> i32 {
// CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT: return %c1_i32 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @constants_only() -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 1.0 : f32
  return %c1 : i32
}
