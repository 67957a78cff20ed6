// RUN: dlc-opt %s --emit=mlir | FileCheck %s
// RUN: dlc-opt %s --emit=mlir | mlir-opt "--gpu-lower-to-nvvm-pipeline=cubin-chip=sm_80 cubin-features=+ptx80 cubin-format=isa" | FileCheck %s --check-prefix=PTX

// GPU-bound kernels become gpu.funcs in one gpu.module: block/thread loops stride by the GPU
// ids, shared buffers are workgroup attributions, warp_reduce is five xor shuffles and
// block_reduce goes through a 32-slot workgroup buffer. MLIR 22 lowers it to PTX.

// CHECK: module attributes {gpu.container_module} {
// CHECK: gpu.module @dlc_kernels {
// CHECK-LABEL: gpu.func @row_sum(
// CHECK-SAME: %arg0: memref<?x128xf32>, %arg1: memref<?xf32>, %arg2: index) workgroup(%[[SH:.*]] : memref<128xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK: %[[B:.*]] = gpu.block_id x
// CHECK: %[[G:.*]] = gpu.grid_dim x
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %arg2 step %{{.*}} {
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[BD:.*]] = gpu.block_dim x
// CHECK: scf.for %[[TT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.store %{{.*}}, %[[SH]][%[[TT]]] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: gpu.return
// PTX: .target sm_80
// PTX-DAG: bar.sync
// PTX-DAG: shfl.sync.bfly.b32
// PTX-DAG: .shared
loop.kernel @row_sum(%x: !loop.buffer<?x128xf32, global>, %out: !loop.buffer<?xf32, global>, %n: index) attributes {block = [128 : index, 1 : index, 1 : index], grid = ["arg2", 1 : index, 1 : index]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  loop.for block.x %row = %c0 to %n step %c1 {
    %partial = loop.alloc : !loop.buffer<128xf32, shared>
    loop.for thread.x %t = %c0 to %c128 step %c1 {
      %v = loop.load %x[%row, %t] : !loop.buffer<?x128xf32, global>
      loop.store %v, %partial[%t] : !loop.buffer<128xf32, shared>
      loop.barrier
      %w = loop.load %partial[%t] : !loop.buffer<128xf32, shared>
      %s = loop.warp_reduce %w {kind = "add"} : f32
      %is0 = arith.cmpi eq, %t, %c0 : index
      loop.if %is0 {
        loop.store %s, %out[%row] : !loop.buffer<?xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// CHECK-LABEL: gpu.func @block_max(
// CHECK-SAME: %arg0: memref<?xi64>, %arg1: memref<1xi64>) workgroup(%[[SLOTS:.*]] : memref<33xi64, #gpu.address_space<workgroup>>) kernel
// CHECK: %[[TID:.*]] = gpu.thread_id x
// 64-bit values are shuffled as two 32-bit halves.
// CHECK-COUNT-10: gpu.shuffle xor %{{.*}} : i32
// CHECK: arith.maxsi
// CHECK: memref.store %{{.*}}, %[[SLOTS]][%{{.*}}] : memref<33xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// Warp 0 combines the slots and stores the total in slot 32, which every thread reads.
// CHECK: scf.if
// CHECK: memref.load %[[SLOTS]]
// CHECK: memref.store %{{.*}}, %[[SLOTS]][%[[C32:.*]]] : memref<33xi64
// CHECK: gpu.barrier
// CHECK: memref.load %[[SLOTS]][%[[C32]]]
loop.kernel @block_max(%x: !loop.buffer<?xi64, global>, %out: !loop.buffer<1xi64, global>) attributes {block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %c0 = arith.constant 0 : index
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<?xi64, global>
  %m = loop.block_reduce %v {kind = "max"} : i64
  %is0 = arith.cmpi eq, %t, %c0 : index
  loop.if %is0 {
    loop.store %m, %out[%c0] : !loop.buffer<1xi64, global>
    loop.yield
  }
  loop.return
}
