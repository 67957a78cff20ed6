// RUN: not dlc-opt %S/../../docs/examples/loop_gpu_row_sum.mlir --emit=llvm 2>&1 | FileCheck %s --check-prefix=GPU-ON-CPU
// RUN: not dlc-opt %S/../../docs/examples/loop_gpu_row_sum.mlir --emit=ptx --target=cpu 2>&1 | FileCheck %s --check-prefix=PTX-CPU
// RUN: not dlc-opt %s --emit=ptx --target=nvptx64:sm_1x 2>&1 | FileCheck %s --check-prefix=BAD-TARGET
// RUN: not dlc-opt %s --emit=llvm 2>&1 | FileCheck %s --check-prefix=VECTOR-DIV

// A GPU kernel cannot be compiled for the CPU: the error points at the bound loop.
// GPU-ON-CPU: loop_gpu_row_sum.mlir:12:3: error: a 'block.x' loop is GPU-bound: this kernel can only be compiled for NVPTX (--target=nvptx64)
// GPU-ON-CPU-NEXT: loop.for block.x
// GPU-ON-CPU-NEXT: ^

// PTX-CPU: error: --emit=ptx needs an nvptx64 target

// BAD-TARGET: unknown target 'nvptx64:sm_1x'

// Vector integer division by a non-constant is refused (a zero lane would trap).
// VECTOR-DIV: errors.mlir:[[@LINE+5]]:10: error: integer division of vectors is not supported by code generation
module {
  loop.kernel @k(%a: !loop.buffer<8xi32, global>) {
    %c0 = arith.constant 0 : index
    %v = loop.vload %a[%c0] : !loop.buffer<8xi32, global> -> vector<8xi32>
    %q = arith.divsi %v, %v : vector<8xi32>
    loop.vstore %q, %a[%c0] : vector<8xi32>, !loop.buffer<8xi32, global>
    loop.return
  }
}
