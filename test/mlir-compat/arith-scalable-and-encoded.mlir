// Arith ops take scalable vectors and encoded tensors as MLIR does: they parse, verify and print
// byte for byte as mlir-opt-22 prints them, custom and generic form alike.
// RUN: dlc-opt %s > %t.dlc
// RUN: mlir-opt %s > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s -mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s -mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %s | FileCheck %s

// CHECK-LABEL: func.func @ints
// CHECK: arith.addi %arg0, %arg1 : vector<[8]xi64>
// CHECK: arith.cmpi slt, %arg0, %arg1 : vector<[8]xi64>
// CHECK: arith.constant dense<7> : vector<[8]xi64>
func.func @ints(%a: vector<[8]xi64>, %b: vector<[8]xi64>) -> (vector<[8]xi64>, vector<[8]xi1>) {
  %0 = arith.addi %a, %b : vector<[8]xi64>
  %1 = arith.cmpi slt, %a, %b : vector<[8]xi64>
  %c = arith.constant dense<7> : vector<[8]xi64>
  %2 = arith.muli %0, %c : vector<[8]xi64>
  %3:2 = arith.addui_extended %2, %b : vector<[8]xi64>, vector<[8]xi1>
  return %3#0, %1 : vector<[8]xi64>, vector<[8]xi1>
}

// CHECK-LABEL: func.func @floats_and_casts
func.func @floats_and_casts(%x: vector<2x[4]xf32>, %i: vector<2x[4]xi32>, %m: vector<2x[4]xi1>) -> vector<2x[4]xf64> {
  %c = arith.constant dense<1.5> : vector<2x[4]xf32>
  %0 = arith.addf %x, %c fastmath<fast> : vector<2x[4]xf32>
  %1 = arith.sitofp %i : vector<2x[4]xi32> to vector<2x[4]xf32>
  %2 = arith.maximumf %0, %1 : vector<2x[4]xf32>
  %3 = arith.select %m, %2, %x : vector<2x[4]xi1>, vector<2x[4]xf32>
  %4 = arith.cmpf olt, %3, %x : vector<2x[4]xf32>
  %5 = arith.extf %3 : vector<2x[4]xf32> to vector<2x[4]xf64>
  %6 = arith.bitcast %i : vector<2x[4]xi32> to vector<2x[4]xf32>
  %7 = arith.index_cast %i : vector<2x[4]xi32> to vector<2x[4]xindex>
  return %5 : vector<2x[4]xf64>
}

// CHECK-LABEL: func.func @encoded
// CHECK: arith.cmpi eq, %arg0, %arg0 : tensor<4xi32, "enc">
func.func @encoded(%t: tensor<4xi32, "enc">) -> tensor<4xi1, "enc"> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, "enc">
  %0 = arith.addi %t, %c : tensor<4xi32, "enc">
  %1 = arith.cmpi eq, %t, %t : tensor<4xi32, "enc">
  return %1 : tensor<4xi1, "enc">
}

// As in MLIR, a cast compares shapes and whether both sides are scalable, not which of their
// dimensions scale.
// CHECK-LABEL: func.func @which_dims_scale
func.func @which_dims_scale(%a: vector<2x[4]xf32>) -> vector<[2]x4xf64> {
  %0 = arith.extf %a : vector<2x[4]xf32> to vector<[2]x4xf64>
  return %0 : vector<[2]x4xf64>
}

// Splats of scalable vectors fold; the folded constant stays a splat.
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc.canon
// RUN: mlir-opt %s --canonicalize > %t.mlir.canon
// RUN: diff %t.dlc.canon %t.mlir.canon
// RUN: FileCheck %s --check-prefix=FOLD < %t.dlc.canon
// FOLD-LABEL: func.func @fold
// FOLD-DAG: arith.constant dense<3> : vector<[8]xi64>
// FOLD-DAG: arith.constant dense<true> : vector<[8]xi1>
// FOLD-DAG: arith.constant dense<2.250000e+00> : vector<2x[4]xf32>
// FOLD-DAG: arith.constant dense<[2, 4, 6, 8]> : tensor<4xi32, "enc">
func.func @fold() -> (vector<[8]xi64>, vector<[8]xi1>, vector<2x[4]xf32>, tensor<4xi32, "enc">) {
  %a = arith.constant dense<1> : vector<[8]xi64>
  %b = arith.constant dense<2> : vector<[8]xi64>
  %0 = arith.addi %a, %b : vector<[8]xi64>
  %1 = arith.cmpi slt, %a, %b : vector<[8]xi64>
  %f = arith.constant dense<1.5> : vector<2x[4]xf32>
  %2 = arith.mulf %f, %f : vector<2x[4]xf32>
  %t = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, "enc">
  %3 = arith.addi %t, %t : tensor<4xi32, "enc">
  return %0, %1, %2, %3 : vector<[8]xi64>, vector<[8]xi1>, vector<2x[4]xf32>, tensor<4xi32, "enc">
}
