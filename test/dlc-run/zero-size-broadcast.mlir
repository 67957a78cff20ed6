// RUN: dlc-run %s --dynamic-size 0 --check --seed 3 | FileCheck %s
// RUN: dlc-opt %s --pipeline=fuse | FileCheck %s --check-prefix=FUSE

// `%m` is used outside and would be broadcast along the `?` dim of `%y`'s loop nest, which runs
// no iteration when that dim is 0: computed in that nest, `%m` was never written (found by the
// compile_run fuzz target, as a difference on poisoned memory). fuse keeps it out of the group.
// CHECK: check output 1: max abs err 0.000e0, max rel err 0.000e0 (to max |reference|): ok
// FUSE-NOT: graph.fusion
func.func @f(%x: tensor<1x?xi32>, %s: tensor<1xi32>) -> (tensor<1x?xi32>, tensor<1xi32>) {
  %m = graph.abs %s : tensor<1xi32>
  %y = graph.div %x, %m : tensor<1x?xi32>, tensor<1xi32> -> tensor<1x?xi32>
  return %y, %m : tensor<1x?xi32>, tensor<1xi32>
}
