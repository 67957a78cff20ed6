// RUN: dlc-opt %s --allow-unregistered-dialect | dlc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | dlc-opt --allow-unregistered-dialect | FileCheck %s

// Builtin attributes round-trip through dlc-opt's custom and generic forms, printed as
// mlir-opt prints them: dictionaries sorted by key, `i64` and `f64` types left out inside
// arrays, strings with LLVM's escapes.

// CHECK-LABEL: func.func @integers() {
// CHECK-NEXT: "t.int"() {hex = 255 : i32, hex_i8 = -128 : i8, i16_max = 32767 : i16, i16_min = -32768 : i16, i1_false = false, i1_true = true, i1_typed = true, i32_max = 2147483647 : i32, i32_min = -2147483648 : i32, i33 = -4294967296 : i33, i64_max = 9223372036854775807 : i64, i64_min = -9223372036854775808 : i64, i64_unsigned_max = -1 : i64, i7_max = 63 : i7, i7_min = -64 : i7, i8_max = 127 : i8, i8_min = -128 : i8, i8_unsigned_max = -1 : i8, idx = -1 : index, idx_max = 9223372036854775807 : index, negative = -7 : i64, untyped = 42 : i64, zero = 0 : i32} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @integers() {
  "t.int"() {i1_true = true, i1_false = false, i1_typed = 1 : i1, i8_min = -128 : i8, i8_max = 127 : i8, i8_unsigned_max = 255 : i8, i16_min = -32768 : i16, i16_max = 32767 : i16, i32_min = -2147483648 : i32, i32_max = 2147483647 : i32, i64_min = -9223372036854775808 : i64, i64_max = 9223372036854775807 : i64, i64_unsigned_max = 18446744073709551615 : i64, i7_min = -64 : i7, i7_max = 63 : i7, i33 = 4294967296 : i33, idx = -1 : index, idx_max = 9223372036854775807 : index, untyped = 42, negative = -7, zero = 0 : i32, hex = 0xFF : i32, hex_i8 = 0x80 : i8} : () -> ()
  return
}

// CHECK-LABEL: func.func @floats() {
// CHECK-NEXT: "t.float"() {bf16 = 2.500000e+00 : bf16, big = 1.000000e+20 : f64, exp_form = 6.020000e+23 : f64, f16 = 1.500000e+00 : f16, f16_max = 6.550400e+04 : f16, f32 = 5.000000e-01 : f32, f32_max = 3.40282347E+38 : f32, f64 = 2.500000e-01 : f64, neg_zero = -0.000000e+00 : f64, negative = -3.750000e+00 : f32, small = 1.000000e-07 : f32, untyped = 2.000000e+00 : f64, zero = 0.000000e+00 : f16} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @floats() {
  "t.float"() {f16 = 1.5 : f16, bf16 = 2.5 : bf16, f32 = 0.5 : f32, f64 = 0.25 : f64, untyped = 2.0, negative = -3.75 : f32, neg_zero = -0.0 : f64, zero = 0.0 : f16, big = 1.0e20 : f64, small = 1.0e-7 : f32, exp_form = 6.02e23 : f64, f32_max = 3.4028234663852886e38 : f32, f16_max = 65504.0 : f16} : () -> ()
  return
}

// CHECK-LABEL: func.func @floats_needing_more_digits() {
// CHECK-NEXT: "t.float"() {bf16_tie = 1.007810e+00 : bf16, denormal = 4.940660e-324 : f64, f16_tenth = 9.997550e-02 : f16, max64 = 1.7976931348623157E+308 : f64, min_normal = 2.2250738585072014E-308 : f64, pi32 = 3.14159274 : f32, pi64 = 3.1415926535897931 : f64, sci = 1.23456789E-4 : f64, tenth64 = 1.000000e-01 : f64, third = 0.33333333333333331 : f64, tie = 125000000000000.13 : f64, tiny = 9.9999999999999995E-21 : f64, y = 12345.6777 : f32} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @floats_needing_more_digits() {
  "t.float"() {pi64 = 3.141592653589793 : f64, pi32 = 3.14159265 : f32, tenth64 = 0.1 : f64, third = 0.3333333333333333 : f64, tie = 125000000000000.125 : f64, tiny = 1.0e-20 : f64, denormal = 5.0e-324 : f64, max64 = 1.7976931348623157e308 : f64, min_normal = 2.2250738585072014e-308 : f64, y = 12345.678 : f32, f16_tenth = 0.1 : f16, bf16_tie = 1.0078125 : bf16, sci = 1.23456789e-4 : f64} : () -> ()
  return
}

// CHECK-LABEL: func.func @floats_printed_in_hex() {
// CHECK-NEXT: "t.float"() {bf16_inf = 0xFF80 : bf16, bf16_nan = 0x7FC0 : bf16, inf16 = 0x7C00 : f16, inf32 = 0x7F800000 : f32, int_like32 = 0x4B800000 : f32, int_like32b = 0x4996B438 : f32, int_like64 = 0x419D6F3454000000 : f64, nan16 = 0x7E00 : f16, nan32 = 0x7FC00000 : f32, nan64 = 0x7FF8000000000000 : f64, nan_payload16 = 0x7C01 : f16, nan_payload32 = 0x7FC00123 : f32, neg_inf32 = 0xFF800000 : f32, neg_inf64 = 0xFFF0000000000000 : f64, neg_nan16 = 0xFE00 : f16, neg_nan32 = 0xFFC00000 : f32, one_in_hex = 1.000000e+00 : f32, snan32 = 0x7F800001 : f32} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @floats_printed_in_hex() {
  "t.float"() {int_like64 = 123456789.0 : f64, int_like32 = 16777217.0 : f32, int_like32b = 1234567.0 : f32, nan32 = 0x7FC00000 : f32, neg_nan32 = 0xFFC00000 : f32, snan32 = 0x7F800001 : f32, nan_payload32 = 0x7FC00123 : f32, inf32 = 0x7F800000 : f32, neg_inf32 = 0xFF800000 : f32, nan64 = 0x7FF8000000000000 : f64, neg_inf64 = 0xFFF0000000000000 : f64, nan16 = 0x7E00 : f16, neg_nan16 = 0xFE00 : f16, nan_payload16 = 0x7C01 : f16, inf16 = 0x7C00 : f16, bf16_nan = 0x7FC0 : bf16, bf16_inf = 0xFF80 : bf16, one_in_hex = 0x3F800000 : f32} : () -> ()
  return
}

// CHECK-LABEL: func.func @strings() {
// CHECK-NEXT: "t.string"() {backslash = "a\\b", empty = "", hex_escape = "\01\7F\1B", newline = "line\0Anext", plain = "hello", quote = "say \22hi\22", spaces = "  padded  ", tab = "a\09b", utf8 = "\C3\A9t\C3\A9"} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @strings() {
  "t.string"() {plain = "hello", empty = "", quote = "say \"hi\"", backslash = "a\\b", newline = "line\nnext", tab = "a\tb", hex_escape = "\01\7F\1B", utf8 = "\C3\A9t\C3\A9", spaces = "  padded  "} : () -> ()
  return
}

// CHECK-LABEL: func.func @unit_and_bool() {
// CHECK-NEXT: "t.unit"() {a, b, c = true, d = false} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @unit_and_bool() {
  "t.unit"() {a, b = unit, c = true, d = false} : () -> ()
  return
}

// CHECK-LABEL: func.func @arrays() {
// CHECK-NEXT: "t.array"() {empty = [], floats = [1.500000e+00, 2.000000e+00 : f32, 1.000000e-01], hex_f64 = [0x7FF8000000000000 : f64, 1.000000e+00], ints = [1, -2, 3], mixed = ["a", true, unit, i32, @sym], nested = {{\[\[}}1, 2], [], {{\[\[}}3]]], typed = [1 : i32, 2 : i8, 3 : index]} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @arrays() {
  "t.array"() {empty = [], ints = [1, -2, 3], typed = [1 : i32, 2 : i8, 3 : index], floats = [1.5, 2.0 : f32, 0.1], hex_f64 = [0x7FF8000000000000 : f64, 1.0], mixed = ["a", true, unit, i32, @sym], nested = [[1, 2], [], [[3]]]} : () -> ()
  return
}

// CHECK-LABEL: func.func @dictionaries() {
// CHECK-NEXT: "t.dict"() {_under = 5 : i32, a = 2 : i32, dots.and$ = 6 : i32, empty = {}, m = {a, b = {inner = [1]}, y = "y"}, "quoted key" = 3 : i32, z = 1 : i32} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @dictionaries() {
  "t.dict"() {z = 1 : i32, a = 2 : i32, m = {y = "y", b = {inner = [1]}, a}, empty = {}, "quoted key" = 3 : i32, _under = 5 : i32, dots.and$ = 6 : i32} : () -> ()
  return
}

// CHECK-LABEL: func.func @type_attributes() {
// CHECK-NEXT: "t.type"() {float = f16, fn = (i32, f32) -> i1, idx = index, int = i32, nested_fn = ((i32) -> i32) -> (), none = none, tensor = tensor<?x4xf32>, vector = vector<2xi1>} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @type_attributes() {
  "t.type"() {int = i32, float = f16, idx = index, tensor = tensor<?x4xf32>, vector = vector<2xi1>, fn = (i32, f32) -> i1, nested_fn = ((i32) -> i32) -> (), none = none} : () -> ()
  return
}

// CHECK-LABEL: func.func @symbol_references() {
// CHECK-NEXT: "t.symbol"() {deep = @a::@b::@c, digits_quoted = @"0abc", dollar = @foo$1, dotted = @foo.bar, flat = @foo, nested = @outer::@inner, quoted = @"x y", quoted_nested = @"a b"::@"c-d"} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @symbol_references() {
  "t.symbol"() {flat = @foo, nested = @outer::@inner, deep = @a::@b::@c, quoted = @"x y", quoted_nested = @"a b"::@"c-d", dotted = @foo.bar, dollar = @foo$1, digits_quoted = @"0abc"} : () -> ()
  return
}
