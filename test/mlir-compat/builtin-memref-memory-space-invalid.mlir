// Memory spaces mlir-opt-22 rejects: other builtin attributes (arrays, units, floats, types,
// dense constants, symbol references) and the opaque attributes of unregistered dialects, with
// MLIR's message at the type; two spaces, or a layout after the space, after the attribute; and
// a malformed list of attributes in MLIR's list parser's words. Both tools check the same
// expected diagnostics.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<4xf32, [1, 2]>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<*xf32, unit>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<4xf32, 3.0 : f32>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<4xf32, i32>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<4xf32, dense<1> : vector<2xi32>>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<4xf32, @sym>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<4xf32, #foo.bar>)

// -----

// expected-error @+1 {{unsupported memory space Attribute}}
func.func @f(%a: memref<*xf32, #foo<bar> : i32>)

// -----

// expected-error @+1 {{multiple memory spaces specified in memref type}}
func.func @f(%a: memref<4xf32, [1, 2], 3>)

// -----

// expected-error @+1 {{multiple memory spaces specified in memref type}}
func.func @f(%a: memref<4xf32, {a = 1}, "b">)

// -----

// expected-error @+1 {{expected memory space to be last in memref type}}
func.func @f(%a: memref<4xf32, {a = 1}, strided<[1]>>)

// -----

// expected-error @+1 {{expected list element}}
func.func @f(%a: memref<*xf32, >)

// -----

// expected-error @+1 {{expected ',' or '>'}}
func.func @f(%a: memref<4xf32, [1] 2>)

// -----

// expected-error @+1 {{expected ',' or '>' in memref type}}
func.func @f(%a: memref<4xf32 1>)
