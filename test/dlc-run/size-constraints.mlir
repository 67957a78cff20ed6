// A broadcast between a size derived from the arguments' dims and another (the concat of x
// with itself, 2·rows(x), added to y) makes the two one size for the kernel, which reads both
// buffers over it. `lower` checks the equality on the host before any kernel runs (a
// `loop.check`): inputs that break it stop the run with the symbols' definitions down to the
// arguments' dims, where the kernel would have read past the end of the smaller buffer. A size
// read from data (how many elements are positive) is checked right after the op that reads it,
// before the kernel that relies on it.
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s
// RUN: not dlc-run %s --dynamic-size 3 --no-cache 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: python3 -c "import numpy as np; np.save('%t.x.npy', np.ones((3, 8), np.float32)); np.save('%t.y.npy', np.ones((6, 8), np.float32))"
// RUN: dlc-run %s --inputs %t.x.npy,%t.y.npy --check --no-cache | FileCheck %s --check-prefix=GOOD
// RUN: not dlc-run %s --entry counted --dynamic-size 5 --no-cache 2>&1 | FileCheck %s --check-prefix=COUNTED

// CHECK-LABEL: func.func @main
// CHECK: %[[EQ:.*]] = arith.cmpi eq
// CHECK-NEXT: loop.check %[[EQ]], "the input sizes do not fit the model: s1 and s2 must be equal (s1 = dim 0 of argument 1 ('rows'), s2 = 2 * s0, s0 = dim 0 of argument 0)"
// CHECK: loop.launch
// BAD: error: the input sizes do not fit the model: s1 and s2 must be equal
// GOOD: output 0: f32 [6, 8]
// GOOD: check output 0: {{.*}}: ok
// CHECK-LABEL: func.func @counted
// CHECK: loop.read_size
// CHECK: loop.check %{{.*}}, "the input sizes do not fit the model: s1 and s2 must be equal (s1 = dim 0 of argument 1, s2 = dim 0 of a graph.iota)"
// CHECK: loop.launch @counted_{{[0-9]+}}_add
// COUNTED: error: the input sizes do not fit the model: s1 and s2 must be equal
func.func @main(%x: tensor<?x8xf32>, %y: tensor<?x8xf32> {graph.dim_names = ["rows", ""]}) -> tensor<?x8xf32> {
  %c = graph.concat %x, %x {axis = 0 : i64} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %s = graph.add %c, %y : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}

func.func @counted(%x: tensor<?xf32>, %y: tensor<?xi64>) -> tensor<?xi64> {
  %z = graph.constant dense<0.0> : tensor<f32>
  %p = graph.cmp gt, %x, %z : tensor<?xf32>, tensor<f32> -> tensor<?xi1>
  %c = graph.cast %p : tensor<?xi1> -> tensor<?xi64>
  %n = graph.reduce_sum %c {axes = array<i64: 0>} : tensor<?xi64> -> tensor<i64>
  %k = graph.read_size %n : tensor<i64> -> index
  %i = graph.iota %k {axis = 0 : i64} : index -> tensor<?xi64>
  %s = graph.add %i, %y : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  return %s : tensor<?xi64>
}
