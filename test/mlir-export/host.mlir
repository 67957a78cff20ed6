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
