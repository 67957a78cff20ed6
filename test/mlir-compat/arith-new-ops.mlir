// The arith ops added for MLIR compatibility (unsigned and rounding divisions and extrema,
// maxnumf/minnumf, unsigned casts, the two-result extended ops) print as mlir-opt-22 prints
// them, custom and generic form, byte for byte; the extended ops name their results
// (`%sum, %overflow`, `%low, %high`) and a second pair gets mlir-opt's suffixes.
// RUN: dlc-opt %s > %t.dlc
// RUN: mlir-opt %s > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s -mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s -mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %s | dlc-opt | FileCheck %s

// CHECK-LABEL: func.func @ops
// CHECK: %sum, %overflow = arith.addui_extended %arg0, %arg1 : i32, i1
// CHECK: %low, %high = arith.mulsi_extended %arg0, %arg1 : i32
// CHECK: %low_0, %high_1 = arith.mului_extended %arg5, %arg5 : vector<4xi32>
func.func @ops(%a: i32, %b: i32, %x: f32, %y: f32, %i: index, %v: vector<4xi32>) -> (i32, i1, i32, vector<4xi32>) {
  %0 = arith.uitofp %a : i32 to f32
  %1 = arith.fptoui %x : f32 to i32
  %2 = arith.index_castui %a : i32 to index
  %3 = arith.ceildivsi %a, %b : i32
  %4 = arith.ceildivui %a, %b : i32
  %5 = arith.floordivsi %a, %b : i32
  %6 = arith.maxui %a, %b : i32
  %7 = arith.minui %a, %b : i32
  %8 = arith.maxnumf %x, %y fastmath<nnan> : f32
  %9 = arith.minnumf %x, %y : f32
  %10:2 = arith.addui_extended %a, %b : i32, i1
  %11:2 = arith.mulsi_extended %a, %b : i32
  %12:2 = arith.mului_extended %v, %v : vector<4xi32>
  %13 = arith.uitofp %v : vector<4xi32> to vector<4xf32>
  %14 = arith.index_castui %i : index to i64
  %15 = arith.ceildivsi %a, %b {foo} : i32
  %16 = arith.index_castui %a {foo} : i32 to index
  %17 = arith.fptoui %x : f32 to i1
  %18:2 = arith.addui_extended %v, %v {foo} : vector<4xi32>, vector<4xi1>
  return %10#0, %10#1, %11#1, %12#1 : i32, i1, i32, vector<4xi32>
}
