// RUN: not dlc-opt %s --split-input-file --emit=mlir 2>&1 | FileCheck %s

// Graph-level programs must be lowered before they can be exported: the error points at the
// first value whose type has no MLIR counterpart in loop kernels.

// CHECK: error: type 'tensor<4xf32>' has no MLIR counterpart in loop kernels
func.func @graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// A loop.call_loop with scan outputs is not exported: the error points at the op.

func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> (!loop.buffer<i1, global>, !loop.buffer<4xf32, global>) {
  %e = loop.alloc : !loop.buffer<4xf32, global>
  return %c, %e : !loop.buffer<i1, global>, !loop.buffer<4xf32, global>
}

func.func @scan(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> !loop.buffer<?x4xf32, global> {
  // CHECK: errors.mlir:[[# @LINE + 1]]:8: error: a loop.call_loop with scan outputs has no MLIR export
  %s = loop.call_loop @body (%m, %c) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> !loop.buffer<?x4xf32, global>
  return %s : !loop.buffer<?x4xf32, global>
}
