// RUN: dlc-opt %s --pipeline=common-read-elim --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='common-read-elim{max-local-elements=4}' --split-input-file | FileCheck %s --check-prefix=SMALL

// The doc example: two reductions read x[%i, %k] in one loop body. With the default limit
// the row (8 elements) is cached in front of the nest; with a limit of 4 a register is
// filled in the body of %k instead.
// CHECK-LABEL: loop.kernel @two_sums
// CHECK: loop.for parallel %[[I:.*]] = %c0
// CHECK: %[[C:.*]] = loop.alloc : !loop.buffer<8xf32, local>
// CHECK: loop.for serial %[[F:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: loop.schedule_block "arg0_local" (%[[FK:.*]] = %[[F]], %[[FI:.*]] = %[[I]]) {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[FI]], %[[FK]]] : !loop.buffer<4x8xf32, global>
// CHECK-NEXT: loop.store %[[V]], %[[C]][%[[FK]]] : !loop.buffer<8xf32, local>
// CHECK: loop.schedule_block "sum" (%{{.*}} = %[[I]], %[[K:.*]] = %{{.*}} reduce) {
// CHECK-NEXT: loop.load %[[C]][%[[K]]] : !loop.buffer<8xf32, local>
// CHECK: loop.schedule_block "max" (%{{.*}} = %[[I]], %[[K2:.*]] = %{{.*}} reduce) {
// CHECK-NEXT: loop.load %[[C]][%[[K2]]] : !loop.buffer<8xf32, local>
// SMALL-LABEL: loop.kernel @two_sums
// SMALL: loop.for serial %[[K:.*]] = %c0 to %c8 step %c1 {
// SMALL-NEXT: %[[R:.*]] = loop.alloc : !loop.buffer<f32, local>
// SMALL-NEXT: loop.schedule_block "arg0_local" (%[[A:.*]] = %arg2, %[[B:.*]] = %[[K]]) {
// SMALL-NEXT: loop.load %arg0[%[[A]], %[[B]]] : !loop.buffer<4x8xf32, global>
// SMALL: loop.schedule_block "sum"
// SMALL-NEXT: loop.load %[[R]][] : !loop.buffer<f32, local>
// SMALL: loop.schedule_block "max"
// SMALL-NEXT: loop.load %[[R]][] : !loop.buffer<f32, local>
loop.kernel @two_sums(%x: !loop.buffer<4x8xf32, global>, %o: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for parallel %i = %c0 to %c4 step %c1 {
    %s = loop.alloc : !loop.buffer<f32, local>
    %m = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
        %a = loop.load %s[] : !loop.buffer<f32, local>
        %r = arith.addf %a, %v : f32
        loop.store %r, %s[] : !loop.buffer<f32, local>
      }
      loop.schedule_block "max" (%i0 = %i, %k0 = %k reduce) {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
        %a = loop.load %m[] : !loop.buffer<f32, local>
        %r = arith.maximumf %a, %v : f32
        loop.store %r, %m[] : !loop.buffer<f32, local>
      }
    }
  }
  loop.return
}

// -----

// The same row read in two nests over %k and %j (same extent): one cache in the body of %i,
// read at each nest's own index. The nests are identified by extent, not by name. (Were
// "b" to store to a global f32 buffer, the reads would stay: it may be %x.)
// CHECK-LABEL: loop.kernel @two_nests
// CHECK: %[[C:.*]] = loop.alloc : !loop.buffer<8xf32, local>
// CHECK: loop.schedule_block "arg0_local"
// CHECK: loop.schedule_block "a" (%[[A:.*]] = %{{.*}}) {
// CHECK-NEXT: loop.load %[[C]][%[[A]]] : !loop.buffer<8xf32, local>
// CHECK: loop.schedule_block "b" (%[[B:.*]] = %{{.*}}) {
// CHECK-NEXT: loop.load %[[C]][%[[B]]] : !loop.buffer<8xf32, local>
// CHECK-NOT: loop.load %arg0
loop.kernel @two_nests(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for serial %i = %c0 to %c4 step %c1 {
    %t = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.schedule_block "a" (%k0 = %k) {
        %v = loop.load %x[%i, %k0] : !loop.buffer<4x8xf32, global>
        loop.store %v, %t[] : !loop.buffer<f32, local>
      }
    }
    loop.for serial %j = %c0 to %c8 step %c1 {
      loop.schedule_block "b" (%j0 = %j) {
        %v = loop.load %x[%i, %j0] : !loop.buffer<4x8xf32, global>
        %w = loop.load %t[] : !loop.buffer<f32, local>
        %s = arith.addf %v, %w : f32
        loop.store %s, %t[] : !loop.buffer<f32, local>
      }
    }
  }
  loop.return
}

// -----

// Counter-examples: %x is stored in the kernel; %z's reads are separated by a store to a
// global f32 buffer (it may be %z); %w is read at different indices.
// CHECK-LABEL: loop.kernel @no_cache
// CHECK-NOT: _local
// CHECK: loop.return
loop.kernel @no_cache(%x: !loop.buffer<8xf32, global>, %z: !loop.buffer<8xf32, global>, %w: !loop.buffer<9xf32, global>, %o: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for serial %k = %c0 to %c8 step %c1 {
    loop.schedule_block "a" (%k0 = %k) {
      %v = loop.load %x[%k0] : !loop.buffer<8xf32, global>
      %u = loop.load %z[%k0] : !loop.buffer<8xf32, global>
      %k1 = arith.addi %k0, %c1 : index
      %p = loop.load %w[%k1] : !loop.buffer<9xf32, global>
      %s = arith.addf %v, %u : f32
      %q = arith.addf %s, %p : f32
      loop.store %q, %o[%k0] : !loop.buffer<8xf32, global>
    }
    loop.schedule_block "b" (%k0 = %k) {
      %v = loop.load %x[%k0] : !loop.buffer<8xf32, global>
      %u = loop.load %z[%k0] : !loop.buffer<8xf32, global>
      %p = loop.load %w[%k0] : !loop.buffer<9xf32, global>
      %s = arith.addf %v, %u : f32
      %q = arith.addf %s, %p : f32
      loop.store %q, %x[%k0] : !loop.buffer<8xf32, global>
    }
  }
  loop.return
}

// -----

// A read that uses two inner loops gets a 2-D cache filled by a nest of two loops.
// CHECK-LABEL: loop.kernel @two_dims
// CHECK: %[[C:.*]] = loop.alloc : !loop.buffer<2x3xf32, local>
// CHECK: loop.for serial %[[F0:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: loop.for serial %[[F1:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: loop.schedule_block "arg0_local" (%[[A:.*]] = %[[F0]], %[[B:.*]] = %[[F1]]) {
// CHECK: loop.store %{{.*}}, %[[C]][%[[A]], %[[B]]] : !loop.buffer<2x3xf32, local>
loop.kernel @two_dims(%x: !loop.buffer<2x3xf32, global>, %y: !loop.buffer<2x3xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %t = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %i = %c0 to %c2 step %c1 {
    loop.for serial %j = %c0 to %c3 step %c1 {
      loop.schedule_block "a" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<2x3xf32, global>
        loop.store %v, %t[] : !loop.buffer<f32, local>
      }
    }
  }
  loop.for serial %i = %c0 to %c2 step %c1 {
    loop.for serial %j = %c0 to %c3 step %c1 {
      loop.schedule_block "b" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<2x3xf32, global>
        %w = loop.load %t[] : !loop.buffer<f32, local>
        %s = arith.addf %v, %w : f32
        loop.store %s, %t[] : !loop.buffer<f32, local>
      }
    }
  }
  loop.return
}

// -----

// Edge case: a symbolic loop (it is the scope, not an inner loop of the read) and a branch of
// a loop.if as the scope, as gpu-map leaves a thread's work: the register is filled inside
// the branch, so the read still only happens when the condition holds. An inner loop with a
// symbolic extent is not looked through: the reads of %y inside it stay.
// CHECK-LABEL: loop.kernel @guarded
// CHECK: loop.if
// CHECK-NEXT: %[[R:.*]] = loop.alloc : !loop.buffer<f32, local>
// CHECK-NEXT: loop.schedule_block "arg0_local"
// CHECK: loop.schedule_block "a"
// CHECK-NEXT: loop.load %[[R]][]
// CHECK: loop.schedule_block "b"
// CHECK-NEXT: loop.load %[[R]][]
// CHECK: loop.schedule_block "c"
// CHECK-NEXT: loop.load %arg1
// CHECK: loop.schedule_block "d"
// CHECK-NEXT: loop.load %arg1
loop.kernel @guarded(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %i = %c0 to %n step %c1 {
    %p = arith.cmpi ult, %i, %c4 : index
    loop.if %p {
      loop.schedule_block "a" (%i0 = %i) {
        %v = loop.load %x[%i0] : !loop.buffer<?xf32, global>
        loop.store %v, %t[] : !loop.buffer<f32, local>
      }
      loop.schedule_block "b" (%i0 = %i) {
        %v = loop.load %x[%i0] : !loop.buffer<?xf32, global>
        %w = loop.load %t[] : !loop.buffer<f32, local>
        %s = arith.addf %v, %w : f32
        loop.store %s, %t[] : !loop.buffer<f32, local>
      }
      loop.for serial %k = %c0 to %m step %c1 {
        loop.schedule_block "c" (%k0 = %k) {
          %v = loop.load %y[%k0] : !loop.buffer<?xf32, global>
          loop.store %v, %t[] : !loop.buffer<f32, local>
        }
      }
      loop.for serial %k = %c0 to %m step %c1 {
        loop.schedule_block "d" (%k0 = %k) {
          %v = loop.load %y[%k0] : !loop.buffer<?xf32, global>
          loop.store %v, %t[] : !loop.buffer<f32, local>
        }
      }
    }
  }
  loop.return
}

// -----

// A fused kernel with two outputs reads the row x[%i, :] in two nests, storing %o1 between
// them. The arguments are loop.noalias (as lower makes them), so the store is not to %x: the
// row is read once, into a local buffer, in the body of %i.
// CHECK-LABEL: loop.kernel @two_outputs
// CHECK: %[[C:.*]] = loop.alloc : !loop.buffer<8xf32, local>
// CHECK: loop.schedule_block "arg0_local"
// CHECK: loop.schedule_block "exp" (%{{.*}} = %{{.*}}, %[[A:.*]] = %{{.*}}) {
// CHECK-NEXT: loop.load %[[C]][%[[A]]] : !loop.buffer<8xf32, local>
// CHECK: loop.schedule_block "neg" (%{{.*}} = %{{.*}}, %[[B:.*]] = %{{.*}}) {
// CHECK-NEXT: loop.load %[[C]][%[[B]]] : !loop.buffer<8xf32, local>
loop.kernel @two_outputs(%x: !loop.buffer<4x8xf32, global> {loop.noalias}, %o1: !loop.buffer<4x8xf32, global> {loop.noalias}, %o2: !loop.buffer<4x8xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for parallel %i = %c0 to %c4 step %c1 {
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.schedule_block "exp" (%i0 = %i, %k0 = %k) {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
        %e = math.exp %v : f32
        loop.store %e, %o1[%i0, %k0] : !loop.buffer<4x8xf32, global>
      }
    }
    loop.for serial %j = %c0 to %c8 step %c1 {
      loop.schedule_block "neg" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
        %n = arith.negf %v : f32
        loop.store %n, %o2[%i0, %j0] : !loop.buffer<4x8xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Counter-example: the same kernel without loop.noalias. A launch may pass one buffer for %x
// and %o1, so the second read may see the first nest's stores: nothing is cached.
// CHECK-LABEL: loop.kernel @two_outputs_may_alias
// CHECK-NOT: arg0_local
// CHECK: loop.return
loop.kernel @two_outputs_may_alias(%x: !loop.buffer<4x8xf32, global>, %o1: !loop.buffer<4x8xf32, global>, %o2: !loop.buffer<4x8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for parallel %i = %c0 to %c4 step %c1 {
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.schedule_block "exp" (%i0 = %i, %k0 = %k) {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
        %e = math.exp %v : f32
        loop.store %e, %o1[%i0, %k0] : !loop.buffer<4x8xf32, global>
      }
    }
    loop.for serial %j = %c0 to %c8 step %c1 {
      loop.schedule_block "neg" (%i0 = %i, %j0 = %j) {
        %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
        %n = arith.negf %v : f32
        loop.store %n, %o2[%i0, %j0] : !loop.buffer<4x8xf32, global>
      }
    }
  }
  loop.return
}
