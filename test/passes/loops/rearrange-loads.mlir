// RUN: dlc-opt %s --pipeline=rearrange-loads --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='rearrange-loads{max-loads=1}' --split-input-file | FileCheck %s --check-prefix=LIMIT

// The doc example: %a[%k] and %b[%k] are hoisted once each; block "y" reuses %a[%k].
// CHECK-LABEL: loop.kernel @two
// CHECK: loop.for serial %[[K:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[A:.*]] = loop.load %arg0[%[[K]]] : !loop.buffer<8xf32, global>
// CHECK-NEXT: %[[B:.*]] = loop.load %arg1[%[[K]]] : !loop.buffer<8xf32, global>
// CHECK-NEXT: loop.schedule_block "x"
// CHECK-NEXT: arith.addf %[[A]], %[[B]] : f32
// CHECK: loop.schedule_block "y"
// CHECK-NEXT: loop.load %{{.*}}[] : !loop.buffer<f32, local>
// CHECK-NEXT: arith.mulf %[[A]], %{{.*}} : f32
// With max-loads=1 only %a[%k] leaves the blocks.
// LIMIT-LABEL: loop.kernel @two
// LIMIT: loop.for serial
// LIMIT-NEXT: loop.load %arg0
// LIMIT-NEXT: loop.schedule_block "x"
// LIMIT-NEXT: loop.load %arg1
loop.kernel @two(%a: !loop.buffer<8xf32, global>, %b: !loop.buffer<8xf32, global>, %o: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %t = loop.alloc : !loop.buffer<f32, local>
  loop.for serial %k = %c0 to %c8 step %c1 {
    loop.schedule_block "x" (%k0 = %k) {
      %v = loop.load %a[%k0] : !loop.buffer<8xf32, global>
      %w = loop.load %b[%k0] : !loop.buffer<8xf32, global>
      %s = arith.addf %v, %w : f32
      loop.store %s, %t[] : !loop.buffer<f32, local>
    }
    loop.schedule_block "y" (%k0 = %k) {
      %v = loop.load %a[%k0] : !loop.buffer<8xf32, global>
      %u = loop.load %t[] : !loop.buffer<f32, local>
      %s = arith.mulf %v, %u : f32
      loop.store %s, %o[%k0] : !loop.buffer<8xf32, global>
    }
  }
  loop.return
}

// -----

// An indirect load stays (its index is a load); a load after a global store of its element
// type stays (the stored buffer may be the same memory).
// CHECK-LABEL: loop.kernel @blocked
// CHECK: loop.for serial %[[K:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[I:.*]] = loop.load %arg1[%[[K]]] : !loop.buffer<8xindex, global>
// CHECK-NEXT: loop.schedule_block "gather"
// CHECK-NEXT: loop.load %arg0[%[[I]]] : !loop.buffer<8xf32, global>
// CHECK: loop.schedule_block "after_store"
// CHECK-NEXT: loop.load %arg0[%{{.*}}] : !loop.buffer<8xf32, global>
loop.kernel @blocked(%a: !loop.buffer<8xf32, global>, %idx: !loop.buffer<8xindex, global>, %o: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for serial %k = %c0 to %c8 step %c1 {
    loop.schedule_block "gather" (%k0 = %k) {
      %i = loop.load %idx[%k0] : !loop.buffer<8xindex, global>
      %v = loop.load %a[%i] : !loop.buffer<8xf32, global>
      loop.store %v, %o[%k0] : !loop.buffer<8xf32, global>
    }
    loop.schedule_block "after_store" (%k0 = %k) {
      %v = loop.load %a[%k0] : !loop.buffer<8xf32, global>
      %s = arith.addf %v, %v : f32
      loop.store %s, %o[%k0] : !loop.buffer<8xf32, global>
    }
  }
  loop.return
}

// -----

// Computed indices are rebuilt from the loop variables.
// A loop whose body holds another loop is not innermost: its own blocks stay as they are.
// CHECK-LABEL: loop.kernel @computed
// CHECK: loop.for serial %[[J:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[M:.*]] = arith.muli %arg2, %[[C4]] : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[M]], %[[J]] : index
// CHECK-NEXT: loop.load %arg0[%[[S]]] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.schedule_block "inner"
// CHECK-NOT: loop.load %arg0
// CHECK: loop.schedule_block "outer"
// CHECK-NEXT: loop.load %arg0
loop.kernel @computed(%a: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %o = loop.alloc(%n) : !loop.buffer<?xf32, local>
  loop.for serial %i = %c0 to %n step %c1 {
    loop.for serial %j = %c0 to %c4 step %c1 {
      loop.schedule_block "inner" (%i0 = %i, %j0 = %j) {
        %m = arith.muli %i0, %c4 : index
        %p = arith.addi %m, %j0 : index
        %v = loop.load %a[%p] : !loop.buffer<?xf32, global>
        loop.store %v, %o[%p] : !loop.buffer<?xf32, local>
      }
    }
    loop.schedule_block "outer" (%i0 = %i) {
      %v = loop.load %a[%i0] : !loop.buffer<?xf32, global>
      loop.store %v, %o[%i0] : !loop.buffer<?xf32, local>
    }
  }
  loop.return
}

// -----

// A fused kernel with two outputs: "exp" stores %o1 before "neg" loads %x. The arguments are
// loop.noalias (as lower makes them), so %o1 is not %x: both loads of %x become one load at
// the top of the body.
// CHECK-LABEL: loop.kernel @two_outputs
// CHECK: loop.for serial %[[K:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[K]]] : !loop.buffer<8xf32, global>
// CHECK-NEXT: loop.schedule_block "exp"
// CHECK-NEXT: math.exp %[[V]] : f32
// CHECK: loop.schedule_block "neg"
// CHECK-NEXT: arith.negf %[[V]] : f32
loop.kernel @two_outputs(%x: !loop.buffer<8xf32, global> {loop.noalias}, %o1: !loop.buffer<8xf32, global> {loop.noalias}, %o2: !loop.buffer<8xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for serial %k = %c0 to %c8 step %c1 {
    loop.schedule_block "exp" (%k0 = %k) {
      %v = loop.load %x[%k0] : !loop.buffer<8xf32, global>
      %e = math.exp %v : f32
      loop.store %e, %o1[%k0] : !loop.buffer<8xf32, global>
    }
    loop.schedule_block "neg" (%k0 = %k) {
      %v = loop.load %x[%k0] : !loop.buffer<8xf32, global>
      %n = arith.negf %v : f32
      loop.store %n, %o2[%k0] : !loop.buffer<8xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example: the same kernel without loop.noalias. A launch may pass one buffer for %x
// and %o1, so the load of %x in "neg" stays after the store of "exp".
// CHECK-LABEL: loop.kernel @two_outputs_may_alias
// CHECK: loop.schedule_block "neg"
// CHECK-NEXT: loop.load %arg0[%{{.*}}] : !loop.buffer<8xf32, global>
loop.kernel @two_outputs_may_alias(%x: !loop.buffer<8xf32, global>, %o1: !loop.buffer<8xf32, global>, %o2: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for serial %k = %c0 to %c8 step %c1 {
    loop.schedule_block "exp" (%k0 = %k) {
      %v = loop.load %x[%k0] : !loop.buffer<8xf32, global>
      %e = math.exp %v : f32
      loop.store %e, %o1[%k0] : !loop.buffer<8xf32, global>
    }
    loop.schedule_block "neg" (%k0 = %k) {
      %v = loop.load %x[%k0] : !loop.buffer<8xf32, global>
      %n = arith.negf %v : f32
      loop.store %n, %o2[%k0] : !loop.buffer<8xf32, global>
    }
  }
  loop.return
}
