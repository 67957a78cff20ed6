// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// Structural rules the verifier checks after a chunk parses: dominance, isolation, terminators,
// symbols and parents.

func.func @dominance_in_a_block() {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  "t.use"(%x) : (i32) -> ()
  // expected-note @+1 {{operand defined here}}
  %x = "t.def"() : () -> i32
  return
}

// -----

func.func @dominance_across_blocks(%c: i1) {
  "t.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  // expected-note @+1 {{operand defined here}}
  %v = "t.def"() : () -> i32
  "t.br"()[^bb3] : () -> ()
^bb2:
  "t.br"()[^bb3] : () -> ()
^bb3:
  // expected-error @+1 {{operand #0 does not dominate this use}}
  "t.use"(%v) : (i32) -> ()
  return
}

// -----

func.func @value_used_inside_its_own_region() {
  // expected-note @+1 {{operand defined here}}
  %0 = "t.op"() ({
    // expected-error @+1 {{operand #0 does not dominate this use}}
    "t.use"(%0) : (i32) -> ()
  }) : () -> i32
  return
}

// -----

// Names defined outside an isolated-from-above op (func.func) are not visible inside it.
func.func @outer() {
  %0 = "t.a"() : () -> i32
  "t.r"() ({
    func.func @inner() {
      // expected-error @+1 {{use of undeclared SSA value name '%0'}}
      "t.b"(%0) : (i32) -> ()
      return
    }
    "t.end"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A nested op is verified before its block's missing terminator is reported.
func.func @missing_terminator() -> i32 {
  // expected-error @+1 {{block with no terminator, has 'func.call'}}
  %0 = func.call @missing_terminator() : () -> i32
}

// -----

// expected-error @+1 {{empty block: expect at least a terminator}}
func.func @empty_block() {
^bb0:
}

// -----

func.func @terminator_not_last() {
  // expected-error @+1 {{'func.return' op must be the last operation in the parent block}}
  return
  "t.after"() : () -> ()
}

// -----

// expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
func.return

// -----

func.func @return_in_a_nested_region() {
  "t.r"() ({
    // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
    "func.return"() : () -> ()
  }) : () -> ()
  return
}

// -----

// expected-note @+1 {{see existing symbol definition here}}
func.func private @duplicate()
// expected-error @+1 {{redefinition of symbol named 'duplicate'}}
func.func private @duplicate()

// -----

func.func @entry_block_as_successor() {
^bb0:
  // expected-error @+1 {{entry block of a region may not be a successor}}
  "t.br"()[^bb0] : () -> ()
}

// -----

// expected-error @+1 {{'builtin.module' op can only contain attributes with dialect-prefixed names, found: 'unprefixed'}}
module attributes {unprefixed = 1 : i32} {
}

// -----

// expected-error @+1 {{'builtin.module' op region #0 ('bodyRegion') failed to verify constraint: region with 1 blocks}}
"builtin.module"() ({}) : () -> ()

// -----

%0 = "t.x"() : () -> i32
// expected-error @+1 {{'builtin.module' op expected 0 operands, but found 1}}
"builtin.module"(%0) ({
}) : (i32) -> ()
