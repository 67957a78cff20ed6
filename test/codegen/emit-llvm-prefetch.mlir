// RUN: dlc-opt %s --emit=llvm --target=x86-64-v3 | FileCheck %s

// `loop.prefetch` is `llvm.prefetch` for reading into L2 (rw 0, locality 2, data cache) at the
// element's address.
// CHECK-LABEL: define void @next_row(ptr
// CHECK: call void @llvm.prefetch.p0(ptr {{.*}}, i32 0, i32 2, i32 1)
// CHECK: ret void
module {
  loop.kernel @next_row(%x: !loop.buffer<8x64xf32, global>, %y: !loop.buffer<8x64xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    loop.for serial %i = %c0 to %c7 step %c1 {
      %n = arith.addi %i, %c1 : index
      loop.for vectorize(8) %j = %c0 to %c64 step %c8 {
        loop.prefetch %x[%n, %j] : !loop.buffer<8x64xf32, global>
        %v = loop.vload %x[%i, %j] : !loop.buffer<8x64xf32, global> -> vector<8xf32>
        loop.vstore %v, %y[%i, %j] : vector<8xf32>, !loop.buffer<8x64xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
}
