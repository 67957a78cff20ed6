// LLVM's `fptrunc` rounds to nearest even, so code generation compiles a `truncf` without a
// rounding mode or with `to_nearest_even`, and refuses any other mode with an error at the op
// (it never rounds to nearest in its place).
// RUN: not dlc-opt %s --emit=llvm 2>&1 | FileCheck %s
// RUN: sed -e 's/ downward / to_nearest_even /' %s | dlc-opt --emit=llvm | FileCheck %s --check-prefix=NEAREST

// CHECK: truncf-rounding-mode.mlir:[[@LINE+9]]:12: error: 'arith.truncf' with rounding mode 'downward' is not supported by code generation
// NEAREST: fptrunc
module {
  loop.kernel @k(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf16, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    loop.for serial %i = %c0 to %c4 step %c1 {
      %v = loop.load %x[%i] : !loop.buffer<4xf32, global>
      %h = arith.truncf %v downward : f32 to f16
      loop.store %h, %y[%i] : !loop.buffer<4xf16, global>
      loop.yield
    }
    loop.return
  }
}
