// Number literals mean what they mean in mlir-opt-22: a negative hexadecimal literal is a
// negative integer (`-0x1` in an `i1` is true), in scalars, dense constants and arrays alike.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s -allow-unregistered-dialect | FileCheck %s

// CHECK: a = -5 : i8, b = true, c = dense<-5> : tensor<2xi8>, d = array<i8: -5, 5>
// CHECK-SAME: e = dense<[false, true]> : tensor<2xi1>, f = dense<true> : tensor<2xi1>
"t.op"() {a = -0x5 : i8, b = -0x1 : i1, c = dense<-0x5> : tensor<2xi8>, d = array<i8: -0x5, 0x5>,
          e = dense<[false, 1]> : tensor<2xi1>, f = dense<[-1, 0x1]> : tensor<2xi1>} : () -> ()
