// Parse errors read as mlir-opt-22's, at the same place, so that a user can grep for them: both
// tools check the same expected diagnostics, one behaviour per chunk.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics

func.func @block_arg_without_name() {
  return
// expected-error @+1 {{expected SSA operand}}
^next(f32):
  return
}

// -----

func.func @block_arg_without_type() {
^only(%w): // expected-error {{expected ':' and type for SSA operand}}
  return
}

// -----

func.func @block_args_unclosed() {
^only(%w: i1 %v: i1): // expected-error {{expected ')'}}
  return
}

// -----

func.func @result_list_trailing_comma() {
  // expected-error @+1 {{expected valid ssa identifier}}
  %k, = arith.constant 1 : i4
  return
}

// -----

func.func @zero_results_bound() {
  // expected-error @+1 {{expected named operation to have at least 1 result}}
  %k:0 = arith.constant 1 : i4
  return
}

// -----

func.func private @nothing()
func.func @naming_no_results() {
  // expected-error @+1 {{cannot name an operation with no results}}
  %n = func.call @nothing() : () -> ()
  return
}

// -----

// A token missing at the end of a line is reported on that line, not on the next one.
func.func @type_missing_at_line_end() {
  %m = "arith.constant"() {value = 2 : i16} // expected-error {{expected ':' followed by operation type}}
  return
}

// -----

func.func @type_missing_before_comment() {
  %m = "arith.constant"() {value = 2 : i16}
  // This comment and the blank line below are skipped when placing the error.

  return
}
// expected-error @-5 {{expected ':' followed by operation type}}

// -----

// An integer type is never an op name.
func.func @constant_without_colon() {
  // expected-error @+1 {{expected operation name in quotes}}
  %q = arith.constant 5 i16
  return
}

// -----

func.func @unknown_short_name() {
  // expected-error @+1 {{custom op 'frobnicate' is unknown (tried 'func.frobnicate' as well)}}
  frobnicate
}

// -----

func.func @empty_generic_name() {
  // expected-error @+1 {{empty operation name is invalid}}
  ""() : () -> ()
  return
}

// -----

func.func @branching_add(%a: i32) {
  // expected-error @+1 {{successors in non-terminator}}
  %s = "arith.addi"(%a, %a)[^exit] : (i32, i32) -> i32
^exit:
  return
}

// -----

// expected-error @+1 {{type names with a '.' are reserved for dialect-defined names}}
!my.alias = i32

// -----

// expected-error @+1 {{attribute names with a '.' are reserved for dialect-defined names}}
#my.alias = 3

// -----

!no_equals f32 // expected-error {{expected '=' in type alias definition}}

// -----

#no_equals 0.5 // expected-error {{expected '=' in attribute alias definition}}

// -----

// expected-error @+1 {{expected three consecutive dots for an ellipsis}}
func.func private @two_dots(..)

// -----

// expected-error @+1 {{expected non-function type}}
func.func private @three_dots(...)

// -----

// expected-error @+1 {{@ identifier expected to start with letter or '_'}}
func.func private @9lives()

// -----

// expected-error @+1 {{expected type instead of SSA identifier}}
func.func @types_then_names(f32, %b: i32) {
  return
}

// -----

// expected-error @+1 {{expected SSA identifier}}
func.func @names_then_types(%b: i32, f32) {
  return
}

// -----

func.func @braces_only() {} // expected-error {{expected non-empty function body}}

// -----

func.func @constant_of_integer() {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %f = func.constant [7] : () -> ()
  return
}

// -----

// expected-error @+1 {{invalid type identifier}}
func.func private @bang_without_name(!<"x">)
