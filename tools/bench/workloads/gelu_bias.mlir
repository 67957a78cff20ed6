// Workload (a): y = gelu_tanh(x * w + b), x [M, N], w and b [N] broadcast over the rows. An
// elementwise chain over one large tensor: bound by memory bandwidth once fused and vectorized.
// A template: {M} and {N} are replaced by tools/bench/src/workloads.rs.
func.func @gelu_bias(%x: tensor<{M}x{N}xf32>, %w: tensor<{N}xf32>, %b: tensor<{N}xf32>) -> tensor<{M}x{N}xf32> {
  %xw = graph.mul %x, %w : tensor<{M}x{N}xf32>, tensor<{N}xf32> -> tensor<{M}x{N}xf32>
  %h = graph.add %xw, %b : tensor<{M}x{N}xf32>, tensor<{N}xf32> -> tensor<{M}x{N}xf32>
  %y = graph.gelu %h {approximate = "tanh"} : tensor<{M}x{N}xf32>
  return %y : tensor<{M}x{N}xf32>
}
