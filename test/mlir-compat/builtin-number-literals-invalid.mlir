// Number literals that do not fit where they are written are rejected with mlir-opt-22's
// messages; both tools agree on every chunk. As in MLIR, `-0` is no integer.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{negative integer literal not valid for unsigned integer type}}
"t.op"() {a = -0 : ui8} : () -> ()

// -----

// expected-error @+1 {{expected unsigned integer elements, but parsed negative value}}
"t.op"() {a = dense<[1, -0]> : tensor<2xui8>} : () -> ()

// -----

// expected-error @+1 {{hexadecimal float literal should not have a leading minus}}
"t.op"() {a = -0x5 : f32} : () -> ()

// -----

// expected-error @+1 {{hexadecimal float literal should not have a leading minus}}
"t.op"() {a = dense<[-0x3F800000]> : tensor<1xf32>} : () -> ()

// -----

// expected-note @+2 {{add a trailing dot to make the literal a float}}
// expected-error @+1 {{unexpected decimal integer literal for a floating point value}}
"t.op"() {a = dense<[5, 6]> : tensor<2xf32>} : () -> ()

// -----

// expected-note @+2 {{add a trailing dot to make the literal a float}}
// expected-error @+1 {{unexpected decimal integer literal for a floating point value}}
"t.op"() {a = dense<-0> : tensor<2xf32>} : () -> ()

// -----

// expected-error @+1 {{expected floating point literal}}
"t.op"() {a = dense<[true]> : tensor<1xf32>} : () -> ()

// -----

// expected-error @+1 {{expected i1 type for 'true' or 'false' values}}
"t.op"() {a = dense<[true, 2]> : tensor<2xi16>} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for type}}
"t.op"() {a = dense<[1, 0x2]> : tensor<2xi1>} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for type}}
"t.op"() {a = dense<[1, 0x8000000000000000]> : tensor<2xindex>} : () -> ()

// -----

// expected-error @+1 {{expected integer elements, but parsed floating-point}}
"t.op"() {a = dense<[1, 2.5]> : tensor<2xi16>} : () -> ()

// -----

// expected-error @+1 {{expected 'true' or 'false' values for i1 type}}
"t.op"() {a = array<i1: true, 1>} : () -> ()

// -----

// expected-error @+1 {{expected i1 type for 'true' or 'false' values}}
"t.op"() {a = array<i8: true>} : () -> ()

// -----

// expected-note @+2 {{add a trailing dot to make the literal a float}}
// expected-error @+1 {{unexpected decimal integer literal for a floating point value}}
"t.op"() {a = array<f32: 1>} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range}}
"t.op"() {a = array<i8: 300>} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = -0 : i8} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for type}}
"t.op"() {a = dense<[-0, 0]> : tensor<2xi32>} : () -> ()

// -----

// expected-error @+1 {{elements hex data size is invalid for provided type: 'tensor<3xi8>'}}
"t.op"() {a = dense<"0x0102"> : tensor<3xi8>} : () -> ()

// -----

// expected-error @+1 {{elements hex data size is invalid for provided type: 'tensor<2xf80>'}}
"t.op"() {a = dense<"0x0011"> : tensor<2xf80>} : () -> ()

// -----

// expected-error @+1 {{floating point value not valid for specified type}}
"t.op"() {a = 1.5 : i256} : () -> ()
