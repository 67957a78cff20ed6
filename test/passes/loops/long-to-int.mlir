// RUN: dlc-opt %s --pipeline=long-to-int --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='long-to-int{assume-symbols-below=1024}' --split-input-file | FileCheck %s --check-prefix=ASSUME
// RUN: dlc-opt %s --pipeline=long-to-int --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// STATS: long-to-int
// STATS-NEXT: (S) 3 kernels-narrowed
// STATS-NEXT: (S) 8 ops-narrowed

// Doc example 1: a flattened index i*16 + j into a static buffer is computed in i32; the
// iter vars used directly as indices stay index.
// CHECK-LABEL: loop.kernel @flat
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: loop.for serial %[[I:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: loop.for serial %[[J:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT: %[[J32:.*]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[I32]], %[[C16]] : i32
// CHECK-NEXT: %[[O:.*]] = arith.addi %[[M]], %[[J32]] : i32
// CHECK-NEXT: %[[IDX:.*]] = arith.index_cast %[[O]] : i32 to index
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[IDX]]] : !loop.buffer<256xf32, global>
// CHECK-NEXT: loop.store %[[V]], %arg1[%[[I]], %[[J]]] : !loop.buffer<16x16xf32, global>
// CHECK-NOT: : index
// CHECK: loop.return
loop.kernel @flat(%x: !loop.buffer<256xf32, global>, %y: !loop.buffer<16x16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for serial %i = %c0 to %c16 step %c1 {
    loop.for serial %j = %c0 to %c16 step %c1 {
      %m = arith.muli %i, %c16 : index
      %o = arith.addi %m, %j : index
      %v = loop.load %x[%o] : !loop.buffer<256xf32, global>
      loop.store %v, %y[%i, %j] : !loop.buffer<16x16xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 1: a symbolic trip count; the kernel is left alone, unless
// assume-symbols-below bounds %n.
// CHECK-LABEL: loop.kernel @symbolic
// CHECK-NOT: i32
// CHECK: loop.return
// ASSUME-LABEL: loop.kernel @symbolic
// ASSUME: %[[M:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// ASSUME-NEXT: %[[O:.*]] = arith.addi %[[M]], %{{.*}} : i32
// ASSUME-NEXT: %[[IDX:.*]] = arith.index_cast %[[O]] : i32 to index
// ASSUME-NEXT: loop.load %arg0[%[[IDX]]]

loop.kernel @symbolic(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?x16xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for serial %i = %c0 to %n step %c1 {
    loop.for serial %j = %c0 to %c16 step %c1 {
      %m = arith.muli %i, %c16 : index
      %o = arith.addi %m, %j : index
      %v = loop.load %x[%o] : !loop.buffer<?xf32, global>
      loop.store %v, %y[%i, %j] : !loop.buffer<?x16xf32, global>
    }
  }
  loop.return
}

// -----

// Counter-example 2: 65536 x 65536 iterations overflow i32.
// CHECK-LABEL: loop.kernel @too_many
// CHECK-NOT: i32
// CHECK: loop.return

loop.kernel @too_many(%x: !loop.buffer<65536x65536xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c65536 = arith.constant 65536 : index
  loop.for serial %i = %c0 to %c65536 step %c1 {
    loop.for serial %j = %c0 to %c65536 step %c1 {
      %k = arith.addi %j, %c1 : index
      %v = loop.load %x[%i, %k] : !loop.buffer<65536x65536xf32, global>
      loop.store %v, %x[%i, %j] : !loop.buffer<65536x65536xf32, global>
    }
  }
  loop.return
}

// -----

// Edge case: a tree with an intermediate outside i32 (i * 2^32, even though the final index
// i*2^32 / 2^32 is small) stays index; the other tree of the kernel is narrowed.
// CHECK-LABEL: loop.kernel @wide_stride
// CHECK: %[[A:.*]] = arith.muli %{{.*}}, %c4294967296 : index
// CHECK-NEXT: %[[B:.*]] = arith.divsi %[[A]], %c4294967296 : index
// CHECK-NEXT: loop.load %arg0[%[[B]]]
// CHECK-NEXT: %[[C:.*]] = arith.subi %c4_i32, %{{.*}} : i32
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[C]], %c1_i32 : i32
// CHECK-NEXT: %[[E:.*]] = arith.index_cast %[[D]] : i32 to index
// CHECK-NEXT: loop.store %{{.*}}, %arg1[%[[E]]]

loop.kernel @wide_stride(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %big = arith.constant 4294967296 : index
  loop.for serial %i = %c0 to %c4 step %c1 {
    %a = arith.muli %i, %big : index
    %b = arith.divsi %a, %big : index
    %v = loop.load %x[%b] : !loop.buffer<4xf32, global>
    %c = arith.subi %c4, %i : index
    %d = arith.subi %c, %c1 : index
    loop.store %v, %y[%d] : !loop.buffer<4xf32, global>
  }
  loop.return
}

// -----

// After gpu-map: the linear thread index of a static launch (thread and block ids range over
// the block and grid attributes) fits in i32.
// CHECK-LABEL: loop.kernel @mapped
// CHECK: %[[B:.*]] = loop.block_id x
// CHECK-NEXT: %[[B32:.*]] = arith.index_cast %[[B]] : index to i32
// CHECK-NEXT: %[[T:.*]] = loop.thread_id x
// CHECK-NEXT: %[[T32:.*]] = arith.index_cast %[[T]] : index to i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[B32]], %{{.*}} : i32
// CHECK-NEXT: %[[L:.*]] = arith.addi %[[M]], %[[T32]] : i32
// CHECK-NEXT: %[[COL:.*]] = arith.remsi %[[L]], %{{.*}} : i32
// CHECK-NEXT: %[[COLI:.*]] = arith.index_cast %[[COL]] : i32 to index
// CHECK-NEXT: %[[ROW:.*]] = arith.divsi %[[L]], %{{.*}} : i32
// CHECK-NEXT: %[[ROWI:.*]] = arith.index_cast %[[ROW]] : i32 to index
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[ROWI]], %[[COLI]]] : !loop.buffer<4x64xf32, global>
loop.kernel @mapped(%x: !loop.buffer<4x64xf32, global>, %y: !loop.buffer<4x64xf32, global>) attributes {block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %b = loop.block_id x
  %t = loop.thread_id x
  %0 = arith.muli %b, %c256 : index
  %1 = arith.addi %0, %t : index
  %2 = arith.remsi %1, %c64 : index
  %3 = arith.divsi %1, %c64 : index
  %4 = loop.load %x[%3, %2] : !loop.buffer<4x64xf32, global>
  %5 = arith.addf %4, %4 : f32
  loop.store %5, %y[%3, %2] : !loop.buffer<4x64xf32, global>
  loop.return
}
