// RUN: dlc-run %s --dynamic-size 0 --check | FileCheck %s

// Attention over zero keys (every `?` dim 0) sums nothing: the sum is +0 in compiled code and in
// the graph interpreter alike (as in numpy), so `reciprocal` gives +inf in both. The interpreter
// used Rust's `Sum for f64`, which starts from -0.0, and gave -inf (found by the compile_run
// fuzz target).
// CHECK: check output 0: max abs err 0.000e0, max rel err 0.000e0 (to max |reference|): ok
func.func @graph(%q: tensor<1x?xf64>, %k: tensor<?x?xf64>, %v: tensor<?x1xf64>) -> tensor<1x1xf64> {
  %a = graph.sdpa %q, %k, %v {scale = 1.000000e+00 : f64} : tensor<1x?xf64>, tensor<?x?xf64>, tensor<?x1xf64> -> tensor<1x1xf64>
  %r = graph.reciprocal %a : tensor<1x1xf64>
  return %r : tensor<1x1xf64>
}
