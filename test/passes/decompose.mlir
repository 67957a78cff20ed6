// RUN: dlc-opt %s --pipeline=decompose --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose{keep=graph.gelu,graph.sdpa,graph.softmax}' --split-input-file | FileCheck %s --check-prefix=KEEP
// RUN: dlc-opt %s --pass-pipeline='builtin.module(func.func(decompose))' --split-input-file | FileCheck %s
// RUN: not dlc-opt %s --pipeline='decompose{keep=graph.add}' 2>&1 | FileCheck %s --check-prefix=BADKEEP

// decompose replaces every composite graph op not in `keep` by its primitives. The second RUN
// line keeps gelu, sdpa and softmax; the third runs the pass on each function instead of the
// module, which gives the same text.

// BADKEEP: error: pass 'decompose': option 'keep': 'graph.add' is not a composite op

// Doc example 1: a softmax becomes max-subtracted exp over a sum.

// CHECK-LABEL: func.func @softmax(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = graph.reduce_max %arg0 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %1 = graph.sub %arg0, %0 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %2 = graph.exp %1 : tensor<4x8xf32>
// CHECK-NEXT: %3 = graph.reduce_sum %2 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %4 = graph.div %2, %3 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %4 : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Doc example 2 (KEEP run): gelu is kept, the linear layer is still decomposed. Without
// `keep` both are decomposed.

// CHECK-LABEL: func.func @mlp(%arg0: tensor<2x4xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<8xf32>) -> tensor<2x8xf32> {
// CHECK-NEXT: %0 = graph.matmul %arg0, %arg1 : tensor<2x4xf32>, tensor<4x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %1 = graph.add %0, %arg2 : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %2 = graph.mul %1, %1 : tensor<2x8xf32>
// CHECK-NEXT: %3 = graph.mul %2, %1 : tensor<2x8xf32>
// CHECK-NEXT: %4 = graph.constant dense<4.471500e-02> : tensor<1x1xf32>
// CHECK-NEXT: %5 = graph.mul %3, %4 : tensor<2x8xf32>, tensor<1x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %6 = graph.add %1, %5 : tensor<2x8xf32>
// CHECK-NEXT: %7 = graph.constant dense<0.797884583> : tensor<1x1xf32>
// CHECK-NEXT: %8 = graph.mul %6, %7 : tensor<2x8xf32>, tensor<1x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %9 = graph.tanh %8 : tensor<2x8xf32>
// CHECK-NEXT: %10 = graph.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT: %11 = graph.add %9, %10 : tensor<2x8xf32>, tensor<1x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %12 = graph.mul %1, %11 : tensor<2x8xf32>
// CHECK-NEXT: %13 = graph.constant dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-NEXT: %14 = graph.mul %12, %13 : tensor<2x8xf32>, tensor<1x1xf32> -> tensor<2x8xf32>
// CHECK-NEXT: return %14 : tensor<2x8xf32>
// CHECK-NEXT: }
// KEEP-LABEL: func.func @mlp(%arg0: tensor<2x4xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<8xf32>) -> tensor<2x8xf32> {
// KEEP-NEXT: %0 = graph.matmul %arg0, %arg1 : tensor<2x4xf32>, tensor<4x8xf32> -> tensor<2x8xf32>
// KEEP-NEXT: %1 = graph.add %0, %arg2 : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// KEEP-NEXT: %2 = graph.gelu %1 {approximate = "tanh"} : tensor<2x8xf32>
// KEEP-NEXT: return %2 : tensor<2x8xf32>
// KEEP-NEXT: }
func.func @mlp(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = graph.linear %x, %w, %b : tensor<2x4xf32>, tensor<4x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %1 = graph.gelu %0 {approximate = "tanh"} : tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----

// A composite whose decomposition holds another (sdpa's softmax) is fully decomposed, with
// the dynamic batch dim kept as `?`. With `keep=graph.sdpa,graph.softmax` it stays.

// CHECK-LABEL: func.func @attention(%arg0: tensor<?x4x8xf32>, %arg1: tensor<?x6x8xf32>, %arg2: tensor<?x6x8xf32>) -> tensor<?x4x8xf32> {
// CHECK-NEXT: %0 = graph.transpose %arg1 {perm = array<i64: 0, 2, 1>} : tensor<?x6x8xf32> -> tensor<?x8x6xf32>
// CHECK-NEXT: %1 = graph.matmul %arg0, %0 : tensor<?x4x8xf32>, tensor<?x8x6xf32> -> tensor<?x4x6xf32>
// CHECK-NEXT: %2 = graph.constant dense<0.353553385> : tensor<1x1x1xf32>
// CHECK-NEXT: %3 = graph.mul %1, %2 : tensor<?x4x6xf32>, tensor<1x1x1xf32> -> tensor<?x4x6xf32>
// CHECK-NEXT: %4 = graph.reduce_max %3 {axes = array<i64: 2>, keepdim = true} : tensor<?x4x6xf32> -> tensor<?x4x1xf32>
// CHECK-NEXT: %5 = graph.sub %3, %4 : tensor<?x4x6xf32>, tensor<?x4x1xf32> -> tensor<?x4x6xf32>
// CHECK-NEXT: %6 = graph.exp %5 : tensor<?x4x6xf32>
// CHECK-NEXT: %7 = graph.reduce_sum %6 {axes = array<i64: 2>, keepdim = true} : tensor<?x4x6xf32> -> tensor<?x4x1xf32>
// CHECK-NEXT: %8 = graph.div %6, %7 : tensor<?x4x6xf32>, tensor<?x4x1xf32> -> tensor<?x4x6xf32>
// CHECK-NEXT: %9 = graph.matmul %8, %arg2 : tensor<?x4x6xf32>, tensor<?x6x8xf32> -> tensor<?x4x8xf32>
// CHECK-NEXT: return %9 : tensor<?x4x8xf32>
// CHECK-NEXT: }
// KEEP-LABEL: func.func @attention(%arg0: tensor<?x4x8xf32>, %arg1: tensor<?x6x8xf32>, %arg2: tensor<?x6x8xf32>) -> tensor<?x4x8xf32> {
// KEEP-NEXT: %0 = graph.sdpa %arg0, %arg1, %arg2 {scale = 0.35355339059327373 : f64} : tensor<?x4x8xf32>, tensor<?x6x8xf32>, tensor<?x6x8xf32> -> tensor<?x4x8xf32>
// KEEP-NEXT: return %0 : tensor<?x4x8xf32>
// KEEP-NEXT: }
func.func @attention(%q: tensor<?x4x8xf32>, %k: tensor<?x6x8xf32>, %v: tensor<?x6x8xf32>) -> tensor<?x4x8xf32> {
  %0 = graph.sdpa %q, %k, %v {scale = 0.35355339059327373 : f64} : tensor<?x4x8xf32>, tensor<?x6x8xf32>, tensor<?x6x8xf32> -> tensor<?x4x8xf32>
  return %0 : tensor<?x4x8xf32>
}

// -----

// Edge case: a dynamic batch dim. The means keep `?x1`, the scalar eps is a 1x1 splat that
// broadcasts against it, and the declared result type stays `?x8`.

// CHECK-LABEL: func.func @layer_norm_dynamic(%arg0: tensor<?x8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) -> tensor<?x8xf32> {
// CHECK-NEXT: %0 = graph.reduce_mean %arg0 {axes = array<i64: 1>, keepdim = true} : tensor<?x8xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %1 = graph.sub %arg0, %0 : tensor<?x8xf32>, tensor<?x1xf32> -> tensor<?x8xf32>
// CHECK-NEXT: %2 = graph.mul %1, %1 : tensor<?x8xf32>
// CHECK-NEXT: %3 = graph.reduce_mean %2 {axes = array<i64: 1>, keepdim = true} : tensor<?x8xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %4 = graph.constant dense<9.99999974E-6> : tensor<1x1xf32>
// CHECK-NEXT: %5 = graph.add %3, %4 : tensor<?x1xf32>, tensor<1x1xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %6 = graph.rsqrt %5 : tensor<?x1xf32>
// CHECK-NEXT: %7 = graph.mul %1, %6 : tensor<?x8xf32>, tensor<?x1xf32> -> tensor<?x8xf32>
// CHECK-NEXT: %8 = graph.mul %7, %arg1 : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
// CHECK-NEXT: %9 = graph.add %8, %arg2 : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
// CHECK-NEXT: return %9 : tensor<?x8xf32>
// CHECK-NEXT: }
func.func @layer_norm_dynamic(%x: tensor<?x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : tensor<?x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Composites nested in a region (here a fusion body) are decomposed too.

// CHECK-LABEL: func.func @nested(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = graph.fusion (%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%arg1: tensor<4x8xf32>):
// CHECK-NEXT: %1 = graph.sigmoid %arg1 : tensor<4x8xf32>
// CHECK-NEXT: %2 = graph.mul %arg1, %1 : tensor<4x8xf32>
// CHECK-NEXT: graph.yield %2 : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @nested(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.fusion (%x) : (tensor<4x8xf32>) -> (tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>):
    %1 = graph.silu %a : tensor<4x8xf32>
    graph.yield %1 : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}

// -----

// Must not fire: primitives are left as they are.

// CHECK-LABEL: func.func @primitives(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = graph.add %arg0, %arg1 : tensor<4x8xf32>
// CHECK-NEXT: %1 = graph.exp %0 : tensor<4x8xf32>
// CHECK-NEXT: %2 = graph.reduce_sum %1 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT: return %2 : tensor<4xf32>
// CHECK-NEXT: }
func.func @primitives(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = graph.add %x, %y : tensor<4x8xf32>
  %1 = graph.exp %0 : tensor<4x8xf32>
  %2 = graph.reduce_sum %1 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Must not fire (doc counter-example 1): conv2d over dynamic spatial dims cannot be
// expanded im2col-style, so it stays.

// CHECK-LABEL: func.func @conv_dynamic_spatial(%arg0: tensor<1x3x?x?xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32> {
// CHECK-NEXT: %0 = graph.conv2d %arg0, %arg1 : tensor<1x3x?x?xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x?x?xf32>
// CHECK-NEXT: return %0 : tensor<1x4x?x?xf32>
// CHECK-NEXT: }
func.func @conv_dynamic_spatial(%x: tensor<1x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32> {
  %0 = graph.conv2d %x, %w : tensor<1x3x?x?xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x?x?xf32>
  return %0 : tensor<1x4x?x?xf32>
}

// -----

// A convolution with a column stride of 1 and output rows of 32 columns: the padding becomes
// a graph.pad and the unpadded convolution stays whole, for `lower` to run as an implicit GEMM.

// CHECK-LABEL: func.func @conv_direct
// CHECK-NEXT: %0 = graph.pad %arg0 {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, value = 0.000000e+00 : f32} : tensor<1x2x4x32xf32> -> tensor<1x2x6x34xf32>
// CHECK-NEXT: %1 = graph.conv2d %0, %arg1 {dilations = array<i64: 1, 1>, groups = 1 : i64, strides = array<i64: 1, 1>} : tensor<1x2x6x34xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x32xf32>
// CHECK-NEXT: return %1 : tensor<1x3x4x32xf32>
func.func @conv_direct(%x: tensor<1x2x4x32xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x4x32xf32> {
  %0 = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x32xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x32xf32>
  return %0 : tensor<1x3x4x32xf32>
}

// -----

// Counter-example: output rows of 5 columns are too narrow for the register tile; a 1x1
// window needs no gather, so the convolution is a matmul over all 20 pixels.

// CHECK-LABEL: func.func @conv_pointwise_narrow
// CHECK-NEXT: %0 = graph.reshape %arg0 {shape = array<i64: 1, 1, 2, 20>} : tensor<1x2x4x5xf32> -> tensor<1x1x2x20xf32>
// CHECK-NEXT: %1 = graph.reshape %arg1 {shape = array<i64: 1, 3, 2>} : tensor<3x2x1x1xf32> -> tensor<1x3x2xf32>
// CHECK-NEXT: %2 = graph.matmul %1, %0 : tensor<1x3x2xf32>, tensor<1x1x2x20xf32> -> tensor<1x1x3x20xf32>
// CHECK-NEXT: %3 = graph.reshape %2 {shape = array<i64: 1, 3, 4, 5>} : tensor<1x1x3x20xf32> -> tensor<1x3x4x5xf32>
func.func @conv_pointwise_narrow(%x: tensor<1x2x4x5xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x5xf32> {
  %0 = graph.conv2d %x, %w : tensor<1x2x4x5xf32>, tensor<3x2x1x1xf32> -> tensor<1x3x4x5xf32>
  return %0 : tensor<1x3x4x5xf32>
}

// -----

// Edge case: a column stride of 2 keeps the im2col expansion (a gather of every window through
// a constant index table, then a matmul).

// CHECK-LABEL: func.func @conv_column_stride
// CHECK: %[[IDX:.*]] = graph.constant dense<{{\[\[}}0, 2, 5, 7], {{.*}}]> : tensor<9x4xi32>
// CHECK: graph.gather %{{.*}}, %[[IDX]] {axis = 2 : i64}
// CHECK: graph.matmul
// CHECK-NOT: graph.conv2d
func.func @conv_column_stride(%x: tensor<1x2x4x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %0 = graph.conv2d %x, %w {strides = array<i64: 1, 2>} : tensor<1x2x4x5xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// -----

// Counter-example: a convolution of bytes (`ui8` by `i8`, an `i32` result) with a column
// stride of 1 and 40 output columns, which a float one would run direct: it takes im2col,
// padding with the integer 0, its product a byte matmul.

// CHECK-LABEL: func.func @conv_bytes
// CHECK: graph.pad %{{.*}} {{.*}}value = 0 : ui8{{.*}} -> tensor<1x3x42x42xui8>
// CHECK: graph.gather
// CHECK: graph.matmul %{{.*}}, %{{.*}} : tensor<1x8x27xi8>, tensor<1x1x27x1600xui8> -> tensor<1x1x8x1600xi32>
// CHECK-NOT: graph.conv2d
func.func @conv_bytes(%x: tensor<1x3x40x40xui8>, %w: tensor<8x3x3x3xi8>) -> tensor<1x8x40x40xi32> {
  %0 = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x3x40x40xui8>, tensor<8x3x3x3xi8> -> tensor<1x8x40x40xi32>
  return %0 : tensor<1x8x40x40xi32>
}

// -----

// Edge case: four images of 6 output pixels each (a 1-D convolution over short frames): the
// images' columns go side by side, so one matmul has 24 columns (rather than four of 6), and
// the result is transposed back to NCHW.

// CHECK-LABEL: func.func @conv_batch_side_by_side
// CHECK: %[[T:.*]] = graph.transpose %{{.*}} {perm = array<i64: 1, 2, 0, 3>} : tensor<4x1x6x6xf32> -> tensor<1x6x4x6xf32>
// CHECK: %[[S:.*]] = graph.reshape %[[T]] {shape = array<i64: 1, 6, -1>} : tensor<1x6x4x6xf32> -> tensor<1x6x24xf32>
// CHECK: %[[Y:.*]] = graph.matmul %{{.*}}, %[[S]] : tensor<1x20x6xf32>, tensor<1x6x24xf32> -> tensor<1x20x24xf32>
// CHECK: graph.transpose %{{.*}} {perm = array<i64: 2, 0, 1, 3>} : tensor<1x20x4x6xf32> -> tensor<4x1x20x6xf32>
func.func @conv_batch_side_by_side(%x: tensor<4x2x1x8xf32>, %w: tensor<20x2x1x3xf32>) -> tensor<4x20x1x6xf32> {
  %0 = graph.conv2d %x, %w : tensor<4x2x1x8xf32>, tensor<20x2x1x3xf32> -> tensor<4x20x1x6xf32>
  return %0 : tensor<4x20x1x6xf32>
}

// -----

// Edge case: one image of 8 output pixels and 20 output channels: the product runs
// transposed (8 rows by 20 columns, which `tile` blocks) with the constant weights transposed
// here rather than at run time, then the result is transposed back.

// CHECK-LABEL: func.func @conv_narrow_transposed
// CHECK: %[[WT:.*]] = graph.constant dense<{{.*}}> : tensor<1x10x20xf32>
// CHECK: %[[Y:.*]] = graph.matmul %{{.*}}, %[[WT]] : tensor<1x1x8x10xf32>, tensor<1x10x20xf32> -> tensor<1x1x8x20xf32>
// CHECK: graph.transpose %[[Y]] {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x8x20xf32> -> tensor<1x1x20x8xf32>
// CHECK-NOT: graph.transpose %{{.*}} : tensor<1x20x10xf32>
func.func @conv_narrow_transposed(%x: tensor<1x2x1x12xf32>) -> tensor<1x20x1x8xf32> {
  %w = graph.constant dense<0.5> : tensor<20x2x1x5xf32>
  %0 = graph.conv2d %x, %w : tensor<1x2x1x12xf32>, tensor<20x2x1x5xf32> -> tensor<1x20x1x8xf32>
  return %0 : tensor<1x20x1x8xf32>
}
