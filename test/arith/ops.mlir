// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s | mlir-opt | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --mlir-print-op-generic | dlc-opt | FileCheck %s
// RUN: mlir-opt %s | dlc-opt | FileCheck %s

// Every arith op round-trips through dlc-opt's custom and generic forms, printed as mlir-opt
// prints it, except for the names of constants: mlir-opt calls them %c42_i32, %cst, %true
// where dlc-opt numbers them like other values, so those names are matched by pattern.

// CHECK-LABEL: func.func @constants() -> (i32, index, f32, i1, vector<4xi32>, tensor<2x2xf64>, i64, f16, bf16, i8, tensor<3xi1>) {
// CHECK-NEXT: %[[C0:.+]] = arith.constant 42 : i32
// CHECK-NEXT: %[[C1:.+]] = arith.constant 7 : index
// CHECK-NEXT: %[[C2:.+]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT: %[[C3:.+]] = arith.constant true
// CHECK-NEXT: %[[C4:.+]] = arith.constant dense<3> : vector<4xi32>
// CHECK-NEXT: %[[C5:.+]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>
// CHECK-NEXT: %[[C6:.+]] = arith.constant -9223372036854775808 : i64
// CHECK-NEXT: %[[C7:.+]] = arith.constant 9.997550e-02 : f16
// CHECK-NEXT: %[[C8:.+]] = arith.constant 0x7FC0 : bf16
// CHECK-NEXT: %[[C9:.+]] = arith.constant -1 : i8
// CHECK-NEXT: %[[C10:.+]] = arith.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT: return %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[C4]], %[[C5]], %[[C6]], %[[C7]], %[[C8]], %[[C9]], %[[C10]] : i32, index, f32, i1, vector<4xi32>, tensor<2x2xf64>, i64, f16, bf16, i8, tensor<3xi1>
// CHECK-NEXT: }
func.func @constants() -> (i32, index, f32, i1, vector<4xi32>, tensor<2x2xf64>, i64, f16, bf16, i8, tensor<3xi1>) {
  %c42 = arith.constant 42 : i32
  %idx = arith.constant 7 : index
  %f = arith.constant 1.5 : f32
  %t = arith.constant true
  %v = arith.constant dense<3> : vector<4xi32>
  %d = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %neg = arith.constant -9223372036854775808 : i64
  %h = arith.constant 0.1 : f16
  %b = arith.constant 0x7FC0 : bf16
  %m = arith.constant -1 : i8
  %mask = arith.constant dense<[true, false, true]> : tensor<3xi1>
  return %c42, %idx, %f, %t, %v, %d, %neg, %h, %b, %m, %mask : i32, index, f32, i1, vector<4xi32>, tensor<2x2xf64>, i64, f16, bf16, i8, tensor<3xi1>
}

// CHECK-LABEL: func.func @integer_binary(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.subi %0, %arg1 : i32
// CHECK-NEXT: %2 = arith.muli %1, %arg0 : i32
// CHECK-NEXT: %3 = arith.divsi %2, %arg1 : i32
// CHECK-NEXT: %4 = arith.divui %3, %arg1 : i32
// CHECK-NEXT: %5 = arith.remsi %4, %arg1 : i32
// CHECK-NEXT: %6 = arith.remui %5, %arg1 : i32
// CHECK-NEXT: %7 = arith.andi %6, %arg0 : i32
// CHECK-NEXT: %8 = arith.ori %7, %arg0 : i32
// CHECK-NEXT: %9 = arith.xori %8, %arg0 : i32
// CHECK-NEXT: %10 = arith.shli %9, %arg1 : i32
// CHECK-NEXT: %11 = arith.shrsi %10, %arg1 : i32
// CHECK-NEXT: %12 = arith.shrui %11, %arg1 : i32
// CHECK-NEXT: %13 = arith.maxsi %12, %arg0 : i32
// CHECK-NEXT: %14 = arith.minsi %13, %arg0 : i32
// CHECK-NEXT: return %14 : i32
// CHECK-NEXT: }
func.func @integer_binary(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %0, %b : i32
  %2 = arith.muli %1, %a : i32
  %3 = arith.divsi %2, %b : i32
  %4 = arith.divui %3, %b : i32
  %5 = arith.remsi %4, %b : i32
  %6 = arith.remui %5, %b : i32
  %7 = arith.andi %6, %a : i32
  %8 = arith.ori %7, %a : i32
  %9 = arith.xori %8, %a : i32
  %10 = arith.shli %9, %b : i32
  %11 = arith.shrsi %10, %b : i32
  %12 = arith.shrui %11, %b : i32
  %13 = arith.maxsi %12, %a : i32
  %14 = arith.minsi %13, %a : i32
  return %14 : i32
}

// CHECK-LABEL: func.func @overflow_flags(%arg0: i64, %arg1: i64) -> i64 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 overflow<nsw> : i64
// CHECK-NEXT: %1 = arith.subi %0, %arg1 overflow<nuw> : i64
// CHECK-NEXT: %2 = arith.muli %1, %arg0 overflow<nsw, nuw> : i64
// CHECK-NEXT: %3 = arith.shli %2, %arg1 overflow<nsw> : i64
// CHECK-NEXT: %4 = arith.addi %3, %arg0 : i64
// CHECK-NEXT: return %4 : i64
// CHECK-NEXT: }
func.func @overflow_flags(%a: i64, %b: i64) -> i64 {
  %0 = arith.addi %a, %b overflow<nsw> : i64
  %1 = arith.subi %0, %b overflow<nuw> : i64
  %2 = arith.muli %1, %a overflow<nsw, nuw> : i64
  %3 = arith.shli %2, %b overflow<nsw> : i64
  %4 = arith.addi %3, %a overflow<none> : i64
  return %4 : i64
}

// CHECK-LABEL: func.func @float_binary(%arg0: f32, %arg1: f32) -> f32 {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg1 : f32
// CHECK-NEXT: %1 = arith.subf %0, %arg1 : f32
// CHECK-NEXT: %2 = arith.mulf %1, %arg0 : f32
// CHECK-NEXT: %3 = arith.divf %2, %arg1 : f32
// CHECK-NEXT: %4 = arith.maximumf %3, %arg0 : f32
// CHECK-NEXT: %5 = arith.minimumf %4, %arg0 : f32
// CHECK-NEXT: %6 = arith.negf %5 : f32
// CHECK-NEXT: return %6 : f32
// CHECK-NEXT: }
func.func @float_binary(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  %1 = arith.subf %0, %b : f32
  %2 = arith.mulf %1, %a : f32
  %3 = arith.divf %2, %b : f32
  %4 = arith.maximumf %3, %a : f32
  %5 = arith.minimumf %4, %a : f32
  %6 = arith.negf %5 : f32
  return %6 : f32
}

// CHECK-LABEL: func.func @fastmath_flags(%arg0: f64, %arg1: f64) -> f64 {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg1 fastmath<fast> : f64
// CHECK-NEXT: %1 = arith.mulf %0, %arg1 fastmath<nnan,ninf> : f64
// CHECK-NEXT: %2 = arith.subf %1, %arg0 fastmath<reassoc,nsz,arcp,contract,afn> : f64
// CHECK-NEXT: %3 = arith.divf %2, %arg1 : f64
// CHECK-NEXT: %4 = arith.negf %3 fastmath<nnan> : f64
// CHECK-NEXT: %5 = arith.maximumf %4, %arg0 fastmath<ninf> : f64
// CHECK-NEXT: %6 = arith.minimumf %5, %arg0 fastmath<fast> : f64
// CHECK-NEXT: return %6 : f64
// CHECK-NEXT: }
func.func @fastmath_flags(%a: f64, %b: f64) -> f64 {
  %0 = arith.addf %a, %b fastmath<fast> : f64
  %1 = arith.mulf %0, %b fastmath<nnan, ninf> : f64
  %2 = arith.subf %1, %a fastmath<reassoc, nsz, arcp, contract, afn> : f64
  %3 = arith.divf %2, %b fastmath<none> : f64
  %4 = arith.negf %3 fastmath<nnan> : f64
  %5 = arith.maximumf %4, %a fastmath<ninf> : f64
  %6 = arith.minimumf %5, %a fastmath<fast> : f64
  return %6 : f64
}

// CHECK-LABEL: func.func @comparisons(%arg0: i32, %arg1: i32, %arg2: f32, %arg3: f32) -> (i1, i1) {
// CHECK-NEXT: %0 = arith.cmpi eq, %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.cmpi ne, %arg0, %arg1 : i32
// CHECK-NEXT: %2 = arith.cmpi slt, %arg0, %arg1 : i32
// CHECK-NEXT: %3 = arith.cmpi sle, %arg0, %arg1 : i32
// CHECK-NEXT: %4 = arith.cmpi sgt, %arg0, %arg1 : i32
// CHECK-NEXT: %5 = arith.cmpi sge, %arg0, %arg1 : i32
// CHECK-NEXT: %6 = arith.cmpi ult, %arg0, %arg1 : i32
// CHECK-NEXT: %7 = arith.cmpi ule, %arg0, %arg1 : i32
// CHECK-NEXT: %8 = arith.cmpi ugt, %arg0, %arg1 : i32
// CHECK-NEXT: %9 = arith.cmpi uge, %arg0, %arg1 : i32
// CHECK-NEXT: %10 = arith.cmpf false, %arg2, %arg3 : f32
// CHECK-NEXT: %11 = arith.cmpf oeq, %arg2, %arg3 : f32
// CHECK-NEXT: %12 = arith.cmpf ogt, %arg2, %arg3 : f32
// CHECK-NEXT: %13 = arith.cmpf oge, %arg2, %arg3 : f32
// CHECK-NEXT: %14 = arith.cmpf olt, %arg2, %arg3 : f32
// CHECK-NEXT: %15 = arith.cmpf ole, %arg2, %arg3 : f32
// CHECK-NEXT: %16 = arith.cmpf one, %arg2, %arg3 : f32
// CHECK-NEXT: %17 = arith.cmpf ord, %arg2, %arg3 : f32
// CHECK-NEXT: %18 = arith.cmpf ueq, %arg2, %arg3 : f32
// CHECK-NEXT: %19 = arith.cmpf ugt, %arg2, %arg3 : f32
// CHECK-NEXT: %20 = arith.cmpf uge, %arg2, %arg3 : f32
// CHECK-NEXT: %21 = arith.cmpf ult, %arg2, %arg3 : f32
// CHECK-NEXT: %22 = arith.cmpf ule, %arg2, %arg3 : f32
// CHECK-NEXT: %23 = arith.cmpf une, %arg2, %arg3 : f32
// CHECK-NEXT: %24 = arith.cmpf uno, %arg2, %arg3 : f32
// CHECK-NEXT: %25 = arith.cmpf true, %arg2, %arg3 fastmath<nnan> : f32
// CHECK-NEXT: return %9, %25 : i1, i1
// CHECK-NEXT: }
func.func @comparisons(%a: i32, %b: i32, %x: f32, %y: f32) -> (i1, i1) {
  %0 = arith.cmpi eq, %a, %b : i32
  %1 = arith.cmpi ne, %a, %b : i32
  %2 = arith.cmpi slt, %a, %b : i32
  %3 = arith.cmpi sle, %a, %b : i32
  %4 = arith.cmpi sgt, %a, %b : i32
  %5 = arith.cmpi sge, %a, %b : i32
  %6 = arith.cmpi ult, %a, %b : i32
  %7 = arith.cmpi ule, %a, %b : i32
  %8 = arith.cmpi ugt, %a, %b : i32
  %9 = arith.cmpi uge, %a, %b : i32
  %10 = arith.cmpf false, %x, %y : f32
  %11 = arith.cmpf oeq, %x, %y : f32
  %12 = arith.cmpf ogt, %x, %y : f32
  %13 = arith.cmpf oge, %x, %y : f32
  %14 = arith.cmpf olt, %x, %y : f32
  %15 = arith.cmpf ole, %x, %y : f32
  %16 = arith.cmpf one, %x, %y : f32
  %17 = arith.cmpf ord, %x, %y : f32
  %18 = arith.cmpf ueq, %x, %y : f32
  %19 = arith.cmpf ugt, %x, %y : f32
  %20 = arith.cmpf uge, %x, %y : f32
  %21 = arith.cmpf ult, %x, %y : f32
  %22 = arith.cmpf ule, %x, %y : f32
  %23 = arith.cmpf une, %x, %y : f32
  %24 = arith.cmpf uno, %x, %y : f32
  %25 = arith.cmpf true, %x, %y fastmath<nnan> : f32
  return %9, %25 : i1, i1
}

// CHECK-LABEL: func.func @select(%arg0: i1, %arg1: i32, %arg2: i32, %arg3: vector<4xi1>, %arg4: vector<4xf32>, %arg5: vector<4xf32>, %arg6: tensor<2xindex>) -> (i32, vector<4xf32>, vector<4xf32>, tensor<2xindex>) {
// CHECK-NEXT: %0 = arith.select %arg0, %arg1, %arg2 : i32
// CHECK-NEXT: %1 = arith.select %arg3, %arg4, %arg5 : vector<4xi1>, vector<4xf32>
// CHECK-NEXT: %2 = arith.select %arg0, %arg4, %arg5 : vector<4xf32>
// CHECK-NEXT: %3 = arith.select %arg0, %arg6, %arg6 : tensor<2xindex>
// CHECK-NEXT: return %0, %1, %2, %3 : i32, vector<4xf32>, vector<4xf32>, tensor<2xindex>
// CHECK-NEXT: }
func.func @select(%c: i1, %a: i32, %b: i32, %vc: vector<4xi1>, %va: vector<4xf32>, %vb: vector<4xf32>, %tb: tensor<2xindex>) -> (i32, vector<4xf32>, vector<4xf32>, tensor<2xindex>) {
  %0 = arith.select %c, %a, %b : i32
  %1 = arith.select %vc, %va, %vb : vector<4xi1>, vector<4xf32>
  %2 = arith.select %c, %va, %vb : vector<4xf32>
  %3 = arith.select %c, %tb, %tb : tensor<2xindex>
  return %0, %1, %2, %3 : i32, vector<4xf32>, vector<4xf32>, tensor<2xindex>
}

// CHECK-LABEL: func.func @casts(%arg0: i32, %arg1: index, %arg2: f32, %arg3: f16, %arg4: f64) -> (index, i64, i64, i8, f32, i32, f64, f16, f32, i32) {
// CHECK-NEXT: %0 = arith.index_cast %arg0 : i32 to index
// CHECK-NEXT: %1 = arith.index_cast %arg1 : index to i64
// CHECK-NEXT: %2 = arith.extsi %arg0 : i32 to i64
// CHECK-NEXT: %3 = arith.extui %arg0 : i32 to i64
// CHECK-NEXT: %4 = arith.trunci %arg0 : i32 to i8
// CHECK-NEXT: %5 = arith.sitofp %arg0 : i32 to f32
// CHECK-NEXT: %6 = arith.fptosi %arg2 : f32 to i32
// CHECK-NEXT: %7 = arith.extf %arg2 : f32 to f64
// CHECK-NEXT: %8 = arith.truncf %arg4 : f64 to f16
// CHECK-NEXT: %9 = arith.extf %arg3 fastmath<fast> : f16 to f32
// CHECK-NEXT: %10 = arith.bitcast %arg2 : f32 to i32
// CHECK-NEXT: %11 = arith.truncf %arg4 fastmath<nnan> : f64 to f16
// CHECK-NEXT: return %0, %1, %2, %4, %5, %6, %7, %8, %9, %10 : index, i64, i64, i8, f32, i32, f64, f16, f32, i32
// CHECK-NEXT: }
func.func @casts(%i: i32, %x: index, %f: f32, %h: f16, %d: f64) -> (index, i64, i64, i8, f32, i32, f64, f16, f32, i32) {
  %0 = arith.index_cast %i : i32 to index
  %1 = arith.index_cast %x : index to i64
  %2 = arith.extsi %i : i32 to i64
  %3 = arith.extui %i : i32 to i64
  %4 = arith.trunci %i : i32 to i8
  %5 = arith.sitofp %i : i32 to f32
  %6 = arith.fptosi %f : f32 to i32
  %7 = arith.extf %f : f32 to f64
  %8 = arith.truncf %d : f64 to f16
  %9 = arith.extf %h fastmath<fast> : f16 to f32
  %10 = arith.bitcast %f : f32 to i32
  %11 = arith.truncf %d fastmath<nnan> : f64 to f16
  return %0, %1, %2, %4, %5, %6, %7, %8, %9, %10 : index, i64, i64, i8, f32, i32, f64, f16, f32, i32
}

// CHECK-LABEL: func.func @shaped(%arg0: vector<4xi32>, %arg1: tensor<?x8xf32>, %arg2: tensor<?x8xf32>) -> (vector<4xi1>, tensor<?x8xf32>, vector<4xi64>) {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : vector<4xi32>
// CHECK-NEXT: %1 = arith.cmpi slt, %0, %arg0 : vector<4xi32>
// CHECK-NEXT: %2 = arith.mulf %arg1, %arg2 fastmath<contract> : tensor<?x8xf32>
// CHECK-NEXT: %3 = arith.extsi %0 : vector<4xi32> to vector<4xi64>
// CHECK-NEXT: %4 = arith.bitcast %arg1 : tensor<?x8xf32> to tensor<?x8xi32>
// CHECK-NEXT: return %1, %2, %3 : vector<4xi1>, tensor<?x8xf32>, vector<4xi64>
// CHECK-NEXT: }
func.func @shaped(%a: vector<4xi32>, %b: tensor<?x8xf32>, %c: tensor<?x8xf32>) -> (vector<4xi1>, tensor<?x8xf32>, vector<4xi64>) {
  %0 = arith.addi %a, %a : vector<4xi32>
  %1 = arith.cmpi slt, %0, %a : vector<4xi32>
  %2 = arith.mulf %b, %c fastmath<contract> : tensor<?x8xf32>
  %3 = arith.extsi %0 : vector<4xi32> to vector<4xi64>
  %4 = arith.bitcast %b : tensor<?x8xf32> to tensor<?x8xi32>
  return %1, %2, %3 : vector<4xi1>, tensor<?x8xf32>, vector<4xi64>
}

// CHECK-LABEL: func.func @attributes_on_ops(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 {dlc.tag = "x"} : i32
// CHECK-NEXT: %[[C11:.+]] = arith.constant {dlc.note} 5 : i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
func.func @attributes_on_ops(%a: i32) -> i32 {
  %0 = arith.addi %a, %a {dlc.tag = "x"} : i32
  %1 = arith.constant {dlc.note} 5 : i32
  return %0 : i32
}
