// Workload (g): RMSNorm over the last axis, y = x · rsqrt(mean(x²) + 1e-6) · gamma, x [M, N],
// gamma [N] (the norm of Llama-style decoders). One row reduction, then a scale.
// A template: {M} and {N} are replaced by tools/bench/src/workloads.rs.
func.func @rms_norm(%x: tensor<{M}x{N}xf32>, %gamma: tensor<{N}xf32>) -> tensor<{M}x{N}xf32> {
  %y = graph.rms_norm %x, %gamma {axis = 1 : i64, epsilon = 1.0e-06 : f64} : tensor<{M}x{N}xf32>, tensor<{N}xf32> -> tensor<{M}x{N}xf32>
  return %y : tensor<{M}x{N}xf32>
}
