// Workload (b): softmax over the last axis of x [M, N]. Two row reductions (max, sum) and an
// elementwise pass: bandwidth-bound when each row is read from cache after the first pass.
// A template: {M} and {N} are replaced by tools/bench/src/workloads.rs.
func.func @softmax(%x: tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32> {
  %y = graph.softmax %x {axis = 1 : i64} : tensor<{M}x{N}xf32>
  return %y : tensor<{M}x{N}xf32>
}
