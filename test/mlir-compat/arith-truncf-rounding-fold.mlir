// canonicalize folds a `truncf` of a constant only when the value converts without loss, as
// mlir-opt-22 does, so every rounding mode folds the same constants to the same values: exact
// values, zeros, infinities, quiet NaNs and exact subnormals fold; values between two
// neighbours (ties included), overflows, values below the smallest subnormal and NaNs with a
// payload stay. `truncf(extf(x))` keeps the truncf's mode when it reads `x` directly,
// `extf(truncf(x))` goes back to `x` under `contract` whatever the mode, and
// `truncf(sitofp(x))`/`truncf(uitofp(x))` become one conversion only without a mode.
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline=canonicalize -mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s --canonicalize -mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @exact
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @exact() -> (f16, f16, f16, f16, f16, bf16, f32, f16, f16, f16, f16, bf16) {
  %one = arith.constant 1.5 : f32
  %0 = arith.truncf %one : f32 to f16
  %1 = arith.truncf %one downward : f32 to f16
  %2 = arith.truncf %one upward : f32 to f16
  %3 = arith.truncf %one toward_zero : f32 to f16
  %4 = arith.truncf %one to_nearest_away : f32 to f16
  %5 = arith.truncf %one to_nearest_even : f32 to bf16
  %d = arith.constant -3.25 : f64
  %6 = arith.truncf %d downward : f64 to f32
  // The largest f16, an exact f16 subnormal (2^-24), -0.0 and an infinity.
  %max = arith.constant 65504.0 : f32
  %7 = arith.truncf %max upward : f32 to f16
  %sub = arith.constant 5.9604644775390625E-8 : f64
  %8 = arith.truncf %sub toward_zero : f64 to f16
  %nz = arith.constant -0.0 : f32
  %9 = arith.truncf %nz upward : f32 to f16
  %inf = arith.constant 0x7F800000 : f32
  %10 = arith.truncf %inf toward_zero : f32 to f16
  %ninf = arith.constant 0xFF800000 : f32
  %11 = arith.truncf %ninf downward : f32 to bf16
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : f16, f16, f16, f16, f16, bf16, f32, f16, f16, f16, f16, bf16
}

// CHECK-LABEL: func.func @inexact
// CHECK-COUNT-12: arith.truncf
func.func @inexact() -> (f16, f16, f16, f16, f16, f32, bf16, f16, f16, f16, f16, f16) {
  %c = arith.constant 0.1 : f32
  %0 = arith.truncf %c : f32 to f16
  %1 = arith.truncf %c downward : f32 to f16
  %2 = arith.truncf %c upward : f32 to f16
  %3 = arith.truncf %c toward_zero : f32 to f16
  %4 = arith.truncf %c to_nearest_away : f32 to f16
  %d = arith.constant 0.1 : f64
  %5 = arith.truncf %d upward : f64 to f32
  %6 = arith.truncf %d downward : f64 to bf16
  // 1 + 2^-11 lies halfway between two f16 values.
  %tie = arith.constant 1.00048828125 : f32
  %7 = arith.truncf %tie to_nearest_away : f32 to f16
  %8 = arith.truncf %tie to_nearest_even : f32 to f16
  // 65520 overflows f16 to nearest; toward zero it would be 65504, still inexact.
  %big = arith.constant 65520.0 : f32
  %9 = arith.truncf %big toward_zero : f32 to f16
  // 2^-25 is half the smallest f16 subnormal.
  %tiny = arith.constant 2.98023223876953125E-8 : f32
  %10 = arith.truncf %tiny upward : f32 to f16
  // A NaN with a payload f16 cannot hold.
  %nan = arith.constant 0x7FC00001 : f32
  %11 = arith.truncf %nan downward : f32 to f16
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : f16, f16, f16, f16, f16, f32, bf16, f16, f16, f16, f16, f16
}

// CHECK-LABEL: func.func @nan_and_vectors
// CHECK-DAG: arith.constant 0x7E00 : f16
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.500000e-01]> : vector<2xf16>
// CHECK: arith.truncf %{{.*}} upward : vector<2xf32> to vector<2xf16>
func.func @nan_and_vectors() -> (f16, vector<2xf16>, vector<2xf16>) {
  %nan = arith.constant 0x7FC00000 : f32
  %0 = arith.truncf %nan upward : f32 to f16
  %v = arith.constant dense<[1.0, 0.25]> : vector<2xf32>
  %1 = arith.truncf %v toward_zero : vector<2xf32> to vector<2xf16>
  // One inexact element keeps the whole conversion.
  %w = arith.constant dense<[1.0, 0.1]> : vector<2xf32>
  %2 = arith.truncf %w upward : vector<2xf32> to vector<2xf16>
  return %0, %1, %2 : f16, vector<2xf16>, vector<2xf16>
}

// CHECK-LABEL: func.func @chains
// CHECK-NEXT: arith.sitofp %arg0 : i32 to f16
// CHECK-NEXT: arith.uitofp %arg1 : i64 to f16
// CHECK-NEXT: %[[S:.*]] = arith.sitofp %arg0 : i32 to f32
// CHECK-NEXT: arith.truncf %[[S]] downward : f32 to f16
// CHECK-NEXT: arith.truncf %[[S]] to_nearest_even : f32 to bf16
// CHECK-NEXT: arith.truncf %arg2 downward fastmath<nnan> : f32 to bf16
func.func @chains(%i: i32, %u: i64, %x: f32, %h: f16) -> (f16, f16, f16, bf16, bf16, f16, f32, f32) {
  %0 = arith.sitofp %i : i32 to f32
  %1 = arith.truncf %0 fastmath<fast> : f32 to f16
  %2 = arith.uitofp %u : i64 to f64
  %3 = arith.truncf %2 : f64 to f16
  %4 = arith.sitofp %i : i32 to f32
  %5 = arith.truncf %4 downward : f32 to f16
  %6 = arith.truncf %4 to_nearest_even : f32 to bf16
  %e = arith.extf %x : f32 to f64
  %7 = arith.truncf %e downward fastmath<nnan> : f64 to bf16
  %eh = arith.extf %h : f16 to f32
  %8 = arith.truncf %eh toward_zero : f32 to f16
  %t = arith.truncf %x upward fastmath<contract> : f32 to f16
  %9 = arith.extf %t fastmath<contract> : f16 to f32
  %t2 = arith.truncf %x upward fastmath<contract> : f32 to bf16
  %10 = arith.extf %t2 fastmath<nnan> : bf16 to f32
  return %1, %3, %5, %6, %7, %8, %9, %10 : f16, f16, f16, bf16, bf16, f16, f32, f32
}
