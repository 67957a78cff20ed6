// Layer normalization over the last axis of a [batch, seq, hidden] activation, with learned
// scale and shift. Run: dlc-opt docs/examples/layer_norm.mlir --pipeline=decompose
func.func @layer_norm(%x: tensor<2x8x16xf32>, %gamma: tensor<16xf32>, %beta: tensor<16xf32>) -> tensor<2x8x16xf32> {
  %y = graph.layer_norm %x, %gamma, %beta {axis = 2 : i64, epsilon = 1.0e-5 : f64} : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}
