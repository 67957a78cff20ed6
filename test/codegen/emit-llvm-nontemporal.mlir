// RUN: dlc-opt %s --emit=llvm --target=x86-64-v3 | FileCheck %s

// A `nontemporal` vector store streams when its address is proven aligned to the vector:
// the host allocates the buffer (64-byte aligned) and the offset `i*64 + j` is a multiple of 8
// (j walks 0, 8, 16, ...). The kernel ends with an sfence so the streamed data is visible
// before the kernel is reported done.
// CHECK-LABEL: define void @stream(ptr
// CHECK: store <8 x float> %{{.*}}, ptr %{{.*}}, align 32{{.*}}!nontemporal
// CHECK: call void @llvm.x86.sse.sfence()
// CHECK-NEXT: ret void

// Counter-example: the same hint at column j + 1 cannot be proven aligned: a plain store.
// CHECK-LABEL: define void @shifted(ptr
// CHECK-NOT: !nontemporal
// CHECK-NOT: sfence
// CHECK: ret void
module {
  loop.kernel @stream(%x: !loop.buffer<64x64xf32, global>, %y: !loop.buffer<64x64xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    loop.for serial %i = %c0 to %c64 step %c1 {
      loop.for vectorize(8) %j = %c0 to %c64 step %c8 {
        %v = loop.vload %x[%i, %j] : !loop.buffer<64x64xf32, global> -> vector<8xf32>
        loop.vstore %v, %y[%i, %j] {nontemporal} : vector<8xf32>, !loop.buffer<64x64xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  loop.kernel @shifted(%x: !loop.buffer<64x64xf32, global>, %y: !loop.buffer<64x72xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    loop.for serial %i = %c0 to %c64 step %c1 {
      loop.for vectorize(8) %j = %c0 to %c64 step %c8 {
        %v = loop.vload %x[%i, %j] : !loop.buffer<64x64xf32, global> -> vector<8xf32>
        %j1 = arith.addi %j, %c1 : index
        loop.vstore %v, %y[%i, %j1] {nontemporal} : vector<8xf32>, !loop.buffer<64x72xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<64x64xf32, global>) -> (!loop.buffer<64x64xf32, global>, !loop.buffer<64x72xf32, global>) {
    %y = loop.alloc : !loop.buffer<64x64xf32, global>
    %z = loop.alloc : !loop.buffer<64x72xf32, global>
    loop.launch @stream(%x, %y) : (!loop.buffer<64x64xf32, global>, !loop.buffer<64x64xf32, global>) -> ()
    loop.launch @shifted(%x, %z) : (!loop.buffer<64x64xf32, global>, !loop.buffer<64x72xf32, global>) -> ()
    return %y, %z : !loop.buffer<64x64xf32, global>, !loop.buffer<64x72xf32, global>
  }
}
