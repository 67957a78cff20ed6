// RUN: dlc-opt %s --pipeline=lower --split-input-file --verify-diagnostics
// RUN: not dlc-opt %s --pipeline=lower{target=tpu} 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: option 'target': expected cpu or gpu, got 'tpu'

func.func @composite(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.softmax' is a composite op; run 'decompose' before 'lower'}}
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

