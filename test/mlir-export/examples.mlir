// Every docs/examples program lowers to the LLVM dialect (CPU) or PTX (GPU) through mlir-opt-22
// after --emit=mlir; compiler/mlir/tests/export.rs runs the same corpus from Rust.
// RUN: dlc-opt %S/../../docs/examples/softmax.mlir --pipeline=decompose,fuse,lower,cpu-default --emit=mlir | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-math-to-llvm --convert-math-to-libm --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=CPU
// RUN: dlc-opt %S/../../docs/examples/transformer_block.mlir --pipeline=decompose,fuse,lower,cpu-default --emit=mlir | mlir-opt --convert-vector-to-scf --convert-scf-to-cf --convert-math-to-llvm --convert-math-to-libm --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=CPU
// RUN: dlc-opt %S/../../docs/examples/layer_norm.mlir "--pipeline=decompose,fuse,lower{target=gpu},gpu-default" --emit=mlir | mlir-opt "--gpu-lower-to-nvvm-pipeline=cubin-chip=sm_80 cubin-features=+ptx80 cubin-format=isa" | FileCheck %s --check-prefix=GPU
// RUN: dlc-opt %S/../../docs/examples/loop_gpu_row_sum.mlir --emit=mlir | mlir-opt "--gpu-lower-to-nvvm-pipeline=cubin-chip=sm_80 cubin-features=+ptx80 cubin-format=isa" | FileCheck %s --check-prefix=GPU

// CPU: llvm.func
// CPU-NOT: memref.
// GPU: gpu.binary @dlc_kernels
// GPU-SAME: .entry
