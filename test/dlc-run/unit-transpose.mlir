// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=IR

// A squeeze-excitation block (pool, 1x1 convolution down with relu, 1x1 convolution up with
// hardsigmoid, scale) over a pooled `[1, 16, 1, 1]`: its convolutions decompose to narrow
// matmuls between transposes that move only dims of size 1. `fuse` makes those transposes
// reshapes, so no kernel copies them and each matmul takes its activation; the compiled
// program matches the interpreter on the graph as written. The weights are splat constants,
// which a matmul in a fusion reads as values (it once failed to lower them).

// IR-NOT: loop.kernel @main_{{[0-9]+}}_transpose
// IR-COUNT-4: loop.kernel @main_{{[0-9]+}}_{{reduce_mean|fusion|mul}}
// IR-NOT: loop.kernel @
// CHECK: check output 0: {{.*}}: ok

func.func @main(%x: tensor<1x16x6x6xf32>, %b1: tensor<4x1x1xf32>, %b2: tensor<16x1x1xf32>) -> tensor<1x16x6x6xf32> {
  %w1 = graph.constant dense<0.25> : tensor<4x16x1x1xf32>
  %w2 = graph.constant dense<-0.5> : tensor<16x4x1x1xf32>
  %p = graph.reduce_mean %x {axes = array<i64: 2, 3>, keepdim = true} : tensor<1x16x6x6xf32> -> tensor<1x16x1x1xf32>
  %c1 = graph.conv2d %p, %w1 {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x16x1x1xf32>, tensor<4x16x1x1xf32> -> tensor<1x4x1x1xf32>
  %a1 = graph.add %c1, %b1 : tensor<1x4x1x1xf32>, tensor<4x1x1xf32> -> tensor<1x4x1x1xf32>
  %r = graph.relu %a1 : tensor<1x4x1x1xf32>
  %c2 = graph.conv2d %r, %w2 {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x1x1xf32>, tensor<16x4x1x1xf32> -> tensor<1x16x1x1xf32>
  %a2 = graph.add %c2, %b2 : tensor<1x16x1x1xf32>, tensor<16x1x1xf32> -> tensor<1x16x1x1xf32>
  %s = graph.sigmoid %a2 : tensor<1x16x1x1xf32>
  %y = graph.mul %x, %s : tensor<1x16x6x6xf32>, tensor<1x16x1x1xf32> -> tensor<1x16x6x6xf32>
  return %y : tensor<1x16x6x6xf32>
}
