%0 = "t.a"() {v = 1 : i32, s = "x\n\22\E2\82\AC", arr = [1, 2.5, true, @f, unit, i32], d = {b = 1, a = 2}} : () -> i32
%1:2 = "t.b"(%0, %0) : (i32, i32) -> (f32, tensor<4x?xf32>)
"t.c"(%1#1) ({
^bb0(%a: f32):
  "t.br"()[^bb1] : () -> ()
^bb1:
  "t.use"(%a, %0) : (f32, i32) -> ()
}, {
}) : (tensor<4x?xf32>) -> ()
%2 = "t.k"() <{p = -7 : i8}> {x = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, y = dense<1.5> : tensor<4xf16>, z = array<i64: 1, -2>, w = 0x7FC00000 : f32} : () -> !t.thing<a, [b]>
