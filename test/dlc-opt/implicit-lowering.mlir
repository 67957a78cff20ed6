// RUN: dlc-opt %s --pipeline=fuse,simplify,gpu-map 2>&1 | FileCheck %s
// RUN: dlc-opt %s --pipeline=fuse,simplify,gpu-map --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: dlc-opt %s --pipeline=fuse,cpu-default --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower,simplify --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLICIT
// RUN: dlc-opt %s --pipeline=fuse,simplify,gpu-map --no-implicit-lowering 2>&1 | FileCheck %s --check-prefix=RAW

// The headline command on a graph program: the flat pipeline names the passes a user cares
// about, and dlc-opt inserts the conversions between IR levels it skips (`decompose` before
// `fuse`, `lower` for the GPU before the first loop pass, as `gpu-map` is a GPU pass), says
// so in a remark, and the result is fused, simplified, GPU-mapped kernels.

// CHECK: remark: implicit lowering: inserted 'decompose' before 'fuse' and 'lower{target=gpu}' before 'simplify'
// CHECK: loop.kernel @block_0_fusion({{.*}}) attributes {block = [{{.*}}], grid = [{{.*}}]}
// CHECK-NOT: graph.
// CHECK: loop.launch @block_0_fusion

// PIPE: Pass Manager with builtin.module(decompose{{.*}},func.func(fuse{{.*}}),lower{target=gpu{{.*}}},any(simplify{{.*}}),gpu-map{{.*}})

// A CPU pipeline lowers for the CPU.
// CPU: inserted 'decompose' before 'fuse' and 'lower{target=cpu}' before 'cpu-default'
// CPU: Pass Manager with builtin.module(decompose{{.*}},func.func(fuse{{.*}}),lower{target=cpu{{.*}}},

// Counter-example: passes the pipeline names itself win, and nothing is inserted.
// EXPLICIT-NOT: remark
// EXPLICIT: Pass Manager with builtin.module(decompose{{.*}},func.func(fuse{{.*}}),lower{target=cpu{{.*}}},any(simplify

// Edge case: --no-implicit-lowering runs the pipeline as written, which leaves the graph
// program alone (with the warning that says why).
// RAW-NOT: remark
// RAW: warning: 'simplify' is a loop pass but the input is graph-level IR
// RAW: graph.gelu
func.func @block(%x: tensor<4x32xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %0 = graph.add %x, %b : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  %1 = graph.gelu %0 {approximate = "tanh"} : tensor<4x32xf32>
  return %1 : tensor<4x32xf32>
}
