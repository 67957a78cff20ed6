// RUN: dlc-opt %s --emit=llvm | FileCheck %s
// RUN: dlc-opt %s --emit=llvm --target=cpu | FileCheck %s

// The kernel becomes an entry thunk taking the runtime's argument slots. The host function
// passes two different buffers, so their accesses get disjoint alias scopes, and O3
// vectorizes the loop for the host CPU.
// CHECK-LABEL: define void @axpy(ptr
// CHECK: noalias.scope.decl
// CHECK: load <{{[0-9]+}} x float>{{.*}}!alias.scope
// CHECK: fmul{{.*}}<{{[0-9]+}} x float>
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
