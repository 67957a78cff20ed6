// RUN: rm -rf %t && mkdir -p %t
// RUN: dlc-run %s --outputs %t/out --check | FileCheck %s
// RUN: python3 -c "import numpy as n; [print(i, n.load('%t/out/out%%d.npy' %% i).dtype, n.load('%t/out/out%%d.npy' %% i).ravel()[:3].tolist()) for i in range(6)]" | FileCheck %s --check-prefix=VALUES
// RUN: dlc-opt %s --pipeline=lower | FileCheck %s --check-prefix=IR

// Reductions over a dim of size 0 give their identity in compiled code too: the reduced
// loops never run, and with them the blocks' init, so `lower` stores the identity (a
// matmul's zero) after the empty nest. The unsigned min starts from the sign-flipped order's
// identity and reads back as 255. `--check` compares with the graph interpreter.

// CHECK-COUNT-6: check output {{[0-9]}}: {{.*}}: ok

// VALUES: 0 float32 [1.0, 1.0, 1.0]
// VALUES-NEXT: 1 float32 [-inf, -inf, -inf]
// VALUES-NEXT: 2 float32 [0.0, 0.0, 0.0]
// VALUES-NEXT: 3 uint8 [255, 255]
// VALUES-NEXT: 4 float32 [0.0, 0.0, 0.0]
// VALUES-NEXT: 5 int32 [0, 0, 0]

// IR-LABEL: loop.kernel @main_0_reduce_prod
// IR: loop.for serial %{{.*}} = %c0 to %c0 step %c1 {
// IR: loop.schedule_block "reduce_prod_empty_{{[0-9]+}}"
// IR-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// IR-NEXT: loop.store %[[ONE]]

func.func @main(%x: tensor<2x0x4xf32>, %a: tensor<3x0xf32>, %b: tensor<0x5xf32>, %u: tensor<2x0xui8>, %i: tensor<3x0xi32>, %j: tensor<0x4xi32>)
    -> (tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<3x5xf32>, tensor<2xui8>, tensor<2x4xf32>, tensor<3x4xi32>) {
  %0 = graph.reduce_prod %x {axes = array<i64: 1>, keepdim = true} : tensor<2x0x4xf32> -> tensor<2x1x4xf32>
  %1 = graph.reduce_max %x {axes = array<i64: 1>, keepdim = false} : tensor<2x0x4xf32> -> tensor<2x4xf32>
  %2 = graph.matmul %a, %b : tensor<3x0xf32>, tensor<0x5xf32> -> tensor<3x5xf32>
  %3 = graph.reduce_min %u {axes = array<i64: 1>, keepdim = false} : tensor<2x0xui8> -> tensor<2xui8>
  %4 = graph.reduce_sum %x {axes = array<i64: 1>, keepdim = false} : tensor<2x0x4xf32> -> tensor<2x4xf32>
  %5 = graph.matmul %i, %j : tensor<3x0xi32>, tensor<0x4xi32> -> tensor<3x4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x1x4xf32>, tensor<2x4xf32>, tensor<3x5xf32>, tensor<2xui8>, tensor<2x4xf32>, tensor<3x4xi32>
}
