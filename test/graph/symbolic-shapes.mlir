// dlc-opt --print-symbolic-shapes: every tensor value's symbolic shape as an attribute, as Paddle
// PIR's sym_shape_str, and each function's symbols with their origins or definitions and the
// runtime constraints. A reshape sized by graph.dims keeps their symbols; one sized by
// arithmetic on them, and one whose dim is inferred from the element count, both get the
// derived symbol s0 * s1 (so the add of the two shares it); a concat's dim is the sum, a pad's
// the dim plus the padding, a slice's its clamped length (an odd-row slice of 2·s2 + 4 rows
// is s2 + 1); a stride-1 conv padded by its window's reach keeps the input's spatial symbols,
// a strided one's are its window's length, (s + 1) / 2; two arguments meeting in an add are
// constrained equal.
// RUN: dlc-opt %s --print-symbolic-shapes | FileCheck %s
// The host computes the derived sizes from their definitions; compiled, the functions match
// the interpreter:
// RUN: dlc-run %s --entry derived --dynamic-size 5 --check --no-cache | FileCheck %s --check-prefix=RUN5
// RUN: dlc-run %s --entry convs --dynamic-size 7 --check --no-cache | FileCheck %s --check-prefix=RUN7
// RUN5: output 0: f32 [25, 32]
// RUN5: output 1: f32 [6, 8]
// RUN5-COUNT-2: check output {{[01]}}: {{.*}}: ok
// RUN7: output 0: f32 [1, 8, 4, 4]
// RUN7: check output 0: {{.*}}: ok

// CHECK-LABEL: func.func @heads(%arg0: tensor<?x?x32xf32>) -> tensor<?x?xf32> attributes {sym_symbols = ["s0 = dim 0 of argument 0", "s1 = dim 1 of argument 0", "s2 = s0 * s1"]}
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

// CHECK-LABEL: func.func @convs(%arg0: tensor<1x3x?x?xf32>, %arg1: tensor<8x3x3x3xf32>, %arg2: tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32> attributes {sym_symbols = ["s0 = dim 2 of argument 0", "s1 = dim 3 of argument 0", "s2 = dim 2 of argument 2", "s3 = dim 3 of argument 2", "s4 = (s0 + 1) / 2", "s5 = (s1 + 1) / 2", "s0 == s2 at run time", "s1 == s3 at run time"]}
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

// CHECK-LABEL: func.func @derived(%arg0: tensor<?x?x32xf32>, %arg1: tensor<?x8xf32>) -> (tensor<?x32xf32>, tensor<?x8xf32>) attributes {sym_symbols = ["s0 = dim 0 of argument 0", "s1 = dim 1 of argument 0", "s2 = dim 0 of argument 1", "s3 = s0 * s1", "s4 = 2 * s2", "s5 = 2 * s2 + 4", "s6 = s2 + 1"]}
// CHECK: graph.reshape %arg0, %{{.*}} {shape = array<i64: -1, 32>, sym_shape_str = "shape[s3, 32]"}
// CHECK: graph.reshape %arg0 {shape = array<i64: -1, 32>, sym_shape_str = "shape[s3, 32]"}
// CHECK: graph.add {{.*}} {sym_shape_str = "shape[s3, 32]"}
// CHECK: graph.concat {{.*}}sym_shape_str = "shape[s4, 8]"}
// CHECK: graph.pad {{.*}}sym_shape_str = "shape[s5, 8]"
// CHECK: graph.slice {{.*}}sym_shape_str = "shape[s6, 8]"}
func.func @derived(%x: tensor<?x?x32xf32>, %y: tensor<?x8xf32>) -> (tensor<?x32xf32>, tensor<?x8xf32>) {
  %b = graph.dim %x, 0 : tensor<?x?x32xf32> -> index
  %s = graph.dim %x, 1 : tensor<?x?x32xf32> -> index
  %n = arith.muli %b, %s : index
  %m = graph.reshape %x, %n {shape = array<i64: -1, 32>} : tensor<?x?x32xf32>, index -> tensor<?x32xf32>
  %i = graph.reshape %x {shape = array<i64: -1, 32>} : tensor<?x?x32xf32> -> tensor<?x32xf32>
  %a = graph.add %m, %i : tensor<?x32xf32>
  %c = graph.concat %y, %y {axis = 0 : i64} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  %p = graph.pad %c {high = array<i64: 3, 0>, low = array<i64: 1, 0>, value = 0.0 : f32} : tensor<?x8xf32> -> tensor<?x8xf32>
  %l = graph.slice %p {ends = array<i64: -1, 8>, starts = array<i64: 1, 0>, steps = array<i64: 2, 1>} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %a, %l : tensor<?x32xf32>, tensor<?x8xf32>
}
