// RUN: dlc-opt %s --pipeline=fuse --no-implicit-lowering --split-input-file | FileCheck %s

// `fuse` alone, as written: without --no-implicit-lowering dlc-opt would run `decompose` first
// (test/dlc-opt/implicit-lowering.mlir), and the composites below are boundaries to `fuse`.

// Rule 1: an elementwise chain with a broadcast bias add and a decomposed (erf) gelu becomes one
// group; the constants only the group uses move in with it.

// CHECK-LABEL: func.func @gelu_bias
// CHECK-NEXT:    %0 = graph.fusion (%arg0, %arg1, %arg2) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%arg3: tensor<4x8xf32>, %arg4: tensor<4x8xf32>, %arg5: tensor<8xf32>):
// CHECK-NEXT:      %1 = graph.mul %arg3, %arg4 : tensor<4x8xf32>
// CHECK-NEXT:      %2 = graph.add %1, %arg5 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %3 = graph.constant dense<1.41421354> : tensor<1x1xf32>
// CHECK-NEXT:      %4 = graph.div %2, %3 : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %5 = graph.erf %4 : tensor<4x8xf32>
// CHECK-NEXT:      %6 = graph.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT:      %7 = graph.add %5, %6 : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %8 = graph.mul %2, %7 : tensor<4x8xf32>
// CHECK-NEXT:      %9 = graph.constant dense<5.000000e-01> : tensor<1x1xf32>
// CHECK-NEXT:      %10 = graph.mul %8, %9 : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      graph.yield %10 : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0 : tensor<4x8xf32>
func.func @gelu_bias(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.mul %x, %w : tensor<4x8xf32>
  %1 = graph.add %0, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = graph.constant dense<1.41421354> : tensor<1x1xf32>
  %3 = graph.div %1, %2 : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
  %4 = graph.erf %3 : tensor<4x8xf32>
  %5 = graph.constant dense<1.000000e+00> : tensor<1x1xf32>
  %6 = graph.add %4, %5 : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
  %7 = graph.mul %1, %6 : tensor<4x8xf32>
  %8 = graph.constant dense<5.000000e-01> : tensor<1x1xf32>
  %9 = graph.mul %7, %8 : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf32>
  return %9 : tensor<4x8xf32>
}

// -----

// Rule 2: a decomposed softmax is one group. Each reduction result is broadcast back along the
// axis it reduced and combined with the reduction's input, so it reuses the reduction's loops.

// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %0 = graph.fusion (%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%arg1: tensor<4x8xf32>):
// CHECK-NEXT:      %1 = graph.reduce_max %arg1 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %2 = graph.sub %arg1, %1 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %3 = graph.exp %2 : tensor<4x8xf32>
// CHECK-NEXT:      %4 = graph.reduce_sum %3 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %5 = graph.div %3, %4 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      graph.yield %5 : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0 : tensor<4x8xf32>
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.reduce_max %x {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %1 = graph.sub %x, %0 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %2 = graph.exp %1 : tensor<4x8xf32>
  %3 = graph.reduce_sum %2 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %4 = graph.div %2, %3 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// Rule 2: a decomposed rms_norm is one group, the elementwise ops on the reduced [4, 1] value
// (add epsilon, rsqrt) included.

// CHECK-LABEL: func.func @rms_norm
// CHECK-NEXT:    %0 = graph.fusion (%arg0, %arg1) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%arg2: tensor<4x8xf32>, %arg3: tensor<8xf32>):
// CHECK-NEXT:      %1 = graph.mul %arg2, %arg2 : tensor<4x8xf32>
// CHECK-NEXT:      %2 = graph.reduce_mean %1 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %3 = graph.constant dense<9.99999997E-7> : tensor<1x1xf32>
// CHECK-NEXT:      %4 = graph.add %2, %3 : tensor<4x1xf32>, tensor<1x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT:      %5 = graph.rsqrt %4 : tensor<4x1xf32>
// CHECK-NEXT:      %6 = graph.mul %arg2, %5 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %7 = graph.mul %6, %arg3 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      graph.yield %7 : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0 : tensor<4x8xf32>
func.func @rms_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.mul %x, %x : tensor<4x8xf32>
  %1 = graph.reduce_mean %0 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = graph.constant dense<9.99999997E-7> : tensor<1x1xf32>
  %3 = graph.add %1, %2 : tensor<4x1xf32>, tensor<1x1xf32> -> tensor<4x1xf32>
  %4 = graph.rsqrt %3 : tensor<4x1xf32>
  %5 = graph.mul %x, %4 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %6 = graph.mul %5, %g : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %6 : tensor<4x8xf32>
}

// -----

// Rule 2, counter-example: the row sums [4] are broadcast along a new leading axis of
// [8, 4] (numpy aligns on the right), not back along the reduced axis 1 of [4, 8]. The consumer
// runs a different loop nest, so the reduction (with its producer) and the consumer are two
// kernels; the lone add stays unwrapped.

// CHECK-LABEL: func.func @reduce_broadcast_other_axis
// CHECK-NEXT:    %0 = graph.fusion (%arg0) : (tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%arg2: tensor<4x8xf32>):
// CHECK-NEXT:      %2 = graph.exp %arg2 : tensor<4x8xf32>
// CHECK-NEXT:      %3 = graph.reduce_sum %2 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NEXT:      graph.yield %3 : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = graph.add %0, %arg1 : tensor<4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    return %1 : tensor<8x4xf32>
func.func @reduce_broadcast_other_axis(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  %2 = graph.add %1, %y : tensor<4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}

// -----

// Rule 3: a matmul anchors a group with its epilogue (bias add, relu); the elementwise producer
// of its operand is not fused into it and, alone, stays unwrapped.

// CHECK-LABEL: func.func @matmul_epilogue
// CHECK-NEXT:    %0 = graph.exp %arg0 : tensor<4x16xf32>
// CHECK-NEXT:    %1 = graph.fusion (%0, %arg1, %arg2) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    ^bb0(%arg3: tensor<4x16xf32>, %arg4: tensor<16x8xf32>, %arg5: tensor<8xf32>):
// CHECK-NEXT:      %2 = graph.matmul %arg3, %arg4 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %3 = graph.add %2, %arg5 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:      %4 = graph.relu %3 : tensor<4x8xf32>
// CHECK-NEXT:      graph.yield %4 : tensor<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %1 : tensor<4x8xf32>
func.func @matmul_epilogue(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.exp %x : tensor<4x16xf32>
  %1 = graph.matmul %0, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %2 = graph.add %1, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %3 = graph.relu %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Rule 3, counter-example: an elementwise chain feeding a matmul stays its own group (the
// matmul takes no prologue), and two matmuls never share a group: the add of both products
// joins the first one's epilogue only (the second matmul, unwrapped, is printed first since the
// fusion takes the place of its last member).

// CHECK-LABEL: func.func @matmul_producers
// CHECK-NEXT:    %0 = graph.fusion (%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK:           graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = graph.matmul %0, %arg1 : tensor<4x4xf32>
// CHECK-NEXT:    %2 = graph.fusion (%0, %arg1, %1) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    ^bb0(%arg2: tensor<4x4xf32>, %arg3: tensor<4x4xf32>, %arg4: tensor<4x4xf32>):
// CHECK-NEXT:      %3 = graph.matmul %arg2, %arg3 : tensor<4x4xf32>
// CHECK-NEXT:      %4 = graph.add %3, %arg4 : tensor<4x4xf32>
// CHECK-NEXT:      %5 = graph.tanh %4 : tensor<4x4xf32>
// CHECK-NEXT:      graph.yield %5 : tensor<4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %2 : tensor<4x4xf32>
func.func @matmul_producers(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = graph.exp %x : tensor<4x4xf32>
  %1 = graph.neg %0 : tensor<4x4xf32>
  %2 = graph.matmul %1, %w : tensor<4x4xf32>
  %3 = graph.matmul %1, %w : tensor<4x4xf32>
  %4 = graph.add %2, %3 : tensor<4x4xf32>
  %5 = graph.tanh %4 : tensor<4x4xf32>
  return %5 : tensor<4x4xf32>
}

// -----

// Rule 4, counter-example: merging %n into the add would put the transpose (a boundary) both
// after the group (it reads %n) and before it (the add reads it): a cycle. So the exp/neg chain
// and the add/tanh chain are two groups around the transpose.

// CHECK-LABEL: func.func @would_be_cycle
// CHECK-NEXT:    %0 = graph.fusion (%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    ^bb0(%arg1: tensor<4x4xf32>):
// CHECK-NEXT:      %3 = graph.exp %arg1 : tensor<4x4xf32>
// CHECK-NEXT:      %4 = graph.neg %3 : tensor<4x4xf32>
// CHECK-NEXT:      graph.yield %4 : tensor<4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = graph.transpose %0 {perm = array<i64: 1, 0>} : tensor<4x4xf32>
// CHECK-NEXT:    %2 = graph.fusion (%0, %1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    ^bb0(%arg1: tensor<4x4xf32>, %arg2: tensor<4x4xf32>):
// CHECK-NEXT:      %3 = graph.add %arg1, %arg2 : tensor<4x4xf32>
// CHECK-NEXT:      %4 = graph.tanh %3 : tensor<4x4xf32>
// CHECK-NEXT:      graph.yield %4 : tensor<4x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %2 : tensor<4x4xf32>
func.func @would_be_cycle(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = graph.exp %x : tensor<4x4xf32>
  %1 = graph.neg %0 : tensor<4x4xf32>
  %2 = graph.transpose %1 {perm = array<i64: 1, 0>} : tensor<4x4xf32>
  %3 = graph.add %1, %2 : tensor<4x4xf32>
  %4 = graph.tanh %3 : tensor<4x4xf32>
  return %4 : tensor<4x4xf32>
}

// -----

// Rule 0: the elementwise ops after a reshape move above it (a reshape keeps row-major order),
// so the chain is one group and the reshape comes last.

// CHECK-LABEL: func.func @reshape_sinks
// CHECK-NEXT:    %0 = graph.fusion (%arg0) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK:           graph.exp
// CHECK-NEXT:      graph.neg
// CHECK-NEXT:      graph.tanh {{.*}} : tensor<4x4xf32>
// CHECK-NEXT:      graph.abs {{.*}} : tensor<4x4xf32>
// CHECK-NEXT:      graph.yield
// CHECK:         %1 = graph.reshape %0 {shape = array<i64: 16>} : tensor<4x4xf32> -> tensor<16xf32>
// CHECK-NEXT:    return %1
func.func @reshape_sinks(%x: tensor<4x4xf32>) -> tensor<16xf32> {
  %0 = graph.exp %x : tensor<4x4xf32>
  %1 = graph.neg %0 : tensor<4x4xf32>
  %2 = graph.reshape %1 {shape = array<i64: 16>} : tensor<4x4xf32> -> tensor<16xf32>
  %3 = graph.tanh %2 : tensor<16xf32>
  %4 = graph.abs %3 : tensor<16xf32>
  return %4 : tensor<16xf32>
}

// -----

// Rule 0 on an im2col convolution's product: the matmul's `[1, 1, 8, 12]` is reshaped to NCHW
// `[1, 8, 3, 4]`; the per-channel bias `[1, 8, 1, 1]` becomes `[1, 1, 8, 1]` (a new constant)
// and the add and relu join the matmul's epilogue.

// CHECK-LABEL: func.func @reshape_sinks_into_epilogue
// CHECK-NEXT:    %0 = graph.fusion (%arg0, %arg1) : (tensor<1x8x5xf32>, tensor<1x1x5x12xf32>) -> tensor<1x1x8x12xf32> {
// CHECK:           graph.matmul
// CHECK:           graph.constant dense<{{.*}}> : tensor<1x1x8x1xf32>
// CHECK-NEXT:      graph.add {{.*}} : tensor<1x1x8x12xf32>, tensor<1x1x8x1xf32> -> tensor<1x1x8x12xf32>
// CHECK-NEXT:      graph.relu {{.*}} : tensor<1x1x8x12xf32>
// CHECK:         graph.reshape %0 {shape = array<i64: 1, 8, 3, 4>}
// CHECK-NOT:     graph.constant
func.func @reshape_sinks_into_epilogue(%w: tensor<1x8x5xf32>, %cols: tensor<1x1x5x12xf32>) -> tensor<1x8x3x4xf32> {
  %0 = graph.matmul %w, %cols : tensor<1x8x5xf32>, tensor<1x1x5x12xf32> -> tensor<1x1x8x12xf32>
  %1 = graph.reshape %0 {shape = array<i64: 1, 8, 3, 4>} : tensor<1x1x8x12xf32> -> tensor<1x8x3x4xf32>
  %b = graph.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]]]> : tensor<1x8x1x1xf32>
  %2 = graph.add %1, %b : tensor<1x8x3x4xf32>, tensor<1x8x1x1xf32> -> tensor<1x8x3x4xf32>
  %3 = graph.relu %2 : tensor<1x8x3x4xf32>
  return %3 : tensor<1x8x3x4xf32>
}

// -----

// Edge case: `x · f(x)` (a swish) where both factors come through the reshape: once `f`
// has moved above it, the mul reads `x` and `f(x)` directly, and the whole activation joins
// the matmul's epilogue; one reshape is left, of the result.

// CHECK-LABEL: func.func @reshape_sinks_both_factors
// CHECK-NEXT:    %0 = graph.fusion
// CHECK:           graph.matmul
// CHECK:           graph.sigmoid
// CHECK-NEXT:      graph.mul {{.*}} : tensor<1x1x8x12xf32>
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = graph.reshape %0
// CHECK-NEXT:    return %1
func.func @reshape_sinks_both_factors(%w: tensor<1x8x5xf32>, %cols: tensor<1x1x5x12xf32>) -> tensor<1x8x3x4xf32> {
  %0 = graph.matmul %w, %cols : tensor<1x8x5xf32>, tensor<1x1x5x12xf32> -> tensor<1x1x8x12xf32>
  %1 = graph.reshape %0 {shape = array<i64: 1, 8, 3, 4>} : tensor<1x1x8x12xf32> -> tensor<1x8x3x4xf32>
  %2 = graph.sigmoid %1 : tensor<1x8x3x4xf32>
  %3 = graph.mul %1, %2 : tensor<1x8x3x4xf32>
  return %3 : tensor<1x8x3x4xf32>
}

// -----

// Counter-example: `[6, 4]` reshaped to `[2, 3, 4]` (the groups `[6]~[2, 3]` and `[4]~[4]`).
// The add's `[1, 1, 4]` is all ones over the split group, so the add sinks (its operand
// becomes `[1, 4]`); the mul's `[1, 3, 1]` varies over part of the split group, which has no
// form over `[6, 4]`, so the reshape stays a boundary there. A reshape of an argument is not
// moved either: no group gains from it.

// CHECK-LABEL: func.func @reshape_stays
// CHECK:         graph.fusion
// CHECK:           graph.exp {{.*}} : tensor<6x4xf32>
// CHECK-NEXT:      graph.add {{.*}} : tensor<6x4xf32>, tensor<1x4xf32> -> tensor<6x4xf32>
// CHECK:         %[[R:.*]] = graph.reshape {{.*}} : tensor<6x4xf32> -> tensor<2x3x4xf32>
// CHECK:         graph.mul %[[R]], %{{.*}} : tensor<2x3x4xf32>, tensor<1x3x1xf32> -> tensor<2x3x4xf32>
// CHECK:         %[[A:.*]] = graph.reshape %arg0 {{.*}} -> tensor<4x6xf32>
// CHECK-NEXT:    graph.neg %[[A]] : tensor<4x6xf32>
func.func @reshape_stays(%x: tensor<6x4xf32>, %c: tensor<1x1x4xf32>, %d: tensor<1x3x1xf32>) -> (tensor<2x3x4xf32>, tensor<4x6xf32>) {
  %0 = graph.exp %x : tensor<6x4xf32>
  %1 = graph.reshape %0 {shape = array<i64: 2, 3, 4>} : tensor<6x4xf32> -> tensor<2x3x4xf32>
  %2 = graph.add %1, %c : tensor<2x3x4xf32>, tensor<1x1x4xf32> -> tensor<2x3x4xf32>
  %3 = graph.mul %2, %d : tensor<2x3x4xf32>, tensor<1x3x1xf32> -> tensor<2x3x4xf32>
  %4 = graph.reshape %x {shape = array<i64: 4, 6>} : tensor<6x4xf32> -> tensor<4x6xf32>
  %5 = graph.neg %4 : tensor<4x6xf32>
  return %3, %5 : tensor<2x3x4xf32>, tensor<4x6xf32>
}

// -----

// Rule 0 on a squeeze-excitation block's 1x1 convolution over a pooled `[1, 8, 1, 1]`: the
// transposes around its narrow matmul move only dims of size 1, so they are reshapes (no copy
// kernel), the reshape chain collapses, and the bias and relu sink into the matmul's epilogue.

// CHECK-LABEL: func.func @unit_transposes_are_reshapes
// CHECK-NOT:     graph.transpose
// CHECK:         %[[R:.*]] = graph.reshape %arg0 {shape = array<i64: 1, 1, 1, 8>} : tensor<1x8x1x1xf32> -> tensor<1x1x1x8xf32>
// CHECK-NEXT:    %[[F:.*]] = graph.fusion (%[[R]], %arg1)
// CHECK:           graph.matmul
// CHECK:           graph.add {{.*}} : tensor<1x1x1x4xf32>
// CHECK-NEXT:      graph.relu {{.*}} : tensor<1x1x1x4xf32>
// CHECK:         graph.reshape %[[F]] {shape = array<i64: 1, 4, 1, 1>} : tensor<1x1x1x4xf32> -> tensor<1x4x1x1xf32>
// CHECK-NOT:     graph.transpose
func.func @unit_transposes_are_reshapes(%p: tensor<1x8x1x1xf32>, %w: tensor<1x8x4xf32>) -> tensor<1x4x1x1xf32> {
  %0 = graph.reshape %p {shape = array<i64: 1, 1, 8, 1>} : tensor<1x8x1x1xf32> -> tensor<1x1x8x1xf32>
  %1 = graph.transpose %0 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x8x1xf32> -> tensor<1x1x1x8xf32>
  %2 = graph.matmul %1, %w : tensor<1x1x1x8xf32>, tensor<1x8x4xf32> -> tensor<1x1x1x4xf32>
  %3 = graph.transpose %2 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x1x4xf32> -> tensor<1x1x4x1xf32>
  %4 = graph.reshape %3 {shape = array<i64: 1, 4, 1, 1>} : tensor<1x1x4x1xf32> -> tensor<1x4x1x1xf32>
  %b = graph.constant dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]]]]> : tensor<1x4x1x1xf32>
  %5 = graph.add %4, %b : tensor<1x4x1x1xf32>, tensor<1x4x1x1xf32> -> tensor<1x4x1x1xf32>
  %6 = graph.relu %5 : tensor<1x4x1x1xf32>
  return %6 : tensor<1x4x1x1xf32>
}

// -----

// Counter-examples: a transpose that swaps two dims larger than 1 reorders the elements and
// stays; so does one over a dynamic dim (its order is unknown when the dim is 1 at run time).
// Edge case: a reshape of a reshape to the first one's source shape is no reshape at all.

// CHECK-LABEL: func.func @transposes_stay
// CHECK:         graph.transpose %arg0 {perm = array<i64: 0, 2, 1>} : tensor<1x2x3xf32> -> tensor<1x3x2xf32>
// CHECK:         graph.transpose %arg1 {perm = array<i64: 1, 0>} : tensor<?x1xf32> -> tensor<1x?xf32>
// CHECK-NOT:     graph.reshape
// CHECK:         graph.neg %arg2 : tensor<2x3xf32>
func.func @transposes_stay(%x: tensor<1x2x3xf32>, %y: tensor<?x1xf32>, %z: tensor<2x3xf32>) -> (tensor<1x3x2xf32>, tensor<1x?xf32>, tensor<2x3xf32>) {
  %0 = graph.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<1x2x3xf32> -> tensor<1x3x2xf32>
  %1 = graph.transpose %y {perm = array<i64: 1, 0>} : tensor<?x1xf32> -> tensor<1x?xf32>
  %2 = graph.reshape %z {shape = array<i64: 6>} : tensor<2x3xf32> -> tensor<6xf32>
  %3 = graph.reshape %2 {shape = array<i64: 2, 3>} : tensor<6xf32> -> tensor<2x3xf32>
  %4 = graph.neg %3 : tensor<2x3xf32>
  return %0, %1, %4 : tensor<1x3x2xf32>, tensor<1x?xf32>, tensor<2x3xf32>
}

// -----

// A multi-output group: %0 is used inside the group and by the return, so the fusion yields it
// too. An outside op between the members that reads the group moves after the fusion.

// CHECK-LABEL: func.func @multi_output
// CHECK-NEXT:    %0:2 = graph.fusion (%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%arg2: tensor<4xf32>, %arg3: tensor<4xf32>):
// CHECK-NEXT:      %2 = graph.mul %arg2, %arg3 : tensor<4xf32>
// CHECK-NEXT:      %3 = graph.add %2, %arg3 : tensor<4xf32>
// CHECK-NEXT:      graph.yield %2, %3 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = graph.reshape %0#0 {shape = array<i64: 2, 2>} : tensor<4xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    return %1, %0#1 : tensor<2x2xf32>, tensor<4xf32>
func.func @multi_output(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<2x2xf32>, tensor<4xf32>) {
  %0 = graph.mul %x, %y : tensor<4xf32>
  %1 = graph.reshape %0 {shape = array<i64: 2, 2>} : tensor<4xf32> -> tensor<2x2xf32>
  %2 = graph.add %0, %y : tensor<4xf32>
  return %1, %2 : tensor<2x2xf32>, tensor<4xf32>
}

// -----

// Dynamic dims fuse like static ones (no traffic is counted for them).

// CHECK-LABEL: func.func @dynamic
// CHECK-NEXT:    %0 = graph.fusion (%arg0, %arg1) : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32> {
// CHECK-NEXT:    ^bb0(%arg2: tensor<?x8xf32>, %arg3: tensor<8xf32>):
// CHECK-NEXT:      %1 = graph.add %arg2, %arg3 : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
// CHECK-NEXT:      %2 = graph.sigmoid %1 : tensor<?x8xf32>
// CHECK-NEXT:      graph.yield %2 : tensor<?x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %0 : tensor<?x8xf32>
func.func @dynamic(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = graph.add %x, %b : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %1 = graph.sigmoid %0 : tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A single fusible op (with or without constants) is a kernel already: it is not wrapped.

// CHECK-LABEL: func.func @single_op
// CHECK-NOT:     graph.fusion
// CHECK:         %0 = graph.constant
// CHECK-NEXT:    %1 = graph.mul %arg0, %0
// CHECK-NEXT:    return %1
func.func @single_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = graph.constant dense<2.0> : tensor<4xf32>
  %0 = graph.mul %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Rule 1, counter-example: the two consumers of a broadcast value run in different loop nests
// (3x5 and 5x3: neither broadcasts to the other), so only the first joins the producer's group;
// one kernel over 3x5 would index the 5x3 tensor out of bounds (GraphGen seed 830, found by the
// long test tier). Consumers whose shapes do broadcast to one nest (8 and 4x8) share a group.

// CHECK-LABEL: func.func @two_nests
// CHECK-NEXT:    %0:2 = graph.fusion (%arg0, %arg1) : (tensor<1xi32>, tensor<3x5xi32>) -> (tensor<1xi32>, tensor<3x5xi32>) {
// CHECK:           graph.abs
// CHECK-NEXT:      graph.div
// CHECK-NEXT:      graph.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %1 = graph.mul %0#0, %arg2 : tensor<1xi32>, tensor<5x3xi32> -> tensor<5x3xi32>
// CHECK-NEXT:    return %0#1, %1
func.func @two_nests(%s: tensor<1xi32>, %a: tensor<3x5xi32>, %b: tensor<5x3xi32>) -> (tensor<3x5xi32>, tensor<5x3xi32>) {
  %m = graph.abs %s : tensor<1xi32>
  %x = graph.div %a, %m : tensor<3x5xi32>, tensor<1xi32> -> tensor<3x5xi32>
  %y = graph.mul %m, %b : tensor<1xi32>, tensor<5x3xi32> -> tensor<5x3xi32>
  return %x, %y : tensor<3x5xi32>, tensor<5x3xi32>
}

// CHECK-LABEL: func.func @one_nest
// CHECK-NEXT:    %0:2 = graph.fusion
// CHECK:           graph.abs
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.mul
// CHECK-NEXT:      graph.yield
func.func @one_nest(%s: tensor<8xf32>, %a: tensor<8xf32>, %b: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %m = graph.abs %s : tensor<8xf32>
  %x = graph.add %a, %m : tensor<8xf32>
  %y = graph.mul %m, %b : tensor<8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %x, %y : tensor<8xf32>, tensor<4x8xf32>
}

// -----

// Rule 3 with a convolution `lower` runs as an implicit GEMM (unpadded, column stride 1, rows
// of 32 columns): it anchors a group with its bias add and relu, like a matmul.
// CHECK-LABEL: func.func @conv_bias_relu
// CHECK: graph.fusion
// CHECK: graph.conv2d
// CHECK-NEXT: graph.add
// CHECK-NEXT: graph.relu
// CHECK-NEXT: graph.yield
func.func @conv_bias_relu(%x: tensor<1x2x6x34xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3x1x1xf32>) -> tensor<1x3x4x32xf32> {
  %c = graph.conv2d %x, %w : tensor<1x2x6x34xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x32xf32>
  %s = graph.add %c, %b : tensor<1x3x4x32xf32>, tensor<3x1x1xf32> -> tensor<1x3x4x32xf32>
  %y = graph.relu %s : tensor<1x3x4x32xf32>
  return %y : tensor<1x3x4x32xf32>
}

// -----

// Counter-example: a padded convolution is a composite (`decompose` splits the padding off
// first), so it is a boundary and its consumers fuse without it.
// CHECK-LABEL: func.func @conv_padded
// CHECK-NEXT: %0 = graph.conv2d
// CHECK-NEXT: %1 = graph.fusion
func.func @conv_padded(%x: tensor<1x2x4x5xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3x1x1xf32>) -> tensor<1x3x4x5xf32> {
  %c = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x5xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x5xf32>
  %s = graph.add %c, %b : tensor<1x3x4x5xf32>, tensor<3x1x1xf32> -> tensor<1x3x4x5xf32>
  %y = graph.relu %s : tensor<1x3x4x5xf32>
  return %y : tensor<1x3x4x5xf32>
}

// -----

// Rule 0 on a pad of a reshape: the im2col window gather's padding (one element after the
// flattened pixels) moves above the reshapes to the matmul's own result, where `lower` has the
// matmul's kernel write it; the reshape follows the pad.

// CHECK-LABEL: func.func @pad_moves_above_reshape
// CHECK:         %[[M:.*]] = graph.fusion
// CHECK:         %[[P:.*]] = graph.pad %[[M]] {high = array<i64: 0, 0, 0, 1>, low = array<i64: 0, 0, 0, 0>, value = 0.000000e+00 : f32} : tensor<1x1x8x12xf32> -> tensor<1x1x8x13xf32>
// CHECK-NEXT:    graph.reshape %[[P]] {shape = array<i64: 1, 8, 13>} : tensor<1x1x8x13xf32> -> tensor<1x8x13xf32>
func.func @pad_moves_above_reshape(%w: tensor<1x8x5xf32>, %cols: tensor<1x1x5x12xf32>, %b: tensor<1x8x1x1xf32>) -> tensor<1x8x13xf32> {
  %0 = graph.matmul %w, %cols : tensor<1x8x5xf32>, tensor<1x1x5x12xf32> -> tensor<1x1x8x12xf32>
  %1 = graph.reshape %0 {shape = array<i64: 1, 8, 3, 4>} : tensor<1x1x8x12xf32> -> tensor<1x8x3x4xf32>
  %2 = graph.add %1, %b : tensor<1x8x3x4xf32>, tensor<1x8x1x1xf32> -> tensor<1x8x3x4xf32>
  %3 = graph.reshape %2 {shape = array<i64: 1, 8, 12>} : tensor<1x8x3x4xf32> -> tensor<1x8x12xf32>
  %4 = graph.pad %3 {high = array<i64: 0, 0, 1>, low = array<i64: 0, 0, 0>, value = 0.000000e+00 : f32} : tensor<1x8x12xf32> -> tensor<1x8x13xf32>
  return %4 : tensor<1x8x13xf32>
}

// -----

// Counter-example: the padded dim `[12]` is the merged `[3, 4]` of the computed value: padded
// before the reshape it would be a border inside each row, so the pad stays where it is.

// CHECK-LABEL: func.func @pad_of_merged_dims_stays
// CHECK:         %[[R:.*]] = graph.reshape
// CHECK-NEXT:    graph.pad %[[R]] {high = array<i64: 0, 0, 1>
func.func @pad_of_merged_dims_stays(%x: tensor<1x8x3x4xf32>) -> tensor<1x8x13xf32> {
  %0 = graph.exp %x : tensor<1x8x3x4xf32>
  %1 = graph.reshape %0 {shape = array<i64: 1, 8, 12>} : tensor<1x8x3x4xf32> -> tensor<1x8x12xf32>
  %2 = graph.pad %1 {high = array<i64: 0, 0, 1>, low = array<i64: 0, 0, 0>, value = 0.000000e+00 : f32} : tensor<1x8x12xf32> -> tensor<1x8x13xf32>
  return %2 : tensor<1x8x13xf32>
}

// -----

// Edge case: a reshaped argument is no kernel's result; nothing would write the pad, so it
// stays after the reshape.

// CHECK-LABEL: func.func @pad_of_reshaped_argument_stays
// CHECK-NEXT:    %0 = graph.reshape %arg0
// CHECK-NEXT:    %1 = graph.pad %0
func.func @pad_of_reshaped_argument_stays(%x: tensor<1x1x8x12xf32>) -> tensor<1x8x13xf32> {
  %0 = graph.reshape %x {shape = array<i64: 1, 8, 12>} : tensor<1x1x8x12xf32> -> tensor<1x8x12xf32>
  %1 = graph.pad %0 {high = array<i64: 0, 0, 1>, low = array<i64: 0, 0, 0>, value = 0.000000e+00 : f32} : tensor<1x8x12xf32> -> tensor<1x8x13xf32>
  return %1 : tensor<1x8x13xf32>
}
