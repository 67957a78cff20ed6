// RUN: dlc-opt %s --pipeline=gpu-map --split-input-file | FileCheck %s

// Static, divisible: 4 x 64 points are one block of 256 threads; no guard.
// CHECK-LABEL: loop.kernel @scale
// CHECK-SAME: block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]
// CHECK: %[[B:.*]] = loop.block_id x
// CHECK: %[[T:.*]] = loop.thread_id x
// CHECK: %[[BB:.*]] = arith.muli %[[B]], %c256
// CHECK: %[[I:.*]] = arith.addi %[[BB]], %[[T]]
// CHECK: %[[J:.*]] = arith.remsi %[[I]], %c64
// CHECK: %[[R:.*]] = arith.divsi %[[I]], %c64
// CHECK-NOT: loop.if
// CHECK-NOT: loop.for
// CHECK: loop.load %arg0[%[[R]], %[[J]]]
// CHECK: loop.store %{{.*}}, %arg1[%[[R]], %[[J]]]

loop.kernel @scale(%x: !loop.buffer<4x64xf32, global>, %y: !loop.buffer<4x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c4 step %c1 {
    loop.for parallel %j = %c0 to %c64 step %c1 {
      %v = loop.load %x[%i, %j] : !loop.buffer<4x64xf32, global>
      %s = arith.addf %v, %v : f32
      loop.store %s, %y[%i, %j] : !loop.buffer<4x64xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Static, not divisible: 10 points in a block of 256 threads need a bound guard.
// CHECK-LABEL: loop.kernel @copy
// CHECK-SAME: block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]
// CHECK: %[[I:.*]] = arith.addi
// CHECK: %[[G:.*]] = arith.cmpi slt, %[[I]], %c10
// CHECK: loop.if %[[G]] {
// CHECK-NEXT: loop.load %arg0[%[[I]]]
// CHECK-NOT: loop.for

loop.kernel @copy(%x: !loop.buffer<10xf32, global>, %y: !loop.buffer<10xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  loop.for parallel %i = %c0 to %c10 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<10xf32, global>
    loop.store %v, %y[%i] : !loop.buffer<10xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// Symbolic extent: the host computes the grid size and passes it as a new argument.
// CHECK-LABEL: loop.kernel @rows
// CHECK-SAME: %arg2: index, %arg3: index
// CHECK-SAME: grid = ["arg3", 1 : index, 1 : index]
// CHECK: %[[E:.*]] = arith.maxsi %{{.*}}, %arg2
// CHECK: %[[TOTAL:.*]] = arith.muli %[[E]], %{{.*}}
// CHECK: %[[I:.*]] = arith.addi
// CHECK: %[[G:.*]] = arith.cmpi slt, %[[I]], %[[TOTAL]]
// CHECK: loop.if %[[G]]
// CHECK: arith.remsi %[[I]], %c8
// CHECK: arith.divsi %[[I]], %c8
// CHECK-LABEL: func.func @main
// CHECK: %[[N:.*]] = loop.dim %arg0, 0
// CHECK: %[[UP:.*]] = arith.addi %{{.*}}, %c255
// CHECK: %[[D:.*]] = arith.divsi %[[UP]], %c256
// CHECK: %[[GS:.*]] = arith.maxsi %c1, %[[D]]
// CHECK: loop.launch @rows(%arg0, %{{.*}}, %[[N]], %[[GS]])

loop.kernel @rows(%x: !loop.buffer<?x8xf32, global>, %y: !loop.buffer<?x8xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for parallel %i = %c0 to %n step %c1 {
    loop.for parallel %j = %c0 to %c8 step %c1 {
      %v = loop.load %x[%i, %j] : !loop.buffer<?x8xf32, global>
      loop.store %v, %y[%i, %j] : !loop.buffer<?x8xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @main(%x: !loop.buffer<?x8xf32, global>) -> !loop.buffer<?x8xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?x8xf32, global>
  %y = loop.alloc(%n) : !loop.buffer<?x8xf32, global>
  loop.launch @rows(%x, %y, %n) : (!loop.buffer<?x8xf32, global>, !loop.buffer<?x8xf32, global>, index) -> ()
  return %y : !loop.buffer<?x8xf32, global>
}

// -----

// A reduce nest stays a serial loop run by the thread of its point.
// CHECK-LABEL: loop.kernel @row_sum
// CHECK-SAME: grid = [1 : index, 1 : index, 1 : index]
// CHECK: %[[I:.*]] = arith.addi
// CHECK: loop.if
// CHECK: loop.alloc : !loop.buffer<f32, local>
// CHECK: loop.for serial
// CHECK: loop.schedule_block "sum" (%{{.*}} = %[[I]], %{{.*}} = %{{.*}} reduce) init
// CHECK: loop.store %{{.*}}, %arg1[%[[I]]]

loop.kernel @row_sum(%x: !loop.buffer<32x16xf32, global>, %y: !loop.buffer<32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  loop.for parallel %i = %c0 to %c32 step %c1 {
    %acc = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %k = %c0 to %c16 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %acc[] : !loop.buffer<f32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<32x16xf32, global>
        %a = loop.load %acc[] : !loop.buffer<f32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.yield
    }
    %r = loop.load %acc[] : !loop.buffer<f32, local>
    loop.store %r, %y[%i] : !loop.buffer<32xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// Counter-examples: an already GPU-bound kernel, and one with only serial loops.
// CHECK-LABEL: loop.kernel @bound
// CHECK-NOT: grid
// CHECK: loop.for thread.x
// CHECK-LABEL: loop.kernel @serial
// CHECK-NOT: grid
// CHECK: loop.for serial

loop.kernel @bound(%x: !loop.buffer<128xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  loop.for thread.x %t = %c0 to %c128 step %c1 {
    %v = loop.load %x[%t] : !loop.buffer<128xf32, global>
    loop.store %v, %x[%t] : !loop.buffer<128xf32, global>
    loop.yield
  }
  loop.return
}
loop.kernel @serial(%x: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for serial %i = %c1 to %c8 step %c1 {
    %p = arith.subi %i, %c1 : index
    %a = loop.load %x[%p] : !loop.buffer<8xf32, global>
    %b = loop.load %x[%i] : !loop.buffer<8xf32, global>
    %s = arith.addf %a, %b : f32
    loop.store %s, %x[%i] : !loop.buffer<8xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// Rank-0 work: no loop at all runs in one thread of one block.
// CHECK-LABEL: loop.kernel @scalar
// CHECK-SAME: block = [1 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]
// CHECK-NOT: loop.if

loop.kernel @scalar(%x: !loop.buffer<f32, global>) {
  %v = loop.load %x[] : !loop.buffer<f32, global>
  %s = arith.mulf %v, %v : f32
  loop.store %s, %x[] : !loop.buffer<f32, global>
  loop.return
}

// -----

// A local buffer indexed by a mapped loop index holds one element per point: its axis becomes 0
// and its dim 1 (update-buffer-axis's rule, which for local buffers takes thread-indexed axes).
// CHECK-LABEL: loop.kernel @stage
// CHECK: loop.if
// CHECK: %[[L:.*]] = loop.alloc : !loop.buffer<1xf32, local>
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: loop.store %{{.*}}, %[[L]][%[[Z]]] : !loop.buffer<1xf32, local>
// CHECK: %[[Z2:.*]] = arith.constant 0 : index
// CHECK-NEXT: loop.load %[[L]][%[[Z2]]] : !loop.buffer<1xf32, local>

loop.kernel @stage(%x: !loop.buffer<64xf32, global>, %y: !loop.buffer<64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c64 step %c1 {
    %tmp = loop.alloc : !loop.buffer<64xf32, local>
    %v = loop.load %x[%i] : !loop.buffer<64xf32, global>
    loop.store %v, %tmp[%i] : !loop.buffer<64xf32, local>
    %w = loop.load %tmp[%i] : !loop.buffer<64xf32, local>
    loop.store %w, %y[%i] : !loop.buffer<64xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// The same through schedule blocks: the accesses use iter vars bound to the mapped index, read
// as the values bound to them, so the 64-element local array is still one element per thread.
// CHECK-LABEL: loop.kernel @stage_blocks
// CHECK: %[[L:.*]] = loop.alloc : !loop.buffer<1xf32, local>
// CHECK: loop.schedule_block "a"
// CHECK: loop.store %{{.*}}, %[[L]][%{{.*}}] : !loop.buffer<1xf32, local>
// CHECK: loop.schedule_block "b"
// CHECK: loop.load %[[L]][%{{.*}}] : !loop.buffer<1xf32, local>
// CHECK-NOT: !loop.buffer<64xf32, local>

loop.kernel @stage_blocks(%x: !loop.buffer<64xf32, global>, %y: !loop.buffer<64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c64 step %c1 {
    %tmp = loop.alloc : !loop.buffer<64xf32, local>
    loop.schedule_block "a" (%i0 = %i) {
      %v = loop.load %x[%i0] : !loop.buffer<64xf32, global>
      loop.store %v, %tmp[%i0] : !loop.buffer<64xf32, local>
    }
    loop.schedule_block "b" (%i0 = %i) {
      %w = loop.load %tmp[%i0] : !loop.buffer<64xf32, local>
      loop.store %w, %y[%i0] : !loop.buffer<64xf32, global>
    }
    loop.yield
  }
  loop.return
}
