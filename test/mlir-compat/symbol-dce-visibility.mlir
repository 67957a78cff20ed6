// symbol-dce on nested modules, as mlir-opt-22 runs it: a public or `nested` module run on its own
// is not hidden from the module around it, so its `nested` symbols stay; a private one is, so they
// go. An unregistered op with one region may be a symbol table whose uses cannot be known: an
// error, with MLIR's text.
// RUN: dlc-opt %s --allow-unregistered-dialect --split-input-file --pass-pipeline="builtin.module(builtin.module(symbol-dce))" > %t.dlc
// RUN: mlir-opt %s --allow-unregistered-dialect --split-input-file --pass-pipeline="builtin.module(builtin.module(symbol-dce))" > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: FileCheck %s --check-prefix=NESTED < %t.dlc
// RUN: dlc-opt %s --allow-unregistered-dialect --split-input-file --pipeline=symbol-dce --verify-diagnostics > %t.top.dlc
// RUN: mlir-opt %s --allow-unregistered-dialect --split-input-file --symbol-dce --verify-diagnostics > %t.top.mlir
// RUN: FileCheck %s --check-prefix=TOP < %t.top.dlc
// RUN: FileCheck %s --check-prefix=TOP < %t.top.mlir

// NESTED: module @public_module
// NESTED-NEXT: func.func nested @kept
// NESTED: module @nested_module
// NESTED-NEXT: func.func nested @kept
// NESTED: module @private_module
// NESTED-NOT: @gone
// NESTED: "live.user"
module {
  module @public_module {
    func.func nested @kept()
  }
  module @nested_module attributes {sym_visibility = "nested"} {
    func.func nested @kept()
  }
  module @private_module attributes {sym_visibility = "private"} {
    func.func nested @gone()
  }
  "live.user"() {uses = [@nested_module, @private_module]} : () -> ()
}

// -----

module {
  func.func private @unknown_uses()
  // expected-error @+1 {{operation contains potentially unknown symbol table, meaning that we can't reliable compute symbol uses}}
  "unregistered.table"() ({
  }) : () -> ()
}

// -----

// Two regions: not taken for a symbol table; the dead private function goes.
// TOP: "unregistered.two"
// TOP-NOT: @dead
module {
  func.func private @dead()
  "unregistered.two"() ({
  }, {
  }) : () -> ()
}
