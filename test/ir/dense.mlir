// RUN: dlc-opt %s --allow-unregistered-dialect | dlc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | dlc-opt --allow-unregistered-dialect | FileCheck %s

// Dense element and dense array attributes round-trip through dlc-opt's custom and generic
// forms, printed as mlir-opt prints them: constants whose elements are all equal become
// splats, one-element constants are splats, and constants of more than 100 elements print
// as hex.

// CHECK-LABEL: func.func @splats() {
// CHECK-NEXT: "t.dense"() {bf16 = dense<-2.000000e+00> : tensor<2xbf16>, f16 = dense<1.500000e+00> : tensor<2xf16>, f32 = dense<1.000000e-01> : tensor<8xf32>, f64 = dense<3.1415926535897931> : tensor<2xf64>, i1 = dense<true> : tensor<2xi1>, i16 = dense<7> : tensor<2x2xi16>, i1_false = dense<false> : vector<3xi1>, i32 = dense<1> : tensor<4xi32>, i64 = dense<-1> : tensor<3xi64>, i7 = dense<63> : tensor<2xi7>, i8 = dense<-128> : tensor<4xi8>, idx = dense<5> : vector<2xindex>, one = dense<7> : tensor<1xi32>, scalar = dense<5> : tensor<i32>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @splats() {
  "t.dense"() {i1 = dense<true> : tensor<2xi1>, i1_false = dense<false> : vector<3xi1>, i8 = dense<-128> : tensor<4xi8>, i16 = dense<7> : tensor<2x2xi16>, i32 = dense<1> : tensor<4xi32>, i64 = dense<-1> : tensor<3xi64>, i7 = dense<63> : tensor<2xi7>, idx = dense<5> : vector<2xindex>, f16 = dense<1.5> : tensor<2xf16>, bf16 = dense<-2.0> : tensor<2xbf16>, f32 = dense<0.1> : tensor<8xf32>, f64 = dense<3.141592653589793> : tensor<2xf64>, scalar = dense<5> : tensor<i32>, one = dense<[7]> : tensor<1xi32>} : () -> ()
  return
}

// CHECK-LABEL: func.func @full() {
// CHECK-NEXT: "t.dense"() {bf16 = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xbf16>, f16 = dense<[9.997550e-02, 1.999510e-01]> : tensor<2xf16>, f32 = dense<{{\[\[}}1.500000e+00, 2.500000e+00], [3.500000e+00, 4.500000e+00]]> : vector<2x2xf32>, f64 = dense<[1.000000e-01, 9.9999999999999995E-21]> : tensor<2xf64>, i1 = dense<[true, false, true]> : tensor<3xi1>, i16 = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi16>, i32 = dense<{{\[\[}}1], [2], [3]]> : tensor<3x1xi32>, i64 = dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>, i7 = dense<[-64, 63]> : vector<2xi7>, i8 = dense<[-128, 0, 127]> : tensor<3xi8>, idx = dense<[0, 1, 2]> : tensor<3xindex>, rank3 = dense<{{\[\[}}[1, 2]], {{\[\[}}3, 4]]]> : tensor<2x1x2xi32>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @full() {
  "t.dense"() {i1 = dense<[true, false, true]> : tensor<3xi1>, i8 = dense<[-128, 0, 127]> : tensor<3xi8>, i16 = dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>, i32 = dense<[[1], [2], [3]]> : tensor<3x1xi32>, i64 = dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>, i7 = dense<[-64, 63]> : vector<2xi7>, idx = dense<[0, 1, 2]> : tensor<3xindex>, f16 = dense<[0.1, 0.2]> : tensor<2xf16>, bf16 = dense<[1.0, 2.0]> : tensor<2xbf16>, f32 = dense<[[1.5, 2.5], [3.5, 4.5]]> : vector<2x2xf32>, f64 = dense<[0.1, 1.0e-20]> : tensor<2xf64>, rank3 = dense<[[[1, 2]], [[3, 4]]]> : tensor<2x1x2xi32>} : () -> ()
  return
}

// CHECK-LABEL: func.func @all_equal_becomes_splat() {
// CHECK-NEXT: "t.dense"() {bools = dense<true> : tensor<2xi1>, floats = dense<5.000000e-01> : tensor<2xf32>, ints = dense<1> : tensor<3xi32>, nested = dense<2> : tensor<2x2xi8>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @all_equal_becomes_splat() {
  "t.dense"() {ints = dense<[1, 1, 1]> : tensor<3xi32>, nested = dense<[[2, 2], [2, 2]]> : tensor<2x2xi8>, bools = dense<[true, true]> : tensor<2xi1>, floats = dense<[0.5, 0.5]> : tensor<2xf32>} : () -> ()
  return
}

// CHECK-LABEL: func.func @empty() {
// CHECK-NEXT: "t.dense"() {a = dense<> : tensor<0xi32>, b = dense<> : tensor<0xf32>, c = dense<> : tensor<2x0xi8>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @empty() {
  "t.dense"() {a = dense<> : tensor<0xi32>, b = dense<[]> : tensor<0xf32>, c = dense<> : tensor<2x0xi8>} : () -> ()
  return
}

// CHECK-LABEL: func.func @hex_strings() {
// CHECK-NEXT: "t.dense"() {f16 = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf16>, f32 = dense<1.000000e+00> : tensor<1xf32>, f32_equal = dense<1.000000e+00> : tensor<2xf32>, f32_splat = dense<1.000000e+00> : tensor<3xf32>, i1_all_ones = dense<true> : tensor<4xi1>, i1_packed = dense<[true, false, true, false]> : tensor<4xi1>, i1_two_bytes = dense<[true, true, false, false, false, false, false, false, true]> : tensor<9xi1>, i1_zero = dense<false> : tensor<9xi1>, i32 = dense<[1, 2]> : tensor<2xi32>, i8 = dense<[1, 2, 3, 4]> : tensor<4xi8>, idx = dense<[3, -1]> : tensor<2xindex>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @hex_strings() {
  "t.dense"() {i8 = dense<"0x01020304"> : tensor<4xi8>, i32 = dense<"0x0100000002000000"> : tensor<2xi32>, f32 = dense<"0x0000803F"> : tensor<1xf32>, f32_splat = dense<"0x0000803F"> : tensor<3xf32>, f32_equal = dense<"0x0000803F0000803F"> : tensor<2xf32>, f16 = dense<"0x003C0040"> : tensor<2xf16>, idx = dense<"0x0300000000000000FFFFFFFFFFFFFFFF"> : tensor<2xindex>, i1_packed = dense<"0x05"> : tensor<4xi1>, i1_all_ones = dense<"0xFF"> : tensor<4xi1>, i1_zero = dense<"0x00"> : tensor<9xi1>, i1_two_bytes = dense<"0x0301"> : tensor<9xi1>} : () -> ()
  return
}

// CHECK-LABEL: func.func @hex_elements() {
// CHECK-NEXT: "t.dense"() {bf16 = dense<0x7FC0> : tensor<2xbf16>, f16 = dense<[0x7E00, 0xFC00]> : tensor<2xf16>, f64 = dense<[0x7FF0000000000000, 2.000000e+00]> : tensor<2xf64>, int = dense<[16, 2]> : tensor<2xi32>, int_wrap = dense<-1> : tensor<2xi8>, mixed = dense<[0x7FC00000, 1.000000e+00, 0xFF800000]> : tensor<3xf32>, nan = dense<0x7FC00000> : tensor<2xf32>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @hex_elements() {
  "t.dense"() {nan = dense<0x7FC00000> : tensor<2xf32>, mixed = dense<[0x7FC00000, 1.0, 0xFF800000]> : tensor<3xf32>, f16 = dense<[0x7E00, 0xFC00]> : tensor<2xf16>, bf16 = dense<0x7FC0> : tensor<2xbf16>, f64 = dense<[0x7FF0000000000000, 2.0]> : tensor<2xf64>, int = dense<[0x10, 2]> : tensor<2xi32>, int_wrap = dense<0xFF> : tensor<2xi8>} : () -> ()
  return
}

// CHECK-LABEL: func.func @dense_arrays() {
// CHECK-NEXT: "t.array"() {bf16 = array<bf16: 2.000000e+00>, empty = array<i64>, empty_f = array<f32>, f16 = array<f16: 1.000000e+00, 9.997550e-02>, f32 = array<f32: 1.500000e+00, 1.000000e-01, 3.14159274>, f64 = array<f64: 2.000000e+00, 3.1415926535897931>, hex_int = array<i32: 16>, i1 = array<i1: true, false>, i16 = array<i16: 1>, i32 = array<i32: 1, 2, 3>, i64 = array<i64: -9223372036854775808, 9223372036854775807>, i8 = array<i8: -128, 127>, nan = array<f32: 0x7FC00000, 2.000000e+00>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @dense_arrays() {
  "t.array"() {i1 = array<i1: true, false>, i8 = array<i8: -128, 127>, i16 = array<i16: 1>, i32 = array<i32: 1, 2, 3>, i64 = array<i64: -9223372036854775808, 9223372036854775807>, empty = array<i64>, empty_f = array<f32>, f16 = array<f16: 1.0, 0.1>, bf16 = array<bf16: 2.0>, f32 = array<f32: 1.5, 0.1, 3.14159265>, f64 = array<f64: 2.0, 3.141592653589793>, nan = array<f32: 0x7FC00000, 2.0>, hex_int = array<i32: 0x10>} : () -> ()
  return
}

// CHECK-LABEL: func.func @large_constants_print_as_hex() {
// CHECK-NEXT: "t.dense"() {f16 = dense<"0x0038003E0041004380448045804680474048C0484049C049404AC04A404BC04B204C604CA04CE04C204D604DA04DE04D204E604EA04EE04E204F604FA04FE04F10503050505070509050B050D050F05010513051505170519051B051D051F05110523052505270529052B052D052F05210533053505370539053B053D053F0530854185428543854485458546854785488549854A854B854C854D854E854F8540855185528553855485558556855785588559855A855B855C855D855E855F85508561856285638564856"> : tensor<101xf16>, i1 = dense<"0x49922449922449922449922409"> : tensor<102xi1>, i32 = dense<"0x000000000100000002000000030000000400000005000000060000000700000008000000090000000A0000000B0000000C0000000D0000000E0000000F000000100000001100000012000000130000001400000015000000160000001700000018000000190000001A0000001B0000001C0000001D0000001E0000001F000000200000002100000022000000230000002400000025000000260000002700000028000000290000002A0000002B0000002C0000002D0000002E0000002F000000300000003100000032000000330000003400000035000000360000003700000038000000390000003A0000003B0000003C0000003D0000003E0000003F000000400000004100000042000000430000004400000045000000460000004700000048000000490000004A0000004B0000004C0000004D0000004E0000004F000000500000005100000052000000530000005400000055000000560000005700000058000000590000005A0000005B0000005C0000005D0000005E0000005F0000006000000061000000620000006300000064000000"> : tensor<101xi32>, i7 = dense<"0x4445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728"> : tensor<101xi7>, idx = dense<"0x0000000000000000FFFFFFFFFFFFFFFFFEFFFFFFFFFFFFFFFDFFFFFFFFFFFFFFFCFFFFFFFFFFFFFFFBFFFFFFFFFFFFFFFAFFFFFFFFFFFFFFF9FFFFFFFFFFFFFFF8FFFFFFFFFFFFFFF7FFFFFFFFFFFFFFF6FFFFFFFFFFFFFFF5FFFFFFFFFFFFFFF4FFFFFFFFFFFFFFF3FFFFFFFFFFFFFFF2FFFFFFFFFFFFFFF1FFFFFFFFFFFFFFF0FFFFFFFFFFFFFFEFFFFFFFFFFFFFFFEEFFFFFFFFFFFFFFEDFFFFFFFFFFFFFFECFFFFFFFFFFFFFFEBFFFFFFFFFFFFFFEAFFFFFFFFFFFFFFE9FFFFFFFFFFFFFFE8FFFFFFFFFFFFFFE7FFFFFFFFFFFFFFE6FFFFFFFFFFFFFFE5FFFFFFFFFFFFFFE4FFFFFFFFFFFFFFE3FFFFFFFFFFFFFFE2FFFFFFFFFFFFFFE1FFFFFFFFFFFFFFE0FFFFFFFFFFFFFFDFFFFFFFFFFFFFFFDEFFFFFFFFFFFFFFDDFFFFFFFFFFFFFFDCFFFFFFFFFFFFFFDBFFFFFFFFFFFFFFDAFFFFFFFFFFFFFFD9FFFFFFFFFFFFFFD8FFFFFFFFFFFFFFD7FFFFFFFFFFFFFFD6FFFFFFFFFFFFFFD5FFFFFFFFFFFFFFD4FFFFFFFFFFFFFFD3FFFFFFFFFFFFFFD2FFFFFFFFFFFFFFD1FFFFFFFFFFFFFFD0FFFFFFFFFFFFFFCFFFFFFFFFFFFFFFCEFFFFFFFFFFFFFFCDFFFFFFFFFFFFFFCCFFFFFFFFFFFFFFCBFFFFFFFFFFFFFFCAFFFFFFFFFFFFFFC9FFFFFFFFFFFFFFC8FFFFFFFFFFFFFFC7FFFFFFFFFFFFFFC6FFFFFFFFFFFFFFC5FFFFFFFFFFFFFFC4FFFFFFFFFFFFFFC3FFFFFFFFFFFFFFC2FFFFFFFFFFFFFFC1FFFFFFFFFFFFFFC0FFFFFFFFFFFFFFBFFFFFFFFFFFFFFFBEFFFFFFFFFFFFFFBDFFFFFFFFFFFFFFBCFFFFFFFFFFFFFFBBFFFFFFFFFFFFFFBAFFFFFFFFFFFFFFB9FFFFFFFFFFFFFFB8FFFFFFFFFFFFFFB7FFFFFFFFFFFFFFB6FFFFFFFFFFFFFFB5FFFFFFFFFFFFFFB4FFFFFFFFFFFFFFB3FFFFFFFFFFFFFFB2FFFFFFFFFFFFFFB1FFFFFFFFFFFFFFB0FFFFFFFFFFFFFFAFFFFFFFFFFFFFFFAEFFFFFFFFFFFFFFADFFFFFFFFFFFFFFACFFFFFFFFFFFFFFABFFFFFFFFFFFFFFAAFFFFFFFFFFFFFFA9FFFFFFFFFFFFFFA8FFFFFFFFFFFFFFA7FFFFFFFFFFFFFFA6FFFFFFFFFFFFFFA5FFFFFFFFFFFFFFA4FFFFFFFFFFFFFFA3FFFFFFFFFFFFFFA2FFFFFFFFFFFFFFA1FFFFFFFFFFFFFFA0FFFFFFFFFFFFFF9FFFFFFFFFFFFFFF9EFFFFFFFFFFFFFF9DFFFFFFFFFFFFFF9CFFFFFFFFFFFFFF"> : tensor<101xindex>, splat = dense<7> : tensor<1000xi32>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @large_constants_print_as_hex() {
  "t.dense"() {i32 = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100]> : tensor<101xi32>, i1 = dense<[true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false]> : tensor<102xi1>, i7 = dense<[-60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]> : tensor<101xi7>, f16 = dense<[0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5, 30.5, 31.5, 32.5, 33.5, 34.5, 35.5, 36.5, 37.5, 38.5, 39.5, 40.5, 41.5, 42.5, 43.5, 44.5, 45.5, 46.5, 47.5, 48.5, 49.5, 50.5, 51.5, 52.5, 53.5, 54.5, 55.5, 56.5, 57.5, 58.5, 59.5, 60.5, 61.5, 62.5, 63.5, 64.5, 65.5, 66.5, 67.5, 68.5, 69.5, 70.5, 71.5, 72.5, 73.5, 74.5, 75.5, 76.5, 77.5, 78.5, 79.5, 80.5, 81.5, 82.5, 83.5, 84.5, 85.5, 86.5, 87.5, 88.5, 89.5, 90.5, 91.5, 92.5, 93.5, 94.5, 95.5, 96.5, 97.5, 98.5, 99.5, 100.5]> : tensor<101xf16>, idx = dense<[0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16, -17, -18, -19, -20, -21, -22, -23, -24, -25, -26, -27, -28, -29, -30, -31, -32, -33, -34, -35, -36, -37, -38, -39, -40, -41, -42, -43, -44, -45, -46, -47, -48, -49, -50, -51, -52, -53, -54, -55, -56, -57, -58, -59, -60, -61, -62, -63, -64, -65, -66, -67, -68, -69, -70, -71, -72, -73, -74, -75, -76, -77, -78, -79, -80, -81, -82, -83, -84, -85, -86, -87, -88, -89, -90, -91, -92, -93, -94, -95, -96, -97, -98, -99, -100]> : tensor<101xindex>, splat = dense<7> : tensor<1000xi32>} : () -> ()
  return
}

// CHECK-LABEL: func.func @hundred_elements_print_as_list() {
// CHECK-NEXT: "t.dense"() {i8 = dense<[-50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49]> : tensor<100xi8>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @hundred_elements_print_as_list() {
  "t.dense"() {i8 = dense<[-50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49]> : tensor<100xi8>} : () -> ()
  return
}
