// RUN: dlc-opt %s --emit=llvm | FileCheck %s

// Counter-example: the host function passes the same buffer as input and output (in-place),
// so the two kernel arguments may alias and get no alias scopes.
// CHECK-LABEL: define void @scale(ptr
// CHECK-NOT: noalias.scope.decl
// CHECK: ret void
module {
  loop.kernel @scale(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = arith.constant 2.0 : f32
    loop.for serial %i = %c0 to %n step %c1 {
      %v = loop.load %x[%i] : !loop.buffer<?xf32, global>
      %p = arith.mulf %v, %a : f32
      loop.store %p, %y[%i] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
    %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
    %y = loop.alloc(%n) : !loop.buffer<?xf32, global>
    loop.launch @scale(%y, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
    return %y : !loop.buffer<?xf32, global>
  }
}
