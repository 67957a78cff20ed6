// The locations canonicalize gives the ops its two-op patterns build are mlir-opt-22's (both
// tools' output goes through the same checks): the root's location fused with the first op
// MLIR's generated matcher records after the root, which is the first constant in operand
// order (descending into the inner op) where the pattern matches one, else the inner op. So
// `(x + c0) + c1` fuses the root with `c0`, `c1 - (x + c0)` with `c1`, `x + y * -1` and
// `select(xori(p, true), a, b)` with the constant, and `(a - b) - a` and
// `xori(cmpi(..), true)` with the inner op. A new constant shares the location, unless the
// folder merges it with an equal one of another location (then it is unknown).
// RUN: dlc-opt %s --pipeline=canonicalize --mlir-print-debuginfo --mlir-print-local-scope \
// RUN:   | FileCheck %s
// RUN: mlir-opt %s --canonicalize --mlir-print-debuginfo --mlir-print-local-scope \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @reassociations
// CHECK-DAG: arith.constant 0 : i16 loc(fused["SubISubILHSRHSLHS", "in_sub"])
// CHECK-DAG: arith.constant 6 : i16 loc(fused["MulIMulIConstant", "c3"])
// CHECK-DAG: arith.constant 3 : i16 loc(unknown)
// CHECK: arith.addi %arg0, %c3_i16 : i16 loc(fused["AddIAddConstant", "c0"])
// CHECK: arith.addi %arg0, %c1_i16 : i16 loc(fused["AddISubConstantRHS", "c0"])
// CHECK: arith.subi %c3_i16, %arg0 : i16 loc(fused["AddISubConstantLHS", "c0"])
// CHECK: arith.addi %arg0, %c-1_i16 : i16 loc(fused["SubIRHSAddConstant", "c0"])
// CHECK: arith.subi %c1_i16, %arg0 : i16 loc(fused["SubILHSAddConstant", "c1"])
// CHECK: arith.subi %arg0, %c3_i16 : i16 loc(fused["SubIRHSSubConstantRHS", "c0"])
// CHECK: arith.subi %c-1_i16, %arg0 : i16 loc(fused["SubIRHSSubConstantLHS", "c0"])
// CHECK: arith.subi %c3_i16, %arg0 : i16 loc(fused["SubILHSSubConstantRHS", "c1"])
// CHECK: arith.addi %arg0, %c1_i16 : i16 loc(fused["SubILHSSubConstantLHS", "c1"])
// CHECK: arith.muli %arg0, %c6_i16 : i16 loc(fused["MulIMulIConstant", "c3"])
// CHECK: arith.subi %c0_i16, %arg1 : i16 loc(fused["SubISubILHSRHSLHS", "in_sub"])
func.func @reassociations(%x: i16, %y: i16) -> (i16, i16, i16, i16, i16, i16, i16, i16, i16,
                                                 i16, i16) {
  %c0 = arith.constant 1 : i16 loc("c0")
  %c1 = arith.constant 2 : i16 loc("c1")
  %c3 = arith.constant 3 : i16 loc("c3")
  %a0 = arith.addi %x, %c0 : i16 loc("in_add")
  %s0 = arith.subi %x, %c0 : i16 loc("in_subr")
  %l0 = arith.subi %c0, %x : i16 loc("in_subl")
  %mu = arith.muli %x, %c3 : i16 loc("in_mul")
  %r1 = arith.addi %a0, %c1 : i16 loc("AddIAddConstant")
  %r2 = arith.addi %s0, %c1 : i16 loc("AddISubConstantRHS")
  %r3 = arith.addi %l0, %c1 : i16 loc("AddISubConstantLHS")
  %r4 = arith.subi %a0, %c1 : i16 loc("SubIRHSAddConstant")
  %r5 = arith.subi %c1, %a0 : i16 loc("SubILHSAddConstant")
  %r6 = arith.subi %s0, %c1 : i16 loc("SubIRHSSubConstantRHS")
  %r7 = arith.subi %l0, %c1 : i16 loc("SubIRHSSubConstantLHS")
  %r8 = arith.subi %c1, %s0 : i16 loc("SubILHSSubConstantRHS")
  %r9 = arith.subi %c1, %l0 : i16 loc("SubILHSSubConstantLHS")
  %r10 = arith.muli %mu, %c1 : i16 loc("MulIMulIConstant")
  %s = arith.subi %x, %y : i16 loc("in_sub")
  %r11 = arith.subi %s, %x : i16 loc("SubISubILHSRHSLHS")
  return %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11
      : i16, i16, i16, i16, i16, i16, i16, i16, i16, i16, i16
}

// CHECK-LABEL: func.func @others
// CHECK: arith.select %arg0, %arg2, %arg1 : i16 loc(fused["sel", "t"])
// CHECK: arith.subi %arg4, %arg3 : i16 loc(fused["AddIMulNegativeOneLhs", "m1"])
// CHECK: arith.subi %arg3, %arg4 : i16 loc(fused["AddIMulNegativeOneRhs", "m1"])
// CHECK: arith.cmpi sge, %arg1, %arg2 : i16 loc(fused["xor", "cmp"])
func.func @others(%p: i1, %a: i16, %b: i16, %x: i16, %y: i16) -> (i16, i16, i16, i1) {
  %t = arith.constant true loc("t")
  %n = arith.xori %p, %t : i1 loc("not")
  %0 = arith.select %n, %a, %b : i16 loc("sel")
  %m1 = arith.constant -1 : i16 loc("m1")
  %mx = arith.muli %x, %m1 : i16 loc("mul_x")
  %1 = arith.addi %mx, %y : i16 loc("AddIMulNegativeOneLhs")
  %my = arith.muli %y, %m1 : i16 loc("mul_y")
  %2 = arith.addi %x, %my : i16 loc("AddIMulNegativeOneRhs")
  %c = arith.cmpi slt, %a, %b : i16 loc("cmp")
  %3 = arith.xori %c, %t : i1 loc("xor")
  return %0, %1, %2, %3 : i16, i16, i16, i1
}
