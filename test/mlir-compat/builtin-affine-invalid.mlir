// Malformed or non-affine maps and sets: both tools reject each chunk with the same message.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{non-affine expression: at least one of the multiply operands has to be either a constant or symbolic}}
"t.op"() {a = affine_map<(d0, d1) -> (d0 * d1)>} : () -> ()

// -----

// expected-error @+1 {{non-affine expression: right operand of floordiv has to be either a constant or symbolic}}
"t.op"() {a = affine_map<(d0, d1) -> (d0 floordiv d1)>} : () -> ()

// -----

// expected-error @+1 {{non-affine expression: right operand of mod has to be either a constant or symbolic}}
"t.op"() {a = affine_map<(d0) -> (d0 mod d0)>} : () -> ()

// -----

// expected-error @+1 {{use of undeclared identifier}}
"t.op"() {a = affine_map<(d0, d1) -> (d2)>} : () -> ()

// -----

// expected-error @+1 {{memref layout mismatch between rank and affine map: 2 != 1}}
"t.op"() : () -> (memref<4x4xf32, affine_map<(d0) -> (d0)>>)

// -----

// A symbol times a dimension is affine; a dimension divisor is not, even under a symbol.
// expected-error @+1 {{non-affine expression: right operand of ceildiv has to be either a constant or symbolic}}
"t.op"() {a = affine_map<(d0)[s0] -> (s0 * d0, s0 ceildiv d0)>} : () -> ()
