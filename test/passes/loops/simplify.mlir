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

// -----

// Like terms: the IR computes `i*4 - i*2` with three ops and `i*2 + i*3 + 3` with four; their
// canonical forms `2i` and `5i + 3` take one and two, so both are rewritten.
// CHECK-LABEL: loop.kernel @like_terms(
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: loop.for serial %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[D:.*]] = arith.muli %[[I]], %[[C2]] : index
// CHECK-NEXT: %[[V:.*]] = loop.load %{{.*}}[%[[D]]]
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[I]], %[[C5]] : index
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[M]], %[[C3]] : index
// CHECK-NEXT: loop.store %[[V]], %{{.*}}[%[[T]]]
// CHECK-NEXT: loop.yield
loop.kernel @like_terms(%b: !loop.buffer<64xf32, global>, %c: !loop.buffer<64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for serial %i = %c0 to %c8 step %c1 {
    %a4 = arith.muli %i, %c4 : index
    %a2 = arith.muli %i, %c2 : index
    %d = arith.subi %a4, %a2 : index
    %v = loop.load %b[%d] : !loop.buffer<64xf32, global>
    %m2 = arith.muli %i, %c2 : index
    %m3 = arith.muli %i, %c3 : index
    %s = arith.addi %m2, %m3 : index
    %t = arith.addi %s, %c3 : index
    loop.store %v, %c[%t] : !loop.buffer<64xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// Counter-example: an index already as short as its canonical form is left as written
// (`i*3 + j` is two ops either way).
// CHECK-LABEL: loop.kernel @already_short(
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[M]], %{{.*}} : index
// CHECK-NEXT: loop.load %{{.*}}[%[[S]]]
loop.kernel @already_short(%b: !loop.buffer<64xf32, global>, %c: !loop.buffer<64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  loop.for serial %i = %c0 to %c4 step %c1 {
    loop.for serial %j = %c0 to %c3 step %c1 {
      %m = arith.muli %i, %c3 : index
      %s = arith.addi %m, %j : index
      %v = loop.load %b[%s] : !loop.buffer<64xf32, global>
      loop.store %v, %c[%s] : !loop.buffer<64xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// A reduction over one point (what inlining the unit loop of a depthwise convolution's one
// channel per group leaves): the init runs first in the body and every iter var is spatial.
// The second block's reduce var walks a loop: it stays a reduction.
// CHECK-LABEL: loop.kernel @one_point(
// CHECK: loop.schedule_block "dw" (%[[I:.*]] = %{{.*}}, %[[K:.*]] = %c0) {
// CHECK-NEXT: loop.store %cst, %[[ACC:.*]][] : !loop.buffer<f32, local>
// CHECK-NEXT: %[[X:.*]] = loop.load %arg0[%[[I]], %[[K]]]
// CHECK-NEXT: %[[A:.*]] = loop.load %[[ACC]][]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[X]] : f32
// CHECK-NEXT: loop.store %[[S]], %[[ACC]][]
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK: loop.schedule_block "walks" (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}} reduce) init {
loop.kernel @one_point(%x: !loop.buffer<8x1xf32, global>, %y: !loop.buffer<8xf32, global>, %z: !loop.buffer<8x4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %acc = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %i = %c0 to %c8 step %c1 {
    loop.for serial %k = %c0 to %c1 step %c1 {
      loop.schedule_block "dw" (%i0 = %i, %k0 = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %acc[] : !loop.buffer<f32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<8x1xf32, global>
        %a = loop.load %acc[] : !loop.buffer<f32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.yield
    }
    loop.schedule_block "out" (%i0 = %i) {
      %a = loop.load %acc[] : !loop.buffer<f32, local>
      loop.store %a, %y[%i0] : !loop.buffer<8xf32, global>
      loop.yield
    }
    loop.for serial %k = %c0 to %c4 step %c1 {
      loop.schedule_block "walks" (%i0 = %i, %k0 = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %acc[] : !loop.buffer<f32, local>
        loop.yield
      } {
        %v = loop.load %z[%i0, %k0] : !loop.buffer<8x4xf32, global>
        %a = loop.load %acc[] : !loop.buffer<f32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// A block reduction over a GPU thread loop of one thread stays a reduction: GPU loops are never
// inlined, so its reduce var is the thread index, not a constant.
// CHECK-LABEL: loop.kernel @one_thread(
// CHECK: loop.for thread.x %[[T:.*]] = %c0 to %c1 step %c1 {
// CHECK-NEXT: loop.schedule_block "sum" (%{{.*}} = %{{.*}}, %{{.*}} = %[[T]] reduce) attributes {reduce_method = "block"} init {
loop.kernel @one_thread(%x: !loop.buffer<?x1xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  loop.for block.x %i = %c0 to %n step %c1 {
    %acc = loop.alloc : !loop.buffer<f32, local>
    loop.for thread.x %t = %c0 to %c1 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %t0 = %t reduce) attributes {reduce_method = "block"} init {
        %z = arith.constant 0.0 : f32
        loop.store %z, %acc[] : !loop.buffer<f32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %t0] : !loop.buffer<?x1xf32, global>
        %a = loop.load %acc[] : !loop.buffer<f32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.yield
    }
    loop.schedule_block "out" (%i0 = %i) {
      %a = loop.load %acc[] : !loop.buffer<f32, local>
      loop.store %a, %y[%i0] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// A padded load whose indices the loop ranges keep inside its buffer becomes the plain load
// (the centre tap of a depthwise convolution); one that may fall outside stays padded
// (counter-example), and a vector one is plain when every lane is inside (8 lanes from
// `j <= 11` end at 18, inside 20 columns).
// CHECK-LABEL: loop.kernel @unpad(
// CHECK: loop.load %arg0[%[[I:.*]], %[[J:.*]]] : !loop.buffer<6x20xf32, global>
// CHECK: loop.load_padded %arg0[%[[I]], %{{.*}}], %cst : !loop.buffer<6x20xf32, global>
// CHECK: loop.vload %arg0[%{{.*}}, %{{.*}}] : !loop.buffer<6x20xf32, global> -> vector<8xf32>
// CHECK-NOT: loop.vload_padded
loop.kernel @unpad(%a: !loop.buffer<6x20xf32, global>, %y: !loop.buffer<6x20xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c20 = arith.constant 20 : index
  %z = arith.constant 0.0 : f32
  loop.for serial %i = %c0 to %c6 step %c1 {
    loop.for serial %j = %c0 to %c20 step %c1 {
      %x = loop.load_padded %a[%i, %j], %z : !loop.buffer<6x20xf32, global>
      %jm = arith.subi %j, %c1 : index
      %w = loop.load_padded %a[%i, %jm], %z : !loop.buffer<6x20xf32, global>
      %s = arith.addf %x, %w : f32
      loop.store %s, %y[%i, %j] : !loop.buffer<6x20xf32, global>
      loop.yield
    }
    loop.for serial %j = %c0 to %c12 step %c1 {
      %v = loop.vload_padded %a[%i, %j], %z : !loop.buffer<6x20xf32, global> -> vector<8xf32>
      loop.vstore %v, %y[%i, %j] : vector<8xf32>, !loop.buffer<6x20xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
