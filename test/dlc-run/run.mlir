// RUN: dlc-run %S/../../docs/examples/transformer_block.mlir --check --seed 3 | FileCheck %s --check-prefix=BLOCK
// RUN: dlc-run %s --check --dynamic-size 37 | FileCheck %s
// RUN: rm -rf %t && dlc-run %s --random --seed 1 --dynamic-size 5 --outputs %t && dlc-run %s --inputs %t/out0.npy --check | FileCheck %s --check-prefix=NPY
// RUN: dlc-run %s --bench 3 --dynamic-size 1000 | FileCheck %s --check-prefix=BENCH
// RUN: dlc-run %s --check --dynamic-size 37 --backend=mlir | FileCheck %s --check-prefix=MLIR
// RUN: dlc-run %S/../../docs/examples/transformer_block.mlir --check --backend=mlir | FileCheck %s --check-prefix=MLIR-BLOCK

// The transformer block end to end: 12 launches, checked against the graph interpreter. Its
// kernels that differ only in name are one kernel (`merge-kernels`): the Q, K and V projections
// are one, the two layer norms another.
// BLOCK: transformer_block.mlir: 9 kernels (12 launches), compiled in
// BLOCK: output 0: f32 [16, 16, 32]
// BLOCK: check output 0: {{.*}}: ok

// A dynamic size that is not a multiple of the vector width exercises remainder loops.
// CHECK: 1 kernels
// CHECK: output 0: f32 [37, 37]
// CHECK: check output 0: {{.*}}: ok

// Outputs written as .npy read back as inputs.
// NPY: output 0: f32 [5, 5]
// NPY: check output 0: {{.*}}: ok

// The MLIR backend (upstream MLIR's lowering and execution engine) runs the same programs.
// MLIR: 1 kernels (1 launches), compiled in {{.*}} MLIR
// MLIR: check output 0: {{.*}}: ok
// MLIR-BLOCK: 9 kernels (12 launches), compiled in {{.*}} MLIR
// MLIR-BLOCK: check output 0: {{.*}}: ok

// BENCH: bench: 3 runs, median {{.*}} ms, min {{.*}} ms, max {{.*}} ms, {{.*}} GB/s
func.func @gelu_square(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %g = graph.gelu %x {approximate = "tanh"} : tensor<?x?xf32>
  %y = graph.mul %g, %x : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
