// RUN: dlc-opt %s --pipeline='cross-thread-reduce{expand-block-reduce=false}' --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=cross-thread-reduce --split-input-file | FileCheck %s --check-prefix=EXPAND
// RUN: dlc-opt %s --pipeline=cross-thread-reduce --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Statistics over the cases below: doc examples 1 and 2, the local accumulator and the one
// thread case are replaced; the block reductions of doc example 1, the local accumulator and
// the three standalone block_reduce kernels of at most 1024 threads are expanded; the
// reduction over 2048 threads is too wide.
// STATS: cross-thread-reduce
// STATS-NEXT: (S) 4 reductions-replaced
// STATS-NEXT: (S) 5 block-reduces-expanded
// STATS-NEXT: (S) 1 reductions-too-wide

// Doc example 1: a row sum over 64 threads becomes a block reduction; thread 0 adds the total
// to the row's element, and a barrier publishes it to the block.
// CHECK-LABEL: loop.kernel @row_sum
// CHECK: loop.schedule_block "row_sum" (%[[I:.*]] = %{{.*}}, %[[K:.*]] = %{{.*}} reduce) attributes {reduce_method = "block"} init {
// CHECK: } {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0[%[[I]], %[[K]]] : !loop.buffer<4x64xf32, global>
// CHECK-NEXT: %[[R:.*]] = loop.block_reduce %[[V]] {kind = "add"} : f32
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %[[C0]] : index
// CHECK-NEXT: loop.if %[[FIRST]] {
// CHECK-NEXT: %[[A:.*]] = loop.load %arg1[%[[I]]] : !loop.buffer<4xf32, global>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[R]] : f32
// CHECK-NEXT: loop.store %[[S]], %arg1[%[[I]]] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.barrier
// CHECK-NEXT: loop.yield

// Expanded: one shared slot per warp (64 threads: 2) and one for the total, lane 0 of each warp
// stores, barrier, warp 0 combines (the identity past the last warp, whose lanes read slot 0)
// and lane 0 stores the total to the last slot (slot 0 may still be read), barrier, everyone
// reads, barrier.
// EXPAND-LABEL: loop.kernel @row_sum
// EXPAND-NEXT: %[[SHM:.*]] = loop.alloc : !loop.buffer<3xf32, shared>
// EXPAND: %[[W:.*]] = loop.warp_reduce %{{.*}} {kind = "add"} : f32
// EXPAND: %[[TS:c2.*]] = arith.constant 2 : index
// EXPAND: %[[LANE:.*]] = arith.remui %[[TID:.*]], %c32 : index
// EXPAND-NEXT: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
// EXPAND-NEXT: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %[[Z:.*]] : index
// EXPAND-NEXT: loop.if %[[LANE0]] {
// EXPAND-NEXT: loop.store %[[W]], %[[SHM]][%[[WARP]]] : !loop.buffer<3xf32, shared>
// EXPAND: loop.barrier
// EXPAND-NEXT: %[[WARP0:.*]] = arith.cmpi eq, %[[WARP]], %[[Z]] : index
// EXPAND-NEXT: loop.if %[[WARP0]] {
// EXPAND-NEXT: %[[HAS:.*]] = arith.cmpi ult, %[[LANE]], %c2 : index
// EXPAND-NEXT: %[[SLOT:.*]] = arith.select %[[HAS]], %[[LANE]], %[[Z]] : index
// EXPAND-NEXT: %[[P:.*]] = loop.load %[[SHM]][%[[SLOT]]] : !loop.buffer<3xf32, shared>
// EXPAND-NEXT: %[[ID:.*]] = arith.constant 0.000000e+00 : f32
// EXPAND-NEXT: %[[SEL:.*]] = arith.select %[[HAS]], %[[P]], %[[ID]] : f32
// EXPAND-NEXT: %[[T:.*]] = loop.warp_reduce %[[SEL]] {kind = "add"} : f32
// EXPAND-NEXT: loop.if %[[LANE0]] {
// EXPAND-NEXT: loop.store %[[T]], %[[SHM]][%[[TS]]] : !loop.buffer<3xf32, shared>
// EXPAND: loop.barrier
// EXPAND-NEXT: %[[TOTAL:.*]] = loop.load %[[SHM]][%[[TS]]] : !loop.buffer<3xf32, shared>
// EXPAND-NEXT: loop.barrier
// EXPAND-NOT: loop.block_reduce
// EXPAND: arith.addf %{{.*}}, %[[TOTAL]] : f32
loop.kernel @row_sum(%x: !loop.buffer<4x64xf32, global>, %out: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    loop.for thread.x %k = %c0 to %c64 step %c1 {
      loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
      } {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x64xf32, global>
        %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Doc example 2: 32 threads, one warp: a warp reduction, no shared memory.
// CHECK-LABEL: loop.kernel @row_max
// CHECK: attributes {reduce_method = "warp"}
// CHECK: %[[R:.*]] = loop.warp_reduce %{{.*}} {kind = "max"} : f32
// CHECK: loop.if
// CHECK: arith.maximumf %{{.*}}, %[[R]] : f32
// EXPAND-LABEL: loop.kernel @row_max
// EXPAND-NOT: shared
// EXPAND: loop.return

loop.kernel @row_max(%x: !loop.buffer<4x32xf32, global>, %out: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    loop.for thread.x %k = %c0 to %c32 step %c1 {
      loop.schedule_block "row_max" (%i = %row, %kk = %k reduce) init {
        %ninf = arith.constant 0xFF800000 : f32
        loop.store %ninf, %out[%i] : !loop.buffer<4xf32, global>
      } {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x32xf32, global>
        %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
        %m = arith.maximumf %a, %v : f32
        loop.store %m, %out[%i] : !loop.buffer<4xf32, global>
      }
    }
  }
  loop.return
}

// -----

// Counter-example 1: a symbolic thread extent; the number of threads is unknown.
// CHECK-LABEL: loop.kernel @symbolic
// CHECK-NOT: reduce_method
// CHECK-NOT: _reduce
// CHECK: arith.addf
loop.kernel @symbolic(%x: !loop.buffer<4x?xf32, global>, %out: !loop.buffer<4xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    loop.for thread.x %k = %c0 to %n step %c1 {
      loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x?xf32, global>
        %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
      }
    }
  }
  loop.return
}


// -----

// Counter-example 2: the body also stores to another buffer.
// CHECK-LABEL: loop.kernel @extra_store
// CHECK-NOT: reduce_method
// CHECK-NOT: _reduce
// CHECK: loop.return

loop.kernel @extra_store(%x: !loop.buffer<4x64xf32, global>, %out: !loop.buffer<4xf32, global>, %copy: !loop.buffer<4x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    loop.for thread.x %k = %c0 to %c64 step %c1 {
      loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x64xf32, global>
        loop.store %v, %copy[%i, %kk] : !loop.buffer<4x64xf32, global>
        %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
      }
    }
  }
  loop.return
}


// -----

// A thread-private (local) accumulator: every thread keeps the total; threads other than 0
// first run the init on their own copy.
// CHECK-LABEL: loop.kernel @local_acc
// CHECK: %[[ACC:.*]] = loop.alloc : !loop.buffer<i32, local>
// CHECK: attributes {reduce_method = "block"}
// CHECK: %[[R:.*]] = loop.block_reduce %{{.*}} {kind = "max"} : i32
// CHECK: %[[NOT_FIRST:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: loop.if %[[NOT_FIRST]] {
// CHECK-NEXT: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT: loop.store %[[MIN]], %[[ACC]][] : !loop.buffer<i32, local>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[A:.*]] = loop.load %[[ACC]][] : !loop.buffer<i32, local>
// CHECK-NEXT: %[[M:.*]] = arith.maxsi %[[A]], %[[R]] : i32
// CHECK-NEXT: loop.store %[[M]], %[[ACC]][] : !loop.buffer<i32, local>
// EXPAND-LABEL: loop.kernel @local_acc
// EXPAND: loop.alloc : !loop.buffer<3xi32, shared>
// EXPAND: arith.constant -2147483648 : i32

loop.kernel @local_acc(%x: !loop.buffer<4x64xi32, global>, %out: !loop.buffer<4x64xi32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    %acc = loop.alloc : !loop.buffer<i32, local>
    loop.for thread.x %k = %c0 to %c64 step %c1 {
      loop.schedule_block "row_max" (%i = %row, %kk = %k reduce) init {
        %min = arith.constant -2147483648 : i32
        loop.store %min, %acc[] : !loop.buffer<i32, local>
      } {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x64xi32, global>
        %a = loop.load %acc[] : !loop.buffer<i32, local>
        %m = arith.maxsi %a, %v : i32
        loop.store %m, %acc[] : !loop.buffer<i32, local>
      }
      %r = loop.load %acc[] : !loop.buffer<i32, local>
      loop.store %r, %out[%row, %k] : !loop.buffer<4x64xi32, global>
    }
  }
  loop.return
}


// -----

// Edge case: one thread (reduce_method none); the init stores the identity, so acc = v.
// CHECK-LABEL: loop.kernel @one_thread
// CHECK: attributes {reduce_method = "none"}
// CHECK: } {
// CHECK-NEXT: %[[V:.*]] = loop.load %arg0
// CHECK-NEXT: loop.store %[[V]], %arg1
// CHECK-NEXT: loop.yield

loop.kernel @one_thread(%x: !loop.buffer<4x1xf32, global>, %out: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    loop.for thread.x %k = %c0 to %c1 step %c1 {
      loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
      } {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x1xf32, global>
        %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
      }
    }
  }
  loop.return
}


// -----

// A block_reduce in a block of 16 threads is one warp reduction.
// CHECK-LABEL: loop.kernel @small_block
// CHECK: loop.block_reduce
// EXPAND-LABEL: loop.kernel @small_block
// EXPAND-NOT: loop.alloc
// EXPAND: %[[W:.*]] = loop.warp_reduce %{{.*}} {kind = "add"} : f32
// EXPAND-NEXT: loop.store %[[W]], %arg1

loop.kernel @small_block(%x: !loop.buffer<16xf32, global>, %out: !loop.buffer<16xf32, global>) attributes {block = [16 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<16xf32, global>
  %s = loop.block_reduce %v {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<16xf32, global>
  loop.return
}


// -----

// A block_reduce in a block of symbolic size: the full expansion, with the i32 identity of min.
// EXPAND-LABEL: loop.kernel @dynamic_block
// EXPAND-NEXT: loop.alloc : !loop.buffer<33xi32, shared>
// EXPAND: loop.warp_reduce %{{.*}} {kind = "min"} : i32
// EXPAND: arith.constant 2147483647 : i32
// EXPAND: loop.warp_reduce %{{.*}} {kind = "min"} : i32
// EXPAND-NOT: loop.block_reduce

loop.kernel @dynamic_block(%x: !loop.buffer<?xi32, global>, %out: !loop.buffer<?xi32, global>, %n: index) attributes {block = ["arg2", 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<?xi32, global>
  %s = loop.block_reduce %v {kind = "min"} : i32
  loop.store %s, %out[%t] : !loop.buffer<?xi32, global>
  loop.return
}

// -----

// Counter-example 3: a reduction over 2048 threads. No CUDA block has more than 1024 threads,
// so no block reduction can cover it; it is left alone (and code generation refuses the
// kernel: test/codegen/errors.mlir).
// CHECK-LABEL: loop.kernel @wide_sum
// CHECK-NOT: reduce_method
// CHECK-NOT: _reduce
// CHECK: arith.addf
// EXPAND-LABEL: loop.kernel @wide_sum
// EXPAND-NOT: loop.alloc
// EXPAND-NOT: _reduce
// EXPAND: loop.return

loop.kernel @wide_sum(%x: !loop.buffer<4x2048xf32, global>, %out: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c2048 = arith.constant 2048 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    loop.for thread.x %k = %c0 to %c2048 step %c1 {
      loop.schedule_block "wide_sum" (%i = %row, %kk = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
      } {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x2048xf32, global>
        %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
      }
    }
  }
  loop.return
}

// -----

// A block_reduce in a block of 2048 threads, which no device launches: it is not expanded.
// EXPAND-LABEL: loop.kernel @wide_block
// EXPAND-NOT: loop.alloc
// EXPAND: loop.block_reduce

loop.kernel @wide_block(%x: !loop.buffer<2048xf32, global>, %out: !loop.buffer<2048xf32, global>) attributes {block = [2048 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<2048xf32, global>
  %s = loop.block_reduce %v {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<2048xf32, global>
  loop.return
}

// -----

// A block_reduce in a block of 40 threads: two warps (the second has 8 lanes), so two shared
// slots and the total's; lanes 2 to 31 of warp 0 read slot 0 and take the identity.
// EXPAND-LABEL: loop.kernel @partial_warp
// EXPAND-NEXT: %[[SHM:.*]] = loop.alloc : !loop.buffer<3xf32, shared>
// EXPAND: %[[HAS:.*]] = arith.cmpi ult, %[[LANE:.*]], %c2 : index
// EXPAND-NEXT: %[[SLOT:.*]] = arith.select %[[HAS]], %[[LANE]], %{{.*}} : index
// EXPAND-NEXT: loop.load %[[SHM]][%[[SLOT]]] : !loop.buffer<3xf32, shared>
// EXPAND-NOT: loop.block_reduce

loop.kernel @partial_warp(%x: !loop.buffer<40xf32, global>, %out: !loop.buffer<40xf32, global>) attributes {block = [40 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<40xf32, global>
  %s = loop.block_reduce %v {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<40xf32, global>
  loop.return
}
