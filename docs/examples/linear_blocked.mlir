// A linear layer with relu whose sizes exercise every path of `tile`'s CPU schedule: 300 is
// more than one block of the reduction (so partial sums are saved and resumed, and the block
// of `w` is packed), 37 rows leave a last row outside the register tiles, and 90 columns leave
// a remainder beyond the whole vector blocks: one-vector tiles, then a few scalar columns.
// Run: dlc-run docs/examples/linear_blocked.mlir --check --print-kernels
func.func @linear_blocked(%x: tensor<37x300xf32>, %w: tensor<300x90xf32>, %b: tensor<90xf32>) -> tensor<37x90xf32> {
  %h = graph.linear %x, %w, %b : tensor<37x300xf32>, tensor<300x90xf32>, tensor<90xf32> -> tensor<37x90xf32>
  %y = graph.relu %h : tensor<37x90xf32>
  return %y : tensor<37x90xf32>
}
