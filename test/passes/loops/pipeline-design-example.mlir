// The design example `dlc-opt --pipeline=fuse,simplify,gpu-map input.ir`: on graph-level input
// dlc-opt inserts `decompose` and `lower{target=gpu}` (a remark says so) and the graph function
// becomes a simplified, GPU-mapped kernel; on loop-level input it simplifies and maps the kernel
// to the GPU (the inserted `lower` leaves loop IR alone). With --no-implicit-lowering it warns
// that `lower` is needed and changes only what `fuse` changes.

// RUN: dlc-opt %s --pipeline=fuse,simplify,gpu-map --split-input-file 2>&1 | FileCheck %s
// RUN: dlc-opt %s --pipeline=fuse,simplify,gpu-map --no-implicit-lowering --split-input-file 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: dlc-opt %s --pipeline=fuse,lower,gpu-default --split-input-file 2>&1 | FileCheck %s --check-prefix=E2E

// `fuse,lower,gpu-default` works end to end: the graph function becomes a GPU-mapped kernel
// and a host function launching it (no warning: `lower` runs first).
// E2E-NOT:   warning
// E2E-LABEL: loop.kernel @graph_level_0_fusion
// E2E-SAME:    block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]
// E2E:         loop.thread_id x
// E2E:         math.exp
// E2E:         math.tanh
// E2E-LABEL: func.func @graph_level
// E2E:         loop.launch @graph_level_0_fusion

// CHECK: remark: implicit lowering: inserted 'decompose' before 'fuse' and 'lower{target=gpu}' before 'simplify'
// CHECK-NOT: warning
// CHECK-LABEL: loop.kernel @graph_level_0_fusion
// CHECK-SAME:    block = [256 : index, 1 : index, 1 : index]
// CHECK:         math.exp
// CHECK-LABEL: func.func @graph_level
// CHECK:         loop.launch @graph_level_0_fusion

// RAW: warning: 'simplify' is a loop pass but the input is graph-level IR, which it does not transform; add 'lower' before it (e.g. --pipeline=decompose,fuse,lower,simplify)
// RAW-LABEL: func.func @graph_level
// RAW:         graph.fusion
func.func @graph_level(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.tanh %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// CHECK-NOT: warning
// CHECK-LABEL: loop.kernel @add
// CHECK-SAME:    block = [256 : index, 1 : index, 1 : index]
// CHECK:         loop.thread_id x
// CHECK-NOT:     loop.for parallel
loop.kernel @add(%a: !loop.buffer<1024xf32, global>, %b: !loop.buffer<1024xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  loop.for parallel %i = %c0 to %c1024 step %c1 {
    loop.schedule_block "add" (%i0 = %i) {
      %x = loop.load %a[%i0] : !loop.buffer<1024xf32, global>
      %y = arith.addf %x, %x : f32
      loop.store %y, %b[%i0] : !loop.buffer<1024xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
