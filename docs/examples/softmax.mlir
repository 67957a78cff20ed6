// A row softmax over a dynamic number of rows, and its log-space twin.
// Run: dlc-opt docs/examples/softmax.mlir --pipeline=decompose
func.func @softmax(%x: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %p = graph.softmax %x {axis = 1 : i64} : tensor<?x16xf32>
  %l = graph.log_softmax %x {axis = 1 : i64} : tensor<?x16xf32>
  return %p, %l : tensor<?x16xf32>, tensor<?x16xf32>
}
