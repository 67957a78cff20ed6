// RUN: dlc-opt %s --pipeline='grad{func=f}' | FileCheck %s --check-prefix=F
// RUN: dlc-opt %s --pipeline='grad{func=g wrt=1}' | FileCheck %s --check-prefix=G
// RUN: dlc-opt %s --pipeline='grad{func=conv wrt=0,1}' | FileCheck %s --check-prefix=CONV
// RUN: dlc-opt %s --pipeline='grad{func=dyn}' | FileCheck %s --check-prefix=DYN
// RUN: dlc-opt %s --pipeline='grad{func=norm wrt=1 name=dnorm}' | FileCheck %s --check-prefix=NORM
// RUN: dlc-opt %s --pipeline='grad{func=unused wrt=1}' | FileCheck %s --check-prefix=UNUSED
// RUN: dlc-opt %s --pipeline='grad{func=branch wrt=0,1}' | FileCheck %s --check-prefix=IF
// RUN: dlc-opt %s --pipeline='grad{func=fused}' | FileCheck %s --check-prefix=FUSED

// `grad` adds `@<func>_grad`, returning the function's results and then the gradients of the
// chosen result with respect to the `wrt` arguments; the function itself stays.

// Doc example 1: a sum of squares. The seed is 1, broadcast back over the summed axis; `%x`
// is used twice by the `mul`, so its two cotangents are added.

// F-LABEL: func.func @f(%arg0: tensor<3xf32>) -> tensor<f32> {
// F-LABEL: func.func @f_grad(%arg0: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
// F-NEXT: %0 = graph.mul %arg0, %arg0 : tensor<3xf32>
// F-NEXT: %1 = graph.reduce_sum %0 {axes = array<i64: 0>, keepdim = false} : tensor<3xf32> -> tensor<f32>
// F-NEXT: %2 = graph.constant dense<1.000000e+00> : tensor<f32>
// F-NEXT: %3 = graph.reshape %2 {shape = array<i64: 1>} : tensor<f32> -> tensor<1xf32>
// F-NEXT: %4 = graph.broadcast_to %3 {shape = array<i64: 3>} : tensor<1xf32> -> tensor<3xf32>
// F-NEXT: %5 = graph.mul %4, %arg0 : tensor<3xf32>
// F-NEXT: %6 = graph.mul %4, %arg0 : tensor<3xf32>
// F-NEXT: %7 = graph.add %5, %6 : tensor<3xf32>
// F-NEXT: return %1, %7 : tensor<f32>, tensor<3xf32>
// F-NEXT: }
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = graph.mul %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 0>, keepdim = false} : tensor<3xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// Doc example 2: a result of several elements takes its seed as a new last argument; the
// broadcast operand's cotangent is summed over the broadcast axis.

// G-LABEL: func.func @g_grad(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
// G-NEXT: %0 = graph.add %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// G-NEXT: %1 = graph.reduce_sum %arg2 {axes = array<i64: 0>, keepdim = true} : tensor<2x3xf32> -> tensor<1x3xf32>
// G-NEXT: %2 = graph.reshape %1 {shape = array<i64: 3>} : tensor<1x3xf32> -> tensor<3xf32>
// G-NEXT: return %0, %2 : tensor<2x3xf32>, tensor<3xf32>
// G-NEXT: }
func.func @g(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// conv2d has its own rule (it stays whole): the weights' cotangent is the output cotangent
// times the im2col columns, the input's is the transposed weights times it, added back into
// the padded input through an inverted index table, the padding cut off.

// CONV-LABEL: func.func @conv_grad(%arg0: tensor<1x2x5x5xf32>, %arg1: tensor<3x2x3x3xf32>, %arg2: tensor<1x3x3x3xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) {
// CONV-NEXT: %0 = graph.conv2d %arg0, %arg1
// CONV: graph.gather {{.*}} -> tensor<1x2x9x9xf32>
// CONV: graph.matmul {{.*}}transpose_b{{.*}} : tensor<1x1x3x9xf32>, tensor<1x1x18x9xf32> -> tensor<1x1x3x18xf32>
// CONV: graph.reduce_sum {{.*}}axes = array<i64: 0>
// CONV: graph.constant dense<{{.*}}> : tensor<49x{{[0-9]+}}xi64>
// CONV: graph.gather {{.*}} -> tensor<1x2x49x{{[0-9]+}}xf32>
// CONV: graph.slice {{.*}} : tensor<1x2x7x7xf32> -> tensor<1x2x5x5xf32>
// CONV: return %0, {{.*}} : tensor<1x3x3x3xf32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>
func.func @conv(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %0 = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// Edge case: `?` dims. Broadcasts back and zeros take their sizes from `graph.dim`; softmax
// keeps its own rule.

// DYN-LABEL: func.func @dyn_grad(%arg0: tensor<?x8xf32>, %arg1: tensor<8xf32>) -> (tensor<f32>, tensor<?x8xf32>, tensor<8xf32>) {
// DYN: graph.softmax
// DYN: %[[D:.*]] = graph.dim %1, 0 : tensor<?x8xf32> -> index
// DYN-NEXT: graph.fill %[[D]] {value = 0.000000e+00 : f32} : index -> tensor<?x8xf32>
// DYN: graph.reduce_sum {{.*}}axes = array<i64: 1>, keepdim = true} : tensor<?x8xf32> -> tensor<?x1xf32>
// DYN: %[[DX:.*]] = graph.mul %{{.*}}, %arg1 : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
// DYN: %[[DS:.*]] = graph.reshape {{.*}} : tensor<1x8xf32> -> tensor<8xf32>
// DYN-NEXT: return %2, %[[DX]], %[[DS]] : tensor<f32>, tensor<?x8xf32>, tensor<8xf32>
func.func @dyn(%x: tensor<?x8xf32>, %s: tensor<8xf32>) -> tensor<f32> {
  %0 = graph.mul %x, %s : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %1 = graph.softmax %0 {axis = 1 : i64} : tensor<?x8xf32>
  %2 = graph.reduce_mean %1 {axes = array<i64: 0, 1>, keepdim = false} : tensor<?x8xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// A composite without a rule of its own (layer_norm) on the gradient's path is decomposed in
// the copy; `name` names the new function.

// NORM-LABEL: func.func @norm(
// NORM-NEXT: graph.layer_norm
// NORM-LABEL: func.func @dnorm(
// NORM-NOT: graph.layer_norm
// NORM: graph.rsqrt
// NORM: return
func.func @norm(%x: tensor<2x4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %0 = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %1 = graph.reduce_max %0 {axes = array<i64: 0, 1>, keepdim = false} : tensor<2x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// Counter-example: an argument the result does not depend on gets zeros.

// UNUSED-LABEL: func.func @unused_grad(%arg0: tensor<4xf32>, %arg1: tensor<2x?xf32>) -> (tensor<f32>, tensor<2x?xf32>) {
// UNUSED: %[[D:.*]] = graph.dim %arg1, 1 : tensor<2x?xf32> -> index
// UNUSED-NEXT: %[[Z:.*]] = graph.fill %[[D]] {value = 0.000000e+00 : f32} : index -> tensor<2x?xf32>
// UNUSED-NEXT: return %0, %[[Z]] : tensor<f32>, tensor<2x?xf32>
func.func @unused(%x: tensor<4xf32>, %y: tensor<2x?xf32>) -> tensor<f32> {
  %0 = graph.reduce_sum %x {axes = array<i64: 0>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// A `graph.if` on the path: a second `graph.if` on the same condition recomputes each region
// and yields the cotangents of the outer values the regions read (%0 in one, %arg0 in the
// other: zeros where a region does not read one); %0's goes on to %arg0 and %arg1 outside.

// IF-LABEL: func.func @branch_grad(
// IF: %[[BACK:.*]]:2 = graph.if %arg2 : tensor<i1> -> (tensor<4xf32>, tensor<4xf32>) {
// IF: graph.fill {value = 0.000000e+00 : f32} : tensor<4xf32>
// IF: graph.yield
// IF: } else {
// IF: graph.exp
// IF: graph.yield
// IF: graph.mul %[[BACK]]#0, %arg1
// IF: return
func.func @branch(%x: tensor<4xf32>, %w: tensor<4xf32>, %c: tensor<i1>) -> tensor<f32> {
  %s = graph.mul %x, %w : tensor<4xf32>
  %r = graph.if %c : tensor<i1> -> tensor<4xf32> {
    %a = graph.mul %s, %s : tensor<4xf32>
    graph.yield %a : tensor<4xf32>
  } else {
    %b = graph.log_softmax %x {axis = 0 : i64} : tensor<4xf32>
    graph.yield %b : tensor<4xf32>
  }
  %l = graph.reduce_sum %r {axes = array<i64: 0>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A `graph.fusion` (grad run after fuse) is differentiated through the ops it groups: the
// copy has them in its place.

// FUSED-LABEL: func.func @fused_grad(%arg0: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
// FUSED-NOT: graph.fusion
// FUSED: %[[E:.*]] = graph.exp %arg0 : tensor<4xf32>
// FUSED: graph.mul %{{.*}}, %[[E]] : tensor<4xf32>
// FUSED: return
func.func @fused(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = graph.fusion (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = graph.exp %a : tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  }
  %s = graph.reduce_sum %0 {axes = array<i64: 0>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
