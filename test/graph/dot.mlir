// RUN: dlc-opt %s --emit=dot --split-input-file | FileCheck %s

// Arguments are input nodes, ops are boxes labelled with their name and result type, edges
// follow SSA uses (numbered when the user takes several operands), return is the output node.

// CHECK-LABEL: digraph "softmax" {
// CHECK:   arg0 [shape=ellipse, label="%arg0\ntensor<?x8xf32>"];
// CHECK:   n0 [shape=box, label="graph.reduce_max\ntensor<?x1xf32>"];
// CHECK:   n1 [shape=box, label="graph.sub\ntensor<?x8xf32>"];
// CHECK:   n2 [shape=box, label="graph.exp\ntensor<?x8xf32>"];
// CHECK:   n3 [shape=box, label="graph.reduce_sum\ntensor<?x1xf32>"];
// CHECK:   n4 [shape=box, label="graph.div\ntensor<?x8xf32>"];
// CHECK:   return [shape=ellipse, label="return"];
// CHECK:   arg0 -> n0;
// CHECK:   arg0 -> n1 [label="0"];
// CHECK:   n0 -> n1 [label="1"];
// CHECK:   n1 -> n2;
// CHECK:   n2 -> n3;
// CHECK:   n2 -> n4 [label="0"];
// CHECK:   n3 -> n4 [label="1"];
// CHECK:   n4 -> return;
// CHECK: }
func.func @softmax(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdim = true} : tensor<?x8xf32> -> tensor<?x1xf32>
  %d = graph.sub %x, %m : tensor<?x8xf32>, tensor<?x1xf32> -> tensor<?x8xf32>
  %e = graph.exp %d : tensor<?x8xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdim = true} : tensor<?x8xf32> -> tensor<?x1xf32>
  %r = graph.div %e, %s : tensor<?x8xf32>, tensor<?x1xf32> -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A fusion is a cluster: its ops are drawn inside it, and edges run from the producers
// outside straight to the users inside (through the block arguments) and back out (through
// graph.yield); the fusion op itself is no node.

// CHECK-LABEL: digraph "fused" {
// CHECK:   arg0 [shape=ellipse, label="%arg0\ntensor<4x8xf32>"];
// CHECK:   arg1 [shape=ellipse, label="%arg1\ntensor<8xf32>"];
// CHECK:   n0 [shape=box, label="graph.constant\ntensor<1xf32>"];
// CHECK:   subgraph cluster_0 {
// CHECK:     label="graph.fusion";
// CHECK:     n1 [shape=box, label="graph.add\ntensor<4x8xf32>"];
// CHECK:     n2 [shape=box, label="graph.relu\ntensor<4x8xf32>"];
// CHECK:     n3 [shape=box, label="graph.mul\ntensor<4x8xf32>"];
// CHECK:   }
// CHECK:   n4 [shape=box, label="graph.reduce_sum\ntensor<4xf32>"];
// CHECK:   return [shape=ellipse, label="return"];
// CHECK:   arg0 -> n1 [label="0"];
// CHECK:   arg1 -> n1 [label="1"];
// CHECK:   n1 -> n2;
// CHECK:   n2 -> n3 [label="0"];
// CHECK:   n0 -> n3 [label="1"];
// CHECK:   n3 -> n4;
// CHECK:   n4 -> return [label="0"];
// CHECK:   n1 -> return [label="1"];
// CHECK: }
func.func @fused(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %c = graph.constant dense<2.0> : tensor<1xf32>
  %f:2 = graph.fusion (%x, %b, %c) : (tensor<4x8xf32>, tensor<8xf32>, tensor<1xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %bias: tensor<8xf32>, %k: tensor<1xf32>):
    %0 = graph.add %a, %bias : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    %1 = graph.relu %0 : tensor<4x8xf32>
    %2 = graph.mul %1, %k : tensor<4x8xf32>, tensor<1xf32> -> tensor<4x8xf32>
    graph.yield %2, %0 : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %s = graph.reduce_sum %f#0 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %s, %f#1 : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// The example rendered in docs/dialects/graph.md (docs/dialects/graph-example.svg):
//   sed -n "/^func.func @block/,/^}/p" test/graph/dot.mlir | dlc-opt --emit=dot | dot -Tsvg

// CHECK-LABEL: digraph "block" {
// CHECK:   n0 [shape=box, label="graph.linear\ntensor<?x64xf32>"];
// CHECK:   subgraph cluster_0 {
// CHECK:     n2 [shape=box, label="graph.relu\ntensor<?x64xf32>"];
// CHECK:   }
// CHECK:   n5 [shape=box, label="graph.rms_norm\ntensor<?x64xf32>"];
// CHECK:   n0 -> n2;
// CHECK:   arg0 -> n4 [label="1"];
// CHECK:   n5 -> return;
func.func @block(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>, %g: tensor<64xf32>) -> tensor<?x64xf32> {
  %h = graph.linear %x, %w, %b : tensor<?x64xf32>, tensor<64x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  %c = graph.constant dense<0.5> : tensor<1xf32>
  %f = graph.fusion (%h, %x, %c) : (tensor<?x64xf32>, tensor<?x64xf32>, tensor<1xf32>) -> tensor<?x64xf32> {
  ^bb0(%a: tensor<?x64xf32>, %r: tensor<?x64xf32>, %k: tensor<1xf32>):
    %0 = graph.relu %a : tensor<?x64xf32>
    %1 = graph.mul %0, %k : tensor<?x64xf32>, tensor<1xf32> -> tensor<?x64xf32>
    %2 = graph.add %1, %r : tensor<?x64xf32>
    graph.yield %2 : tensor<?x64xf32>
  }
  %n = graph.rms_norm %f, %g {axis = 1 : i64, epsilon = 1.0e-06 : f64} : tensor<?x64xf32>, tensor<64xf32> -> tensor<?x64xf32>
  return %n : tensor<?x64xf32>
}
