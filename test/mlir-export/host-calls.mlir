// RUN: dlc-opt %s --emit=mlir | FileCheck %s
// RUN: dlc-opt %s --emit=mlir | mlir-opt --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// Host calls: loop.call_if is a memref.load of the condition and an scf.if calling either
// callee; loop.call_loop an scf.while over (i, condition, carried values) that calls the body
// on rank-0 memrefs of i and the condition, copies the carried results into fresh memrefs and
// frees what the iteration before was given. The callees are exported as host functions.

loop.kernel @scale(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  loop.return
}

func.func @twice(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %y = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @scale(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y : !loop.buffer<?xf32, global>
}

func.func @same(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  return %x : !loop.buffer<?xf32, global>
}

// CHECK-LABEL: func.func @if(%arg0: memref<1xi1>, %arg1: memref<?xf32>) -> memref<?xf32> {
// CHECK: %[[C:.*]] = memref.load %arg0[%{{.*}}] : memref<1xi1>
// CHECK-NEXT: %[[R:.*]] = scf.if %[[C]] -> (memref<?xf32>) {
// CHECK-NEXT: %[[T:.*]] = func.call @twice(%arg1) : (memref<?xf32>) -> memref<?xf32>
// CHECK-NEXT: scf.yield %[[T]] : memref<?xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[E:.*]] = func.call @same(%arg1) : (memref<?xf32>) -> memref<?xf32>
// CHECK-NEXT: scf.yield %[[E]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : memref<?xf32>
// LLVM-LABEL: llvm.func @if(
// LLVM: llvm.call @twice(
// LLVM: llvm.call @same(
func.func @if(%c: !loop.buffer<1xi1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @twice else @same (%x) : (!loop.buffer<1xi1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}

// CHECK-LABEL: func.func @body(%arg0: memref<i64>, %arg1: memref<i1>, %arg2: memref<?xf32>, %arg3: index, %arg4: index) -> (memref<i1>, memref<?xf32>, index) {
func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>, %j: index, %k: index) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index) {
  %y = func.call @twice(%x) : (!loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  %s = arith.addi %j, %k : index
  return %c, %y, %s : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index
}

// Two carried values (a buffer, copied, and an index) and a capture.
// CHECK-LABEL: func.func @loop(%arg0: memref<i64>, %arg1: memref<i1>, %arg2: memref<?xf32>, %arg3: index) -> (memref<?xf32>, index) {
// CHECK: %[[M:.*]] = memref.load %arg0[] : memref<i64>
// CHECK: %[[C:.*]] = memref.load %arg1[] : memref<i1>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[X0:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: memref.copy %arg2, %[[X0]] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT: %[[W:.*]]:4 = scf.while (%[[I:.*]] = %[[ZERO]], %[[GO:.*]] = %[[C]], %[[X:.*]] = %[[X0]], %[[J:.*]] = %arg3) : (i64, i1, memref<?xf32>, index) -> (i64, i1, memref<?xf32>, index) {
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpi slt, %[[I]], %[[M]] : i64
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[BELOW]], %[[GO]] : i1
// CHECK-NEXT: scf.condition(%[[BOTH]]) %[[I]], %[[GO]], %[[X]], %[[J]] : i64, i1, memref<?xf32>, index
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[I:.*]]: i64, %[[GO:.*]]: i1, %[[X:.*]]: memref<?xf32>, %[[J:.*]]: index):
// CHECK-NEXT: %[[IB:.*]] = memref.alloc() : memref<i64>
// CHECK-NEXT: memref.store %[[I]], %[[IB]][] : memref<i64>
// CHECK-NEXT: %[[CB:.*]] = memref.alloc() : memref<i1>
// CHECK-NEXT: memref.store %[[GO]], %[[CB]][] : memref<i1>
// CHECK-NEXT: %[[OUT:.*]]:3 = func.call @body(%[[IB]], %[[CB]], %[[X]], %[[J]], %arg3) : (memref<i64>, memref<i1>, memref<?xf32>, index, index) -> (memref<i1>, memref<?xf32>, index)
// CHECK-NEXT: %[[NEXT:.*]] = memref.load %[[OUT]]#0[] : memref<i1>
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : i64
// CHECK: %[[COPY:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: memref.copy %[[OUT]]#1, %[[COPY]] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT: memref.dealloc %[[IB]] : memref<i64>
// CHECK-NEXT: memref.dealloc %[[CB]] : memref<i1>
// CHECK-NEXT: memref.dealloc %[[X]] : memref<?xf32>
// CHECK-NEXT: scf.yield %[[I1]], %[[NEXT]], %[[COPY]], %[[OUT]]#2 : i64, i1, memref<?xf32>, index
// CHECK-NEXT: }
// CHECK-NEXT: return %[[W]]#2, %[[W]]#3 : memref<?xf32>, index
// LLVM-LABEL: llvm.func @loop(
// LLVM: llvm.call @body(
// LLVM: llvm.call @free(
// LLVM-NOT: scf.
func.func @loop(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>, %k: index) -> (!loop.buffer<?xf32, global>, index) {
  %r:2 = loop.call_loop @body (%m, %c, %x, %k) captures (%k) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index, index) -> (!loop.buffer<?xf32, global>, index)
  return %r#0, %r#1 : !loop.buffer<?xf32, global>, index
}
