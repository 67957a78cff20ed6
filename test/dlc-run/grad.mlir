// RUN: dlc-opt %s --pipeline='grad{func=mlp wrt=1,2}' | dlc-run - --entry mlp_grad --check --seed 3 | FileCheck %s --check-prefix=MLP
// RUN: dlc-run %s --pipeline 'grad{func=mlp wrt=1,2},decompose,fuse,lower,cpu-default' --entry mlp_grad --seed 3 | FileCheck %s --check-prefix=MADE
// RUN: not dlc-run %s --pipeline 'grad{func=mlp wrt=1,2},decompose,fuse,lower,cpu-default' --entry mlp_grad --check 2>&1 | FileCheck %s --check-prefix=NOREF
// RUN: not dlc-run %s --pipeline 'decompose,fuse,lower,cpu-default' --entry nope 2>&1 | FileCheck %s --check-prefix=NOPE
// RUN: dlc-opt %s --pipeline='grad{func=cnn}' | dlc-run - --entry cnn_grad --check --seed 4 | FileCheck %s --check-prefix=CNN
// RUN: dlc-opt %s --pipeline='grad{func=dyn}' | dlc-run - --entry dyn_grad --check --dynamic-size 5 | FileCheck %s --check-prefix=DYN
// RUN: dlc-opt %s --pipeline='grad{func=lstm}' | dlc-run - --entry lstm_grad --check --seed 5 | FileCheck %s --check-prefix=LSTM
// RUN: dlc-opt %s --pipeline='grad{func=branch wrt=0,1}' | dlc-run - --entry branch_grad --check --seed 1 | FileCheck %s --check-prefix=BRANCH
// RUN: dlc-opt %s --pipeline='grad{func=branch wrt=0,1}' | dlc-run - --entry branch_grad --check --seed 2 | FileCheck %s --check-prefix=BRANCH
// RUN: dlc-opt %s --pipeline='grad{func=looped}' | dlc-run - --entry looped_grad --check | FileCheck %s --check-prefix=LOOP

// Gradient functions from `grad` compile and run like any graph program: the compiled
// gradients match the graph interpreter's on the same inputs (`--check`). The functions are
// a linear layer under tanh and a log-softmax cross-entropy, a strided padded convolution
// under a max pool and a mean, a `?` batch through softmax, an LSTM layer (its recurrence
// unrolled by `grad`), a `graph.if` (two seeds, so that both branches run) and a `graph.loop`
// of three iterations carrying a value and scanning another, its body reading a parameter.

// An entry the pipeline makes is looked up after it; there is no written program to check it
// against, and a name nothing makes is an error.
// MADE: output 1: f32 [3, 5]
// MADE: output 2: f32 [5]
// NOREF: @mlp_grad is made by the pipeline: the program as written has no such function to check it against
// NOPE: error: no host function '@nope' in the module

// MLP: output 0: f32 []
// MLP: output 1: f32 [3, 5]
// MLP: output 2: f32 [5]
// MLP: check output 0: {{.*}}: ok
// MLP: check output 1: {{.*}}: ok
// MLP: check output 2: {{.*}}: ok
func.func @mlp(%x: tensor<4x3xf32>, %w: tensor<3x5xf32>, %b: tensor<5xf32>, %t: tensor<4x5xf32>) -> tensor<f32> {
  %0 = graph.linear %x, %w, %b : tensor<4x3xf32>, tensor<3x5xf32>, tensor<5xf32> -> tensor<4x5xf32>
  %1 = graph.tanh %0 : tensor<4x5xf32>
  %2 = graph.log_softmax %1 {axis = 1 : i64} : tensor<4x5xf32>
  %3 = graph.mul %2, %t : tensor<4x5xf32>
  %4 = graph.reduce_mean %3 {axes = array<i64: 0, 1>, keepdim = false} : tensor<4x5xf32> -> tensor<f32>
  %5 = graph.neg %4 : tensor<f32>
  return %5 : tensor<f32>
}

// CNN: output 1: f32 [2, 2, 6, 6]
// CNN: output 2: f32 [3, 2, 3, 3]
// CNN: check output 0: {{.*}}: ok
// CNN: check output 1: {{.*}}: ok
// CNN: check output 2: {{.*}}: ok
func.func @cnn(%x: tensor<2x2x6x6xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<f32> {
  %0 = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<2x2x6x6xf32>, tensor<3x2x3x3xf32> -> tensor<2x3x3x3xf32>
  %1 = graph.relu %0 : tensor<2x3x3x3xf32>
  %2 = graph.max_pool2d %1 {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<2x3x3x3xf32> -> tensor<2x3x2x2xf32>
  %3 = graph.reduce_mean %2 {axes = array<i64: 0, 1, 2, 3>, keepdim = false} : tensor<2x3x2x2xf32> -> tensor<f32>
  return %3 : tensor<f32>
}

// DYN: output 1: f32 [5, 8]
// DYN: check output 1: {{.*}}: ok
// DYN: check output 2: {{.*}}: ok
func.func @dyn(%x: tensor<?x8xf32>, %s: tensor<8xf32>) -> tensor<f32> {
  %0 = graph.mul %x, %s : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %1 = graph.softmax %0 {axis = 1 : i64} : tensor<?x8xf32>
  %2 = graph.reduce_mean %1 {axes = array<i64: 0, 1>, keepdim = false} : tensor<?x8xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

// LSTM: output 0: f32 []
// LSTM: output 1: f32 [4, 2, 24]
// LSTM: output 2: f32 [1, 6, 24]
// LSTM-COUNT-6: check output {{[0-9]}}: {{.*}}: ok
func.func @lstm(%xp: tensor<4x2x24xf32>, %r: tensor<1x6x24xf32>, %rb: tensor<1x24xf32>, %h0: tensor<1x2x6xf32>, %c0: tensor<1x2x6xf32>, %p: tensor<1x18xf32>) -> tensor<f32> {
  %y, %h, %c = graph.rnn %xp, %r, %rb, %h0, %c0, %p {cell = "lstm"} : (tensor<4x2x24xf32>, tensor<1x6x24xf32>, tensor<1x24xf32>, tensor<1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x18xf32>) -> (tensor<4x1x2x6xf32>, tensor<1x2x6xf32>, tensor<1x2x6xf32>)
  %s = graph.reduce_sum %y {axes = array<i64: 0, 1, 2, 3>, keepdim = false} : tensor<4x1x2x6xf32> -> tensor<f32>
  %t = graph.reduce_sum %c {axes = array<i64: 0, 1, 2>, keepdim = false} : tensor<1x2x6xf32> -> tensor<f32>
  %l = graph.add %s, %t : tensor<f32>
  return %l : tensor<f32>
}

// BRANCH: output 1: f32 [4]
// BRANCH-COUNT-3: check output {{[0-9]}}: {{.*}}: ok
func.func @branch(%x: tensor<4xf32>, %w: tensor<4xf32>, %c: tensor<i1>) -> tensor<f32> {
  %s = graph.mul %x, %w : tensor<4xf32>
  %r = graph.if %c : tensor<i1> -> tensor<4xf32> {
    %a = graph.mul %s, %s : tensor<4xf32>
    graph.yield %a : tensor<4xf32>
  } else {
    %b = graph.softmax %x {axis = 0 : i64} : tensor<4xf32>
    %e = graph.layer_norm %b, %w, %w {axis = 0 : i64, epsilon = 1.0e-5 : f32} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    graph.yield %e : tensor<4xf32>
  }
  %l = graph.reduce_sum %r {axes = array<i64: 0>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// LOOP: output 1: f32 [3]
// LOOP-COUNT-3: check output {{[0-9]}}: {{.*}}: ok
func.func @looped(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %m = graph.constant dense<3> : tensor<i64>
  %c = graph.constant dense<true> : tensor<i1>
  %r, %s = graph.loop (%m, %c, %x) : (tensor<i64>, tensor<i1>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<3xf32>):
    %t = graph.tanh %acc : tensor<3xf32>
    %n = graph.mul %t, %w : tensor<3xf32>
    %e = graph.sin %acc : tensor<3xf32>
    graph.yield %cond, %n, %e : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  %a = graph.reduce_sum %r {axes = array<i64: 0>, keepdim = false} : tensor<3xf32> -> tensor<f32>
  %b = graph.reduce_sum %s {axes = array<i64: 0, 1>, keepdim = false} : tensor<?x3xf32> -> tensor<f32>
  %l = graph.add %a, %b : tensor<f32>
  return %l : tensor<f32>
}
