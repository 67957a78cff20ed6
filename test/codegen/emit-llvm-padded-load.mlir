// RUN: dlc-opt %s --emit=llvm --target=x86-64-v3 | FileCheck %s

// `loop.vload_padded` over dims that are all nonzero constants: the leading indices compared
// with their dims (unsigned, so a negative one is out) and taken as 0 where one is out, a
// plain `getelementptr` (the address may lie before the row), one `llvm.masked.load` whose
// mask holds the lanes `first <= l < first + count` of the row, computed on scalars and
// compared as `i32` lanes, and a select of the padding on the leading test.
// `loop.load_padded` of one element is a plain load at indices taken as 0 where one is out,
// and a select.
// CHECK-LABEL: define void @padded(ptr
// CHECK: %[[IN:.*]] = icmp ult i64 %{{.*}}, 6
// CHECK: getelementptr float
// CHECK: %[[MASK:.*]] = icmp ult <8 x i32>
// CHECK: %[[V:.*]] = call <8 x float> @llvm.masked.load.v8f32.p0(ptr align 4 %{{.*}}, <8 x i1> %[[MASK]], <8 x float> zeroinitializer)
// CHECK: select i1 %[[IN]], <8 x float> %[[V]], <8 x float> zeroinitializer
// CHECK: %[[BOTH:.*]] = and i1
// CHECK: %[[AT:.*]] = select i1 %[[BOTH]], i64 %{{.*}}, i64 0
// CHECK: %[[P:.*]] = getelementptr inbounds float, ptr %{{.*}}, i64 %[[AT]]
// CHECK: %[[S:.*]] = load float, ptr %[[P]]
// CHECK: select i1 %[[BOTH]], float %[[S]], float 0.000000e+00
// CHECK: ret void
module {
  loop.kernel @padded(%x: !loop.buffer<6x20xf32, global>, %y: !loop.buffer<6x20xf32, global>, %i: index, %j: index) {
    %z = arith.constant 0.000000e+00 : f32
    %v = loop.vload_padded %x[%i, %j], %z : !loop.buffer<6x20xf32, global> -> vector<8xf32>
    %c0 = arith.constant 0 : index
    loop.vstore %v, %y[%c0, %c0] : vector<8xf32>, !loop.buffer<6x20xf32, global>
    %s = loop.load_padded %x[%i, %j], %z : !loop.buffer<6x20xf32, global>
    loop.store %s, %y[%c0, %c0] : !loop.buffer<6x20xf32, global>
    loop.return
  }
}
