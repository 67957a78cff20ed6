// RUN: dlc-opt %s --split-input-file --pipeline=decompose,fuse,lower | FileCheck %s
// RUN: dlc-opt %s --split-input-file --pipeline=decompose,fuse,lower,cpu-default | FileCheck %s --check-prefix=CPU

// A reverse rnn over `?` steps with sequence lengths is one kernel: a loop over the batch
// holding the scan, a serial loop over the entry's steps, each step (`len - 1 - s` backwards) a
// loop over blocks of hidden units computing the block's product and then its cells, then the
// copy of the new state for the next step; then the zeros after the sequence and the final
// state. With a batch of 2 the threads share each step's unit blocks (that loop is parallel),
// not the batch. The host passes the step count (`loop.dim`), so one kernel serves every
// length.

// CHECK-LABEL: loop.kernel @rnn_0_rnn(
// CHECK-SAME: %arg7: index)
// CHECK: loop.for serial %[[B:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: loop.schedule_block "init_0"
// CHECK: %[[RAW:.*]] = loop.load %arg4[%[[B]]] : !loop.buffer<2xi32, global>
// CHECK: %[[N:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[LEN:.*]] = arith.minsi %{{.*}}, %arg7 : index
// CHECK: loop.for serial %[[S:.*]] = %c0 to %[[LEN]] step %c1 {
// CHECK: %[[LAST:.*]] = arith.subi %[[LEN]], %c1 : index
// CHECK: %[[T:.*]] = arith.subi %[[LAST]], %[[S]] : index
// CHECK: loop.for parallel %[[U:.*]] = %c0 to %c4 step %c4 {
// CHECK: loop.schedule_block "matvec_2" (%{{.*}}, %{{.*}} reduce, %{{.*}} = %[[U]])
// CHECK: loop.schedule_block "cell_3" (%{{.*}} = %{{.*}}, %{{.*}} = %[[U]], %{{.*}} = %[[T]], %{{.*}} = %[[B]])
// CHECK: math.tanh
// CHECK: loop.schedule_block "next_4"
// CHECK-NOT: loop.if
// CHECK: loop.for serial %{{.*}} = %[[LEN]] to %arg7 step %c1 {
// CHECK: loop.schedule_block "pad_5"
// CHECK: loop.schedule_block "final_6"
// CHECK: loop.return
// CHECK-LABEL: func.func @rnn
// CHECK: %[[T:.*]] = loop.dim %arg0, 0
// CHECK: loop.alloc(%[[T]]) : !loop.buffer<?x1x2x4xf32, global>
// CHECK: loop.launch @rnn_0_rnn({{.*}}, %[[T]])
// CHECK-NOT: loop.launch

// CPU-LABEL: loop.kernel @rnn_0_rnn(
// CPU: math.tanh
// CPU-LABEL: func.func @rnn
func.func @rnn(%xp: tensor<?x2x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x2x4xf32>, %lens: tensor<2xi32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>) {
  %y, %h = graph.rnn %xp, %r, %rb, %h0, %lens {cell = "rnn", direction = "reverse"} : (tensor<?x2x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x2x4xf32>, tensor<2xi32>) -> (tensor<?x1x2x4xf32>, tensor<1x2x4xf32>)
  return %y, %h : tensor<?x1x2x4xf32>, tensor<1x2x4xf32>
}

// -----

// `fuse` keeps graph.rnn apart: the relu after it is a kernel of its own.
// CHECK-LABEL: loop.kernel @rnn_relu_0_rnn(
// CHECK-LABEL: loop.kernel @rnn_relu_1_relu(
func.func @rnn_relu(%xp: tensor<3x1x4xf32>, %r: tensor<1x4x4xf32>, %rb: tensor<1x4xf32>, %h0: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn"} : (tensor<3x1x4xf32>, tensor<1x4x4xf32>, tensor<1x4xf32>, tensor<1x1x4xf32>) -> (tensor<3x1x1x4xf32>, tensor<1x1x4xf32>)
  %0 = graph.relu %h : tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// A `?` batch: threads share the batch loop, and each step's unit blocks run serially.
// CHECK-LABEL: loop.kernel @rnn_batch_0_rnn(
// CHECK-SAME: %arg4: !loop.buffer<?x1x?x8xf32, global> {loop.noalias}, %arg5: !loop.buffer<1x?x8xf32, global> {loop.noalias}, %arg6: index, %arg7: index)
// CHECK: loop.for parallel %{{.*}} = %c0 to %arg7 step %c1 {
// CHECK: loop.for serial %{{.*}} = %c0 to %arg6 step %c1 {
// CHECK: loop.for serial %{{.*}} = %c0 to %c8 step %c8 {
// CHECK-LABEL: func.func @rnn_batch
// CHECK-DAG: %[[T:.*]] = loop.dim %arg0, 0
// CHECK-DAG: %[[B:.*]] = loop.dim %arg0, 1
// CHECK: loop.launch @rnn_batch_0_rnn({{.*}}, %[[T]], %[[B]])
func.func @rnn_batch(%xp: tensor<?x?x8xf32>, %r: tensor<1x8x8xf32>, %rb: tensor<1x8xf32>, %h0: tensor<1x?x8xf32>) -> tensor<?x1x?x8xf32> {
  %y, %h = graph.rnn %xp, %r, %rb, %h0 {cell = "rnn"} : (tensor<?x?x8xf32>, tensor<1x8x8xf32>, tensor<1x8xf32>, tensor<1x?x8xf32>) -> (tensor<?x1x?x8xf32>, tensor<1x?x8xf32>)
  return %y : tensor<?x1x?x8xf32>
}
