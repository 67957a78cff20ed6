// Verifier checks report what mlir-opt-22 reports, in the same order: both tools check the same
// expected diagnostics, one behaviour per chunk.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics

// Argument attributes must belong to a dialect (their names have a '.').
// expected-error @+1 {{'func.func' op arguments may only have dialect attributes}}
func.func private @plain_arg_attr(f32 {plain = 3 : i64})

// -----

// expected-error @+1 {{'func.func' op results may only have dialect attributes}}
func.func private @plain_result_attr() -> (i8 {marker})

// -----

// The symbol name, visibility and type come from the signature, never from the dictionary.
// expected-error @+1 {{'sym_name' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func private @named_twice() attributes {sym_name = "other"}

// -----

// expected-error @+1 {{'sym_visibility' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func @hidden_twice() attributes {sym_visibility = "nested"}

// -----

// expected-error @+1 {{'function_type' is an inferred attribute and should not be specified in the explicit attribute dictionary}}
func.func private @typed_twice(i1) attributes {function_type = (i1) -> ()}

// -----

// expected-error @+1 {{'func.func' op expects argument attribute array to have the same number of elements as the number of function arguments, got 2, but expected 1}}
func.func private @two_dicts_one_arg(index) attributes {arg_attrs = [{}, {}]}

// -----

// expected-error @+1 {{'func.func' op expects result attribute array to have the same number of elements as the number of function results, got 1, but expected 2}}
func.func private @one_dict_two_results() -> (i1, i2) attributes {res_attrs = [{}]}

// -----

// A use whose type disagrees with the definition points back at the definition.
func.func @arg_used_as_other_type(%p: i16, %q: i32) { // expected-note {{prior use here}}
  // expected-error @+1 {{use of value '%q' expects different type than prior uses: 'i16' vs 'i32'}}
  %s = arith.subi %p, %q : i16
  return
}

// -----

func.func @result_used_as_other_type() -> f64 {
  %h = arith.constant 0.5 : f32 // expected-note {{prior use here}}
  // expected-error @+1 {{use of value '%h' expects different type than prior uses: 'f64' vs 'f32'}}
  return %h : f64
}

// -----

// A broken op inside a block is reported before the block's missing terminator.
func.func @bad_op_then_no_terminator(%x: f64) {
  // expected-error @+1 {{'arith.xori' op operand #0 must be signless-integer-like, but got 'f64'}}
  %y = arith.xori %x, %x : f64
}

// -----

func.func @no_terminator(%x: i8) {
  // expected-error @+1 {{block with no terminator}}
  %y = arith.xori %x, %x : i8
}

// -----

// expected-error @+1 {{empty block: expect at least a terminator}}
func.func @empty_entry() {
^entry:
}

// -----

// The dominance note says where the definition is.
func.func @used_before_defined() -> i32 {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %u = arith.muli %d, %d : i32
  %d = arith.constant 4 : i32 // expected-note {{operand defined here (op in the same block)}}
  return %u : i32
}

// -----

// index_cast: tensors must keep their dimensions, and a tensor cannot become a scalar.
func.func @cast_changes_dims(%t: tensor<3xindex>) {
  // expected-error @+1 {{'arith.index_cast' op failed to verify that input and output have the same tensor dimensions}}
  %c = arith.index_cast %t : tensor<3xindex> to tensor<4xi32>
  return
}

// -----

func.func @cast_to_scalar(%t: tensor<index>) {
  // expected-error @+1 {{'arith.index_cast' op requires the same shape for all operands and results}}
  %c = arith.index_cast %t : tensor<index> to i32
  return
}

// -----

// Casts take scalable vectors, whose scalable dimensions must agree.
func.func @scalable_to_fixed(%v: vector<[8]xi8>) {
  %ok = arith.extsi %v : vector<[8]xi8> to vector<[8]xi16>
  // expected-error @+1 {{'arith.extui' op requires the same shape for all operands and results}}
  %bad = arith.extui %v : vector<[8]xi8> to vector<8xi16>
  return
}

// -----

// arith.constant: the value's type is the result type, and integers are signless.
func.func @constant_of_string() {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %c = "arith.constant"() {value = "seven"} : () -> i8
  return
}

// -----

func.func @unsigned_constant() {
  // expected-error @+1 {{'arith.constant' op integer return type must be signless}}
  %c = arith.constant 7 : ui8
  return
}

// -----

// A comparison's custom form infers its result, so a wrong operand type is a parse error.
func.func @cmpf_of_integers(%a: i64) {
  // expected-error @+1 {{'lhs' must be floating-point-like, but got 'i64'}}
  %r = arith.cmpf ogt, %a, %a : i64
  return
}

// -----

func.func private @pair() -> (i8, f16)
func.func @call_result_types_swapped() {
  // expected-error @+3 {{'func.call' op result type mismatch at index 0}}
  // expected-note @+2 {{op result types: 'f16', 'i8'}}
  // expected-note @+1 {{function result types: 'i8', 'f16'}}
  %r:2 = func.call @pair() : () -> (f16, i8)
  return
}
