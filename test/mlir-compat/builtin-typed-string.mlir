// Strings and dialect attributes written with a type, `"text" : i32` and `#foo.bar : i32`, as
// mlir-opt-22 reads and prints them: a string's type prints unless it is `none` (a string's
// default), in arrays and dictionaries too; an opaque attribute of an unregistered dialect keeps
// its type, and a registered dialect attribute that takes none (arith's) drops it. A typed
// string is still a string: it names a symbol. The custom and the generic form match byte for
// byte.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %s -allow-unregistered-dialect --mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %t.dlc.generic -allow-unregistered-dialect | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc
// RUN: FileCheck %s --check-prefix=GENERIC < %t.dlc.generic

// CHECK-LABEL: func.func @strings
// CHECK: "t.op"() {a = "foo" : i32, b = "bar" : tensor<2xf32>, c = ["x" : i32, "y"], d = {e = "q" : i1}, f = "s", g = "z" : () -> (), h = "t" : !foo.string, i = "a\22q\22" : vector<f32>}
func.func @strings() {
  "t.op"() {a = "foo" : i32, b = "bar" : tensor<2xf32>, c = ["x" : i32, "y" : none], d = {e = "q" : i1},
            f = "s" : none, g = "z" : () -> (), h = "t" : !foo.string, i = "a\"q\"" : vector<f32>} : () -> ()
  return
}

// CHECK-LABEL: func.func @dialect_attributes
// CHECK: "t.op"() {a = #foo.attr : i32, b = #foo.attr, c = #foo.bar : index, d = [#foo.x<1> : tensor<2xi8>], e = #foo.f : (i32) -> i32, f = #arith.fastmath<fast>, g = #arith.overflow<nsw>}
func.func @dialect_attributes() {
  "t.op"() {a = #foo.attr : i32, b = #foo.attr : none, c = #foo<bar> : index, d = [#foo.x<1> : tensor<2xi8>],
            e = #foo.f : (i32) -> i32, f = #arith.fastmath<fast> : i32, g = #arith.overflow<nsw>} : () -> ()
  return
}

// A typed string is a string attribute: it may name a function, whose custom form (as
// mlir-opt-22's) prints the name alone.
// CHECK-LABEL: func.func @typed()
// GENERIC: "func.func"() <{function_type = () -> (), sym_name = "typed" : i32}>
"func.func"() <{sym_name = "typed" : i32, function_type = () -> ()}> ({
  "func.return"() : () -> ()
}) : () -> ()
