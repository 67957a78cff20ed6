// A two-layer perceptron in the graph dialect: relu(x·w1 + b1)·w2 + b2, written with the
// `graph.linear` composite. Run: dlc-opt docs/examples/mlp.mlir --pipeline=decompose
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x10xf32>, %b2: tensor<10xf32>) -> tensor<8x10xf32> {
  %h = graph.linear %x, %w1, %b1 : tensor<8x16xf32>, tensor<16x32xf32>, tensor<32xf32> -> tensor<8x32xf32>
  %a = graph.relu %h : tensor<8x32xf32>
  %y = graph.linear %a, %w2, %b2 : tensor<8x32xf32>, tensor<32x10xf32>, tensor<10xf32> -> tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}
