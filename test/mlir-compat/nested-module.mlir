// Op names drop their dialect prefix only under an op that names that dialect as its default,
// as mlir-opt-22 prints them: `module` at the top level and in a module, `builtin.module` in a
// function's body or in an op without a default dialect (generic or unregistered). The output
// must parse back in mlir-opt and match its own printing byte for byte.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: mlir-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK: "test.region"() ({
// CHECK-NEXT: builtin.module {
// CHECK: func.func @f() {
// CHECK-NEXT: "test.region"() ({
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: module {
// CHECK: module @named attributes {x.y = 1 : i32} {

"test.region"() ({
  builtin.module {
  }
  "test.end"() : () -> ()
}) : () -> ()
func.func @f() {
  "test.region"() ({
    builtin.module {
      builtin.module {
      }
    }
    "test.end"() : () -> ()
  }) : () -> ()
  return
}
module @named attributes {x.y = 1 : i32} {
  func.func @h() {
    return
  }
}
