// 0-d vectors, `vector<f32>`: builtin vectors with an empty shape, as in MLIR. They parse, print
// and round-trip in the custom and the generic form as mlir-opt-22 prints them, hold dense
// constants, and arith ops on them verify as upstream's do (a comparison of `vector<i32>` gives
// `vector<i1>`); canonicalize folds them as mlir-opt-22 does.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %s -allow-unregistered-dialect --mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %t.dlc.generic -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %s -allow-unregistered-dialect --pipeline=canonicalize > %t.dlc.canon
// RUN: mlir-opt %s -allow-unregistered-dialect --canonicalize > %t.mlir.canon
// RUN: diff %t.dlc.canon %t.mlir.canon
// RUN: dlc-opt %s -allow-unregistered-dialect --pipeline=cse | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc
// RUN: FileCheck %s --check-prefix=CANON < %t.dlc.canon

// CHECK-LABEL: func.func @types
// CHECK-SAME: (%arg0: vector<f32>, %arg1: vector<i1>, %arg2: vector<index>, %arg3: vector<ui8>, %arg4: vector<f8E4M3FN>, %arg5: vector<i0>)
// CHECK-SAME: -> (tensor<vector<f32>>, memref<2xvector<i1>>, tuple<vector<bf16>>)
func.func @types(%a: vector<f32>, %b: vector<i1>, %c: vector<index>, %d: vector<ui8>,
    %e: vector<f8E4M3FN>, %f: vector<i0>) -> (tensor<vector<f32>>, memref<2xvector<i1>>, tuple<vector<bf16>>) {
  %0:3 = "t.op"() {t = vector<i8>, d = dense<7> : vector<i8>, h = dense<"0x0100"> : vector<f16>} : () -> (tensor<vector<f32>>, memref<2xvector<i1>>, tuple<vector<bf16>>)
  return %0#0, %0#1, %0#2 : tensor<vector<f32>>, memref<2xvector<i1>>, tuple<vector<bf16>>
}

// CHECK-LABEL: func.func @arith
// CHECK: arith.cmpi eq, %arg0, %arg1 : vector<i32>
// CHECK: arith.select %{{.*}}, %arg0, %arg1 : vector<i1>, vector<i32>
// CHECK: arith.addui_extended %arg0, %arg1 : vector<i32>, vector<i1>
func.func @arith(%a: vector<i32>, %b: vector<i32>, %x: vector<f32>, %y: vector<f32>, %c: vector<i1>,
    %i: vector<index>) -> (vector<i1>, vector<i32>, vector<f32>, vector<i1>) {
  %0 = arith.cmpi eq, %a, %b : vector<i32>
  %1 = arith.select %0, %a, %b : vector<i1>, vector<i32>
  %2 = arith.select %c, %x, %y : vector<i1>, vector<f32>
  %3 = arith.addi %1, %b : vector<i32>
  %4 = arith.floordivsi %3, %a : vector<i32>
  %5 = arith.mulf %2, %x fastmath<fast> : vector<f32>
  %6 = arith.cmpf oge, %5, %y : vector<f32>
  %7 = arith.andi %6, %c : vector<i1>
  %8 = arith.sitofp %4 : vector<i32> to vector<f32>
  %9 = arith.extsi %4 : vector<i32> to vector<i64>
  %10 = arith.trunci %9 : vector<i64> to vector<i16>
  %11 = arith.extui %10 : vector<i16> to vector<i32>
  %12 = arith.index_cast %i : vector<index> to vector<i32>
  %13 = arith.addi %11, %12 : vector<i32>
  %14 = arith.extf %8 : vector<f32> to vector<f64>
  %15 = arith.truncf %14 : vector<f64> to vector<f16>
  %16 = arith.bitcast %15 : vector<f16> to vector<i16>
  %17 = arith.extsi %16 : vector<i16> to vector<i32>
  %18:2 = arith.addui_extended %a, %b : vector<i32>, vector<i1>
  %19:2 = arith.mulsi_extended %13, %17 : vector<i32>
  %20 = arith.uitofp %19#1 : vector<i32> to vector<f32>
  %21 = arith.maximumf %20, %8 : vector<f32>
  return %7, %19#0, %21, %18#1 : vector<i1>, vector<i32>, vector<f32>, vector<i1>
}

// CANON-LABEL: func.func @fold
// CANON-DAG: arith.constant dense<true> : vector<i1>
// CANON-DAG: arith.constant dense<0> : vector<i32>
// CANON-DAG: arith.constant dense<4.250000e+00> : vector<f32>
// CANON-DAG: arith.constant dense<10> : vector<i32>
func.func @fold(%v: vector<i32>) -> (vector<i1>, vector<i32>, vector<f32>, vector<i32>, vector<i1>) {
  %a = arith.constant dense<6> : vector<i32>
  %b = arith.constant dense<4> : vector<i32>
  %x = arith.constant dense<1.5> : vector<f32>
  %t = arith.constant dense<true> : vector<i1>
  %0 = arith.addi %a, %b : vector<i32>
  %1 = arith.cmpi ne, %0, %a : vector<i32>
  %2 = arith.mulf %x, %x : vector<f32>
  %3 = arith.divsi %0, %b : vector<i32>
  %4 = arith.sitofp %3 : vector<i32> to vector<f32>
  %5 = arith.addf %4, %2 : vector<f32>
  %6 = arith.select %t, %0, %a : vector<i1>, vector<i32>
  %7 = arith.subi %v, %v : vector<i32>
  %8 = arith.andi %1, %t : vector<i1>
  %9 = arith.cmpi eq, %v, %v : vector<i32>
  return %8, %7, %5, %6, %9 : vector<i1>, vector<i32>, vector<f32>, vector<i32>, vector<i1>
}
