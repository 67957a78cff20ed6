// dlc's `grad` pass differentiates through a downstream dialect's ops that implement
// `Differentiable` (act.scale, act.clamp); act.hard_swish states no rule, so it is lowered to
// graph ops first. The compiled gradient agrees with dlc's interpreter.
// RUN: act-opt %s --pipeline='grad{func=f}' | FileCheck %s
// RUN: act-opt %s --pipeline='grad{func=f},lower-act' | dlc-run - --entry f_grad --check | FileCheck %s --check-prefix=EXEC
// RUN: not act-opt %s --pipeline='grad{func=g}' 2>&1 | FileCheck %s --check-prefix=NORULE
// RUN: act-opt %s --pipeline='lower-act,grad{func=g}' | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @f_grad(%arg0: tensor<3x5xf32>) -> (tensor<f32>, tensor<3x5xf32>) {
// CHECK: act.clamp %arg0, range<-5.000000e-01, 5.000000e-01>
// CHECK: %[[F:.*]] = graph.constant dense<2.500000e+00> : tensor<1x1xf32>
// CHECK: %[[DS:.*]] = graph.mul %{{.*}}, %[[F]]
// CHECK: %[[GE:.*]] = graph.cmp ge, %arg0
// CHECK: %[[LE:.*]] = graph.cmp le, %arg0
// CHECK: %[[IN:.*]] = graph.and %[[GE]], %[[LE]]
// CHECK: graph.select %[[IN]], %[[DS]]
// CHECK: return
// EXEC-COUNT-2: check output {{[0-9]}}: max abs err {{.*}}: ok
func.func @f(%x: tensor<3x5xf32>) -> tensor<f32> {
  %c = act.clamp %x, range<-0.5, 0.5> : tensor<3x5xf32>
  %s = act.scale %c, 2.5 : tensor<3x5xf32>
  %m = graph.mul %s, %x : tensor<3x5xf32>
  %r = graph.reduce_sum %m {axes = array<i64: 0, 1>, keepdim = false} : tensor<3x5xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// NORULE: grad.mlir:[[@LINE+4]]:8: error: 'act.hard_swish' op grad: no derivative rule (the Differentiable interface) for this op, and the gradient flows through it
// LOWERED-LABEL: func.func @g_grad(
// LOWERED-NOT: act.hard_swish
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = act.hard_swish %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
