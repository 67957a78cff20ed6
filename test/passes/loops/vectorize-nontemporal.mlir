// RUN: dlc-opt %s --pipeline="vectorize{cpu=x86-64-v3 nontemporal-bytes=4096}" --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline="vectorize{cpu=x86-64-v3 nontemporal-bytes=4096}" --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: dlc-opt %s --pipeline=vectorize{cpu=x86-64-v3} --split-input-file | FileCheck %s --check-prefix=DEFAULT

// STATS: vectorize
// STATS-DAG: (S) 2 nontemporal-stores
// STATS-DAG: (S) 5 loops-vectorized

// Fires: a 16 KiB output the kernel only writes, every vector at a multiple of 8 elements.
// With the default threshold (8 x the 512 KiB L2 of an x86-64 level) it stays a plain store.
// CHECK-LABEL: loop.kernel @stream
// CHECK: loop.vstore %{{.*}}, %arg1[%{{.*}}, %{{.*}}] {nontemporal} : vector<8xf32>, !loop.buffer<64x64xf32, global>
// DEFAULT-LABEL: loop.kernel @stream
// DEFAULT-NOT: nontemporal
loop.kernel @stream(%x: !loop.buffer<64x64xf32, global>, %y: !loop.buffer<64x64xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "double" (%i0 = %i, %j0 = %j) {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<64x64xf32, global>
      %d = arith.addf %a, %a : f32
      loop.store %d, %y[%i0, %j0] : !loop.buffer<64x64xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 1: the kernel reads %y back, so it should stay in the cache; %z streams.
// CHECK-LABEL: loop.kernel @read_back
// CHECK: loop.vstore %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : vector<8xf32>
// CHECK: loop.vstore %{{.*}}, %arg2[%{{.*}}, %{{.*}}] {nontemporal} : vector<8xf32>
loop.kernel @read_back(%x: !loop.buffer<64x64xf32, global>, %y: !loop.buffer<64x64xf32, global>, %z: !loop.buffer<64x64xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "copy" (%i0 = %i, %j0 = %j) {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<64x64xf32, global>
      loop.store %a, %y[%i0, %j0] : !loop.buffer<64x64xf32, global>
    }
  }
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "again" (%i0 = %i, %j0 = %j) {
      %a = loop.load %y[%i0, %j0] : !loop.buffer<64x64xf32, global>
      loop.store %a, %z[%i0, %j0] : !loop.buffer<64x64xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 2: stores at column j + 1 start one element past a vector boundary.
// CHECK-LABEL: loop.kernel @shifted
// CHECK: loop.vstore
// CHECK-NOT: nontemporal
loop.kernel @shifted(%x: !loop.buffer<64x65xf32, global>, %y: !loop.buffer<64x72xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for serial %j = %c0 to %c64 step %c1 {
    loop.schedule_block "shift" (%i0 = %i, %j0 = %j) {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<64x65xf32, global>
      %j1 = arith.addi %j0, %c1 : index
      loop.store %a, %y[%i0, %j1] : !loop.buffer<64x72xf32, global>
    }
  }
  loop.return
}

// -----

// Edge case: rows of 60 elements put every other row's vectors off the 8-element grid, and a
// dynamic row count leaves the size unknown: plain stores.
// CHECK-LABEL: loop.kernel @ragged
// CHECK: loop.vstore
// CHECK-NOT: nontemporal
loop.kernel @ragged(%x: !loop.buffer<128x60xf32, global>, %y: !loop.buffer<128x60xf32, global>, %z: !loop.buffer<?x64xf32, global>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c56 = arith.constant 56 : index
  loop.for serial %j = %c0 to %c56 step %c1 {
    loop.schedule_block "copy" (%i0 = %i, %j0 = %j) {
      %a = loop.load %x[%i0, %j0] : !loop.buffer<128x60xf32, global>
      loop.store %a, %y[%i0, %j0] : !loop.buffer<128x60xf32, global>
      loop.store %a, %z[%i0, %j0] : !loop.buffer<?x64xf32, global>
    }
  }
  loop.return
}
