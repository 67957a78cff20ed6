// RUN: dlc-opt %S/../../docs/examples/loop_gpu_row_sum.mlir --emit=ptx --target=nvptx64:sm_90 | FileCheck %s --check-prefix=ROWSUM
// RUN: dlc-opt %S/../../docs/examples/loop_gpu_row_sum.mlir --emit=ptx | FileCheck %s --check-prefix=SM80
// RUN: dlc-opt %S/../../docs/examples/softmax.mlir --pipeline='decompose,fuse,lower{target=gpu},gpu-default' --emit=ptx | FileCheck %s --check-prefix=SOFTMAX
// RUN: dlc-opt %S/../../docs/examples/loop_gpu_row_sum.mlir --emit=llvm --target=nvptx64 | FileCheck %s --check-prefix=LLVM

// A hand-written GPU kernel: block.x/thread.x loops read the PTX special registers, the shared
// buffer is a .shared array and loop.barrier is bar.sync.
// ROWSUM: .target sm_90
// ROWSUM: .visible .entry gpu_row_sum(
// ROWSUM: .shared .align 4 .b8 {{.*}}[512]
// ROWSUM: mov.u32 {{.*}}%tid.x
// ROWSUM: bar.sync 0

// SM80: .target sm_80

// gpu-default's block reductions expand into warp shuffles; its blocks of 16 threads (rows of
// 16) shuffle among lanes 0-15 only.
// SOFTMAX: .visible .entry softmax_0_fusion(
// SOFTMAX: shfl.sync.bfly.b32 {{.*}}, 8, 31, 65535;

// LLVM: target triple = "nvptx64-nvidia-cuda"
// LLVM: define ptx_kernel void @gpu_row_sum(
