// RUN: dlc-run %s --check --no-cache --seed 1 | FileCheck %s
// RUN: dlc-run %s --check --no-cache --seed 2 | FileCheck %s
// RUN: dlc-run %s --check --no-cache --seed 5 | FileCheck %s
// RUN: dlc-run %s --check --no-cache --seed 9 --dynamic-size 3 | FileCheck %s
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=IR
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// graph.if and graph.loop run as host calls of their outlined regions: random inputs pick
// either branch (the condition, and a parity test inside the loop) and trip counts from -4 to
// 3 (zero-trip loops included), the loop stops early by its own condition, and a carried
// value grows each iteration under a `?` dim. Compiled and checked against the interpreter.

// IR: loop.kernel @main_then_{{[0-9]+}}_fusion
// IR: func.func private @main_then(
// IR: func.func private @main_else(
// IR: func.func private @main_body_else(
// IR: func.func private @main_body(
// IR: loop.call_if
// IR: loop.call_loop @main_body
// IR: loop.call_loop @main_body_1
// STATS: 4 num-host-calls

// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok
// CHECK: check output 2: {{.*}}: ok
// CHECK: check output 3: {{.*}}: ok
// CHECK: check output 4: {{.*}}: ok

func.func @main(%c: tensor<i1>, %x: tensor<?x4xf32>, %m: tensor<i64>, %w: tensor<4x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x?x4xf32>, tensor<?xf32>, tensor<?x4xf32>) {
  // The branches give different row counts.
  %r = graph.if %c : tensor<i1> -> tensor<?x4xf32> {
    %a = graph.matmul %x, %w : tensor<?x4xf32>, tensor<4x4xf32> -> tensor<?x4xf32>
    %b = graph.tanh %a : tensor<?x4xf32>
    graph.yield %b : tensor<?x4xf32>
  } else {
    %d = graph.concat %x, %x {axis = 0 : i64} : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<?x4xf32>
    graph.yield %d : tensor<?x4xf32>
  }
  %t = graph.constant dense<true> : tensor<i1>
  // A carried matrix and its scan; odd iterations add one (an if inside the body); the loop
  // stops once the sum passes 50.
  %y, %s = graph.loop (%m, %t, %x) : (tensor<i64>, tensor<i1>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x?x4xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<?x4xf32>):
    %p = graph.matmul %v, %w : tensor<?x4xf32>, tensor<4x4xf32> -> tensor<?x4xf32>
    %f = graph.cast %i : tensor<i64> -> tensor<f32>
    %n = graph.add %p, %f : tensor<?x4xf32>, tensor<f32> -> tensor<?x4xf32>
    %two = graph.constant dense<2> : tensor<i64>
    %par = graph.rem %i, %two : tensor<i64>
    %one = graph.constant dense<1> : tensor<i64>
    %odd = graph.cmp eq, %par, %one : tensor<i64>
    %o = graph.if %odd : tensor<i1> -> tensor<?x4xf32> {
      %k = graph.constant dense<1.0> : tensor<f32>
      %q = graph.add %n, %k : tensor<?x4xf32>, tensor<f32> -> tensor<?x4xf32>
      graph.yield %q : tensor<?x4xf32>
    } else {
      graph.yield %n : tensor<?x4xf32>
    }
    %sum = graph.reduce_sum %o {axes = array<i64: 0, 1>, keepdim = false} : tensor<?x4xf32> -> tensor<f32>
    %lim = graph.constant dense<50.0> : tensor<f32>
    %go = graph.cmp lt, %sum, %lim : tensor<f32>
    graph.yield %go, %o, %o : tensor<i1>, tensor<?x4xf32>, tensor<?x4xf32>
  }
  // A carried vector that grows by one element per iteration.
  %z0 = graph.constant dense<[1.0]> : tensor<1xf32>
  %z = graph.loop (%m, %t, %z0) : (tensor<i64>, tensor<i1>, tensor<1xf32>) -> tensor<?xf32> {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<?xf32>):
    %h = graph.cast %i : tensor<i64> -> tensor<f32>
    %f = graph.reshape %h {shape = array<i64: 1>} : tensor<f32> -> tensor<1xf32>
    %g = graph.concat %v, %f {axis = 0 : i64} : tensor<?xf32>, tensor<1xf32> -> tensor<?xf32>
    graph.yield %cond, %g : tensor<i1>, tensor<?xf32>
  }
  %e = graph.exp %r : tensor<?x4xf32>
  func.return %r, %y, %s, %z, %e : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x?x4xf32>, tensor<?xf32>, tensor<?x4xf32>
}
