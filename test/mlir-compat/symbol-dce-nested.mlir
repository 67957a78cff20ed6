// symbol-dce follows MLIR in nested symbol tables: private and `nested` symbols of a public
// nested module go when unused, a private module goes with everything in it unless a live op
// names it (`@priv_used::@x` keeps the module and `@x`), an anonymous module is emptied but
// kept. The output matches mlir-opt-22's byte for byte.
// RUN: dlc-opt %s --pipeline=symbol-dce -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s --symbol-dce -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK-LABEL: module @pub {
// CHECK-NOT: @inner_dead
// CHECK-NOT: @n()
// CHECK: func.func nested @n_used()
// CHECK: func.func @inner_public()
// CHECK: module @priv_used attributes {sym_visibility = "private"} {
// CHECK-NEXT: func.func @x()
// CHECK-NOT: @y
// CHECK-NOT: @priv_dead
// CHECK: module {
// CHECK-NEXT: }
// CHECK-NOT: @anon_dead

module @pub {
  func.func private @inner_dead() {
    return
  }
  func.func nested @n() {
    return
  }
  func.func nested @n_used() {
    return
  }
  func.func @inner_public() {
    func.call @n_used() : () -> ()
    return
  }
}
module @priv_used attributes {sym_visibility = "private"} {
  func.func @x() {
    return
  }
  func.func private @y() {
    return
  }
}
module @priv_dead attributes {sym_visibility = "private"} {
  func.func @z() {
    return
  }
}
module {
  func.func private @anon_dead() {
    return
  }
  func.func nested @nested_dead() {
    return
  }
}
func.func @main() {
  "test.use"() {ref = @priv_used::@x} : () -> ()
  return
}
