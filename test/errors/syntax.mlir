// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// Errors of the lexer and the parser: each chunk is parsed on its own and its first error is
// checked against the annotation above the offending line.

func.func @bad_character() {
  // expected-error @+1 {{unexpected character}}
  %0 = "t.a"() : () -> i32 `
}

// -----

// expected-error @+1 {{expected '"' in string literal}}
"t.a"() {s = "unterminated} : () -> ()

// -----

func.func @unknown_custom_op() {
  // expected-error @+1 {{custom op 'foo.bar' is unknown}}
  foo.bar
}

// -----

func.func @unknown_op_of_registered_dialect() {
  // A registered dialect knows all its ops, even with -allow-unregistered-dialect.
  // expected-error @+1 {{unregistered operation 'func.bogus' found in dialect ('func') that does not allow unknown operations}}
  "func.bogus"() : () -> ()
  return
}

// -----

func.func @type_mismatch_between_uses() {
  %0 = "t.a"() : () -> i32 // expected-note {{prior use here}}
  // expected-error @+1 {{use of value '%0' expects different type than prior uses: 'i64' vs 'i32'}}
  "t.b"(%0) : (i64) -> ()
  return
}

// -----

func.func @forward_uses_disagree() {
  "t.b"(%later) : (i64) -> () // expected-note {{prior use here}}
  // expected-error @+1 {{use of value '%later' expects different type than prior uses: 'i32' vs 'i64'}}
  "t.c"(%later) : (i32) -> ()
  %later = "t.a"() : () -> i64
  return
}

// -----

func.func @undefined_value() {
  // expected-error @+1 {{use of undeclared SSA value name '%x'}}
  "t.b"(%x) : (i64) -> ()
  return
}

// -----

func.func @redefined_value() {
  // expected-note @+1 {{previously defined here}}
  %0 = "t.a"() : () -> i32
  // expected-error @+1 {{redefinition of SSA value '%0'}}
  %0 = "t.a"() : () -> i32
  return
}

// -----

func.func @undefined_block() {
  // expected-error @+1 {{reference to an undefined block '^missing'}}
  "t.br"()[^missing] : () -> ()
}

// -----

func.func @redefined_block() {
  "t.br"()[^bb1] : () -> ()
^bb1:
  "t.br"()[^bb1] : () -> ()
// expected-error @+1 {{redefinition of block '^bb1'}}
^bb1:
  return
}

// -----

func.func @too_many_result_names() {
  // expected-error @+1 {{operation defines 2 results but was provided 3 to bind}}
  %a:3 = "t.two"() : () -> (i32, i32)
  return
}

// -----

func.func @too_few_result_names() {
  // expected-error @+1 {{operation defines 2 results but was provided 1 to bind}}
  %a = "t.two"() : () -> (i32, i32)
  return
}

// -----

func.func @invalid_result_number() {
  %r:2 = "t.two"() : () -> (i32, i32)
  // expected-error @+1 {{reference to invalid result number 5 of '%r' (2 results)}}
  "t.use"(%r#5) : (i32) -> ()
  return
}

// -----

// expected-error @+1 {{expected named operation to have at least 1 result}}
%x:0 = "t.op"() : () -> ()

// -----

func.func @not_a_function_type() {
  // expected-error @+1 {{expected function type}}
  "t.op"() : i32
  return
}

// -----

func.func @operand_and_type_counts_differ(%a: i32) {
  // expected-error @+1 {{expected 1 operand type but had 2}}
  "t.op"(%a) : (i32, i32) -> ()
  return
}

// -----

// expected-error @+1 {{expected non-function type, found 'i32x'}}
func.func @unknown_type_keyword(%a: i32x) {
  return
}

// -----

// expected-error @+1 {{vector types must have static dimensions}}
func.func @dynamic_vector(%a: vector<?xf32>) {
  return
}

// -----

// expected-error @+1 {{undefined symbol alias id 'undefined'}}
func.func @undefined_type_alias(%a: !undefined) {
  return
}

// -----

// expected-error @+1 {{undefined symbol alias id 'undefined'}}
"t.op"() {a = #undefined} : () -> ()

// -----

!t = i32
// expected-error @+1 {{redefinition of type alias id 't'}}
!t = f32

// -----

// expected-error @+1 {{duplicate key 'a' in dictionary attribute}}
"t.op"() {a = 1, b = 2, a = 3} : () -> ()

// -----

// expected-error @+1 {{expected attribute value}}
"t.op"() {a = } : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = 256 : i8} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = -129 : i8} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range}}
"t.op"() {a = array<i8: 300>} : () -> ()

// -----

// expected-error @+1 {{hexadecimal float constant out of range for type}}
"t.op"() {a = 0x1FFFF : f16} : () -> ()

// -----

// expected-error @+1 {{boolean attributes must have type 'i1'}}
"t.op"() {a = true : i32} : () -> ()

// -----

// expected-error @+1 {{expected '@' after '::' in nested symbol reference}}
"t.op"() {a = @a::} : () -> ()

// -----

// expected-error @+1 {{inferred shape of elements literal ([3]) does not match type ([2]) of 'tensor<2xi32>'}}
"t.op"() {a = dense<[1, 2, 3]> : tensor<2xi32>} : () -> ()

// -----

// expected-error @+1 {{tensor literal is invalid; ranks are not consistent between elements}}
"t.op"() {a = dense<[[1, 2], [3]]> : tensor<2x2xi32>} : () -> ()

// -----

// expected-error @+1 {{expected integer elements, but parsed floating-point}}
"t.op"() {a = dense<1.5> : tensor<2xi32>} : () -> ()

// -----

// expected-error @+1 {{dense attributes need a statically shaped type}}
"t.op"() {a = dense<1> : tensor<?xi32>} : () -> ()

// -----

// expected-error @+1 {{(2 bytes, the type needs 3)}}
"t.op"() {a = dense<"0x0102"> : tensor<3xi8>} : () -> ()

// -----

// MLIR packs i1 elements eight to a byte: four of them need one byte.
// expected-error @+1 {{(2 bytes, the type needs 1)}}
"t.op"() {a = dense<"0x0102"> : tensor<4xi1>} : () -> ()

// -----

// expected-error @+1 {{invalid type for a numeric attribute; expected an integer, index or float type}}
"t.op"() {a = 1 : tensor<2xi32>} : () -> ()

// -----

// Strings are UTF-8 in dlc.
// expected-error @+1 {{string literal is not valid UTF-8}}
"t.op"() {s = "\FF"} : () -> ()

// -----

// expected-error @+1 {{expected location instance}}
"t.op"() : () -> () loc(bogus)

// -----

// At the end of the input the error is reported just after the last text: this comment.
func.func @unterminated_region() {
  "t.op"() : () -> ()
// expected-error {{expected '}' to end a region}}
