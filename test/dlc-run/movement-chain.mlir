// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-run %s --check --no-cache --dynamic-size 1 | FileCheck %s
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=IR

// Chains of data movement (`fuse` rule 8) run as one kernel each, computing every element
// through the chain, and match the interpreter on the graph as written: an im2col gather of
// a padded input (negative and last indices included) and, over a `?` dim (16 rows, then 1),
// a transpose of a slice of a concat of a pad with a nonzero value.

// IR-COUNT-2: loop.kernel @main_{{[0-9]+}}_{{gather|transpose}}
// IR-NOT: loop.kernel @
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok

func.func @main(%x: tensor<1x2x3x3xf32>, %a: tensor<?x4xf32>, %b: tensor<?x3xf32>) -> (tensor<1x8x4xf32>, tensor<2x?xf32>) {
  %p = graph.pad %x {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, value = 0.0 : f32} : tensor<1x2x3x3xf32> -> tensor<1x2x5x5xf32>
  %f = graph.reshape %p {shape = array<i64: 1, 2, 25>} : tensor<1x2x5x5xf32> -> tensor<1x2x25xf32>
  %i = graph.constant dense<[[0, 2, 10, 12], [1, 3, 11, 13], [5, 7, 15, 17], [-1, -25, 24, 6]]> : tensor<4x4xi64>
  %g = graph.gather %f, %i {axis = 2 : i64} : tensor<1x2x25xf32>, tensor<4x4xi64> -> tensor<1x2x4x4xf32>
  %y = graph.reshape %g {shape = array<i64: 1, 8, 4>} : tensor<1x2x4x4xf32> -> tensor<1x8x4xf32>
  %q = graph.pad %b {high = array<i64: 0, 1>, low = array<i64: 0, 0>, value = -2.5 : f32} : tensor<?x3xf32> -> tensor<?x4xf32>
  %c = graph.concat %a, %q {axis = 0 : i64} : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
  %s = graph.slice %c {starts = array<i64: 1, 2>, ends = array<i64: 9223372036854775807, 4>, steps = array<i64: 1, 1>} : tensor<?x4xf32> -> tensor<?x2xf32>
  %t = graph.transpose %s {perm = array<i64: 1, 0>} : tensor<?x2xf32> -> tensor<2x?xf32>
  return %y, %t : tensor<1x8x4xf32>, tensor<2x?xf32>
}
