// Workload (h): a ResNet-style 3x3 convolution with bias and relu, y = relu(conv(x, w) + b),
// x [N, C, H, W] (NCHW), w [O, C, 3, 3] (OIHW), stride 1, padding 1, b [O, 1, 1].
// A template: {N}, {C}, {H}, {W} and {O} are replaced by tools/bench/src/workloads.rs.
func.func @conv(%x: tensor<{N}x{C}x{H}x{W}xf32>, %w: tensor<{O}x{C}x3x3xf32>, %b: tensor<{O}x1x1xf32>) -> tensor<{N}x{O}x{H}x{W}xf32> {
  %c = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<{N}x{C}x{H}x{W}xf32>, tensor<{O}x{C}x3x3xf32> -> tensor<{N}x{O}x{H}x{W}xf32>
  %s = graph.add %c, %b : tensor<{N}x{O}x{H}x{W}xf32>, tensor<{O}x1x1xf32> -> tensor<{N}x{O}x{H}x{W}xf32>
  %y = graph.relu %s : tensor<{N}x{O}x{H}x{W}xf32>
  return %y : tensor<{N}x{O}x{H}x{W}xf32>
}
