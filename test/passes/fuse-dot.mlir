// RUN: dlc-opt %s --pipeline=fuse --emit=dot | FileCheck %s

// A fused softmax drawn with Graphviz: the group is a cluster.

// CHECK: digraph
// CHECK: subgraph cluster
// CHECK: reduce_max
// CHECK: reduce_sum
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.reduce_max %x {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %1 = graph.sub %x, %0 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %2 = graph.exp %1 : tensor<4x8xf32>
  %3 = graph.reduce_sum %2 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %4 = graph.div %2, %3 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}
