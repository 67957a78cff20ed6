// RUN: dlc-opt %s --emit=llvm --target=nvptx64 | FileCheck %s

// `loop.noalias` arguments become `noalias` pointer parameters, even in a module without a host
// function to read the launches from; arguments without it get no `noalias`.
// CHECK: define ptx_kernel void @scale(ptr noalias {{.*}}, i64 %{{.*}}, ptr noalias {{.*}}, i64 %{{.*}}, i64 %{{.*}})
// CHECK: define ptx_kernel void @scale_may_alias(ptr {{readonly|captures}}{{[^,]*}}, i64 %{{.*}}, ptr {{writeonly|captures}}{{[^,]*}}, i64
module {
  loop.kernel @scale(%x: !loop.buffer<?xf32, global> {loop.noalias}, %y: !loop.buffer<?xf32, global> {loop.noalias}, %n: index) {
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
  loop.kernel @scale_may_alias(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
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
}
