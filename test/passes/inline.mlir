// RUN: dlc-opt %s --pipeline=inline --split-input-file -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --pipeline=inline --split-input-file -allow-unregistered-dialect --print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: dlc-opt %s --pipeline=inline,symbol-dce --split-input-file -allow-unregistered-dialect | FileCheck %s --check-prefix=CLEAN

// inline copies the body of single-block, non-recursive callees into their callers. Compared
// with `mlir-opt --inline='default-pipeline='`: MLIR also erases private callees left unused (here
// `symbol-dce` does that, third RUN line), does not inline callees holding unregistered ops
// (@side_effect: its dialects must opt in), and cannot resolve a call nested in an unregistered
// op (@in_region). Everything else matches.

// Doc example 1: a helper called twice.

// CLEAN-NOT: @square
// CLEAN-LABEL: func.func @main
// CLEAN-NEXT: arith.muli

// CHECK-LABEL: func.func private @square(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @main(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.muli %0, %0 : i32
// CHECK-NEXT: return %1 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @square(%a: i32) -> i32 {
  %0 = arith.muli %a, %a : i32
  return %0 : i32
}
func.func @main(%x: i32) -> i32 {
  %0 = func.call @square(%x) : (i32) -> i32
  %1 = func.call @square(%0) : (i32) -> i32
  return %1 : i32
}

// -----

// Counter-example: a recursive function is never inlined, into itself or elsewhere.

// CHECK-LABEL: func.func @fact(%arg0: i64) -> i64 {
// CHECK-NEXT: %c1_i64 = arith.constant 1 : i64
// CHECK-NEXT: %0 = arith.subi %arg0, %c1_i64 : i64
// CHECK-NEXT: %1 = call @fact(%0) : (i64) -> i64
// CHECK-NEXT: %2 = arith.muli %arg0, %1 : i64
// CHECK-NEXT: return %2 : i64
// CHECK-NEXT: }
// CHECK-LABEL: func.func @use_fact(%arg0: i64) -> i64 {
// CHECK-NEXT: %0 = call @fact(%arg0) : (i64) -> i64
// CHECK-NEXT: return %0 : i64
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @fact(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %0 = arith.subi %n, %c1 : i64
  %1 = func.call @fact(%0) : (i64) -> i64
  %2 = arith.muli %n, %1 : i64
  return %2 : i64
}
func.func @use_fact(%n: i64) -> i64 {
  %0 = func.call @fact(%n) : (i64) -> i64
  return %0 : i64
}

// -----

// Counter-example: mutual recursion is a cycle too.

// CHECK-LABEL: func.func @even(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @odd(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @odd(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @even(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @even(%n: i32) -> i32 {
  %0 = func.call @odd(%n) : (i32) -> i32
  return %0 : i32
}
func.func @odd(%n: i32) -> i32 {
  %0 = func.call @even(%n) : (i32) -> i32
  return %0 : i32
}

// -----

// Counter-example: a declaration has no body.

// CHECK-LABEL: func.func private @extern(i32) -> i32
// CHECK-LABEL: func.func @calls_declaration(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @extern(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @extern(i32) -> i32
func.func @calls_declaration(%a: i32) -> i32 {
  %0 = func.call @extern(%a) : (i32) -> i32
  return %0 : i32
}

// -----

// Callees first: @middle is inlined after its call to @leaf was, so @top gets both bodies.

// CHECK-LABEL: func.func private @leaf(%arg0: f32) -> f32 {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg0 : f32
// CHECK-NEXT: return %0 : f32
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @middle(%arg0: f32) -> f32 {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg0 : f32
// CHECK-NEXT: %1 = arith.mulf %0, %arg0 : f32
// CHECK-NEXT: return %1 : f32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @top(%arg0: f32) -> f32 {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg0 : f32
// CHECK-NEXT: %1 = arith.mulf %0, %arg0 : f32
// CHECK-NEXT: return %1 : f32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @leaf(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  return %0 : f32
}
func.func private @middle(%a: f32) -> f32 {
  %0 = func.call @leaf(%a) : (f32) -> f32
  %1 = arith.mulf %0, %a : f32
  return %1 : f32
}
func.func @top(%a: f32) -> f32 {
  %0 = func.call @middle(%a) : (f32) -> f32
  return %0 : f32
}

// -----

// Multiple results, and arguments in another order.

// CHECK-LABEL: func.func private @two_results(%arg0: i32, %arg1: i32) -> (i32, i32) {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: return %0, %1 : i32, i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @multi(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg1, %arg0 : i32
// CHECK-NEXT: %1 = arith.subi %arg1, %arg0 : i32
// CHECK-NEXT: %2 = arith.muli %0, %1 : i32
// CHECK-NEXT: return %2 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @two_results(%a: i32, %b: i32) -> (i32, i32) {
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %a, %b : i32
  return %0, %1 : i32, i32
}
func.func @multi(%a: i32, %b: i32) -> i32 {
  %0:2 = func.call @two_results(%b, %a) : (i32, i32) -> (i32, i32)
  %1 = arith.muli %0#0, %0#1 : i32
  return %1 : i32
}

// -----

// A callee that only returns its argument, and one that returns nothing.

// CHECK-LABEL: func.func private @identity(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @nothing() {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-LABEL: func.func @trivial(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @identity(%a: i32) -> i32 {
  return %a : i32
}
func.func private @nothing() {
  return
}
func.func @trivial(%a: i32) -> i32 {
  func.call @nothing() : () -> ()
  %0 = func.call @identity(%a) : (i32) -> i32
  return %0 : i32
}

// -----

// Calls inside nested regions are inlined too, and so are callees with regions. (The
// unregistered ops have two regions: one with a single region could be a symbol table, which
// the third RUN line's symbol-dce would refuse, as MLIR's does.)

// CHECK-LABEL: func.func private @with_region(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = "t.region"(%arg0) ({
// CHECK-NEXT: ^bb0(%arg1: i32):
// CHECK-NEXT: %1 = arith.addi %arg1, %arg0 : i32
// CHECK-NEXT: "t.yield"(%1) : (i32) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: }) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @in_region(%arg0: i32) {
// CHECK-NEXT: "t.outer"() ({
// CHECK-NEXT: %0 = "t.region"(%arg0) ({
// CHECK-NEXT: ^bb0(%arg1: i32):
// CHECK-NEXT: %1 = arith.addi %arg1, %arg0 : i32
// CHECK-NEXT: "t.yield"(%1) : (i32) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: }) : (i32) -> i32
// CHECK-NEXT: "t.use"(%0) : (i32) -> ()
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @with_region(%a: i32) -> i32 {
  %0 = "t.region"(%a) ({
  ^bb0(%x: i32):
    %1 = arith.addi %x, %a : i32
    "t.yield"(%1) : (i32) -> ()
  }, {
  }) : (i32) -> i32
  return %0 : i32
}
func.func @in_region(%a: i32) {
  "t.outer"() ({
    %0 = func.call @with_region(%a) : (i32) -> i32
    "t.use"(%0) : (i32) -> ()
    "t.yield"() : () -> ()
  }, {
  }) : () -> ()
  return
}

// -----

// Counter-example: callees with several blocks are not inlined.

// CHECK-LABEL: func.func private @multi_block(%arg0: i1, %arg1: i32) -> i32 {
// CHECK-NEXT: "t.cond_br"(%arg0)[^bb1, ^bb2] : (i1) -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: return %arg1 : i32
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: %0 = arith.addi %arg1, %arg1 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @calls_multi_block(%arg0: i1, %arg1: i32) -> i32 {
// CHECK-NEXT: %0 = call @multi_block(%arg0, %arg1) : (i1, i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @multi_block(%c: i1, %a: i32) -> i32 {
  "t.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  return %a : i32
^bb2:
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
func.func @calls_multi_block(%c: i1, %a: i32) -> i32 {
  %0 = func.call @multi_block(%c, %a) : (i1, i32) -> i32
  return %0 : i32
}

// -----

// The order of side effects is kept: the body goes where the call was.

// CHECK-LABEL: func.func private @side_effect(%arg0: i32) {
// CHECK-NEXT: "t.print"(%arg0) : (i32) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-LABEL: func.func @keeps_order(%arg0: i32) {
// CHECK-NEXT: "t.before"() : () -> ()
// CHECK-NEXT: "t.print"(%arg0) : (i32) -> ()
// CHECK-NEXT: "t.after"() : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @side_effect(%a: i32) {
  "t.print"(%a) : (i32) -> ()
  return
}
func.func @keeps_order(%a: i32) {
  "t.before"() : () -> ()
  func.call @side_effect(%a) : (i32) -> ()
  "t.after"() : () -> ()
  return
}

// -----

// Copied ops get call-site locations, as in MLIR.

// LOC-LABEL: func.func @locations
// LOC-NEXT: arith.addi %arg0, %arg0 : i32 loc(callsite("callee.py":1:1 at "caller.py":5:5))

// CHECK-LABEL: func.func private @located(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func @locations(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @located(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32 loc("callee.py":1:1)
  return %0 : i32
}
func.func @locations(%a: i32) -> i32 {
  %0 = func.call @located(%a) : (i32) -> i32 loc("caller.py":5:5)
  return %0 : i32
}
