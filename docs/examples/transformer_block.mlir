// One pre-norm transformer block (single-head attention, GELU MLP, residual adds) over a
// [batch, seq, hidden] = [?, 16, 32] activation; the batch dim is dynamic.
// Run: dlc-opt docs/examples/transformer_block.mlir --pipeline=decompose
func.func @transformer_block(%x: tensor<?x16x32xf32>,
    %ln1_g: tensor<32xf32>, %ln1_b: tensor<32xf32>,
    %wq: tensor<32x32xf32>, %bq: tensor<32xf32>,
    %wk: tensor<32x32xf32>, %bk: tensor<32xf32>,
    %wv: tensor<32x32xf32>, %bv: tensor<32xf32>,
    %wo: tensor<32x32xf32>, %bo: tensor<32xf32>,
    %ln2_g: tensor<32xf32>, %ln2_b: tensor<32xf32>,
    %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
    %w2: tensor<64x32xf32>, %b2: tensor<32xf32>) -> tensor<?x16x32xf32> {
  // Attention: layer_norm, the q/k/v projections, scaled dot-product attention (scale 1/√32),
  // the output projection and the residual add.
  %h = graph.layer_norm %x, %ln1_g, %ln1_b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : tensor<?x16x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<?x16x32xf32>
  %q = graph.linear %h, %wq, %bq : tensor<?x16x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<?x16x32xf32>
  %k = graph.linear %h, %wk, %bk : tensor<?x16x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<?x16x32xf32>
  %v = graph.linear %h, %wv, %bv : tensor<?x16x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<?x16x32xf32>
  %att = graph.sdpa %q, %k, %v {scale = 0.17677669529663687 : f64} : tensor<?x16x32xf32>, tensor<?x16x32xf32>, tensor<?x16x32xf32> -> tensor<?x16x32xf32>
  %o = graph.linear %att, %wo, %bo : tensor<?x16x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<?x16x32xf32>
  %r1 = graph.add %x, %o : tensor<?x16x32xf32>
  // MLP: layer_norm, linear to 64, gelu, linear back to 32, residual add.
  %h2 = graph.layer_norm %r1, %ln2_g, %ln2_b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : tensor<?x16x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<?x16x32xf32>
  %f1 = graph.linear %h2, %w1, %b1 : tensor<?x16x32xf32>, tensor<32x64xf32>, tensor<64xf32> -> tensor<?x16x64xf32>
  %g = graph.gelu %f1 : tensor<?x16x64xf32>
  %f2 = graph.linear %g, %w2, %b2 : tensor<?x16x64xf32>, tensor<64x32xf32>, tensor<32xf32> -> tensor<?x16x32xf32>
  %r2 = graph.add %r1, %f2 : tensor<?x16x32xf32>
  return %r2 : tensor<?x16x32xf32>
}
