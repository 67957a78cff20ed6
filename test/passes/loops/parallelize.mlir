// RUN: dlc-opt %s --pipeline=parallelize --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=parallelize --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: parallelize
// STATS-DAG: (S) 2 loops-collapsed
// STATS-DAG: (S) 2 loops-serialized

// Doc example 1: a perfect nest over symbolic extents becomes one parallel loop.
// CHECK-LABEL: loop.kernel @k
// CHECK: %[[T:.*]] = arith.muli %arg1, %arg2 : index
// CHECK: loop.for parallel %[[F:.*]] = %c0 to %[[T]] step %c1 {
// CHECK-NEXT: %[[I:.*]] = arith.divui %[[F]], %arg2 : index
// CHECK-NEXT: %[[J:.*]] = arith.remui %[[F]], %arg2 : index
// CHECK-NEXT: loop.store %cst, %arg0[%[[I]], %[[J]]] : !loop.buffer<?x?xf32, global>
// CHECK-NEXT: loop.yield
loop.kernel @k(%a: !loop.buffer<?x?xf32, global>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for parallel %i = %c0 to %m step %c1 {
    loop.for parallel %j = %c0 to %n step %c1 {
      loop.store %cst, %a[%i, %j] : !loop.buffer<?x?xf32, global>
    }
  }
  loop.return
}

// -----

// Doc example 2: 8 stores are below the grain size of 1024.
// CHECK-LABEL: loop.kernel @small
// CHECK: loop.for serial
loop.kernel @small(%a: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for parallel %i = %c0 to %c8 step %c1 {
    loop.store %cst, %a[%i] : !loop.buffer<8xf32, global>
  }
  loop.return
}

// -----

// Counter-example 1: the outer body holds an alloc besides the inner loop, so the nest is not
// perfect; the outer loop stays parallel (symbolic extent) and the inner one becomes serial.
// CHECK-LABEL: loop.kernel @imperfect
// CHECK: loop.for parallel %{{.*}} = %c0 to %arg1
// CHECK: loop.alloc
// CHECK: loop.for serial %{{.*}} = %c0 to %arg2
loop.kernel @imperfect(%a: !loop.buffer<?x?xf32, global>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for parallel %i = %c0 to %m step %c1 {
    %t = loop.alloc : !loop.buffer<f32, local>
    loop.for parallel %j = %c0 to %n step %c1 {
      loop.store %cst, %a[%i, %j] : !loop.buffer<?x?xf32, global>
    }
  }
  loop.return
}

// -----

// A large static nest (64 x 64 stores) stays parallel.
// CHECK-LABEL: loop.kernel @large
// CHECK: loop.for parallel %{{.*}} = %c0 to %c64
// CHECK: loop.for serial %{{.*}} = %c0 to %c64
loop.kernel @large(%a: !loop.buffer<64x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for parallel %i = %c0 to %c64 step %c1 {
    loop.for serial %j = %c0 to %c64 step %c1 {
      loop.store %cst, %a[%i, %j] : !loop.buffer<64x64xf32, global>
    }
  }
  loop.return
}

// -----

// Edge case: constants beside the inner loop, its bound among them (as `tile` builds a loop
// over blocks of rows inside a batch loop), move before the outer loop and the nest collapses:
// 3 x 2 tasks for the threads, not 3 batches each running its 2 blocks one after the other.
// CHECK-LABEL: loop.kernel @constants_beside
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : index
// CHECK: %[[N:.*]] = arith.muli %[[THREE]], %[[TWO]] : index
// CHECK: loop.for parallel %[[F:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT: arith.divui %[[F]], %[[TWO]]
// CHECK-NEXT: arith.remui %[[F]], %[[TWO]]
// CHECK-NOT: loop.for parallel
// CHECK: loop.return
loop.kernel @constants_beside(%a: !loop.buffer<3x2x1024xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for parallel %b = %c0 to %c3 step %c1 {
    %z = arith.constant 0 : index
    %one = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1024 = arith.constant 1024 : index
    loop.for parallel %i = %z to %c2 step %one {
      loop.for serial %j = %z to %c1024 step %one {
        loop.store %cst, %a[%b, %i, %j] : !loop.buffer<3x2x1024xf32, global>
      }
    }
  }
  loop.return
}
