// RUN: dlc-opt %s --pipeline=vectorize{cpu=x86-64-v3} --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=vectorize{cpu=x86-64-v3} --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: vectorize
// STATS-DAG: (S) 9 loops-vectorized
// STATS-DAG: (S) 4 remainder-loops

// Doc example 1: a row scale over 21 columns: a vector loop to 16, a 4-lane one from 16 to
// 20, a scalar remainder from 20; the loop-invariant scale is splat with `loop.broadcast`.
// CHECK-LABEL: loop.kernel @scale
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NOT: loop.alloc
// CHECK: loop.for vectorize(8) %[[V:.*]] = %c0 to %[[C16]] step %[[C8]] {
// CHECK: loop.schedule_block "scale" (%[[I:.*]] = %arg3, %[[J:.*]] = %[[V]]) {
// CHECK: %[[A:.*]] = loop.vload %arg0[%[[I]], %[[J]]] : !loop.buffer<?x21xf32, global> -> vector<8xf32>
// CHECK: %[[B:.*]] = loop.load %arg1[%[[I]]] : !loop.buffer<?xf32, global>
// CHECK-NEXT: %[[BV:.*]] = loop.broadcast %[[B]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[BV]] : vector<8xf32>
// CHECK: loop.vstore %[[P]], %arg2[%[[I]], %[[J]]] : vector<8xf32>, !loop.buffer<?x21xf32, global>
// CHECK: loop.for vectorize(4) %{{.*}} = %{{.*}} to %c20 step %c4 {
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: loop.for serial %{{.*}} = %{{.*}} to %c21 step %c1 {
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
loop.kernel @scale(%x: !loop.buffer<?x21xf32, global>, %s: !loop.buffer<?xf32, global>, %y: !loop.buffer<?x21xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c21 = arith.constant 21 : index
  loop.for serial %j = %c0 to %c21 step %c1 {
    loop.schedule_block "scale" (%i0 = %i, %j0 = %j) {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<?x21xf32, global>
      %b = loop.load %s[%i0] : !loop.buffer<?xf32, global>
      %p = arith.mulf %a, %b : f32
      loop.store %p, %y[%i0, %j0] : !loop.buffer<?x21xf32, global>
    }
  }
  loop.return
}

// -----

// Doc example 2: a register between two blocks becomes an 8-lane local buffer; 16 iterations
// need no remainder; the constant becomes a dense splat.
// CHECK-LABEL: loop.kernel @reg
// CHECK: %[[R:.*]] = loop.alloc : !loop.buffer<f32, local>
// CHECK: %[[W:.*]] = loop.alloc : !loop.buffer<8xf32, local>
// CHECK: loop.for vectorize(8)
// CHECK: %[[E:.*]] = math.exp %{{.*}} : vector<8xf32>
// CHECK: loop.vstore %[[E]], %[[W]][%{{.*}}] : vector<8xf32>, !loop.buffer<8xf32, local>
// CHECK: %[[L:.*]] = loop.vload %[[W]][%{{.*}}] : !loop.buffer<8xf32, local> -> vector<8xf32>
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<8xf32>
// CHECK: arith.mulf %[[L]], %[[TWO]] : vector<8xf32>
// CHECK-NOT: loop.for
// CHECK: loop.return
loop.kernel @reg(%x: !loop.buffer<16xf32, global>, %y: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %j = %c0 to %c16 step %c1 {
    loop.schedule_block "exp" (%j0 = %j) {
      %a = loop.load %x[%j0] : !loop.buffer<16xf32, global>
      %e = math.exp %a : f32
      loop.store %e, %r[] : !loop.buffer<f32, local>
    }
    loop.schedule_block "double" (%j0 = %j) {
      %e = loop.load %r[] : !loop.buffer<f32, local>
      %two = arith.constant 2.000000e+00 : f32
      %d = arith.mulf %e, %two : f32
      loop.store %d, %y[%j0] : !loop.buffer<16xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 1: a reduction along the loop that accumulates in a global buffer (another
// kernel, or a launch passing the buffer twice, could see it) is left alone.
// CHECK-LABEL: loop.kernel @row_sum
// CHECK: loop.for serial
// CHECK-NOT: vector
loop.kernel @row_sum(%x: !loop.buffer<?x64xf32, global>, %y: !loop.buffer<?xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "sum" (%i0 = %i, %j0 = %j reduce) init {
      %z = arith.constant 0.000000e+00 : f32
      loop.store %z, %y[%i0] : !loop.buffer<?xf32, global>
    } {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<?x64xf32, global>
      %s = loop.load %y[%i0] : !loop.buffer<?xf32, global>
      %t = arith.addf %s, %a : f32
      loop.store %t, %y[%i0] : !loop.buffer<?xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 2: a transposed store is strided in the loop index: no change.
// CHECK-LABEL: loop.kernel @transpose
// CHECK: loop.for serial
// CHECK-NOT: vector
loop.kernel @transpose(%x: !loop.buffer<?x32xf32, global>, %y: !loop.buffer<32x?xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  loop.for serial %j = %c0 to %c32 step %c1 {
    %a = loop.load %x[%i, %j] : !loop.buffer<?x32xf32, global>
    loop.store %a, %y[%j, %i] : !loop.buffer<32x?xf32, global>
  }
  loop.return
}

// -----

// Symbolic extent: the main loop ends at lb + (max(n - lb, 0) / 8) * 8, computed at run time;
// the index offset `j + 1` is contiguous too.
// CHECK-LABEL: loop.kernel @symbolic
// CHECK: %[[D:.*]] = arith.subi %arg2, %c1 : index
// CHECK: %[[N:.*]] = arith.maxsi %[[D]], %{{.*}} : index
// CHECK: %[[G:.*]] = arith.divsi %[[N]], %{{.*}} : index
// CHECK: %[[L:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.addi %c1, %[[L]] : index
// CHECK: loop.for vectorize(8) %[[V:.*]] = %c1 to %[[END]] step %{{.*}} {
// CHECK: %[[K:.*]] = arith.addi %[[V]], %c1 : index
// CHECK: loop.vload %arg0[%[[K]]] : !loop.buffer<?xf32, global> -> vector<8xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: loop.vstore
// CHECK: loop.for serial %{{.*}} = %[[END]] to %arg2 step %c1 {
loop.kernel @symbolic(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  %c1 = arith.constant 1 : index
  loop.for serial %j = %c1 to %n step %c1 {
    %k = arith.addi %j, %c1 : index
    %a = loop.load %x[%k] : !loop.buffer<?xf32, global>
    %b = arith.addf %a, %a : f32
    loop.store %b, %y[%j] : !loop.buffer<?xf32, global>
  }
  loop.return
}

// -----

// A vectorize(4)-marked loop uses its own width; in-place (same index) is fine.
// CHECK-LABEL: loop.kernel @marked
// CHECK: loop.for vectorize(4) %[[V:.*]] = %c0 to %{{.*}} step %{{.*}} {
// CHECK: %[[A:.*]] = loop.vload %arg0[%[[V]]] : !loop.buffer<8xf32, global> -> vector<4xf32>
// CHECK: %[[N:.*]] = arith.negf %[[A]] : vector<4xf32>
// CHECK: loop.vstore %[[N]], %arg0[%[[V]]] : vector<4xf32>, !loop.buffer<8xf32, global>
// CHECK-NOT: loop.for
loop.kernel @marked(%x: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for vectorize(4) %j = %c0 to %c8 step %c1 {
    %a = loop.load %x[%j] : !loop.buffer<8xf32, global>
    %b = arith.negf %a : f32
    loop.store %b, %x[%j] : !loop.buffer<8xf32, global>
  }
  loop.return
}

// -----

// A shifted in-place update reads what an earlier iteration wrote: no change.
// CHECK-LABEL: loop.kernel @shift
// CHECK: loop.for serial
// CHECK-NOT: vector
loop.kernel @shift(%x: !loop.buffer<64xf32, global>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for serial %j = %c1 to %c64 step %c1 {
    %k = arith.subi %j, %c1 : index
    %a = loop.load %x[%k] : !loop.buffer<64xf32, global>
    loop.store %a, %x[%j] : !loop.buffer<64xf32, global>
  }
  loop.return
}

// -----

// A row sum into a register, then a division by it. The body is small, so the sum keeps 4
// partial vectors of 8 lanes, each starting from the identity (0): the main loop does 4
// vectors per iteration, each into its own slice. The slices are added into the first, whose
// lanes a copy of the block at j = 0 merges in order after running the init. The division
// becomes one reciprocal and a vector multiply.
// CHECK-LABEL: loop.kernel @row_sum_register
// CHECK: %[[LANES:.*]] = loop.alloc : !loop.buffer<32xf32, local>
// CHECK: %[[ID:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-COUNT-4: loop.vstore %[[ID]], %[[LANES]]
// CHECK: loop.for vectorize(8) %[[J:.*]] = %c0 to %{{.*}} step %c32
// CHECK: loop.schedule_block "sum" (%{{.*}} = %arg2, %{{.*}} = %[[J]] reduce) {
// CHECK: %[[X:.*]] = loop.vload %arg0
// CHECK: %[[S:.*]] = loop.vload %[[LANES]]
// CHECK: %[[T:.*]] = arith.addf %[[S]], %[[X]] : vector<8xf32>
// CHECK: loop.vstore %[[T]], %[[LANES]]
// CHECK: %[[J8:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: loop.schedule_block "sum" (%{{.*}} = %arg2, %{{.*}} = %[[J8]] reduce) {
// CHECK-COUNT-2: loop.schedule_block "sum"
// CHECK-NOT: loop.for vectorize
// CHECK-COUNT-3: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: loop.schedule_block "sum" (%{{.*}} = %arg2, %{{.*}} = %c0 reduce) init {
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: } {
// CHECK-COUNT-8: loop.load %[[LANES]]
// CHECK: %[[ACC:.*]] = loop.load %[[REG:.*]][] : !loop.buffer<f32, local>
// CHECK: %[[ALL:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
// CHECK: loop.store %[[ALL]], %[[REG]][]
// CHECK: loop.for vectorize(8)
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: arith.divf %{{.*}} : vector
loop.kernel @row_sum_register(%x: !loop.buffer<?x64xf32, global>, %y: !loop.buffer<?x64xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %acc = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "sum" (%i0 = %i, %j0 = %j reduce) init {
      %z = arith.constant 0.000000e+00 : f32
      loop.store %z, %acc[] : !loop.buffer<f32, local>
    } {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<?x64xf32, global>
      %s = loop.load %acc[] : !loop.buffer<f32, local>
      %t = arith.addf %s, %a : f32
      loop.store %t, %acc[] : !loop.buffer<f32, local>
    }
  }
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "div" (%i0 = %i, %j0 = %j) {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<?x64xf32, global>
      %s = loop.load %acc[] : !loop.buffer<f32, local>
      %q = arith.divf %a, %s : f32
      loop.store %q, %y[%i0, %j0] : !loop.buffer<?x64xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 3: a running sum written out at every step reads the accumulator in
// another block of the loop, so its order matters lane by lane: no change.
// CHECK-LABEL: loop.kernel @running_sum
// CHECK-NOT: vector
loop.kernel @running_sum(%x: !loop.buffer<64xf32, global>, %y: !loop.buffer<64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %acc = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "sum" (%j0 = %j reduce) init {
      %z = arith.constant 0.000000e+00 : f32
      loop.store %z, %acc[] : !loop.buffer<f32, local>
    } {
      %a = loop.load %x[%j0] : !loop.buffer<64xf32, global>
      %s = loop.load %acc[] : !loop.buffer<f32, local>
      %t = arith.addf %s, %a : f32
      loop.store %t, %acc[] : !loop.buffer<f32, local>
    }
    loop.schedule_block "out" (%j0 = %j) {
      %s = loop.load %acc[] : !loop.buffer<f32, local>
      loop.store %s, %y[%j0] : !loop.buffer<64xf32, global>
    }
  }
  loop.return
}

// -----

// Edge case: a row max over 44 columns: the 4-vector loop covers [0, 32), a one-vector loop
// [32, 40) (slice 0), and a scalar remainder [40, 44).
// CHECK-LABEL: loop.kernel @row_max_ragged
// CHECK: loop.alloc : !loop.buffer<32xf32, local>
// CHECK: loop.for vectorize(8) %{{.*}} = %c0 to %[[END4:.*]] step %c32
// CHECK-COUNT-4: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: loop.for vectorize(8) %{{.*}} = %[[END4]] to %[[END:.*]] step %c8
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: loop.for serial %{{.*}} = %[[END]] to %c44 step %c1
loop.kernel @row_max_ragged(%x: !loop.buffer<?x44xf32, global>, %y: !loop.buffer<?xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c44 = arith.constant 44 : index
  %acc = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %j = %c0 to %c44 step %c1 {
    loop.schedule_block "max" (%i0 = %i, %j0 = %j reduce) init {
      %z = arith.constant 0xFF800000 : f32
      loop.store %z, %acc[] : !loop.buffer<f32, local>
    } {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<?x44xf32, global>
      %s = loop.load %acc[] : !loop.buffer<f32, local>
      %t = arith.maximumf %s, %a : f32
      loop.store %t, %acc[] : !loop.buffer<f32, local>
    }
  }
  %m = loop.load %acc[] : !loop.buffer<f32, local>
  loop.store %m, %y[%i] : !loop.buffer<?xf32, global>
  loop.return
}

// -----

// A fused elementwise nest as `lower` emits it: the registers are allocated in the loop body.
// The vector loops (8 lanes to 16, then 4 lanes to 20) drop those allocs and use 8-lane
// buffers allocated before them; the scalar remainder keeps them.
// CHECK-LABEL: loop.kernel @body_registers
// CHECK: loop.alloc : !loop.buffer<8xf32, local>
// CHECK: loop.for vectorize(8)
// CHECK-NOT: loop.alloc
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: loop.for serial
// CHECK: loop.alloc : !loop.buffer<f32, local>
loop.kernel @body_registers(%x: !loop.buffer<?x21xf32, global>, %y: !loop.buffer<?x21xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c21 = arith.constant 21 : index
  loop.for serial %j = %c0 to %c21 step %c1 {
    %r = loop.alloc : !loop.buffer<f32, local>
    loop.schedule_block "square" (%i0 = %i, %j0 = %j) {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<?x21xf32, global>
      %s = arith.mulf %a, %a : f32
      loop.store %s, %r[] : !loop.buffer<f32, local>
    }
    loop.schedule_block "out" (%i0 = %i, %j0 = %j) {
      %s = loop.load %r[] : !loop.buffer<f32, local>
      loop.store %s, %y[%i0, %j0] : !loop.buffer<?x21xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 4: the reduction's iter value is computed in the loop body, so the copy that
// merges the lanes before the loop could not read it: the loop stays scalar (this crashed).
// CHECK-LABEL: loop.kernel @body_iter_value
// CHECK-NOT: vector
loop.kernel @body_iter_value(%x: !loop.buffer<?x64xf32, global>, %y: !loop.buffer<?xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %acc = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %j = %c0 to %c64 step %c1 {
    %j1 = arith.addi %j, %c0 : index
    loop.schedule_block "sum" (%i0 = %i, %j0 = %j1 reduce) init {
      %z = arith.constant 0.000000e+00 : f32
      loop.store %z, %acc[] : !loop.buffer<f32, local>
    } {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<?x64xf32, global>
      %s = loop.load %acc[] : !loop.buffer<f32, local>
      %t = arith.addf %s, %a : f32
      loop.store %t, %acc[] : !loop.buffer<f32, local>
    }
  }
  %r = loop.load %acc[] : !loop.buffer<f32, local>
  loop.store %r, %y[%i] : !loop.buffer<?xf32, global>
  loop.return
}

// -----

// Padded loads along the loop (a depthwise convolution's taps left and right of the point)
// become `loop.vload_padded`s at the same indices with the same padding where a vector's lanes
// may leave the row (the first vector, at column -1, and the 4-lane one from 16, whose right
// tap reaches column 20), and plain `loop.vload`s where they cannot (the vector from 8: columns 7 to 16),
// their row index replaced by 0 and the padding selected when it is outside the buffer.
// CHECK-LABEL: loop.kernel @padded_tap(
// CHECK: loop.for vectorize(8) %{{.*}} = %c0 to %c8 step
// CHECK: loop.vload_padded %arg0[%{{.*}}, %{{.*}}], %cst : !loop.buffer<6x20xf32, global> -> vector<8xf32>
// CHECK: loop.vload_padded %arg0[%{{.*}}, %{{.*}}], %cst : !loop.buffer<6x20xf32, global> -> vector<8xf32>
// CHECK: loop.for vectorize(8) %{{.*}} = %c8{{.*}} to %c16{{.*}} step
// CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %c6{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.select %[[OK]], %{{.*}}, %c0{{.*}} : index
// CHECK: %[[V:.*]] = loop.vload %arg0[%[[ROW]], %{{.*}}] : !loop.buffer<6x20xf32, global> -> vector<8xf32>
// CHECK: arith.select %[[OK]], %[[V]], %{{.*}} : vector<8xf32>
// CHECK: loop.for vectorize(4) %{{.*}} = %c16{{.*}} to %c20{{.*}} step %c4
// CHECK: loop.vload_padded %arg0[%{{.*}}, %{{.*}}], %cst : !loop.buffer<6x20xf32, global> -> vector<4xf32>
// CHECK: loop.vload_padded %arg0[%{{.*}}, %{{.*}}], %cst : !loop.buffer<6x20xf32, global> -> vector<4xf32>
// CHECK-NOT: loop.for serial
loop.kernel @padded_tap(%a: !loop.buffer<6x20xf32, global>, %y: !loop.buffer<6x20xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c20 = arith.constant 20 : index
  %z = arith.constant 0.0 : f32
  loop.for parallel %i = %c0 to %c6 step %c1 {
    loop.for serial %j = %c0 to %c20 step %c1 {
      loop.schedule_block "taps" (%i0 = %i, %j0 = %j) {
        %jl = arith.subi %j0, %c1 : index
        %l = loop.load_padded %a[%i0, %jl], %z : !loop.buffer<6x20xf32, global>
        %jr = arith.addi %j0, %c1 : index
        %r = loop.load_padded %a[%i0, %jr], %z : !loop.buffer<6x20xf32, global>
        %s = arith.addf %l, %r : f32
        loop.store %s, %y[%i0, %j0] : !loop.buffer<6x20xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
