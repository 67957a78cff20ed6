// Every builtin float format of mlir-opt-22 parses and prints, also as the parts of a
// `complex` and as the elements of shaped types. dlc has no arithmetic for the formats beyond
// f16, bf16, f32 and f64, and constants of them only of f80 and f128
// (builtin-ext-float-constants.mlir, builtin-float-types-invalid.mlir).
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK: () -> (f4E2M1FN, f6E2M3FN, f6E3M2FN, f8E5M2, f8E4M3, f8E4M3FN, f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E3M4, f8E8M0FNU, tf32, f80, f128, bf16)
"t.op"() : () -> (f4E2M1FN, f6E2M3FN, f6E3M2FN, f8E5M2, f8E4M3, f8E4M3FN, f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3B11FNUZ, f8E3M4, f8E8M0FNU, tf32, f80, f128, bf16)
// CHECK: () -> (complex<f80>, vector<4xf8E4M3FN>, tensor<?xf128>, memref<2xtf32>)
"t.op"() : () -> (complex<f80>, vector<4xf8E4M3FN>, tensor<?xf128>, memref<2xtf32>)
