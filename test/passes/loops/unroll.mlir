// RUN: dlc-opt %s --pipeline=unroll --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=unroll --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: dlc-opt %s --pipeline=unroll{max-extent=16} --split-input-file | FileCheck %s --check-prefix=BIG
// RUN: dlc-opt %s --pipeline=unroll{max-ops=6} --split-input-file | FileCheck %s --check-prefix=OPS

// STATS: unroll
// STATS: (S) 4 loops-unrolled

// Doc example 1: a 2-iteration serial loop is replaced by two copies.
// CHECK-LABEL: loop.kernel @k
// CHECK-NOT: loop.for
// CHECK: %cst = arith.constant
// CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : index
// CHECK: loop.store %cst, %arg0[%[[I0]]] : !loop.buffer<2xf32, global>
// CHECK: %[[I1:.*]] = arith.constant 1 : index
// CHECK: loop.store %cst, %arg0[%[[I1]]] : !loop.buffer<2xf32, global>
// CHECK-NEXT: loop.return
loop.kernel @k(%a: !loop.buffer<2xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for serial %i = %c0 to %c2 step %c1 {
    loop.store %cst, %a[%i] : !loop.buffer<2xf32, global>
  }
  loop.return
}

// -----

// Counter-example 1: a symbolic trip count without an unroll mark stays.
// CHECK-LABEL: loop.kernel @symbolic
// CHECK: loop.for serial %{{.*}} = %c0 to %arg1 step %c1
loop.kernel @symbolic(%a: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for serial %i = %c0 to %n step %c1 {
    loop.store %cst, %a[%i] : !loop.buffer<?xf32, global>
  }
  loop.return
}

// -----

// A marked loop over a symbolic extent: a main loop of step 2 with two copies, and a remainder.
// CHECK-LABEL: loop.kernel @part
// CHECK: %[[END:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK: loop.for serial %[[I:.*]] = %c0 to %[[END]] step %{{.*}} {
// CHECK-NEXT: loop.store %cst, %arg0[%[[I]]]
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[I]], %[[ONE]] : index
// CHECK-NEXT: loop.store %cst, %arg0[%[[J]]]
// CHECK: loop.for serial %[[K:.*]] = %[[END]] to %arg1 step %c1 {
// CHECK-NEXT: loop.store %cst, %arg0[%[[K]]]
loop.kernel @part(%a: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for unroll(2) %i = %c0 to %n step %c1 {
    loop.store %cst, %a[%i] : !loop.buffer<?xf32, global>
  }
  loop.return
}

// -----

// Nested constant loops: the inner 3-iteration loop first, then the outer one (2 x 3 stores).
// A 16-iteration loop stays unless max-extent allows it.
// CHECK-LABEL: loop.kernel @nest
// CHECK-COUNT-6: loop.store
// CHECK: loop.for serial %{{.*}} = %c0 to %c16
// BIG-LABEL: loop.kernel @nest
// BIG-NOT: loop.for
// BIG: loop.return
// With at most 6 ops in all the copies, the inner loop (3 copies of a store and its yield)
// unrolls; the outer one (2 copies of 3 stores, their index constants and a yield) does not.
// OPS-LABEL: loop.kernel @nest
// OPS: loop.for serial %{{.*}} = %c0 to %c2
// OPS-COUNT-3: loop.store
// OPS: loop.for serial %{{.*}} = %c0 to %c16
loop.kernel @nest(%a: !loop.buffer<2x3xf32, global>, %b: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for serial %i = %c0 to %c2 step %c1 {
    loop.for serial %j = %c0 to %c3 step %c1 {
      loop.store %cst, %a[%i, %j] : !loop.buffer<2x3xf32, global>
    }
  }
  loop.for serial %k = %c0 to %c16 step %c1 {
    loop.store %cst, %b[%k] : !loop.buffer<16xf32, global>
  }
  loop.return
}

// -----

// A parallel loop is never unrolled.
// CHECK-LABEL: loop.kernel @par
// CHECK: loop.for parallel
loop.kernel @par(%a: !loop.buffer<2xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 1.000000e+00 : f32
  loop.for parallel %i = %c0 to %c2 step %c1 {
    loop.store %cst, %a[%i] : !loop.buffer<2xf32, global>
  }
  loop.return
}
