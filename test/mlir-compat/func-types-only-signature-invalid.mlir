// The explicit entry block of a function with a types-only signature must match it: both
// tools reject each chunk with the same message.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// RUN: mlir-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
func.func @no_entry_arguments(i32) {
  return
}

// -----

// expected-error @+1 {{type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('i32')}}
func.func @wrong_type(i32) {
^bb0(%a: f32):
  return
}
