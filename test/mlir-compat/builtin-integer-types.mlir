// Signed (`si`), unsigned (`ui`), zero-width and wide integer types parse and print as in
// mlir-opt-22: constants are range-checked by signedness, unsigned values print unsigned and
// signless ones signed (an all-ones `i128` is -1), and the output reads back in mlir-opt.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: mlir-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK: func.func @f(%arg0: si8, %arg1: ui8, %arg2: i0, %arg3: si1, %arg4: ui64, %arg5: i256, %arg6: si16777215)
// CHECK: %c-1_i256 = arith.constant -1 : i256
// CHECK: %c0_i0 = arith.constant 0 : i0
// CHECK: %c-1_i128 = arith.constant -1 : i128
// CHECK: a = 1 : si8, b = -1 : si8, c = 255 : ui8
// CHECK-SAME: i = 340282366920938463463374607431768211455 : ui128
// CHECK-SAME: n = dense<[1, -1]> : tensor<2xsi8>, o = dense<[1, 255]> : tensor<2xui8>
func.func @f(%a: si8, %b: ui8, %c: i0, %d: si1, %e: ui64, %f: i256, %g: si16777215) {
  %0 = arith.constant 1 : i256
  %1 = arith.constant -1 : i256
  %2 = arith.constant 0 : i0
  %3 = arith.constant 170141183460469231731687303715884105727 : i129
  %4 = arith.constant 340282366920938463463374607431768211455 : i128
  %5 = arith.constant 255 : i8
  %6 = arith.constant -128 : i8
  "t.op"() {a = 1 : si8, b = -1 : si8, c = 255 : ui8, d = 0 : i0, e = 0 : si0, f = -5 : si256,
            g = 200 : ui8, h = 127 : si8, i = 340282366920938463463374607431768211455 : ui128,
            k = -170141183460469231731687303715884105728 : si128, l = 1 : ui1, m = -1 : si1,
            n = dense<[1, -1]> : tensor<2xsi8>, o = dense<[1, 255]> : tensor<2xui8>,
            p = dense<5> : tensor<2xi256>, q = 0x80 : ui8, r = -1 : index} : () -> ()
  return
}
