// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=IR

// Padded windows gathered for im2col (output rows narrower than 32 columns): a 1x1
// convolution over 5x5 pixels runs as a matmul whose `[.., 25]` result is reshaped to NCHW;
// the 3x3 convolution with padding 1 after its bias and relu, and the max pool with padding 1
// after that, gather their windows from the flattened `[1, 8, 25]` with one element more at
// the end, holding the padding value (0, then -inf), which the border positions read. The
// matmul's kernel writes its rows one element longer and that element; the 3x3
// convolution's product reads its windows through the table (its gather is no kernel), and
// the pool's gather reads the convolution's result extended the same way: no kernel is a
// pad, and the compiled program matches the interpreter.

// IR-NOT: loop.kernel @main_{{[0-9]+}}_pad
// IR: loop.kernel @main_{{[0-9]+}}_fusion
// IR: loop.kernel @main_{{[0-9]+}}_fusion
// IR: loop.kernel @main_{{[0-9]+}}_gather
// IR: loop.kernel @main_{{[0-9]+}}_reduce_max
// IR-NOT: loop.kernel @
// CHECK: check output 0: {{.*}}: ok

func.func @main(%x: tensor<1x4x5x5xf32>, %w1: tensor<8x4x1x1xf32>, %b: tensor<8x1x1xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<1x8x5x5xf32> {
  %c = graph.conv2d %x, %w1 : tensor<1x4x5x5xf32>, tensor<8x4x1x1xf32> -> tensor<1x8x5x5xf32>
  %s = graph.add %c, %b : tensor<1x8x5x5xf32>, tensor<8x1x1xf32> -> tensor<1x8x5x5xf32>
  %r = graph.relu %s : tensor<1x8x5x5xf32>
  %d = graph.conv2d %r, %w2 {padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x5x5xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x5x5xf32>
  %t = graph.tanh %d : tensor<1x8x5x5xf32>
  %p = graph.max_pool2d %t {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x5x5xf32> -> tensor<1x8x5x5xf32>
  return %p : tensor<1x8x5x5xf32>
}
