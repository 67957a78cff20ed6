// RUN: dlc-opt %s --pipeline=remove-schedule-block --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=remove-schedule-block --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: remove-schedule-block
// STATS-NEXT: (S) 8 blocks-removed

// Doc example 1: the init of a reduction becomes a loop.if on `k == 0` before the body ops, and
// the iter vars become the loop variables.

// CHECK-LABEL: loop.kernel @row_sum(%arg0: !loop.buffer<4x8xf32, global>, %arg1: !loop.buffer<4xf32, global>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: loop.for serial %arg2 = %c0 to %c4 step %c1 {
// CHECK-NEXT: loop.for serial %arg3 = %c0 to %c8 step %c1 {
// CHECK-NEXT: %0 = arith.cmpi eq, %arg3, %c0 : index
// CHECK-NEXT: loop.if %0 {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: loop.store %cst, %arg1[%arg2] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: %1 = loop.load %arg0[%arg2, %arg3] : !loop.buffer<4x8xf32, global>
// CHECK-NEXT: %2 = loop.load %arg1[%arg2] : !loop.buffer<4xf32, global>
// CHECK-NEXT: %3 = arith.addf %2, %1 : f32
// CHECK-NEXT: loop.store %3, %arg1[%arg2] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
loop.kernel @row_sum(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for serial %i = %c0 to %c4 step %c1 {
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init {
        %z = arith.constant 0.0 : f32
        loop.store %z, %y[%i0] : !loop.buffer<4xf32, global>
        loop.yield
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
        %a = loop.load %y[%i0] : !loop.buffer<4xf32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %y[%i0] : !loop.buffer<4xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Doc example 2: a spatial block becomes its body, indexed by the loop variables directly.

// CHECK-LABEL: loop.kernel @copy
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
// CHECK-NEXT: %0 = loop.load %arg0[%arg3] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.store %0, %arg1[%arg3] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
loop.kernel @copy(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %i = %c0 to %n step %c1 {
    loop.schedule_block "out" (%i0 = %i) {
      %v = loop.load %x[%i0] : !loop.buffer<?xf32, global>
      loop.store %v, %y[%i0] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Two reduce iter vars over symbolic extents: the guard is the conjunction of both tests. The
// kernel has no `arith.constant 0 : index` in its entry block yet, so one is made at its start.

// CHECK-LABEL: loop.kernel @total
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %0 = arith.subi %c1, %c1 : index
// CHECK-NEXT: loop.for serial %arg4 = %0 to %arg2 step %c1 {
// CHECK-NEXT: loop.for serial %arg5 = %0 to %arg3 step %c1 {
// CHECK-NEXT: %1 = arith.cmpi eq, %arg4, %c0 : index
// CHECK-NEXT: %2 = arith.cmpi eq, %arg5, %c0 : index
// CHECK-NEXT: %3 = arith.andi %1, %2 : i1
// CHECK-NEXT: loop.if %3 {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: loop.store %cst, %arg1[] : !loop.buffer<f32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: %4 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<?x?xf32, global>
loop.kernel @total(%x: !loop.buffer<?x?xf32, global>, %y: !loop.buffer<f32, global>, %n: index, %m: index) {
  %c1 = arith.constant 1 : index
  %zero = arith.subi %c1, %c1 : index
  loop.for serial %i = %zero to %n step %c1 {
    loop.for serial %j = %zero to %m step %c1 {
      loop.schedule_block "total" (%i0 = %i reduce, %j0 = %j reduce) init {
        %z = arith.constant 0.0 : f32
        loop.store %z, %y[] : !loop.buffer<f32, global>
        loop.yield
      } {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<?x?xf32, global>
        %a = loop.load %y[] : !loop.buffer<f32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %y[] : !loop.buffer<f32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Constant reduce iter values: `0` needs no test (the init ops are spliced unguarded), a
// non-zero constant means the init never runs (it is dropped). Nested blocks go too.

// CHECK-LABEL: loop.kernel @constants
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: loop.store %cst, %arg0[%c0] : !loop.buffer<2xf32, global>
// CHECK-NEXT: %0 = loop.load %arg0[%c0] : !loop.buffer<2xf32, global>
// CHECK-NEXT: loop.store %0, %arg0[%c1] : !loop.buffer<2xf32, global>
// CHECK-NEXT: %1 = loop.load %arg0[%c1] : !loop.buffer<2xf32, global>
// CHECK-NEXT: loop.store %1, %arg0[%c0] : !loop.buffer<2xf32, global>
// CHECK-NEXT: loop.return
loop.kernel @constants(%y: !loop.buffer<2xf32, global>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  loop.schedule_block "first" (%k = %c0 reduce) init {
    %z = arith.constant 0.0 : f32
    loop.store %z, %y[%k] : !loop.buffer<2xf32, global>
    loop.yield
  } {
    %v = loop.load %y[%k] : !loop.buffer<2xf32, global>
    loop.store %v, %y[%c1] : !loop.buffer<2xf32, global>
    loop.yield
  }
  loop.schedule_block "later" (%k = %c1 reduce) init {
    %z = arith.constant 1.0 : f32
    loop.store %z, %y[%k] : !loop.buffer<2xf32, global>
    loop.yield
  } {
    loop.schedule_block "inner" (%k1 = %k) {
      %v = loop.load %y[%k1] : !loop.buffer<2xf32, global>
      loop.store %v, %y[%c0] : !loop.buffer<2xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// A GPU kernel with a block reduction: the reduce_method goes with the block. The entry
// block's zero constant is moved to its start, where it dominates every guard.

// CHECK-LABEL: loop.kernel @gpu_sum
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NOT: loop.schedule_block
// CHECK: loop.for thread.x %arg4 = %c0 to %c32 step %c1 {
// CHECK-NEXT: %1 = arith.cmpi eq, %arg4, %c0 : index
// CHECK-NEXT: loop.if %1 {
// CHECK-NOT: loop.schedule_block
loop.kernel @gpu_sum(%x: !loop.buffer<?x32xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  loop.for block.x %i = %c0 to %n step %c1 {
    %acc = loop.alloc : !loop.buffer<f32, local>
    loop.for thread.x %t = %c0 to %c32 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %t0 = %t reduce) attributes {reduce_method = "block"} init {
        %z = arith.constant 0.0 : f32
        loop.store %z, %acc[] : !loop.buffer<f32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %t0] : !loop.buffer<?x32xf32, global>
        %a = loop.load %acc[] : !loop.buffer<f32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.schedule_block "write" (%i0 = %i) {
        %a = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %a, %y[%i0] : !loop.buffer<?xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
