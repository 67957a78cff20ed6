// RUN: dlc-opt %s | FileCheck %s
// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s

// `graph.rnn` prints its operand and result types as a function type; the time dim may be `?`.

// CHECK-LABEL: func.func @lstm
// CHECK: %{{.*}}:3 = graph.rnn %arg0, %arg1, %arg2, %arg3, %arg4, %arg5 {cell = "lstm", direction = "forward"} : (tensor<?x2x16xf32>, tensor<1x4x16xf32>, tensor<1x16xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
func.func @lstm(%xp: tensor<?x2x16xf32>, %r: tensor<1x4x16xf32>, %rb: tensor<1x16xf32>, %h0: tensor<1x2x4xf32>, %c0: tensor<1x2x4xf32>, %p: tensor<1x12xf32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>) {
  %y, %h, %c = graph.rnn %xp, %r, %rb, %h0, %c0, %p {cell = "lstm", direction = "forward"} : (tensor<?x2x16xf32>, tensor<1x4x16xf32>, tensor<1x16xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return %y, %c : tensor<?x1x2x4xf32>, tensor<1x2x4xf32>
}

// A bidirectional gru with sequence lengths and per-direction activations.
// CHECK-LABEL: func.func @gru
// CHECK: graph.rnn %arg0, %arg1, %arg2, %arg3, %arg4 {activation_alpha = array<f64: 2.000000e-01, 1.000000e+00, 2.000000e-01, 1.000000e+00>, activation_beta = array<f64: 5.000000e-01, 0.000000e+00, 5.000000e-01, 0.000000e+00>, activations = ["hard_sigmoid", "elu", "hard_sigmoid", "elu"], cell = "gru", clip = 3.000000e+00 : f64, direction = "bidirectional", linear_before_reset} : (tensor<5x3x18xf32>, tensor<2x3x9xf32>, tensor<2x9xf32>, tensor<2x3x3xf32>, tensor<3xi32>) -> (tensor<5x2x3x3xf32>, tensor<2x3x3xf32>)
func.func @gru(%xp: tensor<5x3x18xf32>, %r: tensor<2x3x9xf32>, %rb: tensor<2x9xf32>, %h0: tensor<2x3x3xf32>, %lens: tensor<3xi32>) -> tensor<2x3x3xf32> {
  %y, %h = graph.rnn %xp, %r, %rb, %h0, %lens {cell = "gru", direction = "bidirectional", activations = ["hard_sigmoid", "elu", "hard_sigmoid", "elu"], activation_alpha = array<f64: 0.2, 1.0, 0.2, 1.0>, activation_beta = array<f64: 0.5, 0.0, 0.5, 0.0>, clip = 3.0 : f64, linear_before_reset} : (tensor<5x3x18xf32>, tensor<2x3x9xf32>, tensor<2x9xf32>, tensor<2x3x3xf32>, tensor<3xi32>) -> (tensor<5x2x3x3xf32>, tensor<2x3x3xf32>)
  return %h : tensor<2x3x3xf32>
}
