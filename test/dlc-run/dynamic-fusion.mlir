// A fusion group whose ops run over different `?` sizes: the sum over a fill of
// `min(1, s)` elements is added to an iota of `s − 1`. The two extents are different
// symbols, so `lower` gives the add its own loops (a kernel each) instead of running it over
// the reduction's extent, which left all but its first element unwritten.
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower --pass-statistics 2>&1 | FileCheck %s
// RUN: dlc-run %s --dynamic-size 9 --check --no-cache | FileCheck %s --check-prefix=RUN9

// CHECK: loop.kernel @main_{{[0-9]+}}_reduce_sum
// CHECK: loop.kernel @main_{{[0-9]+}}_add
// CHECK: (S) 1 num-split-groups

// RUN9: output 0: i64 [8]
// RUN9: check output 0: max abs err 0.000e0{{.*}}: ok
func.func @main(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %s = graph.dim %x, 1 : tensor<?x?xf32> -> index
  %c1 = arith.constant 1 : index
  %m = arith.minsi %c1, %s : index
  %n = arith.subi %s, %c1 : index
  %iota = graph.iota %n {axis = 0 : i64} : index -> tensor<?xi64>
  %ones = graph.fill %m {value = 1 : i64} : index -> tensor<?xi64>
  %sum = graph.reduce_sum %ones {axes = array<i64: 0>, keepdim = false} : tensor<?xi64> -> tensor<i64>
  %y = graph.add %iota, %sum : tensor<?xi64>, tensor<i64> -> tensor<?xi64>
  return %y : tensor<?xi64>
}
