// RUN: dlc-opt %s --pipeline=if-fusion --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=if-fusion --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: if-fusion
// STATS-NEXT: (S) 5 ifs-fused

// Doc example 1: two guards computed by equal `cmpi`s merge; the second compare moves above the
// merged if.

// CHECK-LABEL: loop.kernel @guards(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %cst = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: loop.for serial %arg2 = %c0 to %c16 step %c1 {
// CHECK-NEXT: %0 = arith.cmpi ult, %arg2, %c8 : index
// CHECK-NEXT: %1 = arith.cmpi ult, %arg2, %c8 : index
// CHECK-NEXT: loop.if %0 {
// CHECK-NEXT: loop.store %cst, %arg0[%arg2] : !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.store %cst, %arg1[%arg2] : !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
loop.kernel @guards(%a: !loop.buffer<16xf32, global>, %b: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  loop.for serial %i = %c0 to %c16 step %c1 {
    %p = arith.cmpi ult, %i, %c8 : index
    loop.if %p {
      loop.store %one, %a[%i] : !loop.buffer<16xf32, global>
      loop.yield
    }
    %q = arith.cmpi ult, %i, %c8 : index
    loop.if %q {
      loop.store %one, %b[%i] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Doc counter-example 1: the second condition loads the flag the first body writes, so the
// ifs stay apart.

// CHECK-LABEL: loop.kernel @flag
// CHECK: loop.if %3 {
// CHECK: %4 = loop.load %0[] : !loop.buffer<f32, local>
// CHECK-NEXT: %5 = arith.cmpf ogt, %4, %cst : f32
// CHECK-NEXT: loop.if %5 {
loop.kernel @flag(%x: !loop.buffer<16xf32, global>, %y: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %flag = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %i = %c0 to %c16 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<16xf32, global>
    loop.store %v, %flag[] : !loop.buffer<f32, local>
    %f = loop.load %flag[] : !loop.buffer<f32, local>
    %p = arith.cmpf ogt, %f, %zero : f32
    loop.if %p {
      %n = arith.negf %v : f32
      loop.store %n, %flag[] : !loop.buffer<f32, local>
      loop.yield
    }
    %g = loop.load %flag[] : !loop.buffer<f32, local>
    %q = arith.cmpf ogt, %g, %zero : f32
    loop.if %q {
      loop.store %v, %y[%i] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// A run of three ifs on one value, with else branches (the second has none, the third gives
// the merged if its else ops); the equal guards nested in the merged then region merge too.

// CHECK-LABEL: loop.kernel @run
// CHECK: loop.if %arg1 {
// CHECK-NEXT: loop.store %cst, %arg0[%c0] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.if %arg2 {
// CHECK-NEXT: loop.store %cst, %arg0[%c1] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.store %cst, %arg0[%c2] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: loop.store %cst, %arg0[%c3] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
loop.kernel @run(%y: !loop.buffer<4xf32, global>, %p: i1, %q: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  loop.if %p {
    loop.store %one, %y[%c0] : !loop.buffer<4xf32, global>
    loop.if %q {
      loop.store %one, %y[%c1] : !loop.buffer<4xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.if %p {
    loop.if %q {
      loop.store %one, %y[%c2] : !loop.buffer<4xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.if %p {
    loop.yield
  } else {
    loop.store %one, %y[%c3] : !loop.buffer<4xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// Counter-examples: a store between two equal guards keeps them apart; different conditions
// do not merge; a condition that loads a kernel argument does not merge across a body that
// stores another argument (the two may be one buffer). A symbolic-extent loop bound changes
// nothing.

// CHECK-LABEL: loop.kernel @apart
// CHECK: loop.if %0 {
// CHECK: loop.store
// CHECK: loop.if %0 {
// CHECK: loop.if %1 {
// CHECK: loop.if %3 {
// CHECK: loop.if %5 {
loop.kernel @apart(%x: !loop.buffer<?xi32, global>, %y: !loop.buffer<?xi32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %k = arith.constant 7 : i32
  loop.for serial %i = %c0 to %n step %c1 {
    %p = arith.cmpi ult, %i, %c8 : index
    loop.if %p {
      loop.store %k, %y[%i] : !loop.buffer<?xi32, global>
      loop.yield
    }
    loop.store %k, %x[%i] : !loop.buffer<?xi32, global>
    loop.if %p {
      loop.store %k, %y[%i] : !loop.buffer<?xi32, global>
      loop.yield
    }
    %r = arith.cmpi ugt, %i, %c8 : index
    loop.if %r {
      %a = loop.load %x[%i] : !loop.buffer<?xi32, global>
      %b = arith.cmpi eq, %a, %k : i32
      loop.store %k, %y[%i] : !loop.buffer<?xi32, global>
      loop.yield
    }
    %a = loop.load %x[%i] : !loop.buffer<?xi32, global>
    %b = arith.cmpi eq, %a, %k : i32
    loop.if %b {
      loop.store %k, %y[%c0] : !loop.buffer<?xi32, global>
      loop.yield
    }
    %a2 = loop.load %x[%i] : !loop.buffer<?xi32, global>
    %b2 = arith.cmpi eq, %a2, %k : i32
    loop.if %b2 {
      loop.store %k, %y[%c1] : !loop.buffer<?xi32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Equal loads of a scratch buffer the first body does not write: the second load and compare
// move above the merged if.

// CHECK-LABEL: loop.kernel @loads
// CHECK: %1 = loop.load %0[] : !loop.buffer<i32, local>
// CHECK-NEXT: %2 = arith.cmpi eq, %1, %c7_i32 : i32
// CHECK-NEXT: %3 = loop.load %0[] : !loop.buffer<i32, local>
// CHECK-NEXT: %4 = arith.cmpi eq, %3, %c7_i32 : i32
// CHECK-NEXT: loop.if %2 {
// CHECK-NEXT: loop.store %c7_i32, %arg0[%c0] : !loop.buffer<2xi32, global>
// CHECK-NEXT: loop.store %c7_i32, %arg0[%c1] : !loop.buffer<2xi32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
loop.kernel @loads(%y: !loop.buffer<2xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = arith.constant 7 : i32
  %s = loop.alloc : !loop.buffer<i32, local>
  loop.store %k, %s[] : !loop.buffer<i32, local>
  %a = loop.load %s[] : !loop.buffer<i32, local>
  %b = arith.cmpi eq, %a, %k : i32
  loop.if %b {
    loop.store %k, %y[%c0] : !loop.buffer<2xi32, global>
    loop.yield
  }
  %a2 = loop.load %s[] : !loop.buffer<i32, local>
  %b2 = arith.cmpi eq, %a2, %k : i32
  loop.if %b2 {
    loop.store %k, %y[%c1] : !loop.buffer<2xi32, global>
    loop.yield
  }
  loop.return
}
