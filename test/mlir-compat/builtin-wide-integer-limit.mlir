// dlc holds integer attributes in 128 bits: a wider type's constants work up to 2^127 in
// magnitude (builtin-integer-types.mlir), and a larger literal is a clear error in dlc, where
// mlir-opt-22 accepts it (it prints this all-ones i256 as -1), so only dlc runs here.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{integer literal wider than 128 bits is not supported by dlc}}
"t.op"() {a = 115792089237316195423570985008687907853269984665640564039457584007913129639935 : i256} : () -> ()

// -----

// expected-error @+1 {{integer constants above 2^127 wider than 128 bits are not supported by dlc}}
"t.op"() {a = 170141183460469231731687303715884105728 : i256} : () -> ()
