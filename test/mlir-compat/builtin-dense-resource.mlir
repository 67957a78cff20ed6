// dense_resource attributes and the `{-# dialect_resources #-}` block holding their blobs:
// the block is kept and printed back after the module as mlir-opt-22 prints it, with only the
// blobs the printed IR names (`unused` goes) and quoted names where a name is no identifier.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: mlir-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK: %cst = arith.constant dense_resource<blob1> : tensor<2xi32>
// CHECK: {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       blob1: "0x040000000100000002000000",
// CHECK-NEXT:       unused2: "0x0400000001000000",
// CHECK-NEXT:       "a b": "0x0100000007"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
func.func @f() -> tensor<2xi32> {
  %0 = arith.constant dense_resource<blob1> : tensor<2xi32>
  // A resource without a blob prints, and adds nothing to the block.
  %1 = arith.constant dense_resource<"no blob"> : tensor<2xi32>
  "t.op"() {a = dense_resource<blob1> : tensor<2xi32>, b = dense_resource<unused2> : tensor<1xf32>, c = dense_resource<"a b"> : tensor<1xi8>} : () -> ()
  return %0 : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000",
      unused: "0x0400000001000000",
      unused2: "0x0400000001000000",
      "a b": "0x0100000007"
    }
  }
#-}
