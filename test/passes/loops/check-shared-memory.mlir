// RUN: dlc-opt %s --pipeline=check-shared-memory --split-input-file --verify-diagnostics | FileCheck %s
// RUN: dlc-opt %s --pipeline=check-shared-memory --split-input-file --verify-diagnostics --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: check-shared-memory
// STATS-NEXT: (S) 3 allocs-bounded
// STATS-NEXT: (S) 256 shared-bytes

// Doc example 1: a local buffer of min(%n, 8) elements gets the static size 8.
// CHECK-LABEL: loop.kernel @tile
// CHECK: loop.alloc : !loop.buffer<8xf32, local>
loop.kernel @tile(%x: !loop.buffer<?xf32, global>, %n: index) {
  %c8 = arith.constant 8 : index
  %m = arith.minsi %n, %c8 : index
  %t = loop.alloc(%m) : !loop.buffer<?xf32, local>
  loop.return
}

// -----

// A shared tile bounded by a loop: the size is the induction variable plus one, at most 64;
// only the boundable dim becomes static (the second one stays dynamic in local memory).
// CHECK-LABEL: loop.kernel @loop_bound
// CHECK: loop.alloc : !loop.buffer<64xf32, shared>
// CHECK: loop.alloc(%arg1) : !loop.buffer<4x?xf32, local>
// CHECK: loop.alloc(%arg1) : !loop.buffer<16x?xf32, local>
loop.kernel @loop_bound(%x: !loop.buffer<?xf32, global>, %n: index) attributes {block = [64 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : index
  loop.for serial %i = %c0 to %c64 step %c1 {
    %s = arith.addi %i, %c1 : index
    %shm = loop.alloc(%s) : !loop.buffer<?xf32, shared>
    %l = loop.alloc(%n) : !loop.buffer<4x?xf32, local>
    %d = arith.divui %i, %c4 : index
    %e = arith.addi %d, %c1 : index
    %l2 = loop.alloc(%e, %n) : !loop.buffer<?x?xf32, local>
    loop.yield
  }
  loop.return
}

// -----

// Counter-example: a shared buffer sized by a kernel argument has no bound.
loop.kernel @unbounded(%n: index) attributes {block = [64 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  // expected-error @+1 {{shared buffer has no constant size bound}}
  %shm = loop.alloc(%n) : !loop.buffer<?xf32, shared>
  loop.return
}

// -----

// Too much shared memory: 2 x 8192 f32 = 65536 bytes > 49152.
// expected-error @+1 {{kernel uses 65536 bytes of shared memory, more than the limit of 49152}}
loop.kernel @too_big() attributes {block = [64 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %a = loop.alloc : !loop.buffer<8192xf32, shared>
  %b = loop.alloc : !loop.buffer<8192xf32, shared>
  loop.return
}

// -----

// A buffer read through loop.dim keeps its dynamic type: its size is observable.
// CHECK-LABEL: loop.kernel @observed
// CHECK: loop.alloc(%{{.*}}) : !loop.buffer<?xf32, local>
loop.kernel @observed(%x: !loop.buffer<?xindex, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = arith.minsi %n, %c8 : index
  %t = loop.alloc(%m) : !loop.buffer<?xf32, local>
  %d = loop.dim %t, 0 : !loop.buffer<?xf32, local>
  loop.store %d, %x[%c0] : !loop.buffer<?xindex, global>
  loop.return
}
