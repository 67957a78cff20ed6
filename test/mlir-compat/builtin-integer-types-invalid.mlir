// Integer constants out of the range of their type's signedness are rejected, with
// mlir-opt-22's messages; both tools agree on every chunk.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {c = 256 : ui8} : () -> ()

// -----

// expected-error @+1 {{negative integer literal not valid for unsigned integer type}}
"t.op"() {c = -1 : ui8} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {c = 128 : si8} : () -> ()

// -----

// The sign bit of a one-bit signed integer is its only bit.
// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {c = 1 : si1} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {c = 1 : i0} : () -> ()

// -----

// `index` constants are signed 64-bit values.
// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {c = 9223372036854775808 : index} : () -> ()

// -----

// expected-error @+1 {{integer bitwidth is limited to 16777215 bits}}
"t.op"() : () -> si16777216
