#alias = {nested = [dense<[true, false]> : tensor<2xi1>, dense<"0x0100020003000400"> : tensor<4xi16>]}
!ty = tensor<2x3xbf16>
"t.attrs"() {
  ints = [0 : i1, -1 : i3, 255 : i8, -32768 : i16, 0x7FFFFFFF : i32, -9223372036854775808 : i64, 170141183460469231731687303715884105727 : i128, 42 : index],
  floats = [0.0 : f16, -0.0 : f32, 1.000000e-45 : f32, 5.960464e-08 : f16, 0x7C00 : f16, 0xFF80 : bf16, 0x7FF8000000000000 : f64, 3.14159 : bf16, 1.0e308 : f64],
  strs = ["", "q\"uote", "back\\slash", "tab\t", "\00\7F", "日本語"],
  "quoted key" = @"sym with space"::@inner::@leaf,
  types = [i1, i17, index, f16, bf16, f32, f64, none, tensor<f32>, tensor<0x?x3xi8>, vector<2x2xf64>, (i32, f32) -> (), () -> (i1, i1), !t.opaque<"x", {y}>],
  dense = [dense<[]> : tensor<0xf32>, dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : !ty, dense<-1> : vector<3xindex>, dense<"0x7FC0"> : tensor<2xf16>],
  arrays = [array<i1: true, false>, array<i8>, array<f32: 1.5, -0.0>, array<f64: 1.0e-300>, array<i16: -3>],
  misc = #alias, opaque = #t.attr<[1, 2]>, u
} : () -> ()
