// RUN: dlc-run %s --check --seed 7 | FileCheck %s

// `graph.matmul` with `transpose_a` / `transpose_b`, as unit attributes and as bools: the
// compiled kernels read the operands transposed, as the graph interpreter does. `lower` once
// read only integer flags, so a unit `{transpose_b}` was lowered as a plain matmul, reading
// `b[k, n]` of a [N, K] buffer: out of bounds, and a wrong result.
func.func @transposed(%a: tensor<4x8xf32>, %b: tensor<5x8xf32>, %c: tensor<8x4xf32>,
    %d: tensor<3x6x8xf32>, %e: tensor<3x5x8xf32>)
    -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<3x6x5xf32>, tensor<4x4xf32>) {
  %0 = graph.matmul %a, %b {transpose_b} : tensor<4x8xf32>, tensor<5x8xf32> -> tensor<4x5xf32>
  %1 = graph.matmul %c, %b {transpose_a = true, transpose_b = true} : tensor<8x4xf32>, tensor<5x8xf32> -> tensor<4x5xf32>
  %2 = graph.matmul %d, %e {transpose_b} : tensor<3x6x8xf32>, tensor<3x5x8xf32> -> tensor<3x6x5xf32>
  %3 = graph.matmul %c, %c {transpose_a, transpose_b = false} : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<3x6x5xf32>, tensor<4x4xf32>
}

// CHECK: output 0: f32 [4, 5]
// CHECK: output 1: f32 [4, 5]
// CHECK: output 2: f32 [3, 6, 5]
// CHECK: output 3: f32 [4, 4]
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok
// CHECK: check output 2: {{.*}}: ok
// CHECK: check output 3: {{.*}}: ok
