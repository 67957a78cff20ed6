// RUN: dlc-opt %s --pipeline=local-index-factor-elim --split-input-file | FileCheck %s

// The doc example: indices 2 * %i + 2 become %i, and the buffer shrinks from 10 to 4.
// CHECK-LABEL: loop.kernel @strided
// CHECK: %[[T:.*]] = loop.alloc : !loop.buffer<4xf32, local>
// CHECK: loop.schedule_block "a" (%[[A:.*]] = %{{.*}}) {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[A]]]
// CHECK-NEXT: loop.store %[[V]], %[[T]][%[[A]]] : !loop.buffer<4xf32, local>
// CHECK: loop.schedule_block "b" (%[[B:.*]] = %{{.*}}) {
// CHECK-NEXT: loop.load %[[T]][%[[B]]] : !loop.buffer<4xf32, local>
loop.kernel @strided(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t = loop.alloc : !loop.buffer<10xf32, local>
  loop.for serial %i = %c0 to %c4 step %c1 {
    loop.schedule_block "a" (%i0 = %i) {
      %v = loop.load %x[%i0] : !loop.buffer<4xf32, global>
      %d = arith.muli %i0, %c2 : index
      %p = arith.addi %d, %c2 : index
      loop.store %v, %t[%p] : !loop.buffer<10xf32, local>
    }
    loop.schedule_block "b" (%i0 = %i) {
      %d = arith.muli %i0, %c2 : index
      %p = arith.addi %d, %c2 : index
      %w = loop.load %t[%p] : !loop.buffer<10xf32, local>
      loop.store %w, %y[%i0] : !loop.buffer<4xf32, global>
    }
  }
  loop.return
}

// -----

// CINN's example: local[4*i] and local[2*i] become local[2*i] and local[i] (gcd 2); the
// second dim (indices %i and 2*%i) has gcd 1 and offset 0 and stays.
// CHECK-LABEL: loop.kernel @cinn
// CHECK: %[[T:.*]] = loop.alloc : !loop.buffer<7x8xf32, local>
// CHECK: %[[M:.*]] = arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK: loop.store %{{.*}}, %[[T]][%[[M]], %{{.*}}] : !loop.buffer<7x8xf32, local>
// CHECK: loop.load %[[T]][%arg2, %{{.*}}] : !loop.buffer<7x8xf32, local>
loop.kernel @cinn(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %t = loop.alloc : !loop.buffer<13x8xf32, local>
  loop.for serial %i = %c0 to %c4 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<4xf32, global>
    %i4 = arith.muli %i, %c4 : index
    loop.store %v, %t[%i4, %i] : !loop.buffer<13x8xf32, local>
    %i2 = arith.muli %i, %c2 : index
    %w = loop.load %t[%i2, %i2] : !loop.buffer<13x8xf32, local>
    loop.store %w, %y[%i] : !loop.buffer<4xf32, global>
  }
  loop.return
}

// -----

// Counter-examples: gcd 1 and offset 0 (%u); a global buffer is never touched; an offset
// that the loop range does not allow to subtract (%s: indices %j + 1 with %j from -1 is not
// provably >= 1) stays.
// CHECK-LABEL: loop.kernel @untouched
// CHECK: loop.alloc : !loop.buffer<8xf32, local>
// CHECK: loop.alloc(%arg1) : !loop.buffer<?xf32, local>
// CHECK: loop.store %{{.*}}, %{{.*}}[%{{.*}}] : !loop.buffer<?xf32, local>
loop.kernel @untouched(%x: !loop.buffer<8xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %cm1 = arith.constant -1 : index
  %u = loop.alloc : !loop.buffer<8xf32, local>
  %s = loop.alloc(%n) : !loop.buffer<?xf32, local>
  loop.for serial %i = %c0 to %c4 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<8xf32, global>
    loop.store %v, %u[%i] : !loop.buffer<8xf32, local>
    %i2 = arith.muli %i, %c2 : index
    %w = loop.load %u[%i2] : !loop.buffer<8xf32, local>
    loop.store %w, %x[%i] : !loop.buffer<8xf32, global>
  }
  loop.for serial %j = %cm1 to %c4 step %c1 {
    %j1 = arith.addi %j, %c1 : index
    %v = loop.load %x[%j1] : !loop.buffer<8xf32, global>
    loop.store %v, %s[%j1] : !loop.buffer<?xf32, local>
  }
  loop.return
}
