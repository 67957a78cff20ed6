// `arith.truncf` takes MLIR's optional rounding mode, a keyword after the operand (or a string
// naming one), stored as `roundingmode = N : i32`; dlc-opt prints the custom and the generic
// form as mlir-opt-22 does, the mode before `fastmath<...>` and an attribute dictionary.
// RUN: dlc-opt %s > %t.dlc
// RUN: mlir-opt %s > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s -mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s -mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %t.dlc.generic > %t.dlc.back
// RUN: diff %t.dlc.back %t.mlir
// RUN: dlc-opt %s | FileCheck %s
// RUN: dlc-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @modes
// CHECK-NEXT: arith.truncf %arg0 to_nearest_even : f32 to f16
// CHECK-NEXT: arith.truncf %arg0 downward fastmath<fast> : f32 to f16
// CHECK-NEXT: arith.truncf %arg0 upward {tag} : f32 to bf16
// CHECK-NEXT: arith.truncf %arg1 toward_zero : f64 to f32
// CHECK-NEXT: arith.truncf %arg2 to_nearest_away fastmath<nnan,contract> : vector<4xf32> to vector<4xf16>
// CHECK-NEXT: arith.truncf %arg0 fastmath<none> : f32 to f16
// CHECK-NEXT: arith.truncf %arg0 : f32 to f16
// CHECK-NEXT: arith.truncf %arg0 downward : f32 to f16
// CHECK-NEXT: arith.truncf %arg0 upward : f32 to f16
// CHECK-NEXT: arith.truncf %arg3 toward_zero : tensor<2xf64> to tensor<2xbf16>
// GENERIC: "arith.truncf"(%arg0) <{roundingmode = 0 : i32}> : (f32) -> f16
// GENERIC: "arith.truncf"(%arg0) <{fastmath = #arith.fastmath<fast>, roundingmode = 1 : i32}> : (f32) -> f16
// GENERIC: "arith.truncf"(%arg0) <{roundingmode = 2 : i32}> {tag} : (f32) -> bf16

func.func @modes(%x: f32, %y: f64, %v: vector<4xf32>, %t: tensor<2xf64>)
    -> (f16, f16, bf16, f32, vector<4xf16>, f16, f16, f16, f16, tensor<2xbf16>) {
  %0 = arith.truncf %x to_nearest_even : f32 to f16
  %1 = arith.truncf %x downward fastmath<fast> : f32 to f16
  %2 = arith.truncf %x upward {tag} : f32 to bf16
  %3 = arith.truncf %y toward_zero : f64 to f32
  %4 = arith.truncf %v to_nearest_away fastmath<contract,nnan> : vector<4xf32> to vector<4xf16>
  %5 = arith.truncf %x fastmath<none> : f32 to f16
  %6 = "arith.truncf"(%x) : (f32) -> f16
  // A string names a mode too; the attribute dictionary may set it, and wins.
  %7 = arith.truncf %x "downward" : f32 to f16
  %8 = arith.truncf %x downward {roundingmode = 2 : i32} : f32 to f16
  %9 = "arith.truncf"(%t) <{roundingmode = 3 : i32}> : (tensor<2xf64>) -> tensor<2xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : f16, f16, bf16, f32, vector<4xf16>, f16, f16, f16, f16, tensor<2xbf16>
}
