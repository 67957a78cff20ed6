// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// Host functions: plain func.funcs that allocate global buffers, make constants and arena
// views, query dims and launch kernels. Custom and generic forms read back to the same text.

loop.kernel @scale(%x: !loop.buffer<?x16xf32, global>, %y: !loop.buffer<?x16xf32, global>, %n: index) {
  loop.return
}

loop.kernel @static_rows(%x: !loop.buffer<4x16xf32, global>) {
  loop.return
}

// loop.dim, a host loop.alloc and loop.launch; a `?` dim may be passed to a static kernel dim
// (checked at run time).
func.func @alloc_and_launch(%x: !loop.buffer<?x16xf32, global>) -> (!loop.buffer<?x16xf32, global>, index) {
  %n = loop.dim %x, 0 : !loop.buffer<?x16xf32, global>
  %y = loop.alloc(%n) : !loop.buffer<?x16xf32, global>
  loop.launch @scale(%x, %y, %n) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
  loop.launch @static_rows(%y) {note = "in place"} : (!loop.buffer<?x16xf32, global>) -> ()
  return %y, %n : !loop.buffer<?x16xf32, global>, index
}

// Constants: lists, splats, i1 and integer elements.
func.func @constants() -> (!loop.buffer<2xf32, global>, !loop.buffer<2x3xf16, global>, !loop.buffer<1x2xi1, global>, !loop.buffer<3xi32, global>) {
  %a = loop.constant dense<[1.0, 2.0]> : !loop.buffer<2xf32, global>
  %b = loop.constant dense<1.5> : !loop.buffer<2x3xf16, global>
  %c = loop.constant dense<[[true, false]]> : !loop.buffer<1x2xi1, global>
  %d = loop.constant {tag} dense<[1, -2, 3]> : !loop.buffer<3xi32, global>
  return %a, %b, %c, %d : !loop.buffer<2xf32, global>, !loop.buffer<2x3xf16, global>, !loop.buffer<1x2xi1, global>, !loop.buffer<3xi32, global>
}

// Views into one arena: a dynamic and a static view.
func.func @views(%n: index) -> (!loop.buffer<?x16xf32, global>, !loop.buffer<4xi32, global>) {
  %c4096 = arith.constant 4096 : index
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %arena = loop.alloc(%c4096) : !loop.buffer<?xi8, global>
  %v = loop.view %arena[%c0](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?x16xf32, global>
  %w = loop.view %arena[%c256] : !loop.buffer<?xi8, global> -> !loop.buffer<4xi32, global>
  return %v, %w : !loop.buffer<?x16xf32, global>, !loop.buffer<4xi32, global>
}

// Reshapes: a static one, and one whose `?` dim is an operand.
func.func @reshapes(%x: !loop.buffer<?x16xf32, global>, %n: index) -> (!loop.buffer<2x8xi32, global>, !loop.buffer<?x4x4xf32, global>) {
  %a = loop.alloc : !loop.buffer<16xi32, global>
  %r = loop.reshape %a : !loop.buffer<16xi32, global> -> !loop.buffer<2x8xi32, global>
  %s = loop.reshape %x(%n) : !loop.buffer<?x16xf32, global> -> !loop.buffer<?x4x4xf32, global>
  return %r, %s : !loop.buffer<2x8xi32, global>, !loop.buffer<?x4x4xf32, global>
}

// math.roundeven, MLIR's round-half-to-even.
func.func @roundeven(%x: f32) -> f32 {
  %r = math.roundeven %x : f32
  return %r : f32
}

// CHECK-LABEL: func.func @alloc_and_launch(%arg0: !loop.buffer<?x16xf32, global>) -> (!loop.buffer<?x16xf32, global>, index) {
// CHECK-NEXT: %0 = loop.dim %arg0, 0 : !loop.buffer<?x16xf32, global>
// CHECK-NEXT: %1 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
// CHECK-NEXT: loop.launch @scale(%arg0, %1, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
// CHECK-NEXT: loop.launch @static_rows(%1) {note = "in place"} : (!loop.buffer<?x16xf32, global>) -> ()
// CHECK-NEXT: return %1, %0 : !loop.buffer<?x16xf32, global>, index
// CHECK-NEXT: }

// CHECK-LABEL: func.func @constants()
// CHECK-NEXT: %0 = loop.constant dense<[1.000000e+00, 2.000000e+00]> : !loop.buffer<2xf32, global>
// CHECK-NEXT: %1 = loop.constant dense<1.500000e+00> : !loop.buffer<2x3xf16, global>
// CHECK-NEXT: %2 = loop.constant dense<{{\[\[}}true, false]]> : !loop.buffer<1x2xi1, global>
// CHECK-NEXT: %3 = loop.constant {tag} dense<[1, -2, 3]> : !loop.buffer<3xi32, global>

// CHECK-LABEL: func.func @views(%arg0: index) -> (!loop.buffer<?x16xf32, global>, !loop.buffer<4xi32, global>) {
// CHECK:      %[[ARENA:.*]] = loop.alloc(%c4096) : !loop.buffer<?xi8, global>
// CHECK-NEXT: %[[V:.*]] = loop.view %[[ARENA]][%c0](%arg0) : !loop.buffer<?xi8, global> -> !loop.buffer<?x16xf32, global>
// CHECK-NEXT: %[[W:.*]] = loop.view %[[ARENA]][%c256] : !loop.buffer<?xi8, global> -> !loop.buffer<4xi32, global>
// CHECK-NEXT: return %[[V]], %[[W]]

// CHECK-LABEL: func.func @reshapes(%arg0: !loop.buffer<?x16xf32, global>, %arg1: index)
// CHECK-NEXT: %[[A:.*]] = loop.alloc : !loop.buffer<16xi32, global>
// CHECK-NEXT: %[[R:.*]] = loop.reshape %[[A]] : !loop.buffer<16xi32, global> -> !loop.buffer<2x8xi32, global>
// CHECK-NEXT: %[[S:.*]] = loop.reshape %arg0(%arg1) : !loop.buffer<?x16xf32, global> -> !loop.buffer<?x4x4xf32, global>
// CHECK-NEXT: return %[[R]], %[[S]]

// CHECK-LABEL: func.func @roundeven(%arg0: f32) -> f32 {
// CHECK-NEXT: %0 = math.roundeven %arg0 : f32

// GENERIC: "loop.dim"(%arg{{[0-9]+}}) <{axis = 0 : i64}> : (!loop.buffer<?x16xf32, global>) -> index
// GENERIC: "loop.launch"(%{{.*}}) <{callee = @scale}> : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
// GENERIC: "loop.constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> !loop.buffer<2xf32, global>
// GENERIC: "loop.view"(%{{.*}}, %{{.*}}, %{{.*}}) : (!loop.buffer<?xi8, global>, index, index) -> !loop.buffer<?x16xf32, global>
