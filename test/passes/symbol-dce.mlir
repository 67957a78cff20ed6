// RUN: dlc-opt %s --pipeline=symbol-dce --split-input-file -allow-unregistered-dialect | FileCheck %s

// symbol-dce erases the private symbols of a module that no live op references. mlir-opt's
// `--symbol-dce` gives the same output except in two cases, marked below: MLIR resolves a flat
// reference only in the nearest symbol table and also cleans nested symbol tables, and it cannot
// resolve a call inside an unregistered op (which might be a symbol table).

// Doc example 1: a private function called only from a dead private function goes too.

// CHECK-LABEL: func.func @main(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @main(%a: i32) -> i32 {
  return %a : i32
}
func.func private @dead(%a: i32) -> i32 {
  %0 = func.call @also_dead(%a) : (i32) -> i32
  return %0 : i32
}
func.func private @also_dead(%a: i32) -> i32 {
  return %a : i32
}

// -----

// Counter-example: public symbols are roots.

// CHECK-LABEL: func.func @api() {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-LABEL: func.func public @explicit_public() {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @api() {
  return
}
func.func public @explicit_public() {
  return
}

// -----

// Private symbols reachable from a public one stay; an unused declaration goes.

// CHECK-LABEL: func.func @entry(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @live(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @live(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @live_callee(%arg0) : (i32) -> i32
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @live_callee(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @entry(%a: i32) -> i32 {
  %0 = func.call @live(%a) : (i32) -> i32
  return %0 : i32
}
func.func private @live(%a: i32) -> i32 {
  %0 = func.call @live_callee(%a) : (i32) -> i32
  return %0 : i32
}
func.func private @live_callee(%a: i32) -> i32 {
  return %a : i32
}
func.func private @declared_dead(i32) -> i32

// -----

// Counter-example: references from any attribute of a live op count, nested in arrays and
// dictionaries too.

// CHECK-LABEL: func.func private @referenced_from_attr()
// CHECK-LABEL: func.func private @in_dict()
// CHECK-LABEL: func.func private @in_nested_array()
// CHECK-NEXT: "t.op"() {deep = {{\[\[}}1, @in_nested_array]], fns = [@referenced_from_attr], table = {entry = @in_dict}} : () -> ()
// CHECK-NEXT: }
func.func private @referenced_from_attr()
func.func private @in_dict()
func.func private @in_nested_array()
func.func private @unreferenced()
"t.op"() {fns = [@referenced_from_attr], table = {entry = @in_dict}, deep = [[1, @in_nested_array]]} : () -> ()

// -----

// Recursion does not keep a function alive.

// CHECK-LABEL: module {
// CHECK-NEXT: }
func.func private @recursive_dead(%a: i32) -> i32 {
  %0 = func.call @recursive_dead(%a) : (i32) -> i32
  return %0 : i32
}
func.func private @mutual_a() {
  func.call @mutual_b() : () -> ()
  return
}
func.func private @mutual_b() {
  func.call @mutual_a() : () -> ()
  return
}

// -----

// In a top-level module, nothing can see a `nested` symbol from outside.

// CHECK-LABEL: module {
// CHECK-NEXT: }
func.func nested @nested_visibility() {
  return
}

// -----

// References from nested regions count. (The unregistered op has two regions: one with a
// single region could be a symbol table, and symbol-dce refuses it as MLIR's does, see
// test/mlir-compat/symbol-dce-visibility.mlir.)

// CHECK-LABEL: func.func @from_nested_region(%arg0: i32) {
// CHECK-NEXT: "t.region"() ({
// CHECK-NEXT: %0 = func.call @inner_use(%arg0) : (i32) -> i32
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-LABEL: func.func private @inner_use(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @from_nested_region(%a: i32) {
  "t.region"() ({
    %0 = func.call @inner_use(%a) : (i32) -> i32
    "t.yield"() : () -> ()
  }, {
  }) : () -> ()
  return
}
func.func private @inner_use(%a: i32) -> i32 {
  return %a : i32
}

// -----

// Nested modules are cleaned too, and a reference resolves only in the symbol table around it:
// `@used_by_inner` inside `@inner` names nothing there, so the outer private function goes as
// well (as with mlir-opt).

// CHECK-LABEL: module @outer {
// CHECK-NEXT: module @inner {
// CHECK-NEXT: "t.op"() {ref = @used_by_inner} : () -> ()
// CHECK-NEXT: }
// CHECK-NEXT: }
module @outer {
  func.func private @used_by_inner()
  module @inner {
    func.func private @inner_dead()
    "t.op"() {ref = @used_by_inner} : () -> ()
  }
}

// -----

// Edge case: an empty module.

// CHECK-LABEL: module {
// CHECK-NEXT: }
module {
}
