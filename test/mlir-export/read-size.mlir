// RUN: dlc-opt %s --emit=mlir | FileCheck %s
// RUN: dlc-opt %s --emit=mlir | mlir-opt --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// loop.read_size is a memref.load of the one element (every index 0) and an arith.index_cast to
// index; a negative value is not checked here (the interpreter and the runtime report it).

loop.kernel @count_positive(%x: !loop.buffer<?xf32, global>, %count: !loop.buffer<i64, global>, %n: index) {
  loop.return
}

loop.kernel @keep_positive(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  loop.return
}

// The count a kernel wrote sizes the allocation made after it.
// CHECK-LABEL: func.func @filter(%arg0: memref<?xf32>) -> memref<?xf32> {
// CHECK: %[[COUNT:.*]] = memref.alloc() : memref<i64>
// CHECK: call @count_positive(%arg0, %[[COUNT]], %{{.*}}) : (memref<?xf32>, memref<i64>, index) -> ()
// CHECK-NEXT: %[[E:.*]] = memref.load %[[COUNT]][] : memref<i64>
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK-NEXT: %[[Y:.*]] = memref.alloc(%[[K]]) : memref<?xf32>
// CHECK: call @keep_positive(%arg0, %[[Y]], %{{.*}})
// CHECK: return %[[Y]] : memref<?xf32>
// LLVM-LABEL: llvm.func @filter(
// LLVM: llvm.call @count_positive(
// LLVM: llvm.load
// LLVM: llvm.call @keep_positive(
func.func @filter(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %count = loop.alloc : !loop.buffer<i64, global>
  loop.launch @count_positive(%x, %count, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<i64, global>, index) -> ()
  %k = loop.read_size %count : !loop.buffer<i64, global>
  %y = loop.alloc(%k) : !loop.buffer<?xf32, global>
  loop.launch @keep_positive(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y : !loop.buffer<?xf32, global>
}

// Narrower elements are loaded at index 0 of every dim and sign-extended by the cast.
// CHECK-LABEL: func.func @narrow(%arg0: memref<1x1xi32>, %arg1: memref<1xi8>) -> (index, index) {
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[C0]], %[[C0]]] : memref<1x1xi32>
// CHECK-NEXT: %[[IA:.*]] = arith.index_cast %[[A]] : i32 to index
// CHECK: %[[B:.*]] = memref.load %arg1[%{{.*}}] : memref<1xi8>
// CHECK-NEXT: %[[IB:.*]] = arith.index_cast %[[B]] : i8 to index
// CHECK-NEXT: return %[[IA]], %[[IB]] : index, index
// LLVM-LABEL: llvm.func @narrow(
// LLVM: llvm.sext
// LLVM: llvm.sext
func.func @narrow(%a: !loop.buffer<1x1xi32, global>, %b: !loop.buffer<1xi8, global>) -> (index, index) {
  %0 = loop.read_size %a : !loop.buffer<1x1xi32, global>
  %1 = loop.read_size %b : !loop.buffer<1xi8, global>
  return %0, %1 : index, index
}
