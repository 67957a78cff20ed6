// RUN: dlc-opt %s --pipeline=forward-stores --split-input-file | FileCheck %s

// The doc example: an intermediate passed through a vector register goes, with its buffer.
// CHECK-LABEL: loop.kernel @chain
// CHECK-NOT: loop.alloc
// CHECK: %[[V:.*]] = loop.vload %arg0[%arg2]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[V]] : vector<16xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[E]], %[[V]] : vector<16xf32>
// CHECK-NEXT: loop.vstore %[[S]], %arg1[%arg2]
// CHECK-NEXT: loop.yield
loop.kernel @chain(%x: !loop.buffer<32xf32, global>, %y: !loop.buffer<32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %r = loop.alloc : !loop.buffer<16xf32, local>
  loop.for vectorize(16) %i = %c0 to %c32 step %c16 {
    %v = loop.vload %x[%i] : !loop.buffer<32xf32, global> -> vector<16xf32>
    %e = math.exp %v : vector<16xf32>
    loop.vstore %e, %r[%c0] : vector<16xf32>, !loop.buffer<16xf32, local>
    %w = loop.vload %r[%c0] : !loop.buffer<16xf32, local> -> vector<16xf32>
    %s = arith.addf %w, %v : vector<16xf32>
    loop.vstore %s, %y[%i] : vector<16xf32>, !loop.buffer<32xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// Counter-example 1: the accumulator is zeroed in the init region and updated in the body, two
// blocks, so its load stays and so does the buffer; the load after the nest reads it too.
// CHECK-LABEL: loop.kernel @accumulate
// CHECK: %[[A:.*]] = loop.alloc : !loop.buffer<f32, local>
// CHECK: loop.store %{{.*}}, %[[A]][]
// CHECK: loop.load %[[A]][]
// CHECK: loop.store %{{.*}}, %[[A]][]
// CHECK: %[[T:.*]] = loop.load %[[A]][]
// CHECK: loop.store %[[T]], %arg1[]
loop.kernel @accumulate(%x: !loop.buffer<8xf32, global>, %y: !loop.buffer<f32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %acc = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %k = %c0 to %c8 step %c1 {
    loop.schedule_block "sum" (%k0 = %k reduce) init {
      %z = arith.constant 0.0 : f32
      loop.store %z, %acc[] : !loop.buffer<f32, local>
      loop.yield
    } {
      %v = loop.load %x[%k0] : !loop.buffer<8xf32, global>
      %a = loop.load %acc[] : !loop.buffer<f32, local>
      %s = arith.addf %a, %v : f32
      loop.store %s, %acc[] : !loop.buffer<f32, local>
      loop.yield
    }
    loop.yield
  }
  %t = loop.load %acc[] : !loop.buffer<f32, local>
  loop.store %t, %y[] : !loop.buffer<f32, global>
  loop.return
}

// -----

// Counter-example 2: a store at a dynamic index may overwrite element 0, so the load of
// element 0 after it stays; the stores at constant indices 1 and 2 do not hide element 0's
// first store, so the first load of element 0 gets its value. The scalar load of element 1
// after a two-lane vector store there reads memory (other lanes, other type).
// CHECK-LABEL: loop.kernel @overlap
// CHECK: %[[B:.*]] = loop.alloc : !loop.buffer<4xf32, local>
// CHECK: loop.store %[[P:.*]], %[[B]][%c0]
// CHECK-NEXT: loop.store %[[Q:.*]], %[[B]][%c1]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: loop.store %{{.*}}, %[[B]][%c2]
// CHECK-NEXT: %[[V:.*]] = loop.vload %arg0[%c1]
// CHECK-NEXT: loop.vstore %[[V]], %[[B]][%c1]
// CHECK-NEXT: %[[L:.*]] = loop.load %[[B]][%c1]
// CHECK-NEXT: loop.store %[[L]], %arg1[%c1]
// CHECK-NEXT: loop.store %[[P]], %arg1[%c0]
// CHECK-NEXT: loop.store %[[Q]], %[[B]][%arg2]
// CHECK-NEXT: %[[M:.*]] = loop.load %[[B]][%c0]
// CHECK-NEXT: loop.store %[[M]], %arg1[%c2]
loop.kernel @overlap(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = loop.alloc : !loop.buffer<4xf32, local>
  %p = loop.load %x[%c0] : !loop.buffer<4xf32, global>
  %q = loop.load %x[%c1] : !loop.buffer<4xf32, global>
  loop.store %p, %b[%c0] : !loop.buffer<4xf32, local>
  loop.store %q, %b[%c1] : !loop.buffer<4xf32, local>
  %two = arith.addf %p, %q : f32
  loop.store %two, %b[%c2] : !loop.buffer<4xf32, local>
  // A vector store over elements 1 and 2 hides element 1 but not element 0.
  %v = loop.vload %x[%c1] : !loop.buffer<4xf32, global> -> vector<2xf32>
  loop.vstore %v, %b[%c1] : vector<2xf32>, !loop.buffer<4xf32, local>
  %l1 = loop.load %b[%c1] : !loop.buffer<4xf32, local>
  loop.store %l1, %y[%c1] : !loop.buffer<4xf32, global>
  %l0 = loop.load %b[%c0] : !loop.buffer<4xf32, local>
  loop.store %l0, %y[%c0] : !loop.buffer<4xf32, global>
  loop.store %q, %b[%i] : !loop.buffer<4xf32, local>
  %m = loop.load %b[%c0] : !loop.buffer<4xf32, local>
  loop.store %m, %y[%c2] : !loop.buffer<4xf32, global>
  loop.return
}

// -----

// Edge case: a load of a register whose value was stored inside a nested loop is not
// forwarded (the loop may run no iteration), while a second load of the same register after
// it reuses the first load's value.
// CHECK-LABEL: loop.kernel @nested
// CHECK: %[[R:.*]] = loop.alloc : !loop.buffer<f32, local>
// CHECK: loop.for
// CHECK: loop.store %{{.*}}, %[[R]][]
// CHECK: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[A:.*]] = loop.load %[[R]][]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[A]] : f32
loop.kernel @nested(%x: !loop.buffer<8xf32, global>, %y: !loop.buffer<2xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %k = %c0 to %n step %c1 {
    %v = loop.load %x[%k] : !loop.buffer<8xf32, global>
    loop.store %v, %r[] : !loop.buffer<f32, local>
    loop.yield
  }
  %a = loop.load %r[] : !loop.buffer<f32, local>
  %b = loop.load %r[] : !loop.buffer<f32, local>
  %s = arith.addf %a, %b : f32
  loop.store %s, %y[%c0] : !loop.buffer<2xf32, global>
  loop.return
}

// -----

// Edge case: shared memory is every thread's of the block, so a store to it and a load of it
// stay even side by side.
// CHECK-LABEL: loop.kernel @shared
// CHECK: %[[SH:.*]] = loop.alloc : !loop.buffer<8xf32, shared>
// CHECK: loop.store %{{.*}}, %[[SH]][%{{.*}}]
// CHECK-NEXT: loop.load %[[SH]][%{{.*}}]
loop.kernel @shared(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for block.x %i = %c0 to %c4 step %c1 {
    %sh = loop.alloc : !loop.buffer<8xf32, shared>
    loop.for thread.x %j = %c0 to %c8 step %c1 {
      %v = loop.load %x[%i, %j] : !loop.buffer<4x8xf32, global>
      loop.store %v, %sh[%j] : !loop.buffer<8xf32, shared>
      %w = loop.load %sh[%j] : !loop.buffer<8xf32, shared>
      loop.store %w, %y[%i, %j] : !loop.buffer<4x8xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
