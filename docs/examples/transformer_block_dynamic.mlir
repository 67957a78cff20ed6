// A pre-norm transformer block with multi-head attention (4 heads of 8) over a
// [batch, seq, hidden] = [2, ?, 32] activation: the sequence length is a symbol, so one
// compiled program runs every length. The heads are split and merged by graph.reshapes whose
// `?` dim is the `graph.dim` of the input (the form the ONNX importer gives `Reshape(x,
// Concat(Shape(x)[0:2], [4, 8]))`).
// Run: dlc-run docs/examples/transformer_block_dynamic.mlir --dynamic-size 7 --check
func.func @transformer_block_dynamic(%x: tensor<2x?x32xf32>,
    %ln1_g: tensor<32xf32>, %ln1_b: tensor<32xf32>,
    %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>,
    %wo: tensor<32x32xf32>, %bo: tensor<32xf32>,
    %ln2_g: tensor<32xf32>, %ln2_b: tensor<32xf32>,
    %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
    %w2: tensor<64x32xf32>, %b2: tensor<32xf32>) -> tensor<2x?x32xf32> {
  %s = graph.dim %x, 1 : tensor<2x?x32xf32> -> index
  %h = graph.layer_norm %x, %ln1_g, %ln1_b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : tensor<2x?x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<2x?x32xf32>
  // q, k, v: [2, S, 32] → [2, S, 4, 8] → [2, 4, S, 8].
  %q0 = graph.matmul %h, %wq : tensor<2x?x32xf32>, tensor<32x32xf32> -> tensor<2x?x32xf32>
  %k0 = graph.matmul %h, %wk : tensor<2x?x32xf32>, tensor<32x32xf32> -> tensor<2x?x32xf32>
  %v0 = graph.matmul %h, %wv : tensor<2x?x32xf32>, tensor<32x32xf32> -> tensor<2x?x32xf32>
  %q1 = graph.reshape %q0, %s {shape = array<i64: 2, -1, 4, 8>} : tensor<2x?x32xf32>, index -> tensor<2x?x4x8xf32>
  %k1 = graph.reshape %k0, %s {shape = array<i64: 2, -1, 4, 8>} : tensor<2x?x32xf32>, index -> tensor<2x?x4x8xf32>
  %v1 = graph.reshape %v0, %s {shape = array<i64: 2, -1, 4, 8>} : tensor<2x?x32xf32>, index -> tensor<2x?x4x8xf32>
  %q = graph.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x?x4x8xf32> -> tensor<2x4x?x8xf32>
  %k = graph.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x?x4x8xf32> -> tensor<2x4x?x8xf32>
  %v = graph.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x?x4x8xf32> -> tensor<2x4x?x8xf32>
  // Attention per head (scale 1/√8), heads merged back to [2, S, 32].
  %a = graph.sdpa %q, %k, %v {scale = 0.35355339059327373 : f64} : tensor<2x4x?x8xf32>, tensor<2x4x?x8xf32>, tensor<2x4x?x8xf32> -> tensor<2x4x?x8xf32>
  %a1 = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x?x8xf32> -> tensor<2x?x4x8xf32>
  %a2 = graph.reshape %a1, %s {shape = array<i64: 2, -1, 32>} : tensor<2x?x4x8xf32>, index -> tensor<2x?x32xf32>
  %o = graph.linear %a2, %wo, %bo : tensor<2x?x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<2x?x32xf32>
  %r1 = graph.add %x, %o : tensor<2x?x32xf32>
  // MLP: layer_norm, linear to 64, gelu, linear back to 32, residual add.
  %h2 = graph.layer_norm %r1, %ln2_g, %ln2_b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : tensor<2x?x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<2x?x32xf32>
  %f1 = graph.linear %h2, %w1, %b1 : tensor<2x?x32xf32>, tensor<32x64xf32>, tensor<64xf32> -> tensor<2x?x64xf32>
  %g = graph.gelu %f1 : tensor<2x?x64xf32>
  %f2 = graph.linear %g, %w2, %b2 : tensor<2x?x64xf32>, tensor<64x32xf32>, tensor<32xf32> -> tensor<2x?x32xf32>
  %r2 = graph.add %r1, %f2 : tensor<2x?x32xf32>
  return %r2 : tensor<2x?x32xf32>
}
