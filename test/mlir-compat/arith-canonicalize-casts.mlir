// canonicalize shortens cast chains as mlir-opt-22 does (the whole output is diffed):
// `trunci(ext(x))` becomes one narrower ext when x is narrower than the result, the `trunci`
// of x when x is still wider (keeping the outer flags), and x when it has the result type;
// `trunci(trunci(x))`, `extsi(extsi(x))` and `extui(extui(x))` skip the inner cast,
// `extsi(extui(x))` is `extui(x)` (vectors too) while `extui(extsi(x))` stays; `index_cast`
// round trips through a type that holds the value go (`index_castui` likewise, and
// `index → i64 → index`), an extension of the same signedness under an index cast folds into
// it and a mixed one stays; `bitcast(bitcast(x))` becomes one bitcast, which folds away when
// x has the result type.
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @trunc
// CHECK-NEXT: %0 = arith.extsi %arg0 : i8 to i16
// CHECK-NEXT: %1 = arith.extui %arg0 : i8 to i16
// CHECK-NEXT: %2 = arith.trunci %arg1 : i32 to i8
// CHECK-NEXT: %3 = arith.trunci %arg2 overflow<nsw> : i64 to i16
// CHECK-LABEL: func.func @ext
// CHECK: %4 = arith.extui %0 : i16 to i32
// CHECK-LABEL: func.func @index
// CHECK: return %arg0, %arg1, %1, %arg0, %3, %5, %6, %7
// CHECK-LABEL: func.func @bitcast2
// CHECK: arith.bitcast %arg0 : f16 to bf16
func.func @trunc(%x: i8, %y: i32, %z: i64) -> (i16, i16, i8, i16, i8, i8, i16) {
  %0 = arith.extsi %x : i8 to i32
  %1 = arith.trunci %0 : i32 to i16
  %2 = arith.extui %x : i8 to i32
  %3 = arith.trunci %2 : i32 to i16
  %4 = arith.extsi %y : i32 to i64
  %5 = arith.trunci %4 : i64 to i8
  %6 = arith.trunci %z : i64 to i32
  %7 = arith.trunci %6 overflow<nsw> : i32 to i16
  %8 = arith.trunci %0 : i32 to i8
  %9 = arith.trunci %7 : i16 to i8
  %10 = arith.trunci %4 overflow<nuw> : i64 to i16
  return %1, %3, %5, %7, %8, %9, %10 : i16, i16, i8, i16, i8, i8, i16
}
func.func @ext(%x: i8, %v: vector<2xi8>) -> (i32, i32, i32, i32, vector<2xi32>) {
  %0 = arith.extsi %x : i8 to i16
  %1 = arith.extsi %0 : i16 to i32
  %2 = arith.extui %x : i8 to i16
  %3 = arith.extui %2 : i16 to i32
  %4 = arith.extsi %2 : i16 to i32
  %5 = arith.extui %0 : i16 to i32
  %6 = arith.extui %v : vector<2xi8> to vector<2xi16>
  %7 = arith.extsi %6 : vector<2xi16> to vector<2xi32>
  return %1, %3, %4, %5, %7 : i32, i32, i32, i32, vector<2xi32>
}
func.func @index(%x: i32, %i: index, %s: i16) -> (i32, index, i64, i32, index, index, index, index) {
  %0 = arith.index_cast %x : i32 to index
  %1 = arith.index_cast %0 : index to i32
  %2 = arith.index_castui %i : index to i64
  %3 = arith.index_castui %2 : i64 to index
  %4 = arith.index_cast %0 : index to i64
  %5 = arith.index_castui %x : i32 to index
  %6 = arith.index_castui %5 : index to i32
  %7 = arith.extsi %s : i16 to i32
  %8 = arith.index_cast %7 : i32 to index
  %9 = arith.extui %s : i16 to i32
  %10 = arith.index_castui %9 : i32 to index
  %11 = arith.index_cast %9 : i32 to index
  %12 = arith.index_castui %7 : i32 to index
  return %1, %3, %4, %6, %8, %10, %11, %12 : i32, index, i64, i32, index, index, index, index
}
func.func @bitcast(%x: f32, %y: i32) -> (i32, f32, f32, i32) {
  %0 = arith.bitcast %x : f32 to i32
  %1 = arith.bitcast %0 : i32 to f32
  %2 = arith.bitcast %y : i32 to f32
  %3 = arith.bitcast %2 : f32 to i32
  %a = arith.bitcast %y : i32 to f32
  %b2 = arith.bitcast %a : f32 to i32
  %4 = arith.bitcast %b2 : i32 to i32
  %5 = arith.bitcast %x : f32 to f32
  return %4, %1, %5, %3 : i32, f32, f32, i32
}
func.func @bitcast2(%h: f16) -> (bf16, i16) {
  %0 = arith.bitcast %h : f16 to i16
  %1 = arith.bitcast %0 : i16 to bf16
  return %1, %0 : bf16, i16
}
