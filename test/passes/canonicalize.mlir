// RUN: dlc-opt %s --pipeline=canonicalize --split-input-file --allow-unregistered-dialect \
// RUN:   | FileCheck %s
// RUN: mlir-opt %s --canonicalize --split-input-file --allow-unregistered-dialect | FileCheck %s

// canonicalize folds, erases unused pure ops, hoists and merges constants and applies the arith
// canonicalization patterns. Each case is checked against mlir-opt's output too: dlc and MLIR
// print the same text, constant order included (the cases where they differ on purpose are in
// canonicalize-dlc.mlir).

// Doc example 1: constants fold, `(x + 6) + 2` reassociates, the unused op goes, and the
// constant moves to the top of the function.
// CHECK-LABEL: func.func @fold(%arg0: i32) -> i32 {
// CHECK-NEXT: %c8_i32 = arith.constant 8 : i32
// CHECK-NEXT: %0 = arith.addi %arg0, %c8_i32 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
func.func @fold(%a: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %0 = arith.muli %c2, %c3 : i32
  %1 = arith.addi %a, %0 : i32
  %2 = arith.addi %1, %c2 : i32
  %unused = arith.subi %a, %c3 : i32
  return %2 : i32
}

// -----

// Doc example 2: `xori(cmpi slt, true)` becomes `cmpi sge` (XOrINotCmpI).
// CHECK-LABEL: func.func @invert(%arg0: i32, %arg1: i32, %arg2: i64, %arg3: i64) -> i64 {
// CHECK-NEXT: %0 = arith.cmpi sge, %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.select %0, %arg2, %arg3 : i64
// CHECK-NEXT: return %1 : i64
// CHECK-NEXT: }
func.func @invert(%a: i32, %b: i32, %x: i64, %y: i64) -> i64 {
  %true = arith.constant true
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.xori %0, %true : i1
  %2 = arith.select %1, %x, %y : i64
  return %2 : i64
}

// -----

// Identities fold to an operand, or to a constant (`x - x`, `x ^ x`), which merges with the
// `0` already there; the constants nothing uses any more are erased.
// CHECK-LABEL: func.func @identities(%arg0: i32, %arg1: i1, %arg2: f32) -> (i32, i32, i32, i32, i32, i32, f32) {
// CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT: return %arg0, %arg0, %c0_i32, %arg0, %arg0, %c0_i32, %arg2 : i32, i32, i32, i32, i32, i32, f32
// CHECK-NEXT: }
func.func @identities(%x: i32, %c: i1, %f: f32) -> (i32, i32, i32, i32, i32, i32, f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cst1 = arith.constant 1.0 : f32
  %0 = arith.addi %x, %c0 : i32
  %1 = arith.muli %c1, %x : i32
  %2 = arith.subi %x, %x : i32
  %3 = arith.andi %x, %x : i32
  %4 = arith.select %c, %x, %x : i32
  %5 = arith.xori %x, %x : i32
  %6 = arith.mulf %f, %cst1 : f32
  return %0, %1, %2, %3, %4, %5, %6 : i32, i32, i32, i32, i32, i32, f32
}

// -----

// Constants evaluate at the width of their type: i8 and i1 wrap, index is 64-bit, floats
// and splats fold too.
// CHECK-LABEL: func.func @constant_folding() -> (i8, i1, index, f32, vector<4xi32>) {
// CHECK-NEXT: %c-56_i8 = arith.constant -56 : i8
// CHECK-NEXT: %false = arith.constant false
// CHECK-NEXT: %c49 = arith.constant 49 : index
// CHECK-NEXT: %cst = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %cst_0 = arith.constant dense<9> : vector<4xi32>
// CHECK-NEXT: return %c-56_i8, %false, %c49, %cst, %cst_0 : i8, i1, index, f32, vector<4xi32>
// CHECK-NEXT: }
func.func @constant_folding() -> (i8, i1, index, f32, vector<4xi32>) {
  %a = arith.constant 100 : i8
  %b = arith.constant 100 : i8
  %0 = arith.addi %a, %b : i8
  %t = arith.constant true
  %1 = arith.addi %t, %t : i1
  %i = arith.constant 7 : index
  %2 = arith.muli %i, %i : index
  %f = arith.constant 1.5 : f32
  %3 = arith.addf %f, %f : f32
  %v = arith.constant dense<3> : vector<4xi32>
  %4 = arith.muli %v, %v : vector<4xi32>
  return %0, %1, %2, %3, %4 : i8, i1, index, f32, vector<4xi32>
}

// -----

// Counter-example 1 and 2: an unused call (side effects) and an unused unregistered op
// (unknown effects) stay; the unused pure chain goes.
// CHECK-LABEL: func.func @dead_code(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @effect(%arg0) : (i32) -> i32
// CHECK-NEXT: %1 = "test.opaque"(%arg0) : (i32) -> i32
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
func.func private @effect(i32) -> i32

func.func @dead_code(%x: i32) -> i32 {
  %c5 = arith.constant 5 : i32
  %dead = arith.addi %x, %c5 : i32
  %dead2 = arith.muli %dead, %dead : i32
  %kept = func.call @effect(%x) : (i32) -> i32
  %opaque = "test.opaque"(%x) : (i32) -> i32
  return %x : i32
}

// -----

// Constants move to the right of commutative ops only (`subi` is not commutative).
// CHECK-LABEL: func.func @commute(%arg0: i32, %arg1: f32) -> (i32, f32, i32) {
// CHECK-NEXT: %c5_i32 = arith.constant 5 : i32
// CHECK-NEXT: %cst = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %0 = arith.addi %arg0, %c5_i32 : i32
// CHECK-NEXT: %1 = arith.mulf %arg1, %cst : f32
// CHECK-NEXT: %2 = arith.subi %c5_i32, %arg0 : i32
// CHECK-NEXT: return %0, %1, %2 : i32, f32, i32
// CHECK-NEXT: }
func.func @commute(%x: i32, %y: f32) -> (i32, f32, i32) {
  %c5 = arith.constant 5 : i32
  %cst = arith.constant 2.0 : f32
  %0 = arith.addi %c5, %x : i32
  %1 = arith.mulf %cst, %y : f32
  %2 = arith.subi %c5, %x : i32
  return %0, %1, %2 : i32, f32, i32
}

// -----

// Constants are hoisted to the entry block and equal ones merged into one.
// CHECK-LABEL: func.func @hoist_and_merge(%arg0: i32) -> (i32, i32, i32) {
// CHECK-NEXT: %c9_i32 = arith.constant 9 : i32
// CHECK-NEXT: %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.muli %0, %c7_i32 : i32
// CHECK-NEXT: %2 = arith.maxsi %1, %c7_i32 : i32
// CHECK-NEXT: %3 = arith.minsi %2, %c9_i32 : i32
// CHECK-NEXT: return %1, %2, %3 : i32, i32, i32
// CHECK-NEXT: }
func.func @hoist_and_merge(%x: i32) -> (i32, i32, i32) {
  %0 = arith.muli %x, %x : i32
  %c7 = arith.constant 7 : i32
  %1 = arith.muli %0, %c7 : i32
  %c7b = arith.constant 7 : i32
  %2 = arith.maxsi %1, %c7b : i32
  %c9 = arith.constant 9 : i32
  %3 = arith.minsi %2, %c9 : i32
  return %1, %2, %3 : i32, i32, i32
}

// -----

// The ten add/sub/mul constant reassociations (AddIAddConstant, AddISubConstantRHS,
// AddISubConstantLHS, SubIRHSAddConstant, SubILHSAddConstant, SubIRHSSubConstantRHS,
// SubIRHSSubConstantLHS, SubILHSSubConstantRHS, SubILHSSubConstantLHS, MulIMulIConstant).
// CHECK-LABEL: func.func @reassociate(%arg0: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
// CHECK-NEXT: %c30_i32 = arith.constant 30 : i32
// CHECK-NEXT: %c-7_i32 = arith.constant -7 : i32
// CHECK-NEXT: %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT: %c13_i32 = arith.constant 13 : i32
// CHECK-NEXT: %0 = arith.addi %arg0, %c13_i32 : i32
// CHECK-NEXT: %1 = arith.addi %arg0, %c7_i32 : i32
// CHECK-NEXT: %2 = arith.subi %c13_i32, %arg0 : i32
// CHECK-NEXT: %3 = arith.addi %arg0, %c-7_i32 : i32
// CHECK-NEXT: %4 = arith.subi %c7_i32, %arg0 : i32
// CHECK-NEXT: %5 = arith.subi %arg0, %c13_i32 : i32
// CHECK-NEXT: %6 = arith.subi %c-7_i32, %arg0 : i32
// CHECK-NEXT: %7 = arith.subi %c13_i32, %arg0 : i32
// CHECK-NEXT: %8 = arith.addi %arg0, %c7_i32 : i32
// CHECK-NEXT: %9 = arith.muli %arg0, %c30_i32 : i32
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
// CHECK-NEXT: }
func.func @reassociate(%x: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %c3 = arith.constant 3 : i32
  %c10 = arith.constant 10 : i32
  %add = arith.addi %x, %c3 : i32
  %sub = arith.subi %x, %c3 : i32
  %rsub = arith.subi %c3, %x : i32
  %mul = arith.muli %x, %c3 : i32
  %0 = arith.addi %add, %c10 : i32
  %1 = arith.addi %sub, %c10 : i32
  %2 = arith.addi %rsub, %c10 : i32
  %3 = arith.subi %add, %c10 : i32
  %4 = arith.subi %c10, %add : i32
  %5 = arith.subi %sub, %c10 : i32
  %6 = arith.subi %rsub, %c10 : i32
  %7 = arith.subi %c10, %sub : i32
  %8 = arith.subi %c10, %rsub : i32
  %9 = arith.muli %mul, %c10 : i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}

// -----

// Reassociation wraps at every width: i1 (`(a + 1) + 1` is `a`), i8 (`100 + 100` is -56),
// index, and i64 at its maximum.
// CHECK-LABEL: func.func @reassociate_widths(%arg0: i1, %arg1: i8, %arg2: index, %arg3: i64) -> (i1, i8, index, i64) {
// CHECK-NEXT: %c-2_i64 = arith.constant -2 : i64
// CHECK-NEXT: %c10 = arith.constant 10 : index
// CHECK-NEXT: %c-56_i8 = arith.constant -56 : i8
// CHECK-NEXT: %0 = arith.addi %arg1, %c-56_i8 : i8
// CHECK-NEXT: %1 = arith.subi %arg2, %c10 : index
// CHECK-NEXT: %2 = arith.addi %arg3, %c-2_i64 : i64
// CHECK-NEXT: return %arg0, %0, %1, %2 : i1, i8, index, i64
// CHECK-NEXT: }
func.func @reassociate_widths(%a: i1, %b: i8, %c: index, %d: i64) -> (i1, i8, index, i64) {
  %t = arith.constant true
  %0 = arith.addi %a, %t : i1
  %1 = arith.addi %0, %t : i1
  %c100 = arith.constant 100 : i8
  %2 = arith.addi %b, %c100 : i8
  %3 = arith.addi %2, %c100 : i8
  %c5 = arith.constant 5 : index
  %4 = arith.subi %c, %c5 : index
  %5 = arith.subi %4, %c5 : index
  %big = arith.constant 9223372036854775807 : i64
  %6 = arith.addi %d, %big : i64
  %7 = arith.addi %6, %big : i64
  return %1, %3, %5, %7 : i1, i8, index, i64
}

// -----

// Flags common to both ops survive when combining the constants cannot overflow.
// CHECK-LABEL: func.func @overflow_flags(%arg0: i32) -> (i32, i32) {
// CHECK-NEXT: %c35_i32 = arith.constant 35 : i32
// CHECK-NEXT: %c12_i32 = arith.constant 12 : i32
// CHECK-NEXT: %0 = arith.addi %arg0, %c12_i32 overflow<nsw> : i32
// CHECK-NEXT: %1 = arith.muli %arg0, %c35_i32 overflow<nuw> : i32
// CHECK-NEXT: return %0, %1 : i32, i32
// CHECK-NEXT: }
func.func @overflow_flags(%x: i32) -> (i32, i32) {
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %0 = arith.addi %x, %c5 overflow<nsw, nuw> : i32
  %1 = arith.addi %0, %c7 overflow<nsw> : i32
  %2 = arith.muli %x, %c5 overflow<nuw> : i32
  %3 = arith.muli %2, %c7 overflow<nuw> : i32
  return %1, %3 : i32, i32
}

// -----

// Counter-examples: no constant in the inner op, a multiplication by a power of two (not
// strength-reduced), and vector splats (MLIR reassociates scalar constants only).
// CHECK-LABEL: func.func @no_reassociation(%arg0: i32, %arg1: i32, %arg2: vector<4xi32>) -> (i32, i32, vector<4xi32>) {
// CHECK-NEXT: %cst = arith.constant dense<2> : vector<4xi32>
// CHECK-NEXT: %c8_i32 = arith.constant 8 : i32
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.addi %0, %c8_i32 : i32
// CHECK-NEXT: %2 = arith.muli %arg0, %c8_i32 : i32
// CHECK-NEXT: %3 = arith.addi %arg2, %cst : vector<4xi32>
// CHECK-NEXT: %4 = arith.addi %3, %cst : vector<4xi32>
// CHECK-NEXT: return %1, %2, %4 : i32, i32, vector<4xi32>
// CHECK-NEXT: }
func.func @no_reassociation(%x: i32, %y: i32, %v: vector<4xi32>) -> (i32, i32, vector<4xi32>) {
  %c8 = arith.constant 8 : i32
  %0 = arith.addi %x, %y : i32
  %1 = arith.addi %0, %c8 : i32
  %2 = arith.muli %x, %c8 : i32
  %s = arith.constant dense<2> : vector<4xi32>
  %3 = arith.addi %v, %s : vector<4xi32>
  %4 = arith.addi %3, %s : vector<4xi32>
  return %1, %2, %4 : i32, i32, vector<4xi32>
}

// -----

// SelectI1ToNot, SelectToExtUI (both polarities), SelectNotCond, RedundantSelectTrue and
// RedundantSelectFalse; `select %c, true, false` is a fold.
// CHECK-LABEL: func.func @selects(%arg0: i1, %arg1: i1, %arg2: i32, %arg3: i32) -> (i1, i1, i32, i32, i32, i32, i32) {
// CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %0 = arith.xori %arg0, %true : i1
// CHECK-NEXT: %1 = arith.extui %arg0 : i1 to i32
// CHECK-NEXT: %2 = arith.xori %arg0, %true : i1
// CHECK-NEXT: %3 = arith.extui %2 : i1 to i32
// CHECK-NEXT: %4 = arith.select %arg1, %arg3, %arg2 : i32
// CHECK-NEXT: %5 = arith.select %arg0, %arg2, %c0_i32 : i32
// CHECK-NEXT: %6 = arith.select %arg0, %c1_i32, %arg3 : i32
// CHECK-NEXT: return %arg0, %0, %1, %3, %4, %5, %6 : i1, i1, i32, i32, i32, i32, i32
// CHECK-NEXT: }
func.func @selects(%c: i1, %d: i1, %a: i32, %b: i32) -> (i1, i1, i32, i32, i32, i32, i32) {
  %true = arith.constant true
  %false = arith.constant false
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %0 = arith.select %c, %true, %false : i1
  %1 = arith.select %c, %false, %true : i1
  %2 = arith.select %c, %c1, %c0 : i32
  %3 = arith.select %c, %c0, %c1 : i32
  %not = arith.xori %d, %true : i1
  %4 = arith.select %not, %a, %b : i32
  %inner = arith.select %c, %a, %b : i32
  %5 = arith.select %c, %inner, %c0 : i32
  %6 = arith.select %c, %c1, %inner : i32
  return %0, %1, %2, %3, %4, %5, %6 : i1, i1, i32, i32, i32, i32, i32
}

// -----

// CmpIExtSI and CmpIExtUI narrow eq/ne only (not slt); a constant on the left moves right
// with the predicate mirrored; a value compared with itself folds.
// CHECK-LABEL: func.func @compares(%arg0: i8, %arg1: i8, %arg2: i32) -> (i1, i1, i1, i1, i1) {
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %c4_i32 = arith.constant 4 : i32
// CHECK-NEXT: %0 = arith.extsi %arg0 : i8 to i32
// CHECK-NEXT: %1 = arith.extsi %arg1 : i8 to i32
// CHECK-NEXT: %2 = arith.cmpi eq, %arg0, %arg1 : i8
// CHECK-NEXT: %3 = arith.cmpi ne, %arg0, %arg1 : i8
// CHECK-NEXT: %4 = arith.cmpi slt, %0, %1 : i32
// CHECK-NEXT: %5 = arith.cmpi sgt, %arg2, %c4_i32 : i32
// CHECK-NEXT: return %2, %3, %4, %5, %true : i1, i1, i1, i1, i1
// CHECK-NEXT: }
func.func @compares(%a: i8, %b: i8, %x: i32) -> (i1, i1, i1, i1, i1) {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extsi %b : i8 to i32
  %2 = arith.cmpi eq, %0, %1 : i32
  %3 = arith.extui %a : i8 to i32
  %4 = arith.extui %b : i8 to i32
  %5 = arith.cmpi ne, %3, %4 : i32
  %6 = arith.cmpi slt, %0, %1 : i32
  %c4 = arith.constant 4 : i32
  %7 = arith.cmpi slt, %c4, %x : i32
  %8 = arith.cmpi sle, %x, %x : i32
  return %2, %5, %6, %7, %8 : i1, i1, i1, i1, i1
}

// -----

// AddIMulNegativeOneRhs/Lhs (scalar and splat -1) and SubISubILHSRHSLHS.
// CHECK-LABEL: func.func @negation(%arg0: i32, %arg1: i32, %arg2: vector<2xi32>, %arg3: vector<2xi32>) -> (i32, i32, vector<2xi32>, i32) {
// CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT: %0 = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.subi %arg0, %arg1 : i32
// CHECK-NEXT: %2 = arith.subi %arg2, %arg3 : vector<2xi32>
// CHECK-NEXT: %3 = arith.subi %c0_i32, %arg1 : i32
// CHECK-NEXT: return %0, %1, %2, %3 : i32, i32, vector<2xi32>, i32
// CHECK-NEXT: }
func.func @negation(%x: i32, %y: i32, %v: vector<2xi32>, %w: vector<2xi32>) -> (i32, i32, vector<2xi32>, i32) {
  %m1 = arith.constant -1 : i32
  %0 = arith.muli %y, %m1 : i32
  %1 = arith.addi %x, %0 : i32
  %2 = arith.addi %0, %x : i32
  %vm1 = arith.constant dense<-1> : vector<2xi32>
  %3 = arith.muli %w, %vm1 : vector<2xi32>
  %4 = arith.addi %v, %3 : vector<2xi32>
  %5 = arith.subi %x, %y : i32
  %6 = arith.subi %5, %x : i32
  return %1, %2, %4, %6 : i32, i32, vector<2xi32>, i32
}

// -----

// Constants stay in the region of an op that may be isolated from above (here unregistered),
// and are merged per region.
// CHECK-LABEL: func.func @nested(%arg0: i1, %arg1: i32) -> i32 {
// CHECK-NEXT: %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT: %0 = "test.region"(%arg0) ({
// CHECK-NEXT: %c7_i32_0 = arith.constant 7 : i32
// CHECK-NEXT: %2 = arith.addi %arg1, %c7_i32_0 : i32
// CHECK-NEXT: "test.yield"(%2) : (i32) -> ()
// CHECK-NEXT: }) : (i1) -> i32
// CHECK-NEXT: %1 = arith.addi %0, %c7_i32 : i32
// CHECK-NEXT: return %1 : i32
// CHECK-NEXT: }
func.func @nested(%c: i1, %x: i32) -> i32 {
  %r = "test.region"(%c) ({
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %s = arith.addi %c3, %c4 : i32
    %t = arith.addi %x, %s : i32
    "test.yield"(%t) : (i32) -> ()
  }) : (i1) -> i32
  %c7 = arith.constant 7 : i32
  %y = arith.addi %r, %c7 : i32
  return %y : i32
}

// -----

// `x & ~x` is 0, `x | ~x` is all ones, `(x & y) & y` is `x & y`.
// CHECK-LABEL: func.func @and_or(%arg0: i32, %arg1: i32) -> (i32, i32, i32) {
// CHECK-NEXT: %c-1_i32 = arith.constant -1 : i32
// CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT: %0 = arith.andi %arg0, %arg1 : i32
// CHECK-NEXT: return %c0_i32, %c-1_i32, %0 : i32, i32, i32
// CHECK-NEXT: }
func.func @and_or(%x: i32, %y: i32) -> (i32, i32, i32) {
  %m1 = arith.constant -1 : i32
  %n = arith.xori %x, %m1 : i32
  %0 = arith.andi %x, %n : i32
  %1 = arith.ori %x, %n : i32
  %a = arith.andi %x, %y : i32
  %2 = arith.andi %a, %y : i32
  return %0, %1, %2 : i32, i32, i32
}
