// Windows over dynamic spatial dims (docs/dialects/graph.md, decompositions): a strided padded
// conv becomes its KH·KW strided slices side by side along the channels and a 1x1 conv with
// the weights reordered to match (by ops for an argument, folded for a constant, dilations
// included); a depthwise conv stays whole after its padding (runs direct); a max pool becomes
// the max of its KH·KW strided slices and an average pool their sum over the same sum of a
// padded mask of ones. Compiled, they match the interpreter at two sizes.
// RUN: dlc-opt %s --pipeline=decompose | FileCheck %s
// RUN: dlc-run %s --dynamic-size 5 --check --no-cache | FileCheck %s --check-prefix=RUN5
// RUN: dlc-run %s --dynamic-size 17 --check --no-cache | FileCheck %s --check-prefix=RUN17
// RUN: dlc-run %s --entry dilated --dynamic-size 5 --check --no-cache | FileCheck %s --check-prefix=DIL5
// RUN: dlc-run %s --entry dilated --dynamic-size 17 --check --no-cache | FileCheck %s --check-prefix=DIL17
// RUN: dlc-run %s --entry long_window --dynamic-size 17 --check --no-cache | FileCheck %s --check-prefix=LONG

// CHECK-LABEL: func.func @windows
// CHECK: %[[P:.*]] = graph.pad %arg0 {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>
// CHECK-NEXT: %[[W0:.*]] = graph.slice %[[P]] {ends = array<i64: 9223372036854775807, 9223372036854775807, -2, -2>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 2>}
// CHECK-COUNT-7: graph.slice %[[P]]
// CHECK-NEXT: %[[W8:.*]] = graph.slice %[[P]] {ends = array<i64: 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807>, starts = array<i64: 0, 0, 2, 2>, steps = array<i64: 1, 1, 2, 2>}
// CHECK-NEXT: %[[C:.*]] = graph.concat %[[W0]], {{.*}}, %[[W8]] {axis = 1 : i64}
// CHECK-NEXT: %[[T:.*]] = graph.transpose %arg1 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[T]] {shape = array<i64: 8, -1, 1, 1>} : tensor<8x3x3x3xf32> -> tensor<8x27x1x1xf32>
// CHECK-NEXT: graph.conv2d %[[C]], %[[R]] {dilations = array<i64: 1, 1>, groups = 1 : i64, strides = array<i64: 1, 1>} : tensor<1x27x?x?xf32>, tensor<8x27x1x1xf32> -> tensor<1x8x?x?xf32>
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

// CHECK-LABEL: func.func @dilated
// CHECK-COUNT-4: graph.slice %arg0 {ends = {{.*}}, steps = array<i64: 1, 1, 2, 3>}
// CHECK-NEXT: %[[C:.*]] = graph.concat {{.*}} {axis = 1 : i64} : {{.*}} -> tensor<2x8x?x?xf32>
// CHECK-NEXT: %[[K:.*]] = graph.constant dense<{{.*}}> : tensor<3x8x1x1xf32>
// CHECK-NEXT: graph.conv2d %[[C]], %[[K]] {dilations = array<i64: 1, 1>, groups = 1 : i64, strides = array<i64: 1, 1>}
// CHECK-NOT: graph.transpose
// DIL5: output 0: f32 [2, 3, 1, 1]
// DIL5: check output 0: {{.*}}: ok
// DIL17: output 0: f32 [2, 3, 7, 5]
// DIL17: check output 0: {{.*}}: ok
func.func @dilated(%x: tensor<2x2x?x?xf32>) -> tensor<2x3x?x?xf32> {
  %w = graph.constant dense<[[[[1.0, -2.0], [0.5, 3.0]], [[-1.5, 2.5], [4.0, -0.25]]], [[[0.75, 1.25], [-3.0, 2.0]], [[1.0, 0.0], [-0.5, 1.5]]], [[[2.0, -1.0], [1.0, 1.0]], [[0.0, 3.5], [-2.0, 0.125]]]]> : tensor<3x2x2x2xf32>
  %y = graph.conv2d %x, %w {dilations = array<i64: 3, 2>, groups = 1 : i64, strides = array<i64: 2, 3>} : tensor<2x2x?x?xf32>, tensor<3x2x2x2xf32> -> tensor<2x3x?x?xf32>
  return %y : tensor<2x3x?x?xf32>
}

// A window of more than 9 positions (an STFT's) runs direct: one slice per position would cost
// more than the strided reads.
// CHECK-LABEL: func.func @long_window
// CHECK-NOT: graph.slice
// CHECK: graph.conv2d %arg0, %{{.*}} {dilations = array<i64: 1, 1>, groups = 1 : i64, strides = array<i64: 1, 4>} : tensor<1x1x1x?xf32>, tensor<5x1x1x12xf32> -> tensor<1x5x1x?xf32>
// LONG: output 0: f32 [1, 5, 1, 2]
// LONG: check output 0: {{.*}}: ok
func.func @long_window(%x: tensor<1x1x1x?xf32>, %w: tensor<5x1x1x12xf32>) -> tensor<1x5x1x?xf32> {
  %y = graph.conv2d %x, %w {dilations = array<i64: 1, 1>, groups = 1 : i64, strides = array<i64: 1, 4>} : tensor<1x1x1x?xf32>, tensor<5x1x1x12xf32> -> tensor<1x5x1x?xf32>
  return %y : tensor<1x5x1x?xf32>
}
