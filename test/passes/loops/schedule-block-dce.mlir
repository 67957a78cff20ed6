// RUN: dlc-opt %s --pipeline=schedule-block-dce --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=schedule-block-dce --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Statistics over the cases below: the chain's two blocks, the symbolic case's two, the
// if-nest's one, and their allocs.
// STATS: schedule-block-dce
// STATS-NEXT: (S) 5 blocks-removed
// STATS-NEXT: (S) 5 allocs-removed

// Doc example 1: a dead register chain ("a" feeds only "b", nothing reads "b") goes whole, with
// its allocs; the loop it leaves empty goes too.

// CHECK-LABEL: loop.kernel @chain(%arg0: !loop.buffer<8xf32, global>, %arg1: !loop.buffer<8xf32, global>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: loop.for serial %arg2 = %c0 to %c8 step %c1 {
// CHECK-NEXT: loop.schedule_block "out" (%arg3 = %arg2) {
// CHECK-NEXT: %0 = loop.load %arg0[%arg3] : !loop.buffer<8xf32, global>
// CHECK-NEXT: loop.store %0, %arg1[%arg3] : !loop.buffer<8xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
loop.kernel @chain(%x: !loop.buffer<8xf32, global>, %y: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = loop.alloc : !loop.buffer<f32, local>
  %b = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %i = %c0 to %c8 step %c1 {
    loop.schedule_block "a" (%i0 = %i) {
      %v = loop.load %x[%i0] : !loop.buffer<8xf32, global>
      loop.store %v, %a[] : !loop.buffer<f32, local>
      loop.yield
    }
    loop.schedule_block "b" (%i0 = %i) {
      %v = loop.load %a[] : !loop.buffer<f32, local>
      %e = math.exp %v : f32
      loop.store %e, %b[] : !loop.buffer<f32, local>
      loop.yield
    }
    loop.yield
  }
  loop.for serial %i = %c0 to %c8 step %c1 {
    loop.schedule_block "out" (%i0 = %i) {
      %v = loop.load %x[%i0] : !loop.buffer<8xf32, global>
      loop.store %v, %y[%i0] : !loop.buffer<8xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Counter-example: nothing is dead. "max" writes a local that "norm" (live: it stores a kernel
// argument) reads; "copy" stores a kernel argument no later block reads (the host may); "stage"
// writes shared memory read after the barrier; "sync" holds a barrier.

// CHECK-LABEL: loop.kernel @live
// CHECK: loop.alloc : !loop.buffer<f32, local>
// CHECK: loop.alloc : !loop.buffer<8xf32, shared>
// CHECK: loop.schedule_block "max"
// CHECK: loop.schedule_block "norm"
// CHECK: loop.schedule_block "copy"
// CHECK: loop.schedule_block "stage"
// CHECK: loop.schedule_block "sync"
// CHECK: loop.schedule_block "use"
loop.kernel @live(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>, %z: !loop.buffer<4x8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for block.x %i = %c0 to %c4 step %c1 {
    %m = loop.alloc : !loop.buffer<f32, local>
    %sh = loop.alloc : !loop.buffer<8xf32, shared>
    loop.for thread.x %j = %c0 to %c8 step %c1 {
      loop.schedule_block "max" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
        loop.store %v, %m[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.schedule_block "norm" (%i0 = %i, %j0 = %j) {
        %v = loop.load %m[] : !loop.buffer<f32, local>
        loop.store %v, %y[%i0, %j0] : !loop.buffer<4x8xf32, global>
        loop.yield
      }
      loop.schedule_block "copy" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
        loop.store %v, %z[%i0, %j0] : !loop.buffer<4x8xf32, global>
        loop.yield
      }
      loop.schedule_block "stage" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
        loop.store %v, %sh[%j0] : !loop.buffer<8xf32, shared>
        loop.yield
      }
      loop.schedule_block "sync" (%i0 = %i) {
        loop.barrier
        loop.yield
      }
      loop.schedule_block "use" (%i0 = %i, %j0 = %j) {
        %v = loop.load %sh[%c0] : !loop.buffer<8xf32, shared>
        loop.store %v, %z[%i0, %j0] : !loop.buffer<4x8xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Symbolic extents: a dead reduction into a local (with its init) over a `?` dim, and the dead
// block reading it, go; the nest they leave empty goes whole. A scratch buffer read outside any
// schedule block stays live.

// CHECK-LABEL: loop.kernel @symbolic
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: loop.for parallel %arg4 = %c0 to %arg2 step %c1 {
// CHECK-NEXT: %0 = loop.alloc : !loop.buffer<f32, local>
// CHECK-NEXT: loop.schedule_block "keep" (%arg5 = %arg4) {
// CHECK: }
// CHECK-NEXT: %1 = loop.load %0[] : !loop.buffer<f32, local>
// CHECK-NEXT: loop.store %1, %arg1[%arg4] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
loop.kernel @symbolic(%x: !loop.buffer<?x?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %i = %c0 to %n step %c1 {
    %s = loop.alloc : !loop.buffer<f32, local>
    %t = loop.alloc : !loop.buffer<f32, local>
    %k = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %j = %c0 to %m step %c1 {
      loop.for serial %u = %c0 to %m step %c1 {
        loop.schedule_block "sum" (%i0 = %i, %j0 = %j reduce) init {
          %z = arith.constant 0.0 : f32
          loop.store %z, %s[] : !loop.buffer<f32, local>
          loop.yield
        } {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<?x?xf32, global>
          %a = loop.load %s[] : !loop.buffer<f32, local>
          %r = arith.addf %a, %v : f32
          loop.store %r, %s[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.schedule_block "twice" (%i0 = %i) {
          %v = loop.load %s[] : !loop.buffer<f32, local>
          %r = arith.addf %v, %v : f32
          loop.store %r, %t[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.schedule_block "keep" (%i0 = %i) {
      %v = loop.load %x[%i0, %c0] : !loop.buffer<?x?xf32, global>
      loop.store %v, %k[] : !loop.buffer<f32, local>
      loop.yield
    }
    %w = loop.load %k[] : !loop.buffer<f32, local>
    loop.store %w, %y[%i] : !loop.buffer<?xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// A loop.if left with empty branches goes, then the loop around it.

// CHECK-LABEL: loop.kernel @guarded
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %0 = arith.cmpi ult, %c1, %c4 : index
// CHECK-NEXT: loop.return
loop.kernel @guarded(%x: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = arith.cmpi ult, %c1, %c4 : index
  %l = loop.alloc : !loop.buffer<4xf32, local>
  loop.for serial %i = %c0 to %c4 step %c1 {
    loop.if %p {
      loop.schedule_block "dead" (%i0 = %i) {
        %v = loop.load %x[%i0] : !loop.buffer<4xf32, global>
        loop.store %v, %l[%i0] : !loop.buffer<4xf32, local>
        loop.yield
      }
      loop.yield
    } else {
      loop.yield
    }
    loop.yield
  }
  loop.return
}
