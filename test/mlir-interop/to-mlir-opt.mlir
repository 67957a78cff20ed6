// RUN: dlc-opt %s -allow-unregistered-dialect | mlir-opt -allow-unregistered-dialect | dlc-opt -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s -allow-unregistered-dialect -print-generic | mlir-opt -allow-unregistered-dialect | dlc-opt -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s -allow-unregistered-dialect -print-generic | mlir-opt -allow-unregistered-dialect -mlir-print-op-generic | dlc-opt -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s -allow-unregistered-dialect | mlir-opt -allow-unregistered-dialect | dlc-opt -allow-unregistered-dialect -print-generic | mlir-opt -allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s -allow-unregistered-dialect -print-debuginfo | mlir-opt -allow-unregistered-dialect -mlir-print-debuginfo | dlc-opt -allow-unregistered-dialect -print-debuginfo | FileCheck %s --check-prefix=LOC

// dlc-opt's output, custom or generic, is read by mlir-opt 22 and mlir-opt's output is read back
// by dlc-opt with nothing lost: the final text is what dlc-opt prints for the input itself.

// CHECK-LABEL: func.func private @external(tensor<4x?xf32>, !foo.handle) -> (i1, vector<2xf16>)
func.func private @external(tensor<4x?xf32>, !foo.handle) -> (i1, vector<2xf16>)

// CHECK-LABEL: func.func @calls(%arg0: tensor<4x?xf32>, %arg1: !foo.handle) -> (i1, vector<2xf16>) attributes {dlc.grid = array<i64: 4, 1, 1>, dlc.kernel} {
// CHECK-NEXT: %0:2 = call @external(%arg0, %arg1) : (tensor<4x?xf32>, !foo.handle) -> (i1, vector<2xf16>)
// CHECK-NEXT: return %0#0, %0#1 : i1, vector<2xf16>
// CHECK-NEXT: }
// LOC-LABEL: func.func @calls(
// LOC-NEXT: %0:2 = call @external(%arg0, %arg1) : (tensor<4x?xf32>, !foo.handle) -> (i1, vector<2xf16>) loc("{{.*}}to-mlir-opt.mlir":[[@LINE+4]]:10)
// LOC-NEXT: return %0#0, %0#1 : i1, vector<2xf16> loc("{{.*}}to-mlir-opt.mlir":[[@LINE+4]]:3)
// LOC-NEXT: } loc("{{.*}}to-mlir-opt.mlir":[[@LINE+1]]:1)
func.func @calls(%a: tensor<4x?xf32>, %h: !foo.handle) -> (i1, vector<2xf16>) attributes {dlc.kernel, dlc.grid = array<i64: 4, 1, 1>} {
  %0:2 = call @external(%a, %h) : (tensor<4x?xf32>, !foo.handle) -> (i1, vector<2xf16>)
  return %0#0, %0#1 : i1, vector<2xf16>
}

// CHECK-LABEL: func.func @control_flow(%arg0: i1, %arg1: i32 {dlc.arg = "x"}) -> (i32 {dlc.res}) {
// CHECK-NEXT: "t.cond_br"(%arg0, %arg1)[^bb1, ^bb2] : (i1, i32) -> ()
// CHECK-NEXT: ^bb1(%0: i32):  // pred: ^bb0
// CHECK-NEXT: %1 = "t.region"(%0) ({
// CHECK-NEXT: ^bb0(%arg2: i32):
// CHECK-NEXT: "t.yield"(%arg2) : (i32) -> ()
// CHECK-NEXT: }) {kind = #foo.kind<fast>} : (i32) -> i32
// CHECK-NEXT: "t.br"(%1)[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: %2 = "t.const"() {value = -7 : i32} : () -> i32
// CHECK-NEXT: "t.br"(%2)[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb3(%3: i32):  // 2 preds: ^bb1, ^bb2
// CHECK-NEXT: return %3 : i32
// CHECK-NEXT: }
func.func @control_flow(%c: i1, %x: i32 {dlc.arg = "x"}) -> (i32 {dlc.res}) {
  "t.cond_br"(%c, %x)[^bb1, ^bb2] : (i1, i32) -> ()
^bb1(%a: i32):
  %r = "t.region"(%a) ({
  ^bb0(%y: i32):
    "t.yield"(%y) : (i32) -> ()
  }) {kind = #foo.kind<fast>} : (i32) -> i32
  "t.br"(%r)[^bb3] : (i32) -> ()
^bb2:
  %k = "t.const"() {value = -7 : i32} : () -> i32
  "t.br"(%k)[^bb3] : (i32) -> ()
^bb3(%m: i32):
  return %m : i32
}

// CHECK-LABEL: func.func @attributes() {
// CHECK-NEXT: "t.attrs"() {dict = {a, "m n" = {}, z}, floats = [1.000000e-01, 1.000000e-01 : f32, 9.9999999999999995E-21, 3.14159274 : f32, 6.550400e+04 : f16, 1.000980e-01 : bf16, 0x419D6F3454000000 : f64, 0x7FC00000 : f32, 0xFFF0000000000000 : f64, 0x7E01 : f16], ints = [true, -128 : i8, -1 : i16, -1, 7 : index, 3 : i7], opaque = #foo<"x y">, strings = ["", "quote \22 backslash \\ tab \09", "\00\1F"], symbols = [@a, @a::@b, @"sym with space"], types = [i1, index, (i32) -> (), tensor<?x2xbf16>, !foo.t<1>]} : () -> ()
// CHECK-NEXT: "t.dense"() {a = dense<[true, false, true]> : tensor<3xi1>, b = dense<0x7FC00000> : tensor<2x2xf32>, c = dense<{{\[\[}}1, -2], [3, 4]]> : tensor<2x2xi16>, d = dense<[67305985, 134678021]> : tensor<2xi32>, e = dense<> : tensor<0xf64>, f = dense<[9.997550e-02, 2.000000e+00]> : vector<2xf16>, g = dense<5> : tensor<i64>, h = array<f32: 1.500000e+00, 0x7F800000>, i = array<i1: true>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @attributes() {
  "t.attrs"() {ints = [true, -128 : i8, 65535 : i16, -1 : i64, 7 : index, 3 : i7], floats = [0.1, 0.1 : f32, 1.0e-20, 3.14159265 : f32, 65504.0 : f16, 0.1 : bf16, 123456789.0, 0x7FC00000 : f32, 0xFFF0000000000000 : f64, 0x7E01 : f16], strings = ["", "quote \" backslash \\ tab \t", "\00\1F"], symbols = [@a, @a::@b, @"sym with space"], types = [i1, index, (i32) -> (), tensor<?x2xbf16>, !foo.t<1>], dict = {z, a = unit, "m n" = {}}, opaque = #foo<"x y">} : () -> ()
  "t.dense"() {a = dense<[true, false, true]> : tensor<3xi1>, b = dense<0x7FC00000> : tensor<2x2xf32>, c = dense<[[1, -2], [3, 4]]> : tensor<2x2xi16>, d = dense<"0x0102030405060708"> : tensor<2xi32>, e = dense<> : tensor<0xf64>, f = dense<[0.1, 2.0]> : vector<2xf16>, g = dense<5> : tensor<i64>, h = array<f32: 1.5, 0x7F800000>, i = array<i1: true>} : () -> ()
  return
}

// CHECK-LABEL: func.func @large_constants() {
// CHECK-NEXT: "t.big"() {a = dense<"0x9CFF9FFFA2FFA5FFA8FFABFFAEFFB1FFB4FFB7FFBAFFBDFFC0FFC3FFC6FFC9FFCCFFCFFFD2FFD5FFD8FFDBFFDEFFE1FFE4FFE7FFEAFFEDFFF0FFF3FFF6FFF9FFFCFFFFFF0200050008000B000E001100140017001A001D0020002300260029002C002F003200350038003B003E004100440047004A004D0050005300560059005C005F006200650068006B006E007100740077007A007D0080008300860089008C008F009200950098009B009E00A100A400A700AA00AD00B000B300B600B900BC00BF00C200C500C800CB00CE00D100D400D700DA00DD00E000E300E600E900EC00EF00F200F500F800FB00FE000101040107010A010D011001130116011901"> : tensor<128xi16>, b = dense<"0x21841042082184104208218410"> : tensor<8x13xi1>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @large_constants() {
  "t.big"() {a = dense<[-100, -97, -94, -91, -88, -85, -82, -79, -76, -73, -70, -67, -64, -61, -58, -55, -52, -49, -46, -43, -40, -37, -34, -31, -28, -25, -22, -19, -16, -13, -10, -7, -4, -1, 2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38, 41, 44, 47, 50, 53, 56, 59, 62, 65, 68, 71, 74, 77, 80, 83, 86, 89, 92, 95, 98, 101, 104, 107, 110, 113, 116, 119, 122, 125, 128, 131, 134, 137, 140, 143, 146, 149, 152, 155, 158, 161, 164, 167, 170, 173, 176, 179, 182, 185, 188, 191, 194, 197, 200, 203, 206, 209, 212, 215, 218, 221, 224, 227, 230, 233, 236, 239, 242, 245, 248, 251, 254, 257, 260, 263, 266, 269, 272, 275, 278, 281]> : tensor<128xi16>, b = dense<[[true, false, false, false, false, true, false, false, false, false, true, false, false], [false, false, true, false, false, false, false, true, false, false, false, false, true], [false, false, false, false, true, false, false, false, false, true, false, false, false], [false, true, false, false, false, false, true, false, false, false, false, true, false], [false, false, false, true, false, false, false, false, true, false, false, false, false], [true, false, false, false, false, true, false, false, false, false, true, false, false], [false, false, true, false, false, false, false, true, false, false, false, false, true], [false, false, false, false, true, false, false, false, false, true, false, false, false]]> : tensor<8x13xi1>} : () -> ()
  return
}
