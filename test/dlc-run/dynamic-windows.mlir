// Windows over dynamic spatial dims (docs/dialects/graph.md, decompositions): a strided padded
// conv and a depthwise conv stay whole after their padding (run direct: the implicit GEMM
// strides its columns), a max pool becomes the max of its KH·KW strided slices and an average
// pool their sum over the same sum of a padded mask of ones. Compiled, they match the
// interpreter at two sizes.
// RUN: dlc-opt %s --pipeline=decompose | FileCheck %s
// RUN: dlc-run %s --dynamic-size 5 --check --no-cache | FileCheck %s --check-prefix=RUN5
// RUN: dlc-run %s --dynamic-size 17 --check --no-cache | FileCheck %s --check-prefix=RUN17

// CHECK-LABEL: func.func @windows
// CHECK: %[[P:.*]] = graph.pad %arg0 {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>
// CHECK-NEXT: graph.conv2d %[[P]], %arg1 {dilations = array<i64: 1, 1>, groups = 1 : i64, strides = array<i64: 2, 2>} : tensor<1x3x?x?xf32>, tensor<8x3x3x3xf32> -> tensor<1x8x?x?xf32>
// CHECK: graph.conv2d %{{.*}}, %arg2 {dilations = array<i64: 1, 1>, groups = 8 : i64, strides = array<i64: 1, 1>}
// CHECK: %[[M:.*]] = graph.pad %{{.*}} {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, value = 0xFF800000 : f32}
// CHECK-NEXT: %[[S0:.*]] = graph.slice %[[M]] {ends = array<i64: 9223372036854775807, 9223372036854775807, -2, -2>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 2>}
// CHECK-COUNT-8: graph.slice %[[M]]
// CHECK-NEXT: graph.max %[[S0]], %{{.*}} : tensor<1x8x?x?xf32>
// CHECK-COUNT-7: graph.max
// CHECK: graph.fill %{{.*}}, %{{.*}} {value = 1.000000e+00 : f32} : index, index -> tensor<1x1x?x?xf32>
// CHECK: graph.div
// CHECK-NOT: graph.gather

// RUN5: output 0: f32 [1, 8, 3, 3]
// RUN5: output 2: f32 [1, 8, 2, 2]
// RUN5: output 3: f32 [1, 8, 1, 3]
// RUN5-COUNT-4: check output {{[0-3]}}: {{.*}}: ok
// RUN17: output 0: f32 [1, 8, 9, 9]
// RUN17-COUNT-4: check output {{[0-3]}}: {{.*}}: ok
func.func @windows(%x: tensor<1x3x?x?xf32>, %w: tensor<8x3x3x3xf32>, %w2: tensor<8x1x3x3xf32>) -> (tensor<1x8x?x?xf32>, tensor<1x8x?x?xf32>, tensor<1x8x?x?xf32>, tensor<1x8x?x?xf32>) {
  %a = graph.conv2d %x, %w {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x?x?xf32>, tensor<8x3x3x3xf32> -> tensor<1x8x?x?xf32>
  %b = graph.conv2d %a, %w2 {dilations = array<i64: 1, 1>, groups = 8 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x?x?xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x?x?xf32>
  %c = graph.max_pool2d %b {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x?x?xf32> -> tensor<1x8x?x?xf32>
  %d = graph.avg_pool2d %b {kernel = array<i64: 2, 3>, strides = array<i64: 2, 1>, padding = array<i64: 0, 1, 0, 1>} : tensor<1x8x?x?xf32> -> tensor<1x8x?x?xf32>
  return %a, %b, %c, %d : tensor<1x8x?x?xf32>, tensor<1x8x?x?xf32>, tensor<1x8x?x?xf32>, tensor<1x8x?x?xf32>
}
