// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect | dlc-opt | FileCheck %s
// The same kernels, one per file, are the examples of docs/dialects/loop.md:
// RUN: dlc-opt %S/../../docs/examples/loop_broadcast_add.mlir | FileCheck %s --check-prefix=ADD
// RUN: dlc-opt %S/../../docs/examples/loop_row_softmax.mlir | FileCheck %s --check-prefix=SOFTMAX
// RUN: dlc-opt %S/../../docs/examples/loop_gpu_row_sum.mlir | FileCheck %s --check-prefix=ROWSUM

// Three hand-written kernels: a broadcast add, a CPU row softmax with schedule blocks, and a
// GPU row sum with a shared-memory tree reduction. They parse, verify and round-trip; the
// interpreter tests run them.

// ADD: loop.kernel @broadcast_add
// SOFTMAX: loop.kernel @row_softmax
// ROWSUM: loop.kernel @gpu_row_sum

module {
// CHECK-LABEL: loop.kernel @broadcast_add(%arg0: !loop.buffer<?x?xf32, global>, %arg1: !loop.buffer<?xf32, global>, %arg2: !loop.buffer<?x?xf32, global>, %arg3: index, %arg4: index) {
// CHECK: loop.for parallel %[[I:.*]] = %c0 to %arg3 step %c1 {
// CHECK-NEXT: loop.for serial %[[J:.*]] = %c0 to %arg4 step %c1 {
// CHECK-NEXT: loop.schedule_block "out" (%[[I0:.*]] = %[[I]], %[[J0:.*]] = %[[J]]) {
// CHECK: arith.addf
  // A broadcast add: out[i, j] = a[i, j] + b[j] for an [M, N] matrix and an [N] row vector.
  // Rows run in parallel, columns serially; one schedule block per output element.
  loop.kernel @broadcast_add(%a: !loop.buffer<?x?xf32, global>, %b: !loop.buffer<?xf32, global>, %out: !loop.buffer<?x?xf32, global>, %m: index, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    loop.for parallel %i = %c0 to %m step %c1 {
      loop.for serial %j = %c0 to %n step %c1 {
        loop.schedule_block "out" (%i0 = %i, %j0 = %j) {
          %x = loop.load %a[%i0, %j0] : !loop.buffer<?x?xf32, global>
          %y = loop.load %b[%j0] : !loop.buffer<?xf32, global>
          %s = arith.addf %x, %y : f32
          loop.store %s, %out[%i0, %j0] : !loop.buffer<?x?xf32, global>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.return
  }

// CHECK-LABEL: loop.kernel @row_softmax(
// CHECK: loop.alloc : !loop.buffer<1xf32, local>
// CHECK: loop.schedule_block "row_max" ({{.*}} reduce) init {
// CHECK-NEXT: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK: loop.schedule_block "row_sum_exp" ({{.*}} reduce) init {
// CHECK: math.exp
// CHECK: loop.schedule_block "normalize" (
// CHECK: arith.divf
  // A CPU-style row softmax over an [N, 128] f32 buffer: y[i, :] = softmax(x[i, :]).
  // Each row runs three schedule blocks: the row max and the sum of exponentials are
  // reductions (init region: runs once per row, when the reduce iter value is 0, before the
  // body), then a spatial block normalizes. The running max and sum live in per-row local
  // buffers.
  loop.kernel @row_softmax(%x: !loop.buffer<?x128xf32, global>, %y: !loop.buffer<?x128xf32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    loop.for parallel %i = %c0 to %n step %c1 {
      %max = loop.alloc : !loop.buffer<1xf32, local>
      %sum = loop.alloc : !loop.buffer<1xf32, local>
      loop.for serial %k = %c0 to %c128 step %c1 {
        loop.schedule_block "row_max" (%i0 = %i, %k0 = %k reduce) init {
          %ninf = arith.constant 0xFF800000 : f32
          loop.store %ninf, %max[%c0] : !loop.buffer<1xf32, local>
          loop.yield
        } {
          %v = loop.load %x[%i0, %k0] : !loop.buffer<?x128xf32, global>
          %m = loop.load %max[%c0] : !loop.buffer<1xf32, local>
          %r = arith.maximumf %m, %v : f32
          loop.store %r, %max[%c0] : !loop.buffer<1xf32, local>
          loop.yield
        }
        loop.yield
      }
      loop.for serial %k = %c0 to %c128 step %c1 {
        loop.schedule_block "row_sum_exp" (%i1 = %i, %k1 = %k reduce) init {
          %zero = arith.constant 0.000000e+00 : f32
          loop.store %zero, %sum[%c0] : !loop.buffer<1xf32, local>
          loop.yield
        } {
          %v = loop.load %x[%i1, %k1] : !loop.buffer<?x128xf32, global>
          %m = loop.load %max[%c0] : !loop.buffer<1xf32, local>
          %d = arith.subf %v, %m : f32
          %e = math.exp %d : f32
          %s = loop.load %sum[%c0] : !loop.buffer<1xf32, local>
          %t = arith.addf %s, %e : f32
          loop.store %t, %sum[%c0] : !loop.buffer<1xf32, local>
          loop.yield
        }
        loop.yield
      }
      loop.for serial %j = %c0 to %c128 step %c1 {
        loop.schedule_block "normalize" (%i2 = %i, %j2 = %j) {
          %v = loop.load %x[%i2, %j2] : !loop.buffer<?x128xf32, global>
          %m = loop.load %max[%c0] : !loop.buffer<1xf32, local>
          %d = arith.subf %v, %m : f32
          %e = math.exp %d : f32
          %s = loop.load %sum[%c0] : !loop.buffer<1xf32, local>
          %q = arith.divf %e, %s : f32
          loop.store %q, %y[%i2, %j2] : !loop.buffer<?x128xf32, global>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.return
  }

// CHECK-LABEL: loop.kernel @gpu_row_sum(
// CHECK: loop.for block.x
// CHECK-NEXT: loop.alloc : !loop.buffer<128xf32, shared>
// CHECK-NEXT: loop.for thread.x
// CHECK: loop.barrier
// CHECK-NEXT: loop.for serial
// CHECK: loop.if
// CHECK: loop.barrier
// CHECK-NEXT: loop.yield
  // A GPU row sum: out[i] = sum(x[i, :]) for an [N, 128] f32 buffer. One GPU block per row
  // (block.x), 128 threads per block (thread.x). Each thread stages one element in shared
  // memory, then a tree reduction halves the active threads seven times (stride 64, 32, ..., 1),
  // with a barrier after every step; all threads reach every barrier (uniform control flow).
  // Thread 0 writes the result.
  loop.kernel @gpu_row_sum(%x: !loop.buffer<?x128xf32, global>, %out: !loop.buffer<?xf32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    loop.for block.x %row = %c0 to %n step %c1 {
      %partial = loop.alloc : !loop.buffer<128xf32, shared>
      loop.for thread.x %t = %c0 to %c128 step %c1 {
        %v = loop.load %x[%row, %t] : !loop.buffer<?x128xf32, global>
        loop.store %v, %partial[%t] : !loop.buffer<128xf32, shared>
        loop.barrier
        loop.for serial %step = %c0 to %c7 step %c1 {
          %stride = arith.shrui %c64, %step : index
          %active = arith.cmpi ult, %t, %stride : index
          loop.if %active {
            %other = arith.addi %t, %stride : index
            %a = loop.load %partial[%t] : !loop.buffer<128xf32, shared>
            %b = loop.load %partial[%other] : !loop.buffer<128xf32, shared>
            %s = arith.addf %a, %b : f32
            loop.store %s, %partial[%t] : !loop.buffer<128xf32, shared>
            loop.yield
          }
          loop.barrier
          loop.yield
        }
        %first = arith.cmpi eq, %t, %c0 : index
        loop.if %first {
          %r = loop.load %partial[%c0] : !loop.buffer<128xf32, shared>
          loop.store %r, %out[%row] : !loop.buffer<?xf32, global>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
}
