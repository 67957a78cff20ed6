// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// Without -allow-unregistered-dialect, ops, types and attributes of dialects dlc-opt does not
// know are errors.

// expected-error @+1 {{operation 'foo.op' belongs to unregistered dialect 'foo'; use --allow-unregistered-dialect to accept it}}
"foo.op"() : () -> ()

// -----

func.func @unregistered_op_in_a_function() {
  // expected-error @+1 {{operation 't.a' belongs to unregistered dialect 't'}}
  %0 = "t.a"() : () -> i32
  return
}

// -----

// expected-error @+1 {{dialect 'foo' provides no type parsing hook; use --allow-unregistered-dialect to keep '!foo.type' as an opaque type}}
func.func private @unregistered_type(!foo.type)

// -----

// expected-error @+1 {{attribute '#foo.attr' belongs to unregistered dialect 'foo'; use --allow-unregistered-dialect to keep it as an opaque attribute}}
func.func private @unregistered_attr() attributes {dlc.a = #foo.attr}

// -----

// expected-error @+1 {{unregistered operation 'builtin.bogus' found in dialect ('builtin') that does not allow unknown operations}}
"builtin.bogus"() : () -> ()
