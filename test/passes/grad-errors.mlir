// RUN: not dlc-opt %s --pipeline='grad{func=through_int}' 2>&1 | FileCheck %s --check-prefix=INT
// RUN: not dlc-opt %s --pipeline='grad{func=calls}' 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: not dlc-opt %s --pipeline=grad 2>&1 | FileCheck %s --check-prefix=FUNC
// RUN: not dlc-opt %s --pipeline='grad{func=nope}' 2>&1 | FileCheck %s --check-prefix=NOPE
// RUN: not dlc-opt %s --pipeline='grad{func=int_arg wrt=0}' 2>&1 | FileCheck %s --check-prefix=INTARG
// RUN: not dlc-opt %s --pipeline='grad{func=int_arg wrt=5}' 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not dlc-opt %s --pipeline='grad{func=int_arg result=1}' 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not dlc-opt %s --pipeline='grad{func=int_arg name=calls}' 2>&1 | FileCheck %s --check-prefix=TAKEN
// RUN: not dlc-opt %s --pipeline='grad{func=conv_dyn wrt=1}' 2>&1 | FileCheck %s --check-prefix=CONV
// RUN: not dlc-opt %s --pipeline='grad{func=rnn}' 2>&1 | FileCheck %s --check-prefix=RNN
// RUN: not dlc-opt %s --pipeline='grad{func=mixed}' 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not dlc-opt %s --pipeline='grad{func=bcast}' 2>&1 | FileCheck %s --check-prefix=BCAST
// RUN: dlc-opt %s --pipeline='grad{func=off_path}' | FileCheck %s --check-prefix=OFFPATH

// What `grad` refuses, each at a location: a result that depends on the argument only through
// integers (the counter-example of the pass doc), an op without a derivative rule, a rule
// refusing its instance, and bad options.

// FUNC: error: pass 'grad': option 'func' is required: the function to differentiate
// NOPE: error: 'builtin.module' op grad: no function named @nope
// INTARG: grad-errors.mlir:[[@LINE+5]]:1: error: 'func.func' op grad: argument #0 has type tensor<4xi32>; only float tensors can be differentiated
// RANGE: error: 'func.func' op grad: option 'wrt' names argument #5, but the function has 2 argument(s)
// RESULT: error: 'func.func' op grad: option 'result' is 1, but the function returns 1 value(s)
// TAKEN: error: 'func.func' op grad: a function named @calls already exists

func.func @int_arg(%x: tensor<4xi32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.cast %x : tensor<4xi32> -> tensor<4xf32>
  %1 = graph.add %0, %y : tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func @through_int(%x: tensor<4xf32>) -> tensor<f32> {
  // INT: grad-errors.mlir:[[@LINE+1]]:8: error: 'graph.cast' op grad: the differentiated result depends on a 'wrt' argument only through this op's non-float result, which carries no gradient
  %0 = graph.cast %x : tensor<4xf32> -> tensor<4xi32>
  %1 = graph.cast %0 : tensor<4xi32> -> tensor<4xf32>
  %2 = graph.reduce_sum %1 {axes = array<i64: 0>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}

func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CALL: grad-errors.mlir:[[@LINE+1]]:8: error: 'func.call' op grad: no derivative rule (the Differentiable interface) for this op, and the gradient flows through it
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CONV: grad-errors.mlir:[[@LINE+2]]:8: error: 'graph.conv2d' op grad: this op has an output height or width known only at run time; its gradient needs them static
func.func @conv_dyn(%x: tensor<1x2x?x?xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x?x?xf32> {
  %0 = graph.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : tensor<1x2x?x?xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x?x?xf32>
  return %0 : tensor<1x3x?x?xf32>
}

// RNN: grad-errors.mlir:[[@LINE+2]]:12: error: 'graph.rnn' op grad: this op needs a static number of steps to be unrolled, but the time dim of xp is ? (a recurrence is differentiated unrolled)
func.func @rnn(%xp: tensor<?x1x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x1x4xf32>) -> tensor<f32> {
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn"} : (tensor<?x1x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x1x4xf32>) -> (tensor<?x1x1x4xf32>, tensor<1x1x4xf32>)
  %s = graph.reduce_sum %h {axes = array<i64: 0, 1, 2>, keepdim = false} : tensor<1x1x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// One argument reaching the result only through integers is refused even while another keeps
// the result differentiable (it would otherwise get zeros, silently).
// MIXED: grad-errors.mlir:[[@LINE+2]]:8: error: 'graph.cast' op grad: the differentiated result depends on a 'wrt' argument only through this op's non-float result, which carries no gradient
func.func @mixed(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %i = graph.cast %b : tensor<4xf32> -> tensor<4xi32>
  %c = graph.cast %i : tensor<4xi32> -> tensor<4xf32>
  %s = graph.add %a, %c : tensor<4xf32>
  %r = graph.reduce_sum %s {axes = array<i64: 0>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// BCAST: grad-errors.mlir:[[@LINE+2]]:8: error: 'graph.broadcast_to' op grad: this op broadcasts axis 0, of a size known only at run time, to 4: its gradient needs to know whether that axis is 1
func.func @bcast(%x: tensor<?xf32>) -> tensor<f32> {
  %0 = graph.broadcast_to %x {shape = array<i64: 4>} : tensor<?xf32> -> tensor<4xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 0>, keepdim = false} : tensor<4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// Off the gradient's path, a recurrence over a `?` number of steps is left alone (only what
// the differentiated result depends on is expanded).
// OFFPATH-LABEL: func.func @off_path_grad(
// OFFPATH: graph.rnn
// OFFPATH: return
func.func @off_path(%xp: tensor<?x1x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x1x4xf32>, %w: tensor<3xf32>) -> (tensor<f32>, tensor<1x1x4xf32>) {
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn"} : (tensor<?x1x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x1x4xf32>) -> (tensor<?x1x1x4xf32>, tensor<1x1x4xf32>)
  %s = graph.reduce_sum %w {axes = array<i64: 0>, keepdim = false} : tensor<3xf32> -> tensor<f32>
  return %s, %h : tensor<f32>, tensor<1x1x4xf32>
}
