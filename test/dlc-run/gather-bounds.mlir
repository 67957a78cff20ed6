// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 -c "import numpy as n; n.save('%t/table.npy', n.arange(32, dtype=n.float32).reshape(4, 8)); n.save('%t/bad.npy', n.array([0, 100, -1000])); n.save('%t/neg.npy', n.array([0, -1, -4], dtype=n.int32))"
// RUN: not dlc-run %s --inputs %t/table.npy,%t/bad.npy 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not dlc-run %s --inputs %t/table.npy,%t/bad.npy --backend=mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: dlc-run %s --entry embed32 --inputs %t/table.npy,%t/neg.npy --outputs %t/out
// RUN: python3 -c "import numpy as n; print(n.load('%t/out/out0.npy')[:, 0].tolist())" | FileCheck %s --check-prefix=NEG
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=KERNEL

// An index outside [-n, n) never reaches the compiled gather: the kernel declares its indices a
// precondition (index_checks: argument #1 indexes axis 0 of argument #0), the runtime checks it
// before the launch, and the run fails at the gather with the offending index, exit status 1.
// Negative indices in range count from the end, as in numpy and ONNX.
// BAD: gather-bounds.mlir:[[@LINE+5]]:8: error: launch of '@embed_0_gather': index 100 (element [1] of the indices, argument #1) is out of range for axis 0 of size 4 of argument #0: valid indices are in [-4, 4)
// NEG: [0.0, 24.0, 0.0]
// KERNEL: loop.kernel @embed_0_gather(%arg0: !loop.buffer<4x8xf32, global> {loop.noalias}, %arg1: !loop.buffer<3xi64, global> {loop.noalias}, %arg2: !loop.buffer<3x8xf32, global> {loop.noalias}) attributes {index_checks = array<i64: 1, 0, 0>}
// KERNEL: loop.kernel @embed32_1_gather({{.*}}) attributes {index_checks = array<i64: 1, 0, 0>}
func.func @embed(%table: tensor<4x8xf32>, %ids: tensor<3xi64>) -> tensor<3x8xf32> {
  %0 = graph.gather %table, %ids {axis = 0 : i64} : tensor<4x8xf32>, tensor<3xi64> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

func.func @embed32(%table: tensor<4x8xf32>, %ids: tensor<3xi32>) -> tensor<3x8xf32> {
  %0 = graph.gather %table, %ids {axis = 0 : i64} : tensor<4x8xf32>, tensor<3xi32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}
