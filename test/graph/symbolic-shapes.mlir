// dlc-opt --print-symbolic-shapes: every tensor value's symbolic shape as an attribute, as Paddle
// PIR's sym_shape_str, and each function's symbols with their origins and the runtime
// constraints. A reshape sized by graph.dims keeps their symbols, one sized by arithmetic gets
// its own; a stride-1 conv padded by its window's reach keeps the input's spatial symbols, a
// strided one gets new ones; two arguments meeting in an add are constrained equal.
// RUN: dlc-opt %s --print-symbolic-shapes | FileCheck %s

// CHECK-LABEL: func.func @heads(%arg0: tensor<?x?x32xf32>) -> tensor<?x?xf32> attributes {sym_symbols = ["s0 = dim 0 of argument 0", "s1 = dim 1 of argument 0", "s2 = dim 0 of a graph.reshape"]}
// CHECK: graph.reshape %arg0, %{{.*}}, %{{.*}} {shape = array<i64: -1, -1, 4, 8>, sym_shape_str = "shape[s0, s1, 4, 8]"}
// CHECK: graph.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>, sym_shape_str = "shape[s0, 4, s1, 8]"}
// CHECK: graph.reshape %arg0, %{{.*}} {shape = array<i64: -1, 32>, sym_shape_str = "shape[s2, 32]"}
func.func @heads(%x: tensor<?x?x32xf32>) -> tensor<?x?xf32> {
  %b = graph.dim %x, 0 : tensor<?x?x32xf32> -> index
  %s = graph.dim %x, 1 : tensor<?x?x32xf32> -> index
  %h = graph.reshape %x, %b, %s {shape = array<i64: -1, -1, 4, 8>} : tensor<?x?x32xf32>, index, index -> tensor<?x?x4x8xf32>
  %t = graph.transpose %h {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x4x8xf32> -> tensor<?x4x?x8xf32>
  %n = arith.muli %b, %s : index
  %m = graph.reshape %x, %n {shape = array<i64: -1, 32>} : tensor<?x?x32xf32>, index -> tensor<?x32xf32>
  %r = graph.reduce_sum %t {axes = array<i64: 1, 3>, keepdim = false} : tensor<?x4x?x8xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @convs(%arg0: tensor<1x3x?x?xf32>, %arg1: tensor<8x3x3x3xf32>, %arg2: tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32> attributes {sym_symbols = ["s0 = dim 2 of argument 0", "s1 = dim 3 of argument 0", "s2 = dim 2 of argument 2", "s3 = dim 3 of argument 2", "s4 = dim 2 of a graph.conv2d", "s5 = dim 3 of a graph.conv2d", "s0 == s2 at run time", "s1 == s3 at run time"]}
// CHECK: graph.conv2d %arg0, %arg1 {{.*}}strides = array<i64: 1, 1>, sym_shape_str = "shape[1, 8, s0, s1]"}
// CHECK: graph.add {{.*}} {sym_shape_str = "shape[1, 8, s0, s1]"}
// CHECK: graph.conv2d {{.*}}strides = array<i64: 2, 2>, sym_shape_str = "shape[1, 8, s4, s5]"}
func.func @convs(%x: tensor<1x3x?x?xf32>, %w: tensor<8x3x3x3xf32>, %y: tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32> {
  %c = graph.conv2d %x, %w {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x?x?xf32>, tensor<8x3x3x3xf32> -> tensor<1x8x?x?xf32>
  %a = graph.add %c, %y : tensor<1x8x?x?xf32>
  %w2 = graph.constant dense<1.0> : tensor<8x8x3x3xf32>
  %d = graph.conv2d %a, %w2 {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x8x?x?xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x?x?xf32>
  return %d : tensor<1x8x?x?xf32>
}
