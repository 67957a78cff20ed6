// RUN: dlc-opt %s --pipeline=invariant-loop-elim --split-input-file | FileCheck %s

// Doc example 1: a broadcast loop whose axis is not used.
// CHECK-LABEL: loop.kernel @bcast(
// CHECK: loop.for parallel %[[I:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[I]]] : !loop.buffer<8xf32, global>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[V]], %cst : f32
// CHECK-NEXT: loop.store %[[M]], %arg1[%[[I]]] : !loop.buffer<8xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
loop.kernel @bcast(%x: !loop.buffer<8xf32, global>, %out: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  loop.for parallel %i = %c0 to %c8 step %c1 {
    loop.for serial %j = %c0 to %c4 step %c1 {
      %v = loop.load %x[%i] : !loop.buffer<8xf32, global>
      %m = arith.mulf %v, %two : f32
      loop.store %m, %out[%i] : !loop.buffer<8xf32, global>
    }
  }
  loop.return
}

// -----

// Doc example 2 (edge case): a symbolic extent keeps a guard.
// CHECK-LABEL: loop.kernel @sym(
// CHECK-NOT: loop.for
// CHECK: %[[C:.*]] = arith.cmpi slt, %c0, %arg2 : index
// CHECK-NEXT: loop.if %[[C]] {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%c0] : !loop.buffer<8xf32, global>
// CHECK-NEXT: loop.store %[[V]], %arg1[%c0] : !loop.buffer<8xf32, global>
loop.kernel @sym(%x: !loop.buffer<8xf32, global>, %out: !loop.buffer<8xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for serial %j = %c0 to %n step %c1 {
    %v = loop.load %x[%c0] : !loop.buffer<8xf32, global>
    loop.store %v, %out[%c0] : !loop.buffer<8xf32, global>
  }
  loop.return
}

// -----

// Counter-example: the body reads what it writes (running it twice adds 2).
// CHECK-LABEL: loop.kernel @rmw(
// CHECK: loop.for serial
loop.kernel @rmw(%out: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  loop.for serial %j = %c0 to %c4 step %c1 {
    %t = loop.load %out[%c0] : !loop.buffer<8xf32, global>
    %s = arith.addf %t, %one : f32
    loop.store %s, %out[%c0] : !loop.buffer<8xf32, global>
  }
  loop.return
}

// -----

// Counter-examples: the variable is used; a reduction schedule block; a GPU-bound loop.
// CHECK-LABEL: loop.kernel @keep(
// CHECK: loop.for serial
// CHECK: loop.for serial
// CHECK: loop.schedule_block
// CHECK: loop.for thread.x
loop.kernel @keep(%x: !loop.buffer<8xf32, global>, %out: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for serial %j = %c0 to %c8 step %c1 {
    %v = loop.load %x[%j] : !loop.buffer<8xf32, global>
    loop.store %v, %out[%j] : !loop.buffer<8xf32, global>
  }
  loop.for serial %k = %c0 to %c8 step %c1 {
    loop.schedule_block "r" (%k0 = %c0 reduce) {
      %v = loop.load %x[%c0] : !loop.buffer<8xf32, global>
      loop.store %v, %out[%c0] : !loop.buffer<8xf32, global>
    }
  }
  loop.for thread.x %t = %c0 to %c8 step %c1 {
    %v = loop.load %x[%c0] : !loop.buffer<8xf32, global>
    loop.store %v, %out[%c1] : !loop.buffer<8xf32, global>
  }
  loop.return
}
