// Malformed resources: both tools reject each chunk with the same message.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect
// RUN: mlir-opt %s --split-input-file --verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{`dense_resource` expected a shaped type}}
"t.op"() {a = dense_resource<blob1> : i32} : () -> ()

// -----

"t.op"() {a = dense_resource<b> : tensor<1xi8>} : () -> ()
{-#
  // expected-error @+1 {{expected hex string blob for key 'b' to encode alignment in first 4 bytes}}
  dialect_resources: { builtin: { b: "0x01" } }
#-}

// -----

"t.op"() {a = dense_resource<b> : tensor<1xi8>} : () -> ()
{-#
  // expected-error @+1 {{dialect 'foo' is unknown}}
  dialect_resources: { foo: { b: "0x01000000" } }
#-}
