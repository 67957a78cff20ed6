// RUN: dlc-opt %s --pipeline='tile-transpose{tile=16}' --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='tile-transpose{tile=16}' --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: dlc-opt %s --pipeline=tile-transpose --split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: not dlc-opt %s --pipeline='tile-transpose{tile=-1}' 2>&1 | FileCheck %s --check-prefix=BAD

// STATS: tile-transpose
// STATS: (S) 3 nests-tiled
// BAD: 'tile' must be 0 or positive, got -1

// Doc example 1: a 32x64 transpose becomes 16x16 tiles; the tile loop keeps the parallel kind.
// CHECK-LABEL: loop.kernel @transpose
// CHECK: %[[T:.*]] = arith.constant 16 : index
// CHECK: loop.for parallel %[[IB:.*]] = %c0 to %c64 step %[[T]] {
// CHECK-NEXT: loop.for serial %[[JB:.*]] = %c0 to %c32 step %[[T]] {
// CHECK-NEXT: %[[IE:.*]] = arith.addi %[[IB]], %[[T]] : index
// CHECK-NEXT: loop.for serial %[[I:.*]] = %[[IB]] to %[[IE]] step %c1 {
// CHECK-NEXT: %[[JE:.*]] = arith.addi %[[JB]], %[[T]] : index
// CHECK-NEXT: loop.for serial %[[J:.*]] = %[[JB]] to %[[JE]] step %c1 {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[J]], %[[I]]]
// CHECK-NEXT: loop.store %[[V]], %arg1[%[[I]], %[[J]]]
// The default tile is one 64-byte line: 16 f32 elements.
// DEFAULT-LABEL: loop.kernel @transpose
// DEFAULT: arith.constant 16 : index
loop.kernel @transpose(%in: !loop.buffer<32x64xf32, global>, %out: !loop.buffer<64x32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c64 step %c1 {
    loop.for serial %j = %c0 to %c32 step %c1 {
      %v = loop.load %in[%j, %i] : !loop.buffer<32x64xf32, global>
      loop.store %v, %out[%i, %j] : !loop.buffer<64x32xf32, global>
    }
  }
  loop.return
}

// -----

// What `lower` gives: the body in a schedule block whose iter vars are bound to the loops,
// inside a batch loop (a batched transpose, [2, 32, 32] with the last two dims swapped).
// CHECK-LABEL: loop.kernel @batched
// CHECK: loop.for parallel %[[B:.*]] = %c0 to %c2 step %c1 {
// CHECK: loop.for serial %[[IB:.*]] = %c0 to %c32 step
// CHECK: loop.schedule_block "transpose_0" (%{{.*}} = %[[B]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// The default tile for f64 is 8 elements.
// DEFAULT-LABEL: loop.kernel @batched
// DEFAULT: arith.constant 8 : index
loop.kernel @batched(%in: !loop.buffer<2x32x32xf64, global>, %out: !loop.buffer<2x32x32xf64, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  loop.for parallel %b = %c0 to %c2 step %c1 {
    loop.for serial %i = %c0 to %c32 step %c1 {
      loop.for serial %j = %c0 to %c32 step %c1 {
        loop.schedule_block "transpose_0" (%bb = %b, %ii = %i, %jj = %j) {
          %v = loop.load %in[%bb, %jj, %ii] : !loop.buffer<2x32x32xf64, global>
          loop.store %v, %out[%bb, %ii, %jj] : !loop.buffer<2x32x32xf64, global>
          loop.yield
        }
      }
    }
  }
  loop.return
}

// -----

// Edge case: exactly two tiles each way (the least the pass tiles), a serial outer loop.
// CHECK-LABEL: loop.kernel @two_tiles
// CHECK: loop.for serial %{{.*}} = %c0 to %c32 step %{{.*}} {
// CHECK-NEXT: loop.for serial
loop.kernel @two_tiles(%in: !loop.buffer<32x32xf32, global>, %out: !loop.buffer<32x32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  loop.for serial %i = %c0 to %c32 step %c1 {
    loop.for serial %j = %c0 to %c32 step %c1 {
      %v = loop.load %in[%j, %i] : !loop.buffer<32x32xf32, global>
      loop.store %v, %out[%i, %j] : !loop.buffer<32x32xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 1: a row-by-row copy reads whole lines already; left alone.
// CHECK-LABEL: loop.kernel @copy
// CHECK: loop.for parallel %[[I:.*]] = %c0 to %c64 step %c1 {
// CHECK-NEXT: loop.for serial %[[J:.*]] = %c0 to %c64 step %c1 {
loop.kernel @copy(%in: !loop.buffer<64x64xf32, global>, %out: !loop.buffer<64x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  loop.for parallel %i = %c0 to %c64 step %c1 {
    loop.for serial %j = %c0 to %c64 step %c1 {
      %v = loop.load %in[%i, %j] : !loop.buffer<64x64xf32, global>
      loop.store %v, %out[%i, %j] : !loop.buffer<64x64xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 2: 40 is not a multiple of the tile; left alone.
// CHECK-LABEL: loop.kernel @ragged
// CHECK: loop.for parallel %{{.*}} = %c0 to %c40 step %c1 {
// CHECK-NEXT: loop.for serial %{{.*}} = %c0 to %c40 step %c1 {
loop.kernel @ragged(%in: !loop.buffer<40x40xf32, global>, %out: !loop.buffer<40x40xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  loop.for parallel %i = %c0 to %c40 step %c1 {
    loop.for serial %j = %c0 to %c40 step %c1 {
      %v = loop.load %in[%j, %i] : !loop.buffer<40x40xf32, global>
      loop.store %v, %out[%i, %j] : !loop.buffer<40x40xf32, global>
    }
  }
  loop.return
}
