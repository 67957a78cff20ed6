// Workload (d): c = a · b, a [M, K], b [K, N]. Compute-bound: measured against OpenBLAS.
// A template: {M}, {K} and {N} are replaced by tools/bench/src/workloads.rs.
func.func @matmul(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> {
  %c = graph.matmul %a, %b : tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32> -> tensor<{M}x{N}xf32>
  return %c : tensor<{M}x{N}xf32>
}
