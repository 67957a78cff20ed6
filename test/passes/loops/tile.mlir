// RUN: dlc-opt %s --pipeline='tile{rows=4 vectors=2}' --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='tile{rows=4 vectors=2}' --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: tile
// STATS-DAG: (S) 3 nests-tiled
// STATS-DAG: (S) 2 row-remainders

// Doc example 1: 12 rows in 3 blocks of 4, 32 columns in one block of 2x16 lanes, no remainders.
// CHECK-LABEL: loop.kernel @mm
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: loop.for parallel %[[B:.*]] = %{{.*}} to %[[C3]] step
// CHECK: %[[OFF:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[I0:.*]] = arith.addi %c0, %[[OFF]] : index
// CHECK-NOT: loop.if
// CHECK: loop.for serial %[[JB:.*]] = %c0 to %{{.*}} step %{{.*}} {
// CHECK: %[[SPLAT:.*]] = loop.alloc : !loop.buffer<16xf32, local>
// CHECK: %[[TILE:.*]] = loop.alloc : !loop.buffer<4x32xf32, local>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: loop.vstore %[[ZERO]], %[[TILE]]
// CHECK: loop.for serial %[[K:.*]] = %c0 to %c64 step %c1 {
// CHECK: %[[X:.*]] = loop.load %arg0[%[[I0]], %[[K]]] : !loop.buffer<12x64xf32, global>
// CHECK: %[[Y:.*]] = loop.vload %arg1[%[[K]], %[[JB]]] : !loop.buffer<64x32xf32, global> -> vector<16xf32>
// CHECK: %[[T:.*]] = loop.vload %[[TILE]][%{{.*}}, %{{.*}}] : !loop.buffer<4x32xf32, local> -> vector<16xf32>
// CHECK-COUNT-16: loop.store %[[X]], %[[SPLAT]]
// CHECK: %[[XV:.*]] = loop.vload %[[SPLAT]][%{{.*}}] : !loop.buffer<16xf32, local> -> vector<16xf32>
// CHECK: %[[F:.*]] = math.fma %[[XV]], %[[Y]], %[[T]] : vector<16xf32>
// CHECK: loop.vstore %[[F]], %[[TILE]]
// CHECK-COUNT-7: math.fma
// CHECK: %[[ACC:.*]] = loop.alloc : !loop.buffer<f32, local>
// CHECK: loop.for serial %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[I:.*]] = arith.addi %[[I0]], %[[R]] : index
// CHECK: loop.for serial %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[J:.*]] = arith.addi %[[JB]], %[[C]] : index
// CHECK: %[[V:.*]] = loop.load %[[TILE]][%[[R]], %[[C]]] : !loop.buffer<4x32xf32, local>
// CHECK: loop.store %[[V]], %[[ACC]][] : !loop.buffer<f32, local>
// CHECK: loop.schedule_block "store" (%{{.*}} = %[[I]], %{{.*}} = %[[J]]) {
// CHECK-NOT: loop.schedule_block "mm"
// CHECK: loop.return
loop.kernel @mm(%a: !loop.buffer<12x64xf32, global>, %b: !loop.buffer<64x32xf32, global>, %c: !loop.buffer<12x32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c12 step %c1 {
    loop.for serial %j = %c0 to %c32 step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %c64 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<12x64xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<64x32xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<12x32xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Doc example 2: 13 rows and 40 columns. Four row blocks; a loop.if keeps the original nest for
// the last row; each full block runs the original j loop from 32 to 40 for its 4 rows.
// CHECK-LABEL: loop.kernel @mm_rem
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: loop.for parallel %[[B:.*]] = %{{.*}} to %[[C4]] step
// CHECK: %[[I0:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK: %[[I1:.*]] = arith.addi %[[I0]], %{{.*}} : index
// CHECK: %[[FULL:.*]] = arith.cmpi sle, %[[I1]], %c13 : index
// CHECK: loop.if %[[FULL]] {
// CHECK: %[[END:.*]] = arith.constant 32 : index
// CHECK: loop.for serial %{{.*}} = %c0 to %[[END]] step
// CHECK: math.fma
// CHECK: loop.load %{{.*}}[%{{.*}}, %{{.*}}] : !loop.buffer<4x32xf32, local>
// CHECK: loop.schedule_block "store"
// CHECK: loop.for serial %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[I:.*]] = arith.addi %[[I0]], %[[R]] : index
// CHECK: loop.for serial %[[J:.*]] = %[[END]] to %c40 step %c1 {
// CHECK: loop.schedule_block "mm" (%{{.*}} = %[[I]], %{{.*}} = %[[J]], %{{.*}} = %{{.*}} reduce) init {
// CHECK: } else {
// CHECK: loop.for serial %[[II:.*]] = %[[I0]] to %c13 step
// CHECK: loop.for serial %[[J2:.*]] = %c0 to %c40 step %c1 {
// CHECK: loop.schedule_block "mm" (%{{.*}} = %[[II]], %{{.*}} = %[[J2]], %{{.*}} = %{{.*}} reduce) init {
loop.kernel @mm_rem(%a: !loop.buffer<13x8xf32, global>, %b: !loop.buffer<8x40xf32, global>, %c: !loop.buffer<13x40xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c13 = arith.constant 13 : index
  %c40 = arith.constant 40 : index
  loop.for parallel %i = %c0 to %c13 step %c1 {
    loop.for serial %j = %c0 to %c40 step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %c8 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<13x8xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<8x40xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<13x40xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Symbolic extents: the row-block count is computed before the loop, the column blocks end at
// the last whole block, and both remainders stay.
// CHECK-LABEL: loop.kernel @mm_dyn
// CHECK: %[[D:.*]] = arith.subi %arg3, %c0 : index
// CHECK: %[[N:.*]] = arith.maxsi %[[D]], %{{.*}} : index
// CHECK: %[[BLOCKS:.*]] = arith.divsi
// CHECK: loop.for parallel %{{.*}} = %{{.*}} to %[[BLOCKS]] step
// CHECK: loop.if
// CHECK: loop.vload %arg1[%{{.*}}, %{{.*}}] : !loop.buffer<?x?xf32, global> -> vector<16xf32>
// CHECK: math.fma
// CHECK: } else {
loop.kernel @mm_dyn(%a: !loop.buffer<?x?xf32, global>, %b: !loop.buffer<?x?xf32, global>, %c: !loop.buffer<?x?xf32, global>, %m: index, %n: index, %kk: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %i = %c0 to %m step %c1 {
    loop.for serial %j = %c0 to %n step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %kk step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<?x?xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<?x?xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<?x?xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Counter-example 1: a row sum reduces along the last index; there is no j loop to tile.
// CHECK-LABEL: loop.kernel @row_sum
// CHECK-NOT: math.fma
// CHECK: loop.schedule_block "sum"
loop.kernel @row_sum(%x: !loop.buffer<64x64xf32, global>, %y: !loop.buffer<64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c64 step %c1 {
    %acc = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %k = %c0 to %c64 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init {
        %z = arith.constant 0.000000e+00 : f32
        loop.store %z, %acc[] : !loop.buffer<f32, local>
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<64x64xf32, global>
        %s = loop.load %acc[] : !loop.buffer<f32, local>
        %t = arith.addf %s, %v : f32
        loop.store %t, %acc[] : !loop.buffer<f32, local>
      }
    }
    loop.schedule_block "out" (%i0 = %i) {
      %v = loop.load %acc[] : !loop.buffer<f32, local>
      loop.store %v, %y[%i0] : !loop.buffer<64xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 2: b read transposed (b[j, k]): j is not the last index, the loads are strided.
// CHECK-LABEL: loop.kernel @mm_bt
// CHECK-NOT: math.fma
// CHECK: loop.for parallel %{{.*}} = %c0 to %c32 step %c1 {
// CHECK: loop.schedule_block "mm"
loop.kernel @mm_bt(%a: !loop.buffer<32x64xf32, global>, %b: !loop.buffer<32x64xf32, global>, %c: !loop.buffer<32x32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c32 step %c1 {
    loop.for serial %j = %c0 to %c32 step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %c64 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<32x64xf32, global>
          %y = loop.load %b[%j0, %k0] : !loop.buffer<32x64xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<32x32xf32, global>
      }
    }
  }
  loop.return
}
