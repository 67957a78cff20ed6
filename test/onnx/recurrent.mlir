// The recurrent operators: an LSTM over a symbolic step count imports to the projection GEMM
// (its bias fused after it) and one graph.rnn taking the transposed recurrent weights, and
// one compiled model runs sequences of 3 and 7 steps, matching onnx's reference evaluator; a
// bidirectional GRU with linear_before_reset does too; bad attributes name the node.
// RUN: rm -rf %t && python3 %S/Inputs/recurrent.py %t
// RUN: dlc-import %t/lstm.onnx | FileCheck %s
// RUN: dlc-run %t/lstm.onnx --inputs %t/lstm_x3.npy --expected %t/lstm_x3_y0.npy,%t/lstm_x3_y1.npy,%t/lstm_x3_y2.npy --check | FileCheck %s --check-prefix=RUN3
// RUN: dlc-run %t/lstm.onnx --inputs %t/lstm_x7.npy --expected %t/lstm_x7_y0.npy,%t/lstm_x7_y1.npy,%t/lstm_x7_y2.npy | FileCheck %s --check-prefix=RUN7
// RUN: dlc-run %t/gru.onnx --inputs %t/gru_x.npy,%t/gru_w.npy,%t/gru_r.npy --expected %t/gru_y0.npy,%t/gru_y1.npy --check | FileCheck %s --check-prefix=GRU
// RUN: not dlc-import %t/bad_direction.onnx 2>&1 | FileCheck %s --check-prefix=DIRECTION
// RUN: not dlc-import %t/bad_layout.onnx 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: not dlc-import %t/bad_activations.onnx 2>&1 | FileCheck %s --check-prefix=ACTIVATIONS
// RUN: not dlc-import %t/bad_function.onnx 2>&1 | FileCheck %s --check-prefix=FUNCTION
// RUN: not dlc-import %t/bad_hidden.onnx 2>&1 | FileCheck %s --check-prefix=HIDDEN
// RUN: not dlc-import %t/bad_clip.onnx 2>&1 | FileCheck %s --check-prefix=CLIP

// CHECK-LABEL: func.func @main(%arg0: tensor<?x2x3xf32> {graph.dim_names = ["steps", "", ""]}) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
// CHECK: %[[ROWS:.*]] = graph.reshape %arg0 {shape = array<i64: -1, 3>} : tensor<?x2x3xf32> -> tensor<?x3xf32>
// CHECK: %[[GEMM:.*]] = graph.matmul %[[ROWS]], %{{.*}} : tensor<?x3xf32>, tensor<3x16xf32> -> tensor<?x16xf32>
// CHECK: %[[BIASED:.*]] = graph.add %[[GEMM]], %{{.*}} : tensor<?x16xf32>, tensor<16xf32> -> tensor<?x16xf32>
// CHECK: %[[XP:.*]] = graph.reshape %[[BIASED]] {shape = array<i64: -1, 2, 16>}
// CHECK: %[[R:.*]]:3 = graph.rnn %[[XP]], %{{.*}} {cell = "lstm", direction = "forward"} : (tensor<?x2x16xf32>, tensor<1x4x16xf32>, tensor<1x16xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x12xf32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2

// RUN3: output 0: f32 [3, 1, 2, 4]
// RUN3: check output 0: {{.*}}: ok
// RUN3: expected output 0 ({{.*}}): {{.*}}: ok
// RUN3: expected output 1 ({{.*}}): {{.*}}: ok
// RUN3: expected output 2 ({{.*}}): {{.*}}: ok

// RUN7: output 0: f32 [7, 1, 2, 4]
// RUN7: expected output 0 ({{.*}}): {{.*}}: ok
// RUN7: expected output 1 ({{.*}}): {{.*}}: ok
// RUN7: expected output 2 ({{.*}}): {{.*}}: ok

// GRU: output 0: f32 [5, 2, 2, 3]
// GRU: check output 1: {{.*}}: ok
// GRU: expected output 0 ({{.*}}): {{.*}}: ok
// GRU: expected output 1 ({{.*}}): {{.*}}: ok

// DIRECTION: error: node 'lstm' (LSTM, opset 22): attribute 'direction' must be forward, reverse or bidirectional, not 'sideways'
// LAYOUT: error: node 'lstm' (LSTM, opset 22): attribute 'layout' must be 0 or 1, not 2
// ACTIVATIONS: error: node 'lstm' (LSTM, opset 22): attribute 'activations' must name 3 functions (3 per direction), but names 2
// FUNCTION: error: node 'lstm' (LSTM, opset 22): activation 'Swish' is not supported
// HIDDEN: error: node 'lstm' (LSTM, opset 22): attribute 'hidden_size' is 5, but R holds 4
// CLIP: error: node 'lstm' (LSTM, opset 22): attribute 'clip' must be positive, not -1
