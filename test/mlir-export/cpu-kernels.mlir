// RUN: dlc-opt %s --emit=mlir | FileCheck %s
// RUN: dlc-opt %s --emit=mlir | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-math-to-llvm --convert-math-to-libm --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// CPU kernels in upstream MLIR: buffers as memrefs, loop kinds as scf loops, schedule blocks
// inlined with their init region under "first reduction point", local buffers as zero-filled
// allocas at the function entry, vector loads and stores as vector ops.

// CHECK-LABEL: func.func @reduce_rows(%arg0: memref<?x16xf32>, %arg1: memref<?xf32>, %arg2: index) {
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<1xf32>
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%arg2) step (%{{.*}}) {
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[ACC]][%{{.*}}] : memref<1xf32>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: %[[AND:.*]] = arith.andi %{{.*}}, %[[FIRST]] : i1
// CHECK: scf.if %[[AND]] {
// CHECK: memref.store %{{.*}}, %[[ACC]]
// CHECK: }
// CHECK: %[[V:.*]] = memref.load %arg0[%[[I]], %[[K]]] : memref<?x16xf32>
// CHECK: arith.addf
// CHECK: scf.reduce
// LLVM-LABEL: llvm.func @reduce_rows(
loop.kernel @reduce_rows(%x: !loop.buffer<?x16xf32, global>, %out: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %n step %c1 {
    %acc = loop.alloc : !loop.buffer<1xf32, local>
    loop.for serial %k = %c0 to %c16 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %acc[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<?x16xf32, global>
        %a = loop.load %acc[%c0] : !loop.buffer<1xf32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      }
      loop.yield
    }
    %r = loop.load %acc[%c0] : !loop.buffer<1xf32, local>
    loop.store %r, %out[%i] : !loop.buffer<?xf32, global>
    loop.yield
  }
  loop.return
}

// CHECK-LABEL: func.func @exp_vec(%arg0: memref<?x16xf32>, %arg1: memref<?x16xf32>, %arg2: index) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg2 step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[V:.*]] = vector.load %arg0[%{{.*}}, %[[J]]] : memref<?x16xf32>, vector<4xf32>
// CHECK: %[[E:.*]] = math.exp %[[V]] : vector<4xf32>
// CHECK: vector.store %[[E]], %arg1[%{{.*}}, %[[J]]] : memref<?x16xf32>, vector<4xf32>
// LLVM-LABEL: llvm.func @exp_vec(
// LLVM: llvm.intr.exp
loop.kernel @exp_vec(%x: !loop.buffer<?x16xf32, global>, %y: !loop.buffer<?x16xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for serial %i = %c0 to %n step %c1 {
    loop.for vectorize(4) %j = %c0 to %c16 step %c4 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<?x16xf32, global> -> vector<4xf32>
      %e = math.exp %v : vector<4xf32>
      loop.vstore %e, %y[%i, %j] : vector<4xf32>, !loop.buffer<?x16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// CHECK-LABEL: func.func @clamp(%arg0: memref<?xi32>, %arg1: memref<?xi1>, %arg2: index) {
// CHECK: scf.for
// CHECK: %[[C:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: memref.store %[[C]], %arg1[%{{.*}}] : memref<?xi1>
// CHECK: scf.if %[[C]] {
// CHECK: } else {
// CHECK: }
// LLVM-LABEL: llvm.func @clamp(
loop.kernel @clamp(%x: !loop.buffer<?xi32, global>, %neg: !loop.buffer<?xi1, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for unroll(2) %i = %c0 to %n step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<?xi32, global>
    %z = arith.constant 0 : i32
    %lt = arith.cmpi slt, %v, %z : i32
    loop.store %lt, %neg[%i] : !loop.buffer<?xi1, global>
    loop.if %lt {
      loop.store %z, %x[%i] : !loop.buffer<?xi32, global>
      loop.yield
    } else {
      %d = arith.muli %v, %v : i32
      loop.store %d, %x[%i] : !loop.buffer<?xi32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
