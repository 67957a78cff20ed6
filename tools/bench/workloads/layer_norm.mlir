// Workload (c): layer normalization over the last axis of x [M, N] with gamma, beta [N] and
// epsilon 1e-5. Two row reductions (mean, variance) and an elementwise pass.
// A template: {M} and {N} are replaced by tools/bench/src/workloads.rs.
func.func @layer_norm(%x: tensor<{M}x{N}xf32>, %gamma: tensor<{N}xf32>, %beta: tensor<{N}xf32>) -> tensor<{M}x{N}xf32> {
  %y = graph.layer_norm %x, %gamma, %beta {axis = 1 : i64, epsilon = 1.0e-5 : f64} : tensor<{M}x{N}xf32>, tensor<{N}xf32>, tensor<{N}xf32> -> tensor<{M}x{N}xf32>
  return %y : tensor<{M}x{N}xf32>
}
