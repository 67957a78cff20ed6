// dlc-opt prints the same text as mlir-opt 22, byte for byte, for the round-trip inputs of the
// suite, in custom and generic form. (Not for locations, which mlir-opt prints as #loc aliases; see ir/locations.mlir.)

// RUN: dlc-opt %S/../ir/types.mlir -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %S/../ir/types.mlir -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %S/../ir/types.mlir -allow-unregistered-dialect --print-generic > %t.dlc
// RUN: mlir-opt %S/../ir/types.mlir -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/attributes.mlir -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %S/../ir/attributes.mlir -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %S/../ir/attributes.mlir -allow-unregistered-dialect --print-generic > %t.dlc
// RUN: mlir-opt %S/../ir/attributes.mlir -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/dense.mlir -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %S/../ir/dense.mlir -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %S/../ir/dense.mlir -allow-unregistered-dialect --print-generic > %t.dlc
// RUN: mlir-opt %S/../ir/dense.mlir -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/opaque.mlir -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %S/../ir/opaque.mlir -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/aliases.mlir -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %S/../ir/aliases.mlir -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/blocks.mlir -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %S/../ir/blocks.mlir -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %S/../ir/blocks.mlir -allow-unregistered-dialect --print-generic > %t.dlc
// RUN: mlir-opt %S/../ir/blocks.mlir -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/value-names.mlir -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %S/../ir/value-names.mlir -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %S/../ir/value-names.mlir -allow-unregistered-dialect --print-generic > %t.dlc
// RUN: mlir-opt %S/../ir/value-names.mlir -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/generic.mlir -allow-unregistered-dialect --print-generic > %t.dlc
// RUN: mlir-opt %S/../ir/generic.mlir -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../ir/module.mlir -allow-unregistered-dialect --split-input-file > %t.dlc
// RUN: mlir-opt %S/../ir/module.mlir -allow-unregistered-dialect --split-input-file > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../func/ops.mlir > %t.dlc
// RUN: mlir-opt %S/../func/ops.mlir > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %S/../func/ops.mlir --print-generic > %t.dlc
// RUN: mlir-opt %S/../func/ops.mlir --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir

// RUN: dlc-opt %S/../arith/ops.mlir > %t.dlc
// RUN: mlir-opt %S/../arith/ops.mlir > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %S/../arith/ops.mlir --print-generic > %t.dlc
// RUN: mlir-opt %S/../arith/ops.mlir --mlir-print-op-generic > %t.mlir
// RUN: diff %t.dlc %t.mlir
