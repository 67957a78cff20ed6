// RUN: dlc-opt %s --allow-unregistered-dialect | dlc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | dlc-opt --allow-unregistered-dialect | FileCheck %s

// Attribute (`#name = ...`) and type (`!name = ...`) aliases are expanded where they are used;
// aliases may name other aliases and may be used before the op that needs them is written.

#dict = {a = 1 : i32, b = "s"}
#arr = [1, 2, #dict]
#int = 42 : i16
#sym = @callee::@inner
#dense = dense<[1, 2]> : tensor<2xi32>
#opaque = #foo.bar<1>
!tensor = tensor<4x?xf32>
!fn = (i32) -> !tensor
!elem = f16
!vec = vector<8x!elem>
!opaque = !foo.handle
!tensor_of_opaque = tensor<2x!opaque>

// CHECK-LABEL: func.func @uses(%arg0: tensor<4x?xf32>, %arg1: vector<8xf16>) -> tensor<4x?xf32> attributes {a = [1, 2, {a = 1 : i32, b = "s"}], d = dense<[1, 2]> : tensor<2xi32>, i = 42 : i16, s = @callee::@inner, t = (i32) -> tensor<4x?xf32>} {
// CHECK-NEXT: %0 = "t.op"(%arg0) {dict = {a = 1 : i32, b = "s"}, o = #foo.bar<1>} : (tensor<4x?xf32>) -> tensor<2x!foo.handle>
// CHECK-NEXT: return %arg0 : tensor<4x?xf32>
// CHECK-NEXT: }
func.func @uses(%arg0: !tensor, %arg1: !vec) -> !tensor attributes {a = #arr, d = #dense, i = #int, s = #sym, t = !fn} {
  %0 = "t.op"(%arg0) {dict = #dict, o = #opaque} : (!tensor) -> !tensor_of_opaque
  return %arg0 : !tensor
}

// CHECK-LABEL: func.func private @in_signature((i32) -> tensor<4x?xf32>, !foo.handle) -> vector<8xf16> attributes {attr = {a = 1 : i32, b = "s"}}
func.func private @in_signature(!fn, !opaque) -> !vec attributes {attr = #dict}
