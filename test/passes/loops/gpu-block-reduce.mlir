// RUN: dlc-opt %s --pipeline=gpu-block-reduce,gpu-map --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='gpu-block-reduce{block-size=64},gpu-map' --split-input-file | FileCheck %s --check-prefix=SIZE64
// Alone, the pass leaves the kernels that do not fit one block per point unmapped (for gpu-map).
// RUN: dlc-opt %s --pipeline=gpu-block-reduce --split-input-file | FileCheck %s --check-prefix=ALONE
// ALONE-LABEL: loop.kernel @softmax_0_fusion
// ALONE-SAME: block = [16 : index, 1 : index, 1 : index]
// ALONE-LABEL: loop.kernel @row_sum
// ALONE-SAME: block = [128 : index, 1 : index, 1 : index]
// ALONE-LABEL: loop.kernel @two_axes
// ALONE-NOT: block =
// ALONE: loop.for parallel
// ALONE-LABEL: loop.kernel @not_identity
// ALONE-NOT: block =
// ALONE: loop.for parallel
// RUN: not dlc-opt %s --pipeline='gpu-block-reduce{block-size=2048}' 2>&1 | FileCheck %s --check-prefix=BADSIZE
// BADSIZE: pass 'gpu-block-reduce': option 'block-size': 2048 is not in 1..=1024

// The softmax kernel of `decompose,fuse,lower{target=gpu} docs/examples/softmax.mlir`: one block
// per row (the grid is the row count, passed by the host), 16 threads (K = 16) split every
// reduce nest; the inits move before their nest and each accumulator is combined after it.
// CHECK-LABEL: loop.kernel @softmax_0_fusion
// CHECK-SAME: block = [16 : index, 1 : index, 1 : index], grid = ["arg4", 1 : index, 1 : index]
// CHECK: %[[B:.*]] = loop.block_id x
// CHECK: %[[T:.*]] = loop.thread_id x
// CHECK: %[[G:.*]] = arith.cmpi slt, %[[B]], %{{.*}} : index
// CHECK: loop.if %[[G]] {
// CHECK: %[[MAX0:.*]] = loop.alloc : !loop.buffer<f32, local>
// CHECK: %[[STEP:.*]] = arith.constant 16 : index
// CHECK: loop.store %{{.*}}, %[[MAX0]][]
// CHECK: loop.for serial %[[K:.*]] = %[[T]] to %c16 step %[[STEP]] {
// CHECK-NEXT: loop.schedule_block "reduce_max_0" (%{{.*}} = %[[B]], %{{.*}} = %[[K]] reduce) {
// CHECK: %[[M:.*]] = loop.block_reduce %{{.*}} {kind = "max"} : f32
// CHECK-NEXT: loop.store %[[M]], %[[MAX0]][]
// CHECK: loop.block_reduce %{{.*}} {kind = "max"} : f32
// CHECK: loop.for serial %{{.*}} = %[[T]] to %c16 step
// CHECK-NOT: init
// CHECK: loop.block_reduce %{{.*}} {kind = "add"} : f32
// CHECK: loop.block_reduce %{{.*}} {kind = "add"} : f32
// CHECK: loop.schedule_block "log_8"
// CHECK: loop.for serial %{{.*}} = %[[T]] to %c16 step
// CHECK: func.func @softmax
// CHECK: loop.launch @softmax_0_fusion(%arg0, %1, %2, %0, %{{.*}})
// SIZE64-LABEL: loop.kernel @softmax_0_fusion
// SIZE64-SAME: block = [16 : index, 1 : index, 1 : index]
// SIZE64-LABEL: loop.kernel @row_sum
// SIZE64-SAME: block = [64 : index, 1 : index, 1 : index], grid = [4 : index, 1 : index, 1 : index]
module {
  loop.kernel @softmax_0_fusion(%arg0: !loop.buffer<?x16xf32, global>, %arg1: !loop.buffer<?x16xf32, global>, %arg2: !loop.buffer<?x16xf32, global>, %arg3: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    loop.for parallel %arg4 = %c0 to %arg3 step %c1 {
      %0 = loop.alloc : !loop.buffer<f32, local>
      %1 = loop.alloc : !loop.buffer<f32, local>
      %2 = loop.alloc : !loop.buffer<16xf32, local>
      %3 = loop.alloc : !loop.buffer<f32, local>
      %4 = loop.alloc : !loop.buffer<f32, local>
      %5 = loop.alloc : !loop.buffer<16xf32, local>
      %6 = loop.alloc : !loop.buffer<f32, local>
      %7 = loop.alloc : !loop.buffer<f32, local>
      %8 = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %arg5 = %c0 to %c16 step %c1 {
        loop.schedule_block "reduce_max_0" (%arg6 = %arg4, %arg7 = %arg5 reduce) init {
          %cst = arith.constant 0xFF800000 : f32
          loop.store %cst, %0[] : !loop.buffer<f32, local>
          loop.yield
        } {
          %9 = loop.load %arg0[%arg6, %arg7] : !loop.buffer<?x16xf32, global>
          %10 = loop.load %0[] : !loop.buffer<f32, local>
          %11 = arith.maximumf %10, %9 : f32
          loop.store %11, %0[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.schedule_block "reduce_max_1" (%arg6 = %arg4, %arg7 = %arg5 reduce) init {
          %cst = arith.constant 0xFF800000 : f32
          loop.store %cst, %4[] : !loop.buffer<f32, local>
          loop.yield
        } {
          %9 = loop.load %arg0[%arg6, %arg7] : !loop.buffer<?x16xf32, global>
          %10 = loop.load %4[] : !loop.buffer<f32, local>
          %11 = arith.maximumf %10, %9 : f32
          loop.store %11, %4[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.yield
      }
      loop.for serial %arg5 = %c0 to %c16 step %c1 {
        loop.schedule_block "sub_2" (%arg6 = %arg4, %arg7 = %arg5) {
          %9 = loop.load %arg0[%arg6, %arg7] : !loop.buffer<?x16xf32, global>
          %10 = loop.load %0[] : !loop.buffer<f32, local>
          %11 = arith.subf %9, %10 : f32
          loop.store %11, %1[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.schedule_block "exp_3" (%arg6 = %arg4, %arg7 = %arg5) {
          %9 = loop.load %1[] : !loop.buffer<f32, local>
          %10 = math.exp %9 : f32
          loop.store %10, %2[%arg7] : !loop.buffer<16xf32, local>
          loop.yield
        }
        loop.schedule_block "reduce_sum_4" (%arg6 = %arg4, %arg7 = %arg5 reduce) init {
          %cst = arith.constant 0.000000e+00 : f32
          loop.store %cst, %3[] : !loop.buffer<f32, local>
          loop.yield
        } {
          %9 = loop.load %2[%arg7] : !loop.buffer<16xf32, local>
          %10 = loop.load %3[] : !loop.buffer<f32, local>
          %11 = arith.addf %10, %9 : f32
          loop.store %11, %3[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.schedule_block "sub_5" (%arg6 = %arg4, %arg7 = %arg5) {
          %9 = loop.load %arg0[%arg6, %arg7] : !loop.buffer<?x16xf32, global>
          %10 = loop.load %4[] : !loop.buffer<f32, local>
          %11 = arith.subf %9, %10 : f32
          loop.store %11, %5[%arg7] : !loop.buffer<16xf32, local>
          loop.yield
        }
        loop.schedule_block "exp_6" (%arg6 = %arg4, %arg7 = %arg5) {
          %9 = loop.load %5[%arg7] : !loop.buffer<16xf32, local>
          %10 = math.exp %9 : f32
          loop.store %10, %6[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.schedule_block "reduce_sum_7" (%arg6 = %arg4, %arg7 = %arg5 reduce) init {
          %cst = arith.constant 0.000000e+00 : f32
          loop.store %cst, %7[] : !loop.buffer<f32, local>
          loop.yield
        } {
          %9 = loop.load %6[] : !loop.buffer<f32, local>
          %10 = loop.load %7[] : !loop.buffer<f32, local>
          %11 = arith.addf %10, %9 : f32
          loop.store %11, %7[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.yield
      }
      loop.schedule_block "log_8" (%arg5 = %arg4) {
        %9 = loop.load %7[] : !loop.buffer<f32, local>
        %10 = math.log %9 : f32
        loop.store %10, %8[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.for serial %arg5 = %c0 to %c16 step %c1 {
        loop.schedule_block "div_9" (%arg6 = %arg4, %arg7 = %arg5) {
          %9 = loop.load %2[%arg7] : !loop.buffer<16xf32, local>
          %10 = loop.load %3[] : !loop.buffer<f32, local>
          %11 = arith.divf %9, %10 : f32
          loop.store %11, %arg1[%arg6, %arg7] : !loop.buffer<?x16xf32, global>
          loop.yield
        }
        loop.schedule_block "sub_10" (%arg6 = %arg4, %arg7 = %arg5) {
          %9 = loop.load %5[%arg7] : !loop.buffer<16xf32, local>
          %10 = loop.load %8[] : !loop.buffer<f32, local>
          %11 = arith.subf %9, %10 : f32
          loop.store %11, %arg2[%arg6, %arg7] : !loop.buffer<?x16xf32, global>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  func.func @softmax(%arg0: !loop.buffer<?x16xf32, global>) -> (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>) {
    %0 = loop.dim %arg0, 0 : !loop.buffer<?x16xf32, global>
    %1 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
    %2 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
    loop.launch @softmax_0_fusion(%arg0, %1, %2, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
    return %1, %2 : !loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>
  }
}


// -----

// A row sum with a write-back block: 100 reduce iterations give 128 threads (block-size=64
// caps it at 64, see SIZE64); the global store outside the nest runs in thread 0 only, the
// rest of its schedule block in every thread.
// CHECK-LABEL: loop.kernel @row_sum
// CHECK-SAME: block = [128 : index, 1 : index, 1 : index], grid = [4 : index, 1 : index, 1 : index]
// CHECK: %[[B:.*]] = loop.block_id x
// CHECK: %[[T:.*]] = loop.thread_id x
// CHECK: %[[ACC:.*]] = loop.alloc : !loop.buffer<1xf32, local>
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: loop.store %{{.*}}, %[[ACC]][%c0]
// CHECK: loop.for serial %[[K:.*]] = %[[T]] to %c100 step %[[C128]] {
// CHECK: loop.schedule_block "sum" (%{{.*}} = %[[B]], %{{.*}} = %[[K]] reduce) {
// CHECK: %[[TOT:.*]] = loop.block_reduce %{{.*}} {kind = "add"} : f32
// CHECK: loop.store %[[TOT]], %[[ACC]][%c0]
// CHECK: loop.schedule_block "write"
// CHECK-NEXT: %[[V:.*]] = loop.load %[[ACC]][%c0]
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK-NEXT: loop.if %[[IS0]] {
// CHECK-NEXT: loop.store %[[V]], %{{.*}}[%{{.*}}] : !loop.buffer<4xf32, global>
loop.kernel @row_sum(%x: !loop.buffer<4x100xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  loop.for parallel %i = %c0 to %c4 step %c1 {
    %acc = loop.alloc : !loop.buffer<1xf32, local>
    loop.for serial %k = %c0 to %c100 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %acc[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<4x100xf32, global>
        %a = loop.load %acc[%c0] : !loop.buffer<1xf32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      }
      loop.yield
    }
    loop.schedule_block "write" (%i0 = %i) {
      %a = loop.load %acc[%c0] : !loop.buffer<1xf32, local>
      loop.store %a, %y[%i0] : !loop.buffer<4xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Counter-example: two reduce axes (a nest inside the nest): gpu-block-reduce leaves the kernel
// to gpu-map, one thread per point, no loop.block_reduce.
// CHECK-LABEL: loop.kernel @two_axes
// CHECK-SAME: block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]
// CHECK-NOT: loop.block_reduce
// CHECK: loop.for serial
// CHECK: loop.for serial
loop.kernel @two_axes(%x: !loop.buffer<4x8x8xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for parallel %i = %c0 to %c4 step %c1 {
    %acc = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.for serial %l = %c0 to %c8 step %c1 {
        loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce, %l0 = %l reduce) init {
          %zero = arith.constant 0.0 : f32
          loop.store %zero, %acc[] : !loop.buffer<f32, local>
          loop.yield
        } {
          %v = loop.load %x[%i0, %k0, %l0] : !loop.buffer<4x8x8xf32, global>
          %a = loop.load %acc[] : !loop.buffer<f32, local>
          %s = arith.addf %a, %v : f32
          loop.store %s, %acc[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.schedule_block "write" (%i0 = %i) {
      %a = loop.load %acc[] : !loop.buffer<f32, local>
      loop.store %a, %y[%i0] : !loop.buffer<4xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}

// -----

// Counter-example: the init stores 1.0, not the identity of add: every thread would add it,
// so gpu-block-reduce leaves the kernel to gpu-map.
// CHECK-LABEL: loop.kernel @not_identity
// CHECK-SAME: block = [256 : index, 1 : index, 1 : index]
// CHECK-NOT: loop.block_reduce
// CHECK: init {
loop.kernel @not_identity(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for parallel %i = %c0 to %c4 step %c1 {
    %acc = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %k = %c0 to %c8 step %c1 {
      loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init {
        %one = arith.constant 1.0 : f32
        loop.store %one, %acc[] : !loop.buffer<f32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
        %a = loop.load %acc[] : !loop.buffer<f32, local>
        %s = arith.addf %a, %v : f32
        loop.store %s, %acc[] : !loop.buffer<f32, local>
        loop.yield
      }
      loop.yield
    }
    loop.schedule_block "write" (%i0 = %i) {
      %a = loop.load %acc[] : !loop.buffer<f32, local>
      loop.store %a, %y[%i0] : !loop.buffer<4xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
