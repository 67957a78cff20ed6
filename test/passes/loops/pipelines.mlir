// The named loop pipelines on the transformer block example (docs/pipelines.md).
// RUN: dlc-opt %S/../../../docs/examples/transformer_block.mlir --pipeline=decompose,fuse,lower{target=gpu},gpu-default | FileCheck %s --check-prefix=GPU
// RUN: dlc-opt %S/../../../docs/examples/transformer_block.mlir --pipeline=decompose,fuse,lower,cpu-default --target=x86-64-v3 | FileCheck %s --check-prefix=CPU
// RUN: dlc-opt %s --list-passes | FileCheck %s --check-prefix=LIST

// gpu-default: every kernel is launched with a grid the host computes from the dynamic batch
// size; kernels with a reduction run one output point per block, the threads splitting the
// reduce axis (blocks of 16, 32 or 64 threads, one per element of the reduced dim), and their
// partial results combine through warp shuffles and shared memory; the transpose uses
// 256-thread blocks. No point loop and no schedule block is left; the host's intermediates
// are views of one arena. `merge-kernels` first makes the 12 kernels `lower` writes 9: the Q, K
// and V projections are one kernel, the two layer norms another.
// GPU-COUNT-9: loop.kernel @transformer_block_{{[0-9]+}}_{{[a-z]+}}({{.*}}) attributes {block = [{{16|32|64|256}} : index, 1 : index, 1 : index], grid = ["arg{{[0-9]+}}", 1 : index, 1 : index]}
// GPU-NOT:     loop.kernel
// GPU-NOT:     loop.for parallel
// GPU-NOT:     loop.block_reduce
// GPU-NOT:     loop.schedule_block
// GPU-LABEL: func.func @transformer_block
// GPU:         %{{[0-9]+}} = loop.alloc(%{{[0-9]+}}) : !loop.buffer<?xi8, global>
// GPU:         loop.view
// GPU:         loop.launch @transformer_block_0_fusion

// cpu-default: the normalisation loops are vectorized by 8 and the blocks are dissolved.
// CPU:         loop.for vectorize(8)
// CPU-NOT:     loop.schedule_block
// CPU-LABEL: func.func @transformer_block
// CPU:         loop.view

// LIST: --cpu-default
// LIST: --gpu-default
