// Constants of f80 and f128, scalar, dense and splat, print as mlir-opt-22 prints them: a
// decimal literal is read as an f64 and widened exactly, a hexadecimal one is the format's bit
// pattern; the printer keeps the six-digit form when it reads back exactly, else APFloat's
// default form (21 digits for f80, 36 for f128), else the bits (NaN, infinity). f80 patterns
// with an inconsistent integer bit read as APFloat reads them: an unnormal is a NaN, a
// pseudo-denormal the normal number of its value. A value that is no f64 prints in decimal,
// which both tools read back through an f64: the output read again matches mlir-opt's reading
// it again, in both forms (widened f64s, infinities and NaNs print back as themselves).
// RUN: dlc-opt %s > %t.dlc
// RUN: mlir-opt %s > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %t.dlc > %t.again.dlc
// RUN: mlir-opt %t.mlir > %t.again.mlir
// RUN: diff %t.again.dlc %t.again.mlir
// RUN: dlc-opt %s --mlir-print-op-generic > %t.gen.dlc
// RUN: mlir-opt %s --mlir-print-op-generic > %t.gen.mlir
// RUN: diff %t.gen.dlc %t.gen.mlir
// RUN: dlc-opt %t.gen.dlc --mlir-print-op-generic > %t.gen.again.dlc
// RUN: mlir-opt %t.gen.mlir --mlir-print-op-generic > %t.gen.again.mlir
// RUN: diff %t.gen.again.dlc %t.gen.again.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK-LABEL: func.func @decimal
func.func @decimal() {
  // CHECK: arith.constant 0.000000e+00 : f80
  %0 = arith.constant 0.0 : f80
  // CHECK: arith.constant -0.000000e+00 : f128
  %1 = arith.constant -0.0 : f128
  // CHECK: arith.constant 1.500000e+00 : f80
  %2 = arith.constant 1.5 : f80
  // CHECK: arith.constant -1.500000e+00 : f128
  %3 = arith.constant -1.5 : f128
  // The f64 nearest 0.1, widened: its digits show.
  // CHECK: arith.constant 0.100000000000000005551 : f80
  %4 = arith.constant 0.1 : f80
  // CHECK: arith.constant 0.100000000000000005551115123125782702 : f128
  %5 = arith.constant 0.1 : f128
  // CHECK: arith.constant 1.00000000000000005250476025520442025E+300 : f128
  %6 = arith.constant 1.0e300 : f128
  %7 = arith.constant 1.0e300 : f80
  %8 = arith.constant 1.0e-300 : f80
  %9 = arith.constant 1.0e-300 : f128
  // The largest and smallest f64, a subnormal f64 (normal in both wide formats).
  %10 = arith.constant 1.7976931348623157e308 : f80
  %11 = arith.constant -1.7976931348623157e308 : f128
  %12 = arith.constant 4.9406564584124654e-324 : f80
  %13 = arith.constant 4.9406564584124654e-324 : f128
  %14 = arith.constant 2.2250738585072009e-308 : f80
  %15 = arith.constant 2.2250738585072014e-308 : f128
  // Integers beyond six digits print in the default form or, without a '.', in hex.
  // CHECK: arith.constant 0x4019EB79A2A000000000 : f80
  %16 = arith.constant 123456789.0 : f80
  %17 = arith.constant 123456789.0 : f128
  %18 = arith.constant 3.14159265358979323846 : f80
  %19 = arith.constant 3.14159265358979323846 : f128
  %20 = arith.constant 1.0e20 : f80
  %21 = arith.constant 1.0e-7 : f128
  %22 = arith.constant 65504.0 : f80
  %23 = arith.constant 1.0e6 : f128
  return
}

// CHECK-LABEL: func.func @bits
func.func @bits() {
  // Infinities and NaNs (quiet and signaling, with payloads) keep their bits.
  // CHECK: arith.constant 0x7FFF8000000000000000 : f80
  %0 = arith.constant 0x7FFF8000000000000000 : f80
  // CHECK: arith.constant 0xFFFF8000000000000000 : f80
  %1 = arith.constant 0xFFFF8000000000000000 : f80
  %2 = arith.constant 0x7FFFC000000000000000 : f80
  %3 = arith.constant 0x7FFFE000000000000001 : f80
  %4 = arith.constant 0xFFFFB000000000000011 : f80
  // CHECK: arith.constant 0x7FFF0000000000000000000000000000 : f128
  %5 = arith.constant 0x7FFF0000000000000000000000000000 : f128
  %6 = arith.constant 0xFFFF0000000000000000000000000000 : f128
  %7 = arith.constant 0x7FFF8000000000000000000000000000 : f128
  %8 = arith.constant 0x7FFF0000000000000000000000000001 : f128
  // Full precision: one unit in the last place above 1.
  // CHECK: arith.constant 1.00000000000000000011 : f80
  %9 = arith.constant 0x3FFF8000000000000001 : f80
  // CHECK: arith.constant 1.00000000000000000000000000000000019 : f128
  %10 = arith.constant 0x3FFF0000000000000000000000000001 : f128
  // The largest finite values, the smallest normals and subnormals.
  %11 = arith.constant 0x7FFEFFFFFFFFFFFFFFFF : f80
  %12 = arith.constant 0x7FFEFFFFFFFFFFFFFFFFFFFFFFFFFFFF : f128
  %13 = arith.constant 0x00018000000000000000 : f80
  %14 = arith.constant 0x00010000000000000000000000000000 : f128
  // CHECK: arith.constant 3.645200e-4951 : f80
  %15 = arith.constant 0x00000000000000000001 : f80
  // CHECK: arith.constant 6.475180e-4966 : f128
  %16 = arith.constant 0x00000000000000000000000000000001 : f128
  %17 = arith.constant 0x00007FFFFFFFFFFFFFFF : f80
  %18 = arith.constant 0x0000FFFFFFFFFFFFFFFFFFFFFFFFFFFF : f128
  %19 = arith.constant 0x8000000000000000000000000000000F : f128
  // Short hex literals are zero-extended.
  %20 = arith.constant 0x1 : f80
  // Random patterns.
  %21 = arith.constant 0x4123ABCDEF0123456789 : f80
  %22 = arith.constant 0xC0F1FEDCBA9876543210FEDCBA987654 : f128
  %23 = arith.constant 0x3FFD9999999999999999999999999999 : f128
  %24 = arith.constant 0x3FFBCCCCCCCCCCCCCCCD : f80
  return
}

// CHECK-LABEL: func.func @f80_noncanonical
func.func @f80_noncanonical() {
  // A pseudo-denormal (zero exponent, integer bit set) is the smallest normal.
  // CHECK: arith.constant 3.36210314311209350626E-4932 : f80
  %0 = arith.constant 0x00008000000000000000 : f80
  %1 = arith.constant 0x8000C000000000000001 : f80
  // Unnormals (integer bit clear under a nonzero exponent) are NaNs.
  // CHECK: arith.constant 0x7FFF0000000000000000 : f80
  %2 = arith.constant 0x3FFF0000000000000000 : f80
  // CHECK: arith.constant 0xFFFF4000000000000001 : f80
  %3 = arith.constant 0xC0004000000000000001 : f80
  // Pseudo-infinity and pseudo-NaN (all-ones exponent, integer bit clear) are NaNs.
  %4 = arith.constant 0x7FFF0000000000000000 : f80
  %5 = arith.constant 0xFFFF0000000000000001 : f80
  return
}

// CHECK-LABEL: func.func @dense
func.func @dense() {
  // CHECK: dense<[1.500000e+00, 0.100000000000000005551]> : tensor<2xf80>
  %0 = arith.constant dense<[1.5, 0.1]> : tensor<2xf80>
  // CHECK: dense<[1.500000e+00, 0.100000000000000005551115123125782702]> : tensor<2xf128>
  %1 = arith.constant dense<[1.5, 0.1]> : tensor<2xf128>
  // CHECK: dense<0.100000000000000005551> : vector<4xf80>
  %2 = arith.constant dense<0.1> : vector<4xf80>
  %3 = arith.constant dense<[[0x7FFF8000000000000000, -0.0], [0x3FFF0000000000000000, 0x00008000000000000000]]> : tensor<2x2xf80>
  %4 = arith.constant dense<[[0x7FFF0000000000000000000000000001, 1.0e300], [0x00000000000000000000000000000001, -2.5]]> : tensor<2x2xf128>
  // Equal elements make a splat.
  // CHECK: dense<2.500000e+00> : tensor<3xf128>
  %5 = arith.constant dense<[2.5, 2.5, 2.5]> : tensor<3xf128>
  %6 = arith.constant dense<[0x7FFF0000000000000000]> : tensor<1xf80>
  %7 = arith.constant dense<> : tensor<0xf80>
  %8 = arith.constant dense<1.0> : tensor<f128>
  // Hex strings hold 10 bytes per f80 and 16 per f128, little-endian.
  // CHECK: dense<[0x7FFF0000000000000000, 1.000000e+00]> : tensor<2xf80>
  %9 = arith.constant dense<"0x0000000000000000FF3F0000000000000080FF3F"> : tensor<2xf80>
  // CHECK: dense<1.000000e+00> : tensor<4xf80>
  %10 = arith.constant dense<"0x0000000000000080FF3F"> : tensor<4xf80>
  %11 = arith.constant dense<"0x000000000000000000000000000000C00000000000000000000000000000FF3F"> : tensor<2xf128>
  return
}

// More than 100 elements print as a hex string of the stored bytes.
// CHECK-LABEL: func.func @dense_hex
func.func @dense_hex() {
  // CHECK: dense<"0x000000000000000000000000000000000080FF3F
  %0 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 0x3FFF0000000000000000]> : tensor<101xf80>
  %1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 0.1]> : tensor<101xf128>
  return
}

// As attributes elsewhere: in arrays and dictionaries, with their types.
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: wide = [1.500000e+00 : f80, 0x7FFF8000000000000000000000000000 : f128]
func.func @attributes() attributes {wide = [1.5 : f80, 0x7FFF8000000000000000000000000000 : f128], d = {x = 0.1 : f128}} {
  return
}
