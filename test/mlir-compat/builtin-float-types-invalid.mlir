// A constant of a float format dlc only parses and prints (every one but f80 and f128, which it
// holds as bits) is a clear error in dlc, with its location; mlir-opt-22 accepts it (it has
// APFloat for every format), so only dlc runs here.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{'tf32' constants are not supported by dlc}}
"t.op"() {a = 1.0 : tf32} : () -> ()

// -----

// expected-error @+1 {{'f8E4M3FN' constants are not supported by dlc}}
%0 = arith.constant 0x7F : f8E4M3FN
