// lower-act rewrites act ops into graph ops, which dlc then compiles and runs like any graph
// program: the compiled code agrees with dlc's interpreter on the lowered program.
// RUN: act-opt %s --pipeline=lower-act | FileCheck %s
// RUN: act-opt %s --pipeline=lower-act | dlc-run - --check | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @hard_swish
// CHECK-NOT: act.
// CHECK: %[[THREE:.*]] = graph.constant dense<3.000000e+00> : tensor<f32>
// CHECK: %[[SUM:.*]] = graph.add %arg0, %[[THREE]]
// CHECK: %[[SIX:.*]] = graph.constant dense<6.000000e+00> : tensor<f32>
// CHECK: %[[LOW:.*]] = graph.max %[[SUM]]
// CHECK: %[[GATE:.*]] = graph.min %[[LOW]], %[[SIX]]
// CHECK: %[[PROD:.*]] = graph.mul %arg0, %[[GATE]]
// CHECK: graph.div %[[PROD]], %{{.*}} : tensor<3x5xf32>, tensor<f32>
// EXEC-COUNT-2: check output {{[0-9]}}: max abs err {{.*}}: ok
func.func @hard_swish(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %y = act.hard_swish %x : tensor<3x5xf32>
  %z = act.clamp %x, range<-0.5, 0.5> : tensor<3x5xf32>
  return %y, %z : tensor<3x5xf32>, tensor<3x5xf32>
}

