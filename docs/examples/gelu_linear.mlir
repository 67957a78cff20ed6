// gelu_tanh(x·w + b), the feed-forward pattern of GPT-style models, with the matmul and bias
// as primitives and the activation as a composite. Real models use x: [4096, 4096]; the shapes
// here are reduced so the interpreter runs it quickly in tests.
// Run: dlc-opt docs/examples/gelu_linear.mlir --pipeline=decompose
func.func @gelu_linear(%x: tensor<64x128xf32>, %w: tensor<128x64xf32>, %b: tensor<64xf32>) -> tensor<64x64xf32> {
  %xw = graph.matmul %x, %w : tensor<64x128xf32>, tensor<128x64xf32> -> tensor<64x64xf32>
  %h = graph.add %xw, %b : tensor<64x64xf32>, tensor<64xf32> -> tensor<64x64xf32>
  %y = graph.gelu %h {approximate = "tanh"} : tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
