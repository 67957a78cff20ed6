// Streaming stores run correctly: a softmax and a layer norm with the threshold at 64 bytes,
// so every vector store of their outputs streams (rows of 64 keep each vector on the 64-byte
// grid), compared with the interpreter.
// RUN: dlc-opt %s --pipeline="decompose,fuse,lower,schedule-block-dce,simplify,tile,parallelize,vectorize{nontemporal-bytes=64}" | FileCheck %s --check-prefix=IR
// RUN: dlc-run %s --check --pipeline="decompose,fuse,lower,schedule-block-dce,simplify,tile,parallelize,vectorize{nontemporal-bytes=64},unroll,remove-schedule-block,simplify,cse,long-to-int,plan-memory" | FileCheck %s
// RUN: dlc-opt %s --pipeline="decompose,fuse,lower,cpu-default" | FileCheck %s --check-prefix=DEFAULT
// IR: loop.vstore {{.*}} {nontemporal}
// IR: loop.vstore {{.*}} {nontemporal}
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok
// With the default threshold (8 x the L2) these small outputs stay plain stores.
// DEFAULT-NOT: nontemporal
func.func @f(%x: tensor<48x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<48x64xf32>, tensor<48x64xf32>) {
  %s = graph.softmax %x {axis = 1 : i64} : tensor<48x64xf32>
  %n = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : tensor<48x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<48x64xf32>
  return %s, %n : tensor<48x64xf32>, tensor<48x64xf32>
}
