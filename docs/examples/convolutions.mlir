// Convolutions as `lower` runs them: with a column stride of 1 and output rows of at least 32
// columns (or one channel per group), `decompose` splits the padding off and `lower` makes the
// convolution an implicit GEMM (rows the output channels, vectors along an output row, the
// window's taps unrolled); others go through im2col (a 1x1 window without a gather). The
// output widths (37, 20, 34) leave column remainders for the narrower tiles of `tile`.
// Run with `dlc-run docs/examples/convolutions.mlir --entry=<name> --check`.

// ResNet-style 3x3, padding 1, bias and relu fused into the convolution's kernel.
func.func @conv_bias_relu(%x: tensor<1x8x6x37xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16x1x1xf32>) -> tensor<1x16x6x37xf32> {
  %c = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x37xf32>, tensor<16x8x3x3xf32> -> tensor<1x16x6x37xf32>
  %s = graph.add %c, %b : tensor<1x16x6x37xf32>, tensor<16x1x1xf32> -> tensor<1x16x6x37xf32>
  %y = graph.relu %s : tensor<1x16x6x37xf32>
  return %y : tensor<1x16x6x37xf32>
}

// Depthwise (one channel per group): each row of the implicit GEMM reads its own channel.
func.func @depthwise(%x: tensor<2x12x5x20xf32>, %w: tensor<12x1x3x3xf32>) -> tensor<2x12x5x20xf32> {
  %y = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 12 : i64} : tensor<2x12x5x20xf32>, tensor<12x1x3x3xf32> -> tensor<2x12x5x20xf32>
  return %y : tensor<2x12x5x20xf32>
}

// Two groups, a row stride of 2 and a column dilation of 2, no padding.
func.func @grouped_dilated(%x: tensor<1x4x9x38xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x4x34xf32> {
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>, groups = 2 : i64} : tensor<1x4x9x38xf32>, tensor<8x2x3x3xf32> -> tensor<1x8x4x34xf32>
  return %y : tensor<1x8x4x34xf32>
}

// A pointwise (1x1) convolution over narrow rows (a matmul over all 68 pixels) and a column
// stride of 2 (im2col) in one function.
func.func @pointwise_strided(%x: tensor<1x16x4x17xf32>, %w1: tensor<8x16x1x1xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<1x8x2x8xf32> {
  %p = graph.conv2d %x, %w1 : tensor<1x16x4x17xf32>, tensor<8x16x1x1xf32> -> tensor<1x8x4x17xf32>
  %y = graph.conv2d %p, %w2 {strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 0>} : tensor<1x8x4x17xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x2x8xf32>
  return %y : tensor<1x8x2x8xf32>
}
