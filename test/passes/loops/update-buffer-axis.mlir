// RUN: dlc-opt %s --pipeline=update-buffer-axis --split-input-file | FileCheck %s

// The doc example: both axes of %t are indexed by (%i, %j) everywhere.
// CHECK-LABEL: loop.kernel @stage
// CHECK: loop.alloc : !loop.buffer<1x1xf32, local>
// CHECK: loop.schedule_block "a"
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: loop.store %{{.*}}, %{{.*}}[%[[Z]], %[[Z]]] : !loop.buffer<1x1xf32, local>
// CHECK: loop.schedule_block "b"
// CHECK: %[[Z2:.*]] = arith.constant 0 : index
// CHECK: loop.load %{{.*}}[%[[Z2]], %[[Z2]]] : !loop.buffer<1x1xf32, local>
loop.kernel @stage(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = loop.alloc : !loop.buffer<4x8xf32, local>
  loop.for serial %i = %c0 to %c4 step %c1 {
    loop.for serial %j = %c0 to %c8 step %c1 {
      loop.schedule_block "a" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
        loop.store %v, %t[%i0, %j0] : !loop.buffer<4x8xf32, local>
      }
      loop.schedule_block "b" (%i0 = %i, %j0 = %j) {
        %v = loop.load %t[%i0, %j0] : !loop.buffer<4x8xf32, local>
        loop.store %v, %y[%i0, %j0] : !loop.buffer<4x8xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Written in a loop over %j, read in a loop over %k: the second axis carries information.
// Only the row axis (the outer %i everywhere) goes.
// CHECK-LABEL: loop.kernel @two_nests
// CHECK: loop.alloc : !loop.buffer<1x8xf32, local>
// CHECK: loop.store %{{.*}}, %{{.*}}[%{{.*}}, %arg4] : !loop.buffer<1x8xf32, local>
// CHECK: loop.load %{{.*}}[%{{.*}}, %arg4] : !loop.buffer<1x8xf32, local>
loop.kernel @two_nests(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = loop.alloc : !loop.buffer<4x8xf32, local>
  loop.for serial %i = %c0 to %c4 step %c1 {
    loop.for serial %j = %c0 to %c8 step %c1 {
      loop.schedule_block "a" (%j0 = %j) {
        %v = loop.load %x[%i, %j0] : !loop.buffer<4x8xf32, global>
        loop.store %v, %t[%i, %j0] : !loop.buffer<4x8xf32, local>
      }
    }
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.schedule_block "b" (%k0 = %k) {
        %v = loop.load %t[%i, %k0] : !loop.buffer<4x8xf32, local>
        loop.store %v, %y[%i, %k0] : !loop.buffer<4x8xf32, global>
      }
    }
  }
  loop.return
}

// -----

// A shared buffer indexed by the thread: each thread owns its element, nothing changes.
// A dynamic dim indexed by one serial IV everywhere becomes 1 and loses its size operand.
// CHECK-LABEL: loop.kernel @gpu_and_dynamic
// CHECK: loop.alloc : !loop.buffer<32xf32, shared>
// CHECK: loop.alloc : !loop.buffer<1xf32, local>
loop.kernel @gpu_and_dynamic(%x: !loop.buffer<?x32xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  loop.for block.x %b = %c0 to %n step %c1 {
    %s = loop.alloc : !loop.buffer<32xf32, shared>
    loop.for thread.x %t = %c0 to %c32 step %c1 {
      %l = loop.alloc(%n) : !loop.buffer<?xf32, local>
      loop.for serial %r = %c0 to %n step %c1 {
        %v = loop.load %x[%r, %t] : !loop.buffer<?x32xf32, global>
        loop.store %v, %l[%r] : !loop.buffer<?xf32, local>
        %w = loop.load %l[%r] : !loop.buffer<?xf32, local>
        loop.store %w, %s[%t] : !loop.buffer<32xf32, shared>
      }
      loop.barrier
      %u = loop.load %s[%t] : !loop.buffer<32xf32, shared>
      loop.store %u, %x[%b, %t] : !loop.buffer<?x32xf32, global>
    }
  }
  loop.return
}
