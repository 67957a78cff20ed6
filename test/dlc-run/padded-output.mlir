// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=IR

// Two padded convolutions that run direct, the first over a relu of the input, the second
// over the first's result with bias and relu (a depthwise 5x5 with padding 2), and a pad with
// a nonzero value of a negation: each pad's producer writes the padded buffer and its
// border, so no kernel is a pad, and the compiled program matches the interpreter.

// IR-NOT: loop.kernel @main_{{[0-9]+}}_pad
// IR: loop.kernel @main_{{[0-9]+}}_relu
// IR: loop.kernel @main_{{[0-9]+}}_{{conv2d|fusion}}
// IR: loop.kernel @main_{{[0-9]+}}_{{conv2d|fusion}}
// IR: loop.kernel @main_{{[0-9]+}}_neg
// IR-NOT: loop.kernel @
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok

func.func @main(%x: tensor<1x4x6x40xf32>, %w: tensor<8x4x3x3xf32>, %dw: tensor<8x1x5x5xf32>, %b: tensor<8x1x1xf32>, %v: tensor<3x2x4xf32>) -> (tensor<1x8x6x40xf32>, tensor<3x3x6xf32>) {
  %r = graph.relu %x : tensor<1x4x6x40xf32>
  %c = graph.conv2d %r, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x40xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x6x40xf32>
  %s = graph.add %c, %b : tensor<1x8x6x40xf32>, tensor<8x1x1xf32> -> tensor<1x8x6x40xf32>
  %t = graph.relu %s : tensor<1x8x6x40xf32>
  %d = graph.conv2d %t, %dw {padding = array<i64: 2, 2, 2, 2>, groups = 8 : i64} : tensor<1x8x6x40xf32>, tensor<8x1x5x5xf32> -> tensor<1x8x6x40xf32>
  %m = graph.neg %v : tensor<3x2x4xf32>
  %p = graph.pad %m {high = array<i64: 0, 1, 1>, low = array<i64: 0, 0, 1>, value = 0.5 : f32} : tensor<3x2x4xf32> -> tensor<3x3x6xf32>
  return %d, %p : tensor<1x8x6x40xf32>, tensor<3x3x6xf32>
}
