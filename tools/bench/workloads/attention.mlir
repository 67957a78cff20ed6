// Workload (e): single-head attention softmax(q · kᵀ · scale) · v, q, k, v [S, D], scale 1/√D.
// Two matmuls around a row softmax over an [S, S] score matrix.
// A template: {S}, {D} and {SCALE} are replaced by tools/bench/src/workloads.rs.
func.func @attention(%q: tensor<{S}x{D}xf32>, %k: tensor<{S}x{D}xf32>, %v: tensor<{S}x{D}xf32>) -> tensor<{S}x{D}xf32> {
  %o = graph.sdpa %q, %k, %v {scale = {SCALE} : f64} : tensor<{S}x{D}xf32>, tensor<{S}x{D}xf32>, tensor<{S}x{D}xf32> -> tensor<{S}x{D}xf32>
  return %o : tensor<{S}x{D}xf32>
}
