// Integer literals too large for their type, wide or not, are rejected with mlir-opt-22's
// messages at the literal's digits; both tools agree on every chunk.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = 115792089237316195423570985008687907853269984665640564039457584007913129639936 : i256} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = -57896044618658097711785492504343953926634992332820282019728792003956564819969 : i256} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = 57896044618658097711785492504343953926634992332820282019728792003956564819968 : si256} : () -> ()

// -----

// expected-error @+1 {{negative integer literal not valid for unsigned integer type}}
"t.op"() {a = -1606938044258990275541962092341162602522202993782792835301376 : ui256} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = 1606938044258990275541962092341162602522202993782792835301376 : i64} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = -340282366920938463463374607431768211456 : i128} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = 0x100000000000000000000000000000000000000000000000000 : i200} : () -> ()

// -----

// expected-error @+1 {{hexadecimal float constant out of range for type}}
"t.op"() {a = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF : f32} : () -> ()

// -----

// expected-note @+2 {{add a trailing dot to make the literal a float}}
// expected-error @+1 {{unexpected decimal integer literal for a floating point value}}
"t.op"() {a = 1606938044258990275541962092341162602522202993782792835301376 : f64} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for attribute}}
"t.op"() {a = 1606938044258990275541962092341162602522202993782792835301376 : i0} : () -> ()

// -----

// expected-error @+1 {{integer constant out of range for type}}
"t.op"() {a = dense<[1, 115792089237316195423570985008687907853269984665640564039457584007913129639936]> : tensor<2xi256>} : () -> ()

// -----

// expected-error @+1 {{expected unsigned integer elements, but parsed negative value}}
"t.op"() {a = dense<[1, -1606938044258990275541962092341162602522202993782792835301376]> : tensor<2xui256>} : () -> ()

// -----

// expected-note @+2 {{add a trailing dot to make the literal a float}}
// expected-error @+1 {{unexpected decimal integer literal for a floating point value}}
"t.op"() {a = dense<[1606938044258990275541962092341162602522202993782792835301376, 1]> : tensor<2xf32>} : () -> ()
