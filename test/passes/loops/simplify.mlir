// RUN: dlc-opt %s --pipeline=simplify --split-input-file | FileCheck %s

// Doc example 1: index arithmetic and a bound check the loop ranges decide.
// CHECK-LABEL: loop.kernel @k(
// CHECK: loop.for serial %[[I:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: loop.for serial %[[J:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[I]], %c3 : index
// CHECK-NEXT: %[[A:.*]] = arith.addi %[[M]], %[[J]] : index
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[I]]] : !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.store %[[V]], %arg1[%[[A]]] : !loop.buffer<48xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NOT: loop.if
// CHECK-NOT: divsi
loop.kernel @k(%a: !loop.buffer<16xf32, global>, %b: !loop.buffer<48xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  loop.for serial %i = %c0 to %c16 step %c1 {
    loop.for serial %j = %c0 to %c3 step %c1 {
      %0 = arith.muli %i, %c3 : index
      %1 = arith.addi %0, %j : index
      %2 = arith.divsi %1, %c3 : index
      %ok = arith.cmpi slt, %i, %c16 : index
      loop.if %ok {
        %v = loop.load %a[%2] : !loop.buffer<16xf32, global>
        loop.store %v, %b[%1] : !loop.buffer<48xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Doc example 2: a unit loop is inlined and a select becomes a max.
// CHECK-LABEL: loop.kernel @u(
// CHECK-NOT: loop.for
// CHECK: %[[X:.*]] = loop.load %arg0[%c1] : !loop.buffer<4xi32, global>
// CHECK-NEXT: %[[Y:.*]] = loop.load %arg0[%c0] : !loop.buffer<4xi32, global>
// CHECK-NEXT: %[[M:.*]] = arith.maxsi %[[X]], %[[Y]] : i32
// CHECK-NEXT: loop.store %[[M]], %arg0[%c1] : !loop.buffer<4xi32, global>
// CHECK-NEXT: loop.return
loop.kernel @u(%a: !loop.buffer<4xi32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  loop.for serial %i = %c1 to %c2 step %c1 {
    %x = loop.load %a[%i] : !loop.buffer<4xi32, global>
    %y = loop.load %a[%c0] : !loop.buffer<4xi32, global>
    %le = arith.cmpi sle, %x, %y : i32
    %m = arith.select %le, %y, %x : i32
    loop.store %m, %a[%i] : !loop.buffer<4xi32, global>
  }
  loop.return
}

// -----

// Counter-examples: a GPU-bound unit loop stays, a float select stays, and a division whose
// remainder operand has a symbolic extent stays.
// CHECK-LABEL: loop.kernel @keep(
// CHECK: loop.for thread.x
// CHECK: arith.divsi
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK-NOT: arith.minimumf
loop.kernel @keep(%a: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  loop.for thread.x %t = %c0 to %c1 step %c1 {
    loop.for serial %j = %c0 to %n step %c1 {
      %0 = arith.muli %t, %c3 : index
      %1 = arith.addi %0, %j : index
      %2 = arith.divsi %1, %c3 : index
      %x = loop.load %a[%2] : !loop.buffer<?xf32, global>
      %y = loop.load %a[%j] : !loop.buffer<?xf32, global>
      %lt = arith.cmpf olt, %x, %y : f32
      %m = arith.select %lt, %x, %y : f32
      loop.store %m, %a[%j] : !loop.buffer<?xf32, global>
    }
  }
  loop.return
}

// -----

// Edge cases: symbolic extents decide a bound check through the ranges (j < n), a false
// constant condition keeps the else region, and empty loops and ifs disappear.
// CHECK-LABEL: loop.kernel @edge(
// CHECK: loop.for serial %[[J:.*]] = %c0 to %arg1 step %c1 {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[J]]] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.store %[[V]], %arg0[%[[J]]] : !loop.buffer<?xf32, global>
// CHECK-NEXT: %[[W:.*]] = loop.load %arg0[%c0] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.store %[[W]], %arg0[%[[J]]] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
loop.kernel @edge(%a: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  loop.for serial %j = %c0 to %n step %c1 {
    %in = arith.cmpi ult, %j, %n : index
    loop.if %in {
      %v = loop.load %a[%j] : !loop.buffer<?xf32, global>
      loop.store %v, %a[%j] : !loop.buffer<?xf32, global>
    }
    loop.if %false {
      %z = arith.constant 0.0 : f32
      loop.store %z, %a[%j] : !loop.buffer<?xf32, global>
    } else {
      %w = loop.load %a[%c0] : !loop.buffer<?xf32, global>
      loop.store %w, %a[%j] : !loop.buffer<?xf32, global>
    }
    loop.for serial %k = %c0 to %n step %c1 {
      loop.if %in {
      }
    }
  }
  loop.return
}
