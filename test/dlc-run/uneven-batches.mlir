// RUN: dlc-run %s --check --seed 5 --no-cache | FileCheck %s
// RUN: dlc-run %s --check --seed 6 --cpu=x86-64-v3 --no-cache | FileCheck %s

// Three batches of a product large enough to split (64x96 by 96x512 each, 3.1M
// multiply-adds): on 2 threads each batch runs as 2 blocks of rows, 6 tasks where 3 left one
// thread a whole batch alone (on 4 threads, 4 blocks each). The rows of each block, the
// blocks' bounds and the batch they belong to must still cover every row once: the compiled
// code matches the graph interpreter.
func.func @batches(%a: tensor<3x64x96xf32>, %b: tensor<3x96x512xf32>) -> tensor<3x64x512xf32> {
  %0 = graph.matmul %a, %b : tensor<3x64x96xf32>, tensor<3x96x512xf32> -> tensor<3x64x512xf32>
  return %0 : tensor<3x64x512xf32>
}

// CHECK: output 0: f32 [3, 64, 512]
// CHECK: check output 0: {{.*}}: ok
