// Constant folds on i0, the integer type whose one value is 0, as mlir-opt-22 does them: casts,
// shifts and the extended multiplications of i0 constants fold to 0; division by the i0 zero
// does not fold, and neither do casts of non-constant i0 values.
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: FileCheck %s < %t.dlc
// CHECK-LABEL: func.func @extsi_i0
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i16
// CHECK-NEXT: return %[[Z]] : i16
// CHECK-LABEL: func.func @kept_i0
// CHECK: arith.divsi
// CHECK: arith.remui
// CHECK: arith.extsi

func.func @extsi_i0() -> i16 {
  %c0 = arith.constant 0 : i0
  %extsi = arith.extsi %c0 : i0 to i16
  return %extsi : i16
}
func.func @trunc_i0() -> i0 {
  %c = arith.constant 5 : i8
  %t = arith.trunci %c : i8 to i0
  return %t : i0
}
func.func @shli_i0(%a: i0) -> i0 {
  %c = arith.constant 0 : i0
  %t = arith.shli %a, %c : i0
  return %t : i0
}
func.func @mul_ext_i0() -> (i0, i0) {
  %c = arith.constant 0 : i0
  %l, %h = arith.mulsi_extended %c, %c : i0
  return %l, %h : i0, i0
}
func.func @extui_i0() -> i16 {
  %c0 = arith.constant 0 : i0
  %e = arith.extui %c0 : i0 to i16
  return %e : i16
}
func.func @shifts_i0() -> (i0, i0, i0) {
  %c0 = arith.constant 0 : i0
  %a = arith.shli %c0, %c0 : i0
  %b = arith.shrsi %c0, %c0 : i0
  %c = arith.shrui %c0, %c0 : i0
  return %a, %b, %c : i0, i0, i0
}
func.func @kept_i0(%x: i0) -> (i0, i0, i16) {
  %c0 = arith.constant 0 : i0
  %a = arith.divsi %c0, %c0 : i0
  %b = arith.remui %x, %c0 : i0
  %e = arith.extsi %x : i0 to i16
  return %a, %b, %e : i0, i0, i16
}
func.func @mului_ext_i0() -> (i0, i0) {
  %c = arith.constant 0 : i0
  %l, %h = arith.mului_extended %c, %c : i0
  return %l, %h : i0, i0
}
