// RUN: not dlc-run %s --entry dynamic --dynamic-size 100000000000 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not dlc-run %s --entry static 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not dlc-run %s --entry overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW

// A tensor too large for memory is an error naming the input, its shape and the byte count,
// with exit status 1; never an allocator abort. A shape whose byte size overflows is refused
// when the model is compiled, at the op.
// DYNAMIC: input '%arg0': a f32 tensor of shape [100000000000, 4]: cannot allocate 1600000000000 bytes (1.5 TiB): not enough memory
// STATIC: input '%arg0': a f32 tensor of shape [100000000000, 100000]: cannot allocate 40000000000000000 bytes (35.5 PiB): not enough memory
// OVERFLOW: huge-shapes.mlir:{{[0-9]+}}:8: error: a f32 tensor of shape [4611686018427387904, 8] is too large
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = graph.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

func.func @static(%x: tensor<100000000000x100000xf32>) -> tensor<100000000000x100000xf32> {
  %0 = graph.exp %x : tensor<100000000000x100000xf32>
  return %0 : tensor<100000000000x100000xf32>
}

func.func @overflow(%x: tensor<4611686018427387904x8xf32>) -> tensor<4611686018427387904x8xf32> {
  %0 = graph.exp %x : tensor<4611686018427387904x8xf32>
  return %0 : tensor<4611686018427387904x8xf32>
}
