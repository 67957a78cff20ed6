// RUN: dlc-opt %s --pipeline=parallelize --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=parallelize --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: parallelize
// STATS-DAG: (S) 1 loops-collapsed
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
