// RUN: dlc-opt %s --emit=llvm --target=x86-64-v3 | FileCheck %s --check-prefix=V3
// RUN: dlc-opt %s --emit=llvm --target=x86-64 | FileCheck %s --check-prefix=V1
// RUN: not dlc-opt %s --emit=llvm --target=x86-64-v9 2>&1 | FileCheck %s --check-prefix=BAD

// An x86-64 level instead of the host: the functions carry the level's CPU and no feature
// list of the host's, so x86-64-v3 (AVX2, what a Zen 1 machine has) vectorizes to 256-bit
// vectors even on an AVX-512 host, and baseline x86-64 to SSE's 128-bit ones.
// V3-LABEL: define void @axpy(ptr
// V3: fmul{{.*}}<8 x float>
// V3-NOT: <16 x float>
// V3: attributes #{{[0-9]+}} = {{.*}}"target-cpu"="x86-64-v3"

// V1-LABEL: define void @axpy(ptr
// V1: fmul{{.*}}<4 x float>
// V1-NOT: <8 x float>
// V1: "target-cpu"="x86-64"

// BAD: unknown target 'x86-64-v9'
module {
  loop.kernel @axpy(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = arith.constant 2.0 : f32
    loop.for serial %i = %c0 to %n step %c1 {
      %v = loop.load %x[%i] : !loop.buffer<?xf32, global>
      %w = loop.load %y[%i] : !loop.buffer<?xf32, global>
      %p = arith.mulf %v, %a : f32
      %s = arith.addf %p, %w : f32
      loop.store %s, %y[%i] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
    %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
    %y = loop.alloc(%n) : !loop.buffer<?xf32, global>
    loop.launch @axpy(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
    return %y : !loop.buffer<?xf32, global>
  }
}
