// RUN: dlc-opt %s --emit=mlir | FileCheck %s
// RUN: dlc-opt %s --emit=mlir | mlir-opt --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// Host functions: loop.alloc is a zero-filled memref.alloc, loop.view a memref.view of the i8
// arena, loop.constant a private constant memref.global, loop.dim memref.dim, and loop.launch
// of a CPU kernel a func.call (with a memref.cast where the kernel's shape differs).

loop.kernel @scale(%x: !loop.buffer<?x16xf32, global>, %y: !loop.buffer<?x16xf32, global>, %n: index) {
  loop.return
}

loop.kernel @add_bias(%x: !loop.buffer<?x16xf32, global>, %b: !loop.buffer<?xf32, global>) {
  loop.return
}

// CHECK: memref.global "private" constant @__dlc_constant_0 : memref<16xf32> = dense<5.000000e-01>
// CHECK-LABEL: func.func @main(%arg0: memref<?x16xf32>) -> memref<?x16xf32> {
// CHECK: %[[N:.*]] = memref.dim %arg0, %{{.*}} : memref<?x16xf32>
// CHECK: %[[ARENA:.*]] = memref.alloc(%{{.*}}) : memref<?xi8>
// CHECK: scf.for
// CHECK: %[[T:.*]] = memref.view %[[ARENA]][%{{.*}}][%[[N]]] : memref<?xi8> to memref<?x16xf32>
// CHECK: %[[Y:.*]] = memref.alloc(%[[N]]) : memref<?x16xf32>
// CHECK: %[[B:.*]] = memref.get_global @__dlc_constant_0 : memref<16xf32>
// CHECK: call @scale(%arg0, %[[T]], %[[N]]) : (memref<?x16xf32>, memref<?x16xf32>, index) -> ()
// CHECK: %[[CAST:.*]] = memref.cast %[[B]] : memref<16xf32> to memref<?xf32>
// CHECK: call @add_bias(%[[T]], %[[CAST]]) : (memref<?x16xf32>, memref<?xf32>) -> ()
// CHECK: return %[[Y]] : memref<?x16xf32>
// LLVM-LABEL: llvm.func @main(
// LLVM: llvm.call @scale(
// LLVM: llvm.call @add_bias(
func.func @main(%x: !loop.buffer<?x16xf32, global>) -> !loop.buffer<?x16xf32, global> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = loop.dim %x, 0 : !loop.buffer<?x16xf32, global>
  %bytes = arith.muli %n, %c64 : index
  %arena = loop.alloc(%bytes) : !loop.buffer<?xi8, global>
  %t = loop.view %arena[%c0](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?x16xf32, global>
  %y = loop.alloc(%n) : !loop.buffer<?x16xf32, global>
  %b = loop.constant dense<0.5> : !loop.buffer<16xf32, global>
  loop.launch @scale(%x, %t, %n) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
  loop.launch @add_bias(%t, %b) : (!loop.buffer<?x16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %y : !loop.buffer<?x16xf32, global>
}

// loop.reshape is memref.reinterpret_cast to the result's sizes and row-major strides (here
// static: only the leading dim is `?`), which the LLVM lowering turns into a descriptor.
// CHECK-LABEL: func.func @reshape(%arg0: memref<?x16xf32>, %arg1: index) -> memref<?x4x4xf32> {
// CHECK-NEXT: %[[R:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%arg1, 4, 4], strides: [16, 4, 1] : memref<?x16xf32> to memref<?x4x4xf32>
// CHECK-NEXT: return %[[R]]
// LLVM-LABEL: llvm.func @reshape(
// LLVM-NOT: memref.
// LLVM: llvm.return
func.func @reshape(%x: !loop.buffer<?x16xf32, global>, %n: index) -> !loop.buffer<?x4x4xf32, global> {
  %r = loop.reshape %x(%n) : !loop.buffer<?x16xf32, global> -> !loop.buffer<?x4x4xf32, global>
  return %r : !loop.buffer<?x4x4xf32, global>
}

// A `?` inner dim makes the strides before it products computed on the host.
// CHECK-LABEL: func.func @reshape_inner(%arg0: memref<?xf32>, %arg1: index) -> memref<2x?x3xf32> {
// CHECK: %[[S:.*]] = arith.muli %{{.*}}, %arg1 : index
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [2, %arg1, 3], strides: [%[[S]], 3, 1] : memref<?xf32> to memref<2x?x3xf32>
func.func @reshape_inner(%x: !loop.buffer<?xf32, global>, %n: index) -> !loop.buffer<2x?x3xf32, global> {
  %r = loop.reshape %x(%n) : !loop.buffer<?xf32, global> -> !loop.buffer<2x?x3xf32, global>
  return %r : !loop.buffer<2x?x3xf32, global>
}
