// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-run %s --backend mlir --check --no-cache | FileCheck %s
// RUN: dlc-run %s --check --no-cache --dynamic-size 5 | FileCheck %s
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=IR

// Reshapes between kernels are `loop.reshape`s of their source's memory, not kernels: a
// kernel reading the reshape of an intermediate, and reshapes of arguments returned (the
// runtime returns them from a private copy of the input). Compiled with both backends and at
// two sizes of the `?` dim, against the interpreters.

// IR-NOT: loop.kernel @main_{{[0-9]+}}_reshape
// IR-COUNT-3: loop.reshape
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok
// CHECK: check output 2: {{.*}}: ok

func.func @main(%x: tensor<?x6xf32>, %w: tensor<4x8xf32>) -> (tensor<?x3xf32>, tensor<2x16xf32>, tensor<?x2x3xf32>) {
  %0 = graph.exp %x : tensor<?x6xf32>
  %1 = graph.reshape %0 {shape = array<i64: -1, 3>} : tensor<?x6xf32> -> tensor<?x3xf32>
  %2 = graph.neg %1 : tensor<?x3xf32>
  %3 = graph.reshape %w {shape = array<i64: 2, 16>} : tensor<4x8xf32> -> tensor<2x16xf32>
  %4 = graph.reshape %x {shape = array<i64: -1, 2, 3>} : tensor<?x6xf32> -> tensor<?x2x3xf32>
  return %2, %3, %4 : tensor<?x3xf32>, tensor<2x16xf32>, tensor<?x2x3xf32>
}
