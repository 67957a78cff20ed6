// RUN: dlc-opt %s --pipeline=prefetch --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='prefetch{rows-ahead=2}' --split-input-file | FileCheck %s --check-prefix=AHEAD
// RUN: dlc-opt %s --pipeline=prefetch --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: prefetch
// STATS: (S) 2 prefetches

// Doc example 1: the row is read by a max loop, then by a second loop (in a schedule block,
// its iter vars bound to the loop variables): the second loop prefetches the next row, the
// last row prefetching itself.
// CHECK-LABEL: loop.kernel @two_passes
// CHECK:         loop.for parallel %[[I:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %[[DIST:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.subi %c8, %[[ONE]] : index
// CHECK-NEXT:      %[[ON:.*]] = arith.addi %[[I]], %[[DIST]] : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.minsi %[[ON]], %[[LAST]] : index
// CHECK-NEXT:      loop.alloc
// CHECK-NEXT:      loop.for vectorize(16) %{{.*}} = %c0 to %c64 step %c16 {
// CHECK-NOT:         loop.prefetch
// CHECK:           loop.for vectorize(16) %[[J:.*]] = %c0 to %c64 step %c16 {
// CHECK-NEXT:        loop.prefetch %arg0[%[[NEXT]], %[[J]]] : !loop.buffer<8x64xf32, global>
// CHECK-NEXT:        loop.schedule_block "second"
// AHEAD-LABEL: loop.kernel @two_passes
// AHEAD:         arith.constant 2 : index
loop.kernel @two_passes(%x: !loop.buffer<8x64xf32, global>, %y: !loop.buffer<8x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c8 step %c1 {
    %m = loop.alloc : !loop.buffer<16xf32, local>
    loop.for vectorize(16) %j = %c0 to %c64 step %c16 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<8x64xf32, global> -> vector<16xf32>
      %a = loop.vload %m[%c0] : !loop.buffer<16xf32, local> -> vector<16xf32>
      %b = arith.maximumf %a, %v : vector<16xf32>
      loop.vstore %b, %m[%c0] : vector<16xf32>, !loop.buffer<16xf32, local>
    }
    loop.for vectorize(16) %j = %c0 to %c64 step %c16 {
      loop.schedule_block "second" (%i0 = %i, %j0 = %j) {
        %v = loop.vload %x[%i0, %j0] : !loop.buffer<8x64xf32, global> -> vector<16xf32>
        %a = loop.vload %m[%c0] : !loop.buffer<16xf32, local> -> vector<16xf32>
        %d = arith.subf %v, %a : vector<16xf32>
        loop.vstore %d, %y[%i0, %j0] : vector<16xf32>, !loop.buffer<8x64xf32, global>
      }
    }
  }
  loop.return
}

// -----

// A dynamic row count: the last row is %n - 1; a third reading loop gets no prefetch (only the
// second one does).
// CHECK-LABEL: loop.kernel @dynamic_rows
// CHECK:         %[[LAST:.*]] = arith.subi %arg2, %{{.*}} : index
// CHECK:         loop.prefetch
// CHECK-NOT:     loop.prefetch
// CHECK:         loop.return
loop.kernel @dynamic_rows(%x: !loop.buffer<?x32xf32, global>, %y: !loop.buffer<?x32xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  loop.for parallel %i = %c0 to %n step %c1 {
    loop.for vectorize(8) %j = %c0 to %c32 step %c8 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<?x32xf32, global> -> vector<8xf32>
      loop.vstore %v, %y[%i, %j] : vector<8xf32>, !loop.buffer<?x32xf32, global>
    }
    loop.for vectorize(8) %j = %c0 to %c32 step %c8 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<?x32xf32, global> -> vector<8xf32>
      loop.vstore %v, %y[%i, %j] : vector<8xf32>, !loop.buffer<?x32xf32, global>
    }
    loop.for vectorize(8) %j = %c0 to %c32 step %c8 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<?x32xf32, global> -> vector<8xf32>
      loop.vstore %v, %y[%i, %j] : vector<8xf32>, !loop.buffer<?x32xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example (doc counter-example 1): an elementwise kernel reads each row once.
// CHECK-LABEL: loop.kernel @one_pass
// CHECK-NOT:     loop.prefetch
// CHECK:         loop.return
loop.kernel @one_pass(%x: !loop.buffer<8x64xf32, global>, %y: !loop.buffer<8x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c8 step %c1 {
    loop.for vectorize(16) %j = %c0 to %c64 step %c16 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<8x64xf32, global> -> vector<16xf32>
      loop.vstore %v, %y[%i, %j] : vector<16xf32>, !loop.buffer<8x64xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example: the second loop reads the row transposed (the row variable is not where the
// first loop had it... here the loop variable is not the last index), so it is no row read.
// CHECK-LABEL: loop.kernel @column_walk
// CHECK-NOT:     loop.prefetch
// CHECK:         loop.return
loop.kernel @column_walk(%x: !loop.buffer<16x16xf32, global>, %y: !loop.buffer<16x16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.for vectorize(16) %j = %c0 to %c16 step %c16 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<16x16xf32, global> -> vector<16xf32>
      loop.vstore %v, %y[%i, %j] : vector<16xf32>, !loop.buffer<16x16xf32, global>
    }
    loop.for serial %k = %c0 to %c16 step %c1 {
      %v = loop.vload %x[%k, %c0] : !loop.buffer<16x16xf32, global> -> vector<16xf32>
      loop.vstore %v, %y[%i, %c0] : vector<16xf32>, !loop.buffer<16x16xf32, global>
    }
  }
  loop.return
}
