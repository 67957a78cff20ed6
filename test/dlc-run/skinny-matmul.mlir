// RUN: dlc-run %s --check --seed 3 --cpu=x86-64-v3 --no-cache | FileCheck %s
// RUN: dlc-run %s --check --seed 4 --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower,cpu-default' --target=x86-64-v3 | FileCheck %s --check-prefix=IR

// A skinny product whose `B` (64 x 2100 f32, 538 KB) is more than an x86-64 level's L2 (512
// KiB) and whose rows make fewer than 16 tiles (a classifier's or a decoder's last
// projection): the threads share out the whole column blocks, each streaming its part of `B`
// once, and the row tiles run the last columns (2100 is not a multiple of a block) and the last
// row (5 rows in tiles of 2 or 4) afterwards. The compiled code matches the graph
// interpreter.
func.func @skinny(%a: tensor<5x64xf32>, %b: tensor<64x2100xf32>) -> tensor<5x2100xf32> {
  %0 = graph.matmul %a, %b : tensor<5x64xf32>, tensor<64x2100xf32> -> tensor<5x2100xf32>
  return %0 : tensor<5x2100xf32>
}

// CHECK: output 0: f32 [5, 2100]
// CHECK: check output 0: {{.*}}: ok

// The parallel loop runs over the 131 whole blocks of 16 columns (6x2 tiles of 8 lanes).
// IR-LABEL: loop.kernel
// IR: loop.for parallel %{{.*}} = %c0{{.*}} to %c131
// IR: loop.return
