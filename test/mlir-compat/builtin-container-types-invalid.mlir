// Malformed builtin container types: both tools reject each chunk with the same message.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{invalid element type for complex}}
"t.op"() : () -> complex<index>

// -----

// expected-error @+1 {{invalid element type for complex}}
"t.op"() : () -> complex<complex<f32>>

// -----

// expected-error @+1 {{invalid tensor element type}}
"t.op"() : () -> tensor<4xtuple<>>

// -----

// expected-error @+1 {{invalid memref element type}}
"t.op"() : () -> memref<4xtensor<f32>>

// -----

// expected-error @+1 {{expected the number of strides to match the rank}}
"t.op"() : () -> memref<4xf32, strided<[1, 2]>>

// -----

// expected-error @+1 {{multiple memory spaces specified in memref type}}
"t.op"() : () -> memref<4xf32, 1, 2>

// -----

// expected-error @+1 {{expected memory space to be last in memref type}}
"t.op"() : () -> memref<4xf32, 1, strided<[1]>>

// -----

// expected-error @+1 {{cannot have affine map for unranked memref type}}
"t.op"() : () -> memref<*xf32, strided<[1]>>

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
"t.op"() : () -> memref<4xf32, #foo.bar>

// -----

// expected-error @+1 {{cannot apply encoding to unranked tensor}}
"t.op"() : () -> (tensor<*xf32, "e">)

// -----

// expected-error @+1 {{expected 'x' in dimension list}}
"t.op"() : () -> tensor<*>

// -----

// expected-error @+1 {{expected '>' in tuple type}}
"t.op"() : () -> (tuple<i32)

// -----

// A misspelt float format is an unknown type.
// expected-error @+1 {{expected non-function type}}
"t.op"() : () -> (f8E4M3FX)
