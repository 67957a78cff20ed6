// Workload (f): a two-layer perceptron, y = gelu_tanh(x · w1 + b1) · w2 + b2, x [B, D],
// w1 [D, H], w2 [H, D]. Two matmuls, each with a fused epilogue.
// A template: {B}, {D} and {H} are replaced by tools/bench/src/workloads.rs.
func.func @mlp(%x: tensor<{B}x{D}xf32>, %w1: tensor<{D}x{H}xf32>, %b1: tensor<{H}xf32>, %w2: tensor<{H}x{D}xf32>, %b2: tensor<{D}xf32>) -> tensor<{B}x{D}xf32> {
  %h = graph.linear %x, %w1, %b1 : tensor<{B}x{D}xf32>, tensor<{D}x{H}xf32>, tensor<{H}xf32> -> tensor<{B}x{H}xf32>
  %a = graph.gelu %h {approximate = "tanh"} : tensor<{B}x{H}xf32>
  %y = graph.linear %a, %w2, %b2 : tensor<{B}x{H}xf32>, tensor<{H}x{D}xf32>, tensor<{D}xf32> -> tensor<{B}x{D}xf32>
  return %y : tensor<{B}x{D}xf32>
}
