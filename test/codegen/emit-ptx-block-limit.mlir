// RUN: not dlc-opt %s --pipeline=gpu-default --emit=ptx 2>&1 | FileCheck %s

// A row sum over 2048 threads: cross-thread-reduce leaves it alone (no block reduction covers
// more than 1024 threads), and the kernel still needs a block of 2048 threads, which no CUDA
// device launches: code generation refuses it at the kernel instead of emitting PTX.
// CHECK-NOT: .entry
// CHECK: emit-ptx-block-limit.mlir:[[@LINE+2]]:1: error: the kernel needs a thread block of 2048x1x1 = 2048 threads; CUDA blocks have at most 1024 threads and 64 along z
// CHECK-NOT: .entry
loop.kernel @wide_sum(%x: !loop.buffer<4x2048xf32, global>, %out: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c2048 = arith.constant 2048 : index
  loop.for block.x %row = %c0 to %c4 step %c1 {
    loop.for thread.x %k = %c0 to %c2048 step %c1 {
      loop.schedule_block "wide_sum" (%i = %row, %kk = %k reduce) init {
        %zero = arith.constant 0.0 : f32
        loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
      } {
        %v = loop.load %x[%i, %kk] : !loop.buffer<4x2048xf32, global>
        %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
        %s = arith.addf %a, %v : f32
        loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
      }
    }
  }
  loop.return
}
