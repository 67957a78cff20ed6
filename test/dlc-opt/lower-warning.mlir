// A loop pass on graph-level input warns that `lower` is needed when the pipeline runs as
// written; with `lower` first, or with the `lower` dlc-opt inserts by default, no warning.
// RUN: dlc-opt %s --pipeline=fuse,plan-memory --no-implicit-lowering 2>&1 | FileCheck %s
// RUN: dlc-opt %s --pipeline=fuse,lower,plan-memory 2>&1 | FileCheck %s --check-prefix=LOWERED
// RUN: dlc-opt %s --pipeline=fuse,plan-memory 2>&1 | FileCheck %s --check-prefix=LOWERED

// CHECK: warning: 'plan-memory' is a loop pass but the input is graph-level IR, which it does not transform; add 'lower' before it (e.g. --pipeline=decompose,fuse,lower,plan-memory)
// CHECK: graph.fusion

// LOWERED-NOT: warning
// LOWERED: loop.kernel @f_0_fusion
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.tanh %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
