// An open finding of the compile_run fuzz target (docs/reliability.md): attention over zero keys
// (every `?` dim 0) then `reciprocal` gives +inf in compiled code but another value in the graph
// interpreter, so --check reports a mismatch. XFAIL until one side is fixed; an XPASS then
// means the fix landed and this line goes.
// XFAIL: *
// RUN: dlc-run %s --dynamic-size 0 --check
func.func @graph(%q: tensor<1x?xf64>, %k: tensor<?x?xf64>, %v: tensor<?x1xf64>) -> tensor<1x1xf64> {
  %a = graph.sdpa %q, %k, %v {scale = 1.000000e+00 : f64} : tensor<1x?xf64>, tensor<?x?xf64>, tensor<?x1xf64> -> tensor<1x1xf64>
  %r = graph.reciprocal %a : tensor<1x1xf64>
  return %r : tensor<1x1xf64>
}
