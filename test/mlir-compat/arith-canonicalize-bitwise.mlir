// canonicalize folds and rewrites comparisons, bitwise ops, float negations, remainders and
// divisions of products as mlir-opt-22 does (the whole output is diffed): `b != false`,
// `b == true` and `ext(b) != 0` for an i1 `b` (vectors too, and with the constant first) are
// `b`, while `b == false`, `b != true`, `ext(b) == 0` and `ugt` stay; andi/ori/xori of two
// extensions of one kind from one type run before extending, and mixed kinds or source types
// stay; `mulf`/`divf` of two `negf`s drop both (keeping the root's fastmath) but not one;
// `remf` folds with fmod's sign of the dividend, NaN for `x rem 0` and `inf rem y`, the
// dividend for `x rem inf`, NaN payloads kept and -0.0 kept; `(a * b) / b` is `a` for `divui`
// when the product has `nuw` and for `divsi` when it has `nsw`, and stays otherwise.
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @cmp
// CHECK: return %arg0, %arg0, %0, %1, %arg0, %arg0, %3, %4, %arg2, %arg0, %5
// CHECK-LABEL: func.func @logic
// CHECK: %3 = arith.andi %arg0, %arg1 : i8
// CHECK-NEXT: %4 = arith.extui %3 : i8 to i32
// CHECK-LABEL: func.func @negs
// CHECK: %2 = arith.mulf %arg0, %arg1 fastmath<nnan> : f32
// CHECK-LABEL: func.func @remf
// CHECK: %cst_1 = arith.constant 0x7FC00000 : f32
// CHECK-LABEL: func.func @divmul
// CHECK: return %arg0, %arg1, %2, %3, %arg1, %5
func.func @cmp(%b: i1, %x: i32, %vb: vector<2xi1>) -> (i1, i1, i1, i1, i1, i1, i1, i1, vector<2xi1>, i1, i1) {
  %t = arith.constant true
  %f = arith.constant false
  %c0 = arith.constant 0 : i32
  %vf = arith.constant dense<false> : vector<2xi1>
  %0 = arith.cmpi ne, %b, %f : i1
  %1 = arith.cmpi eq, %b, %t : i1
  %2 = arith.cmpi eq, %b, %f : i1
  %3 = arith.cmpi ne, %b, %t : i1
  %e = arith.extsi %b : i1 to i32
  %4 = arith.cmpi ne, %e, %c0 : i32
  %u = arith.extui %b : i1 to i32
  %5 = arith.cmpi ne, %u, %c0 : i32
  %6 = arith.cmpi eq, %u, %c0 : i32
  %7 = arith.cmpi ne, %x, %c0 : i32
  %8 = arith.cmpi ne, %vb, %vf : vector<2xi1>
  %9 = arith.cmpi ne, %f, %b : i1
  %10 = arith.cmpi ugt, %b, %f : i1
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : i1, i1, i1, i1, i1, i1, i1, i1, vector<2xi1>, i1, i1
}
func.func @logic(%a: i8, %b: i8, %c: i16) -> (i32, i32, i32, i32, i32, i32, i32) {
  %ea = arith.extui %a : i8 to i32
  %eb = arith.extui %b : i8 to i32
  %sa = arith.extsi %a : i8 to i32
  %sb = arith.extsi %b : i8 to i32
  %ec = arith.extui %c : i16 to i32
  %0 = arith.andi %ea, %eb : i32
  %1 = arith.ori %sa, %sb : i32
  %2 = arith.xori %ea, %eb : i32
  %3 = arith.andi %ea, %sb : i32
  %4 = arith.ori %ea, %ec : i32
  %5 = arith.andi %sa, %sb : i32
  %6 = arith.ori %ea, %eb : i32
  return %0, %1, %2, %3, %4, %5, %6 : i32, i32, i32, i32, i32, i32, i32
}
func.func @negs(%x: f32, %y: f32) -> (f32, f32, f32, f32) {
  %nx = arith.negf %x : f32
  %ny = arith.negf %y : f32
  %0 = arith.mulf %nx, %ny fastmath<nnan> : f32
  %1 = arith.divf %nx, %ny : f32
  %2 = arith.mulf %nx, %y : f32
  %3 = arith.divf %x, %ny : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}
func.func @remf() -> (f32, f32, f32, f32, f32, f32, f32, f64) {
  %a = arith.constant 5.5 : f32
  %b = arith.constant 2.0 : f32
  %na = arith.constant -5.5 : f32
  %z = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %nan = arith.constant 0x7FC00001 : f32
  %nz = arith.constant -0.0 : f32
  %0 = arith.remf %a, %b : f32
  %1 = arith.remf %na, %b : f32
  %2 = arith.remf %a, %z : f32
  %3 = arith.remf %inf, %b : f32
  %4 = arith.remf %a, %inf : f32
  %5 = arith.remf %nan, %b : f32
  %6 = arith.remf %nz, %b : f32
  %d1 = arith.constant 1.0e300 : f64
  %d2 = arith.constant 3.0 : f64
  %7 = arith.remf %d1, %d2 : f64
  return %0, %1, %2, %3, %4, %5, %6, %7 : f32, f32, f32, f32, f32, f32, f32, f64
}
func.func @divmul(%x: i32, %y: i32) -> (i32, i32, i32, i32, i32, i32) {
  %0 = arith.muli %x, %y overflow<nuw> : i32
  %1 = arith.divui %0, %y : i32
  %2 = arith.muli %x, %y overflow<nsw> : i32
  %3 = arith.divsi %2, %x : i32
  %4 = arith.divui %2, %y : i32
  %5 = arith.divsi %0, %y : i32
  %6 = arith.muli %x, %y overflow<nsw, nuw> : i32
  %7 = arith.divui %6, %x : i32
  %8 = arith.divsi %6, %y : i32
  %9 = arith.muli %x, %y : i32
  %10 = arith.divsi %9, %y : i32
  return %1, %3, %4, %5, %7, %10 : i32, i32, i32, i32, i32, i32
}
func.func @cmp_vector(%vb: vector<2xi1>) -> (vector<2xi1>, vector<2xi1>) {
  %c0 = arith.constant dense<0> : vector<2xi32>
  %e = arith.extsi %vb : vector<2xi1> to vector<2xi32>
  %0 = arith.cmpi ne, %e, %c0 : vector<2xi32>
  %t = arith.constant dense<true> : vector<2xi1>
  %1 = arith.cmpi eq, %vb, %t : vector<2xi1>
  return %0, %1 : vector<2xi1>, vector<2xi1>
}
