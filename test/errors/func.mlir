// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// The func dialect's rules: calls match their callee, returns match their function, entry
// blocks match signatures, and declarations are not public.

func.func @unresolved_call() {
  // expected-error @+1 {{'func.call' op 'nope' does not reference a valid function}}
  func.call @nope() : () -> ()
  return
}

// -----

func.func private @g(i32)
func.func @call_operand_type_mismatch(%a: f32) {
  // expected-error @+1 {{'func.call' op operand type mismatch: expected operand type 'i32', but provided 'f32' for operand number 0}}
  func.call @g(%a) : (f32) -> ()
  return
}

// -----

func.func private @g(i32)
func.func @call_operand_count_mismatch(%a: i32) {
  // expected-error @+1 {{'func.call' op incorrect number of operands for callee}}
  func.call @g(%a, %a) : (i32, i32) -> ()
  return
}

// -----

func.func private @g() -> i32
func.func @call_result_type_mismatch() {
  // expected-error @+3 {{'func.call' op result type mismatch at index 0}}
  // expected-note @+2 {{      op result types: 'f32'}}
  // expected-note @+1 {{function result types: 'i32'}}
  %0 = func.call @g() : () -> f32
  return
}

// -----

func.func private @g() -> i32
func.func @call_result_count_mismatch() {
  // expected-error @+1 {{'func.call' op incorrect number of results for callee}}
  func.call @g() : () -> ()
  return
}

// -----

// expected-error @+1 {{'func.call' op requires a 'callee' symbol reference attribute}}
"func.call"() : () -> ()

// -----

func.func @call_operands_disagree_with_call_type(%a: i32) { // expected-note {{prior use here}}
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'f32' vs 'i32'}}
  func.call @call_operands_disagree_with_call_type(%a) : (f32) -> ()
  return
}

// -----

func.func @return_count_mismatch() -> (i32, i32) {
  %0 = "t.a"() : () -> i32
  // expected-error @+1 {{'func.return' op has 1 operands, but enclosing function (@return_count_mismatch) returns 2}}
  return %0 : i32
}

// -----

func.func @return_type_mismatch() -> i32 {
  %0 = "t.a"() : () -> f32
  // expected-error @+1 {{type of return operand 0 ('f32') doesn't match function result type ('i32') in function @return_type_mismatch}}
  return %0 : f32
}

// -----

func.func @return_operands_and_types_differ(%a: i32) -> i32 {
  // expected-error @+1 {{2 operands present, but expected 1}}
  return %a, %a : i32
}

// -----

// expected-error @+1 {{'func.func' op entry block must have 1 arguments to match function signature}}
"func.func"() <{function_type = (i32) -> (), sym_name = "entry_arg_count"}> ({
^bb0(%arg0: i32, %arg1: i32):
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'func.func' op type of entry block argument #0('i64') must match the type of the corresponding argument in function signature('i32')}}
"func.func"() <{function_type = (i32) -> (), sym_name = "entry_arg_type"}> ({
^bb0(%arg0: i64):
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'func.func' op symbol declaration cannot have public visibility}}
func.func @public_declaration(i32)

// -----

// expected-error @+1 {{'func.func' op requires attribute 'function_type' holding a function type}}
"func.func"() <{sym_name = "no_type"}> ({
}) : () -> ()

// -----

// expected-error @+1 {{'func.func' op requires string attribute 'sym_name'}}
"func.func"() <{function_type = () -> ()}> ({
}) : () -> ()

// -----

// expected-error @+1 {{'func.func' op expected 1 region, but found 2}}
"func.func"() <{function_type = () -> (), sym_name = "two_regions"}> ({
  "func.return"() : () -> ()
}, {
}) : () -> ()

// -----

// A types-only signature needs an entry block naming the arguments (as in MLIR).
// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
func.func @body_without_argument_names(i32) {
  return
}

// -----

// expected-error @+1 {{expected valid '@'-identifier for symbol name}}
func.func no_at_sign() {
  return
}
