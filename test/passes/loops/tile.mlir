// RUN: dlc-opt %s --pipeline='tile{rows=4 vectors=2 cpu=x86-64-v4 dot=none}' --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='tile{rows=4 vectors=2 cpu=x86-64-v4 dot=none}' --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: dlc-opt %s --pipeline='tile{cpu=x86-64-v3}' --split-input-file | FileCheck %s --check-prefix=V3
// RUN: dlc-opt %s --pipeline='tile{cpu=x86-64-v4}' --split-input-file | FileCheck %s --check-prefix=V4
// RUN: dlc-opt %s --pipeline='tile{rows=2 vectors=1 width=16 k-block=16 row-blocks=2}' --split-input-file | FileCheck %s --check-prefix=KB
// RUN: dlc-opt %s --pipeline='tile{dot=4 cpu=x86-64-v4}' --split-input-file | FileCheck %s --check-prefix=DOT4
// RUN: dlc-opt %s --pipeline='tile{dot=2 cpu=x86-64-v3}' --split-input-file | FileCheck %s --check-prefix=DOT2

// The CPU is named so the schedule does not depend on the machine running the test.
// STATS: tile
// STATS-DAG: (S) 12 nests-tiled
// STATS-DAG: (S) 2 row-remainders

// Doc example 1: 12 rows in 3 tiles of 4 (one tile per cache block: an eighth of the tiles,
// at least one), 32 columns in one block of 2x16 lanes, no remainders.
// CHECK-LABEL: loop.kernel @mm
// CHECK: loop.for parallel %[[G:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[PAST:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.minsi %[[PAST]], %c3 : index
// CHECK-NOT: loop.if
// CHECK: loop.for serial %[[JB:.*]] = %c0 to %{{.*}} step %{{.*}} {
// CHECK: loop.for serial %[[B:.*]] = %[[FIRST]] to %[[LAST]] step
// CHECK: %[[OFF:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[I0:.*]] = arith.addi %c0, %[[OFF]] : index
// CHECK: %[[TILE:.*]] = loop.alloc : !loop.buffer<4x32xf32, local>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: loop.vstore %[[ZERO]], %[[TILE]]
// CHECK: loop.for serial %[[K:.*]] = %c0 to %c64 step %c1 {
// CHECK: %[[X:.*]] = loop.load %arg0[%[[I0]], %[[K]]] : !loop.buffer<12x64xf32, global>
// CHECK: %[[Y:.*]] = loop.vload %arg1[%[[K]], %[[JB]]] : !loop.buffer<64x32xf32, global> -> vector<16xf32>
// CHECK: %[[T:.*]] = loop.vload %[[TILE]][%{{.*}}, %{{.*}}] : !loop.buffer<4x32xf32, local> -> vector<16xf32>
// CHECK: %[[XV:.*]] = loop.broadcast %[[X]] : f32 to vector<16xf32>
// CHECK: %[[F:.*]] = math.fma %[[XV]], %[[Y]], %[[T]] : vector<16xf32>
// CHECK: loop.vstore %[[F]], %[[TILE]]
// CHECK: %[[Y1:.*]] = loop.vload %arg1[%[[K]], %{{.*}}] : !loop.buffer<64x32xf32, global> -> vector<16xf32>
// CHECK: math.fma %[[XV]], %[[Y1]], %{{.*}} : vector<16xf32>
// The other three rows multiply the same two vectors of B: loaded once, for all four rows.
// CHECK-NOT: loop.vload %arg1
// CHECK: math.fma %{{.*}}, %[[Y]], %{{.*}} : vector<16xf32>
// CHECK-NOT: loop.vload %arg1
// CHECK: math.fma %{{.*}}, %[[Y1]], %{{.*}} : vector<16xf32>
// CHECK-NOT: loop.vload %arg1
// CHECK: math.fma %{{.*}}, %[[Y]], %{{.*}} : vector<16xf32>
// CHECK-NOT: loop.vload %arg1
// CHECK: math.fma %{{.*}}, %[[Y1]], %{{.*}} : vector<16xf32>
// CHECK-NOT: loop.vload %arg1
// CHECK: math.fma %{{.*}}, %[[Y]], %{{.*}} : vector<16xf32>
// CHECK-NOT: loop.vload %arg1
// CHECK: math.fma %{{.*}}, %[[Y1]], %{{.*}} : vector<16xf32>
// CHECK-NOT: math.fma
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

// From the target: AVX2 has 16 registers of 8 f32 lanes, so a 6x2 tile of 8-lane vectors
// (12 accumulators); AVX-512 has 32 of 16, so 4x4, cut to the 2 vectors the 32 columns here
// fill.
// V3-LABEL: loop.kernel @mm
// V3: loop.alloc : !loop.buffer<6x16xf32, local>
// V3: math.fma {{.*}} : vector<8xf32>
// V4-LABEL: loop.kernel @mm
// V4: loop.alloc : !loop.buffer<4x32xf32, local>
// V4: math.fma {{.*}} : vector<16xf32>
// V4: loop.return
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

// Doc example 2: 13 rows and 40 columns. Four row tiles; a loop.if skips the last, partial
// one in the tiled loop; then per tile, the full ones run the 8 columns left (less than a
// vector) as one tile of 8-lane vectors, which leaves no column to the original j loop, and
// the partial one runs one-row tiles (and the same column remainder).
// CHECK-LABEL: loop.kernel @mm_rem
// CHECK: loop.for parallel %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: %[[END:.*]] = arith.constant 32 : index
// CHECK: loop.for serial %{{.*}} = %c0 to %[[END]] step
// CHECK: loop.for serial %[[B:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[T0:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK: %[[I1:.*]] = arith.addi %[[T0]], %{{.*}} : index
// CHECK: %[[FULL:.*]] = arith.cmpi sle, %[[I1]], %c13 : index
// CHECK: loop.if %[[FULL]] {
// CHECK: math.fma
// CHECK: loop.load %{{.*}}[%{{.*}}, %{{.*}}] : !loop.buffer<4x32xf32, local>
// CHECK: loop.schedule_block "store"
// CHECK-NOT: else
// CHECK: loop.for serial %[[B2:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[OFF:.*]] = arith.muli %[[B2]], %{{.*}} : index
// CHECK: %[[I0:.*]] = arith.addi %c0, %[[OFF]] : index
// CHECK: loop.if %{{.*}} {
// CHECK: loop.for serial %[[JH:.*]] = %c32 to %c40{{.*}} step %c8
// CHECK: loop.alloc : !loop.buffer<4x8xf32, local>
// CHECK: loop.vload %arg1[%{{.*}}, %[[JH]]] : !loop.buffer<8x40xf32, global> -> vector<8xf32>
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: loop.load %{{.*}}[%{{.*}}, %{{.*}}] : !loop.buffer<4x8xf32, local>
// CHECK: loop.schedule_block "store"
// CHECK-NOT: loop.schedule_block "mm"
// CHECK: } else {
// CHECK: loop.for serial %[[II:.*]] = %[[I0]] to %c13 step
// CHECK: loop.for serial %{{.*}} = %c0 to %[[END]] step
// CHECK: loop.alloc : !loop.buffer<1x32xf32, local>
// CHECK: math.fma
// CHECK: loop.for serial %{{.*}} = %c32 to %c40{{.*}} step %c8
// CHECK: loop.alloc : !loop.buffer<1x8xf32, local>
// CHECK-NOT: loop.schedule_block "mm"
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

// Symbolic extents: the row-tile and cache-block counts are computed before the loop (a block
// is the row tiles per thread, at most what the cache allows: chosen at run time), the
// column blocks end at the last whole block, and both remainders stay. The columns after the
// blocks of 2x16 lanes run as tiles of 16, 8, 4, 2 and 1 lanes, each at most once, so no
// column is left to a scalar reduction.
// CHECK-LABEL: loop.kernel @mm_dyn
// CHECK: %[[D:.*]] = arith.subi %arg3, %c0 : index
// CHECK: %[[N:.*]] = arith.maxsi %[[D]], %{{.*}} : index
// CHECK: %[[TILES:.*]] = arith.divsi
// CHECK: %[[PER:.*]] = arith.divsi
// CHECK: %[[ONE:.*]] = arith.maxsi %[[PER]], %{{.*}} : index
// CHECK: %[[BLOCK:.*]] = arith.minsi %[[ONE]], %c{{[0-9]+}} : index
// CHECK: %[[BLOCKS:.*]] = arith.divsi %{{.*}}, %[[BLOCK]] : index
// CHECK: loop.for parallel %{{.*}} = %{{.*}} to %[[BLOCKS]] step
// CHECK: arith.muli %{{.*}}, %[[BLOCK]] : index
// CHECK: loop.if
// CHECK: loop.vload %arg1[%{{.*}}, %{{.*}}] : !loop.buffer<?x?xf32, global> -> vector<16xf32>
// CHECK: math.fma
// CHECK: loop.alloc : !loop.buffer<4x16xf32, local>
// CHECK: loop.alloc : !loop.buffer<4x8xf32, local>
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: loop.alloc : !loop.buffer<4x4xf32, local>
// CHECK: loop.alloc : !loop.buffer<4x2xf32, local>
// CHECK: loop.alloc : !loop.buffer<4x1xf32, local>
// CHECK: math.fma {{.*}} : vector<1xf32>
// CHECK-NOT: loop.schedule_block "mm"
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

// -----

// The reduction in blocks of 16 (`k-block`), shared by the 2 row tiles of a cache block
// (`row-blocks`), in three loops over the row tiles of the block: the init into the partial
// sums; per block of `k`, `b` packed into a 16x16 buffer, then each tile resumes from its
// partial sums, runs the block reading the packed `b` and saves them; the write-back from the
// partial sums. No branch on the first or last block.
// KB-LABEL: loop.kernel @mm_kblock
// KB: loop.for parallel %{{.*}} = %{{.*}} to %{{.*}} step
// KB: %[[PARTIAL:.*]] = loop.alloc : !loop.buffer<2x2x16xf32, local>
// KB: %[[PACK:.*]] = loop.alloc : !loop.buffer<16x16xf32, local>
// KB: loop.for serial %{{.*}} = %c0 to %{{.*}} step %{{.*}} {
// KB: loop.for serial %[[B0:.*]] = %[[FIRST:.*]] to %{{.*}} step
// KB: %[[SLOT0:.*]] = arith.subi %[[B0]], %[[FIRST]] : index
// KB: %[[TILE0:.*]] = loop.alloc : !loop.buffer<2x16xf32, local>
// KB: loop.vstore %{{.*}}, %[[TILE0]]
// KB: %[[INIT:.*]] = loop.vload %[[TILE0]]
// KB: loop.vstore %[[INIT]], %[[PARTIAL]][%[[SLOT0]], %{{.*}}, %{{.*}}]
// KB: loop.for serial %[[KC:.*]] = %c0 to %c64 step %[[STEP:.*]] {
// KB: %[[PAST:.*]] = arith.addi %[[KC]], %[[STEP]] : index
// KB: %[[KEND:.*]] = arith.minsi %[[PAST]], %c64 : index
// KB: loop.for serial %[[KK:.*]] = %[[KC]] to %[[KEND]] step
// KB: %[[ROW:.*]] = arith.subi %[[KK]], %[[KC]] : index
// KB: %[[BV:.*]] = loop.vload %arg1[%[[KK]], %{{.*}}]
// KB: loop.vstore %[[BV]], %[[PACK]][%[[ROW]], %{{.*}}]
// KB: loop.for serial %[[B:.*]] = %[[FIRST]] to %{{.*}} step
// KB: %[[SLOT:.*]] = arith.subi %[[B]], %[[FIRST]] : index
// KB: %[[TILE:.*]] = loop.alloc : !loop.buffer<2x16xf32, local>
// KB: %[[SAVED:.*]] = loop.vload %[[PARTIAL]][%[[SLOT]], %{{.*}}, %{{.*}}]
// KB: loop.vstore %[[SAVED]], %[[TILE]]
// KB: loop.for serial %[[K:.*]] = %[[KC]] to %[[KEND]] step %c1 {
// KB: %[[T:.*]] = arith.subi %[[K]], %[[KC]] : index
// KB: loop.vload %[[PACK]][%[[T]], %{{.*}}]
// KB: math.fma
// KB: loop.vstore %{{.*}}, %[[PARTIAL]][%[[SLOT]], %{{.*}}, %{{.*}}]
// KB: loop.for serial %[[B2:.*]] = %[[FIRST]] to %{{.*}} step
// KB: %[[SLOT2:.*]] = arith.subi %[[B2]], %[[FIRST]] : index
// KB: loop.vload %[[PARTIAL]][%[[SLOT2]], %{{.*}}, %{{.*}}]
// KB: loop.schedule_block "store"
// KB-NOT: loop.if
// KB: loop.return
loop.kernel @mm_kblock(%a: !loop.buffer<8x64xf32, global>, %b: !loop.buffer<64x16xf32, global>, %c: !loop.buffer<8x16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c8 step %c1 {
    loop.for serial %j = %c0 to %c16 step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %c64 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<8x64xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<64x16xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<8x16xf32, global>
      }
    }
  }
  loop.return
}

// -----

// 48 columns: one block of 2x16 lanes, then the 16 left over as a tile one vector wide (4x16),
// so no column is left to the scalar loop.
// CHECK-LABEL: loop.kernel @mm_narrow
// CHECK: loop.alloc : !loop.buffer<4x32xf32, local>
// CHECK: loop.for serial %[[JB:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: loop.alloc : !loop.buffer<4x16xf32, local>
// CHECK: math.fma
// CHECK-NOT: loop.schedule_block "mm"
loop.kernel @mm_narrow(%a: !loop.buffer<12x64xf32, global>, %b: !loop.buffer<64x48xf32, global>, %c: !loop.buffer<12x48xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c12 step %c1 {
    loop.for serial %j = %c0 to %c48 step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %c64 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<12x64xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<64x48xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<12x48xf32, global>
      }
    }
  }
  loop.return
}

// -----

// An integer product (MatMulInteger's shape): i8 operands widened to i32, the accumulator
// i32. Without `dot` products (`dot=none`, the first RUN line) the tile holds 16 lanes of i32
// with AVX-512; rows of `B` load as vectors of i8 and widen as vectors; no `math.fma` for
// integers. With `dot=2` both operands, sign-extended, widen to `i16` instead: `B` as it is
// packed, two rows of `k` interleaved per column, and each row's two bytes of `A` as a
// `vector<2xi16>` pair that `loop.dot2` takes for every lane: 2x4 tiles of 8 lanes on AVX2,
// not the 6x2 of floats (`CpuInfo::pair_tile`: each row's pair costs three shuffles a step).
// DOT2-LABEL: loop.kernel @mm_int
// DOT2: %[[PACK:.*]] = loop.alloc : !loop.buffer<32x64xi16, local>
// DOT2: loop.for serial %{{.*}} = %{{.*}} to %{{.*}} step %c2{{.*}} {
// DOT2: %[[BYTE:.*]] = loop.load %arg1[%{{.*}}, %{{.*}}] : !loop.buffer<64x32xi8, global>
// DOT2: %[[WIDE:.*]] = arith.extsi %[[BYTE]] : i8 to i16
// DOT2: loop.store %[[WIDE]], %[[PACK]][%{{.*}}, %{{.*}}] : !loop.buffer<32x64xi16, local>
// DOT2: %[[BYTE1:.*]] = loop.load %arg1
// DOT2: arith.extsi %[[BYTE1]] : i8 to i16
// DOT2: loop.for serial %{{.*}} = %{{.*}} to %{{.*}} step %c2{{.*}} {
// DOT2: %[[A2:.*]] = loop.vload %arg0[%{{.*}}, %{{.*}}] : !loop.buffer<12x64xi8, global> -> vector<2xi8>
// DOT2: %[[A:.*]] = arith.extsi %[[A2]] : vector<2xi8> to vector<2xi16>
// DOT2: %[[B:.*]] = loop.vload %[[PACK]][%{{.*}}, %{{.*}}] : !loop.buffer<32x64xi16, local> -> vector<16xi16>
// DOT2: %[[T:.*]] = loop.vload %{{.*}} : !loop.buffer<2x32xi32, local> -> vector<8xi32>
// DOT2: loop.dot2 %[[T]], %[[A]], %[[B]] : vector<8xi32>, vector<2xi16>, vector<16xi16>
// DOT2-COUNT-7: loop.dot2
// DOT2-NOT: loop.dot2
// DOT2: loop.return
// CHECK-LABEL: loop.kernel @mm_int
// CHECK: loop.alloc : !loop.buffer<4x32xi32, local>
// CHECK: %[[Y:.*]] = loop.vload %arg1[%{{.*}}, %{{.*}}] : !loop.buffer<64x32xi8, global> -> vector<16xi8>
// CHECK: arith.extsi %[[Y]] : vector<16xi8> to vector<16xi32>
// CHECK: arith.muli {{.*}} : vector<16xi32>
// CHECK: arith.addi {{.*}} : vector<16xi32>
// CHECK-NOT: math.fma
// CHECK: loop.return
loop.kernel @mm_int(%a: !loop.buffer<12x64xi8, global>, %b: !loop.buffer<64x32xi8, global>, %c: !loop.buffer<12x32xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c12 step %c1 {
    loop.for serial %j = %c0 to %c32 step %c1 {
      %acc = loop.alloc : !loop.buffer<i32, local>
      loop.for serial %k = %c0 to %c64 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0 : i32
          loop.store %z, %acc[] : !loop.buffer<i32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<12x64xi8, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<64x32xi8, global>
          %xw = arith.extsi %x : i8 to i32
          %yw = arith.extsi %y : i8 to i32
          %p = arith.muli %xw, %yw : i32
          %s = loop.load %acc[] : !loop.buffer<i32, local>
          %t = arith.addi %s, %p : i32
          loop.store %t, %acc[] : !loop.buffer<i32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<i32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<12x32xi32, global>
      }
    }
  }
  loop.return
}

// -----

// An 8-bit product with the u8 x s8 operands of `vpdpbusd` (MatMulInteger's form after
// import). With `dot=4` the tile takes four `k` steps per `loop.dot4`: `B` packed per block
// of `k` (here the whole 64) into 16 rows of four interleaved bytes per column, the four bytes
// of each row of `A` a quad operand (no local buffer); with `dot=none` (the first RUN line)
// the integer tile of `@mm_int`. The other 8-bit kernels above (both operands sign-extended)
// keep the integer tile under `dot=4` too, which takes one unsigned and one signed operand.
// With `dot=2`, `B` sign-extends to `i16` as it is packed and `A` zero-extends.
// DOT2-LABEL: loop.kernel @mm_u8s8
// DOT2: arith.extsi %{{.*}} : i8 to i16
// DOT2: %[[A2:.*]] = loop.vload %arg0[%{{.*}}, %{{.*}}] : !loop.buffer<12x64xi8, global> -> vector<2xi8>
// DOT2: %[[A:.*]] = arith.extui %[[A2]] : vector<2xi8> to vector<2xi16>
// DOT2: loop.dot2 %{{.*}}, %[[A]], %{{.*}} : vector<8xi32>, vector<2xi16>, vector<16xi16>
// CHECK-LABEL: loop.kernel @mm_u8s8
// CHECK-NOT: loop.dot4
// CHECK: loop.return
// DOT4-LABEL: loop.kernel @mm_int
// DOT4-NOT: loop.dot4
// DOT4-LABEL: loop.kernel @mm_u8s8
// DOT4: %[[PACK:.*]] = loop.alloc : !loop.buffer<16x128xi8, local>
// DOT4: loop.for serial %{{.*}} = %{{.*}} to %{{.*}} step %c4{{.*}} {
// DOT4: %[[BYTE:.*]] = loop.load %arg1[%{{.*}}, %{{.*}}] : !loop.buffer<64x32xi8, global>
// DOT4: loop.store %[[BYTE]], %[[PACK]][%{{.*}}, %{{.*}}] : !loop.buffer<16x128xi8, local>
// DOT4-COUNT-3: loop.store %{{.*}}, %[[PACK]]
// DOT4-NOT: !loop.buffer<64xi8, local>
// DOT4: loop.for serial %{{.*}} = %{{.*}} to %{{.*}} step %c4{{.*}} {
// DOT4: %[[A:.*]] = loop.vload %arg0[%{{.*}}, %{{.*}}] : !loop.buffer<12x64xi8, global> -> vector<4xi8>
// DOT4-COUNT-3: loop.vload %arg0[%{{.*}}, %{{.*}}] : !loop.buffer<12x64xi8, global> -> vector<4xi8>
// DOT4: %[[B:.*]] = loop.vload %[[PACK]][%{{.*}}, %{{.*}}] : !loop.buffer<16x128xi8, local> -> vector<64xi8>
// DOT4: %[[T:.*]] = loop.vload %{{.*}} : !loop.buffer<4x32xi32, local> -> vector<16xi32>
// DOT4: loop.dot4 %[[T]], %[[A]], %[[B]] : vector<16xi32>, vector<4xi8>, vector<64xi8>
// DOT4-COUNT-7: loop.dot4
// DOT4: loop.return
loop.kernel @mm_u8s8(%a: !loop.buffer<12x64xi8, global>, %b: !loop.buffer<64x32xi8, global>, %c: !loop.buffer<12x32xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c12 step %c1 {
    loop.for serial %j = %c0 to %c32 step %c1 {
      %acc = loop.alloc : !loop.buffer<i32, local>
      loop.for serial %k = %c0 to %c64 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0 : i32
          loop.store %z, %acc[] : !loop.buffer<i32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<12x64xi8, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<64x32xi8, global>
          %xw = arith.extui %x : i8 to i32
          %yw = arith.extsi %y : i8 to i32
          %p = arith.muli %xw, %yw : i32
          %s = loop.load %acc[] : !loop.buffer<i32, local>
          %t = arith.addi %s, %p : i32
          loop.store %t, %acc[] : !loop.buffer<i32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<i32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<12x32xi32, global>
      }
    }
  }
  loop.return
}

// -----

// The same product with the signedness swapped: `A` sign-extended and `B` zero-extended (an
// im2col convolution of bytes, `i8` weights times `ui8` columns). `loop.dot4` takes the
// packed row of `B` as its unsigned operand and the quad of `A` as its signed one; with
// `dot=2` `B` zero-extends as it is packed and the pair of `A` sign-extends.
// DOT2-LABEL: loop.kernel @mm_s8u8
// DOT2: arith.extui %{{.*}} : i8 to i16
// DOT2: %[[A2:.*]] = loop.vload %arg0[%{{.*}}, %{{.*}}] : !loop.buffer<12x64xi8, global> -> vector<2xi8>
// DOT2: %[[A:.*]] = arith.extsi %[[A2]] : vector<2xi8> to vector<2xi16>
// DOT2: loop.dot2 %{{.*}}, %[[A]], %{{.*}} : vector<8xi32>, vector<2xi16>, vector<16xi16>
// DOT4-LABEL: loop.kernel @mm_s8u8
// DOT4: %[[A:.*]] = loop.vload %arg0[%{{.*}}, %{{.*}}] : !loop.buffer<12x64xi8, global> -> vector<4xi8>
// DOT4: %[[B:.*]] = loop.vload %{{.*}}[%{{.*}}, %{{.*}}] : !loop.buffer<16x128xi8, local> -> vector<64xi8>
// DOT4: %[[T:.*]] = loop.vload %{{.*}} : !loop.buffer<4x32xi32, local> -> vector<16xi32>
// DOT4: loop.dot4 %[[T]], %[[B]], %[[A]] : vector<16xi32>, vector<64xi8>, vector<4xi8>
// DOT4: loop.return
loop.kernel @mm_s8u8(%a: !loop.buffer<12x64xi8, global>, %b: !loop.buffer<64x32xi8, global>, %c: !loop.buffer<12x32xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c12 step %c1 {
    loop.for serial %j = %c0 to %c32 step %c1 {
      %acc = loop.alloc : !loop.buffer<i32, local>
      loop.for serial %k = %c0 to %c64 step %c1 {
        loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0 : i32
          loop.store %z, %acc[] : !loop.buffer<i32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<12x64xi8, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<64x32xi8, global>
          %xw = arith.extsi %x : i8 to i32
          %yw = arith.extui %y : i8 to i32
          %p = arith.muli %xw, %yw : i32
          %s = loop.load %acc[] : !loop.buffer<i32, local>
          %t = arith.addi %s, %p : i32
          loop.store %t, %acc[] : !loop.buffer<i32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<i32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<12x32xi32, global>
      }
    }
  }
  loop.return
}

// -----

// A matrix-vector product (one row, a 1x1 convolution over a 1x1 map): the tile is one row
// high, so the 512 columns still run as vectors (a product of 512 by 128 is large enough;
// smaller ones with fewer rows than a tile are left alone).
// CHECK-LABEL: loop.kernel @mv
// CHECK: loop.alloc : !loop.buffer<1x32xf32, local>
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: loop.return
loop.kernel @mv(%a: !loop.buffer<1x128xf32, global>, %b: !loop.buffer<128x512xf32, global>, %c: !loop.buffer<1x512xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c128 = arith.constant 128 : index
  loop.for parallel %i = %c0 to %c1 step %c1 {
    loop.for serial %j = %c0 to %c512 step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %c128 step %c1 {
        loop.schedule_block "mv" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<1x128xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<128x512xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<1x512xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Edge case: fewer rows than a tile and a product of 3x96 by 96x64, 18,432 multiply-adds, at
// least the 2^14 from which such a nest is tiled (Silero VAD's small products): a tile 3 rows
// high. Below, 2x32 by 32x64 (4,096) is left alone.
// CHECK-LABEL: loop.kernel @three_rows
// CHECK: loop.alloc : !loop.buffer<3x32xf32, local>
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: loop.return
loop.kernel @three_rows(%a: !loop.buffer<3x96xf32, global>, %b: !loop.buffer<96x64xf32, global>, %c: !loop.buffer<3x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm = arith.constant 3 : index
  %cn = arith.constant 64 : index
  %ck = arith.constant 96 : index
  loop.for parallel %i = %c0 to %cm step %c1 {
    loop.for serial %j = %c0 to %cn step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %ck step %c1 {
        loop.schedule_block "three_rows" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<3x96xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<96x64xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<3x64xf32, global>
      }
    }
  }
  loop.return
}

// -----

// CHECK-LABEL: loop.kernel @two_small_rows
// CHECK-NOT: vector<
// CHECK: loop.return
loop.kernel @two_small_rows(%a: !loop.buffer<2x32xf32, global>, %b: !loop.buffer<32x64xf32, global>, %c: !loop.buffer<2x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm = arith.constant 2 : index
  %cn = arith.constant 64 : index
  %ck = arith.constant 32 : index
  loop.for parallel %i = %c0 to %cm step %c1 {
    loop.for serial %j = %c0 to %cn step %c1 {
      %acc = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %k = %c0 to %ck step %c1 {
        loop.schedule_block "two_small_rows" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %acc[] : !loop.buffer<f32, local>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<2x32xf32, global>
          %y = loop.load %b[%k0, %j0] : !loop.buffer<32x64xf32, global>
          %p = arith.mulf %x, %y : f32
          %s = loop.load %acc[] : !loop.buffer<f32, local>
          %t = arith.addf %s, %p : f32
          loop.store %t, %acc[] : !loop.buffer<f32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<f32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<2x64xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Columns gathered through a table (an im2col convolution's, read through by `lower`): each
// column's index is a load of the table at the column, so `tile` copies the columns through
// it into the packed block of `loop.dot4`, the table's load and the index cast cloned per
// column; the tiles then read the packed block.
// DOT4-LABEL: loop.kernel @gathered
// DOT4: %[[PACK:.*]] = loop.alloc : !loop.buffer<4x256xi8, local>
// DOT4: %[[T:.*]] = loop.load %arg2[%{{.*}}, %{{.*}}] : !loop.buffer<16x128xi32, global>
// DOT4: %[[AT:.*]] = arith.index_cast %[[T]] : i32 to index
// DOT4: %[[BYTE:.*]] = loop.load %arg1[%c0{{.*}}, %[[AT]]] : !loop.buffer<2x300xi8, global>
// DOT4: loop.store %[[BYTE]], %[[PACK]]
// DOT4: loop.vload %[[PACK]]
// DOT4: loop.dot4
// DOT4: loop.return
loop.kernel @gathered(%a: !loop.buffer<8x16xi8, global>, %x: !loop.buffer<2x300xi8, global>, %tab: !loop.buffer<16x128xi32, global>, %c: !loop.buffer<8x128xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  loop.for parallel %i = %c0 to %c8 step %c1 {
    loop.for serial %j = %c0 to %c128 step %c1 {
      %acc = loop.alloc : !loop.buffer<i32, local>
      loop.for serial %k = %c0 to %c16 step %c1 {
        loop.schedule_block "gathered" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0 : i32
          loop.store %z, %acc[] : !loop.buffer<i32, local>
        } {
          %w = loop.load %a[%i0, %k0] : !loop.buffer<8x16xi8, global>
          %t = loop.load %tab[%k0, %j0] : !loop.buffer<16x128xi32, global>
          %at = arith.index_cast %t : i32 to index
          %y = loop.load %x[%c0, %at] : !loop.buffer<2x300xi8, global>
          %ww = arith.extsi %w : i8 to i32
          %yw = arith.extui %y : i8 to i32
          %p = arith.muli %ww, %yw : i32
          %s = loop.load %acc[] : !loop.buffer<i32, local>
          %r = arith.addi %s, %p : i32
          loop.store %r, %acc[] : !loop.buffer<i32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<i32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<8x128xi32, global>
      }
    }
  }
  loop.return
}

// -----

// An im2col table with a row per tap: the gathered column is at
// `x[k / 8, tab[k % 8, j]]`. The table row and the channel depend on `k` only, so the packing
// computes them before its column loop, once per reduction step, and the column loop only
// loads the table and the byte (quick code has no loop-invariant code motion to do it).
// DOT4-LABEL: loop.kernel @gathered_rows
// DOT4: %[[ROW:.*]] = arith.remui %{{.*}}, %c8
// DOT4: %[[CH:.*]] = arith.divui %{{.*}}, %c8
// DOT4: loop.for serial
// DOT4-NOT: arith.remui
// DOT4: %[[T:.*]] = loop.load %arg2[%[[ROW]], %{{.*}}] : !loop.buffer<8x128xi32, global>
// DOT4: %[[AT:.*]] = arith.index_cast %[[T]] : i32 to index
// DOT4: loop.load %arg1[%[[CH]], %[[AT]]] : !loop.buffer<2x300xi8, global>
// DOT4: loop.dot4
loop.kernel @gathered_rows(%a: !loop.buffer<8x16xi8, global>, %x: !loop.buffer<2x300xi8, global>, %tab: !loop.buffer<8x128xi32, global>, %c: !loop.buffer<8x128xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  loop.for parallel %i = %c0 to %c8 step %c1 {
    loop.for serial %j = %c0 to %c128 step %c1 {
      %acc = loop.alloc : !loop.buffer<i32, local>
      loop.for serial %k = %c0 to %c16 step %c1 {
        loop.schedule_block "gathered_rows" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0 : i32
          loop.store %z, %acc[] : !loop.buffer<i32, local>
        } {
          %w = loop.load %a[%i0, %k0] : !loop.buffer<8x16xi8, global>
          %tap = arith.remui %k0, %c8 : index
          %ch = arith.divui %k0, %c8 : index
          %t = loop.load %tab[%tap, %j0] : !loop.buffer<8x128xi32, global>
          %at = arith.index_cast %t : i32 to index
          %y = loop.load %x[%ch, %at] : !loop.buffer<2x300xi8, global>
          %ww = arith.extsi %w : i8 to i32
          %yw = arith.extui %y : i8 to i32
          %p = arith.muli %ww, %yw : i32
          %s = loop.load %acc[] : !loop.buffer<i32, local>
          %r = arith.addi %s, %p : i32
          loop.store %r, %acc[] : !loop.buffer<i32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<i32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<8x128xi32, global>
      }
    }
  }
  loop.return
}

// -----

// Counter-example: the gathered column's index depends on the row (a table per row, as a
// grouped convolution's columns would be): one packed copy cannot serve the rows of a tile,
// so the nest is left alone.
// DOT4-LABEL: loop.kernel @gathered_per_row
// DOT4-NOT: loop.dot4
// DOT4: loop.return
loop.kernel @gathered_per_row(%a: !loop.buffer<8x16xi8, global>, %x: !loop.buffer<2x300xi8, global>, %tab: !loop.buffer<8x128xi32, global>, %c: !loop.buffer<8x128xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  loop.for parallel %i = %c0 to %c8 step %c1 {
    loop.for serial %j = %c0 to %c128 step %c1 {
      %acc = loop.alloc : !loop.buffer<i32, local>
      loop.for serial %k = %c0 to %c16 step %c1 {
        loop.schedule_block "gathered_per_row" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
          %z = arith.constant 0 : i32
          loop.store %z, %acc[] : !loop.buffer<i32, local>
        } {
          %w = loop.load %a[%i0, %k0] : !loop.buffer<8x16xi8, global>
          %t = loop.load %tab[%i0, %j0] : !loop.buffer<8x128xi32, global>
          %at = arith.index_cast %t : i32 to index
          %y = loop.load %x[%c0, %at] : !loop.buffer<2x300xi8, global>
          %ww = arith.extsi %w : i8 to i32
          %yw = arith.extui %y : i8 to i32
          %p = arith.muli %ww, %yw : i32
          %s = loop.load %acc[] : !loop.buffer<i32, local>
          %r = arith.addi %s, %p : i32
          loop.store %r, %acc[] : !loop.buffer<i32, local>
        }
      }
      loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
        %v = loop.load %acc[] : !loop.buffer<i32, local>
        loop.store %v, %c[%i0, %j0] : !loop.buffer<8x128xi32, global>
      }
    }
  }
  loop.return
}
