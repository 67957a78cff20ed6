// A broadcast between a size derived from the arguments' dims and another (the concat of x
// with itself, 2·rows(x), added to y) makes the two one size for the kernel, which reads both
// buffers over it. `lower` checks the equality on the host before any kernel runs (a
// `loop.check`): inputs that break it stop the run with the symbols' definitions down to the
// arguments' dims, where the kernel would have read past the end of the smaller buffer.
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s
// RUN: not dlc-run %s --dynamic-size 3 --no-cache 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: python3 -c "import numpy as np; np.save('%t.x.npy', np.ones((3, 8), np.float32)); np.save('%t.y.npy', np.ones((6, 8), np.float32))"
// RUN: dlc-run %s --inputs %t.x.npy,%t.y.npy --check --no-cache | FileCheck %s --check-prefix=GOOD

// CHECK-LABEL: func.func @main
// CHECK: %[[EQ:.*]] = arith.cmpi eq
// CHECK-NEXT: loop.check %[[EQ]], "the input sizes do not fit the model: s1 and s2 must be equal (s1 = dim 0 of argument 1 ('rows'), s2 = 2 * s0, s0 = dim 0 of argument 0)"
// CHECK: loop.launch
// BAD: error: the input sizes do not fit the model: s1 and s2 must be equal
// GOOD: output 0: f32 [6, 8]
// GOOD: check output 0: {{.*}}: ok
func.func @main(%x: tensor<?x8xf32>, %y: tensor<?x8xf32> {graph.dim_names = ["rows", ""]}) -> tensor<?x8xf32> {
  %c = graph.concat %x, %x {axis = 0 : i64} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %s = graph.add %c, %y : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}
