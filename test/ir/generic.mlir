// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect -mlir-print-op-generic | dlc-opt --allow-unregistered-dialect --print-generic | FileCheck %s

// The generic form (--print-generic, alias --mlir-print-op-generic) prints every op quoted,
// with inherent attributes in `<{...}>` properties, regions before the attribute dictionary
// and the function type last, exactly as `mlir-opt --mlir-print-op-generic` does, including its
// unique value names (numbered on through all functions, the last function first). Parsing the
// generic form gives the same IR as the custom form.
// CHECK: "builtin.module"() ({

// CHECK-LABEL: "func.func"() <{function_type = (i32, f32) -> (i32, f32), sym_name = "custom"}> ({
// CHECK-NEXT: ^bb0(%arg4: i32, %arg5: f32):
// CHECK-NEXT: %2 = "t.op"(%arg4) {attr = "x"} : (i32) -> i32
// CHECK-NEXT: %3:2 = "func.call"(%2, %arg5) <{callee = @custom}> : (i32, f32) -> (i32, f32)
// CHECK-NEXT: "func.return"(%2, %arg5) : (i32, f32) -> ()
// CHECK-NEXT: }) {k = 1 : i32} : () -> ()
func.func @custom(%a: i32, %b: f32) -> (i32, f32) attributes {k = 1 : i32} {
  %0 = "t.op"(%a) {attr = "x"} : (i32) -> i32
  %1:2 = func.call @custom(%0, %b) : (i32, f32) -> (i32, f32)
  return %0, %b : i32, f32
}

// CHECK-LABEL: "func.func"() <{function_type = (i32) -> i32, sym_name = "declaration", sym_visibility = "private"}> ({
// CHECK-NEXT: }) : () -> ()
func.func private @declaration(i32) -> i32

// CHECK-LABEL: "func.func"() <{arg_attrs = [{t.arg}], function_type = (i32) -> i32, res_attrs = [{t.res = 1 : i32}], sym_name = "with_arg_attrs", sym_visibility = "nested"}> ({
// CHECK-NEXT: ^bb0(%arg3: i32):
// CHECK-NEXT: "func.return"(%arg3) : (i32) -> ()
// CHECK-NEXT: }) : () -> ()
func.func nested @with_arg_attrs(%x: i32 {t.arg}) -> (i32 {t.res = 1 : i32}) {
  return %x : i32
}

// CHECK-LABEL: "func.func"() <{function_type = (i1) -> i1, sym_name = "written_generic"}> ({
// CHECK-NEXT: ^bb0(%arg2: i1):
// CHECK-NEXT: %1 = "t.not"(%arg2) : (i1) -> i1
// CHECK-NEXT: "func.return"(%1) : (i1) -> ()
// CHECK-NEXT: }) {extra} : () -> ()
"func.func"() <{function_type = (i1) -> i1, sym_name = "written_generic"}> ({
^bb0(%arg0: i1):
  %0 = "t.not"(%arg0) : (i1) -> i1
  "func.return"(%0) : (i1) -> ()
}) {extra = unit} : () -> ()

// CHECK-LABEL: "func.func"() <{function_type = (i1) -> (), sym_name = "successors_and_regions"}> ({
// CHECK-NEXT: ^bb0(%arg0: i1):
// CHECK-NEXT: "t.cond_br"(%arg0)[^bb1, ^bb2] : (i1) -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: %0:2 = "t.region"() ({
// CHECK-NEXT: ^bb0(%arg1: index):
// CHECK-NEXT: "t.yield"(%arg1) : (index) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }) {a = [1, 2]} : () -> (index, f32)
// CHECK-NEXT: "t.br"()[^bb2] : () -> ()
// CHECK-NEXT: ^bb2:  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT: "func.return"() : () -> ()
// CHECK-NEXT: }) : () -> ()
func.func @successors_and_regions(%c: i1) {
  "t.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
^bb1:
  %r:2 = "t.region"() ({
  ^bb0(%x: index):
    "t.yield"(%x) : (index) -> ()
  }, {
    "t.yield"() : () -> ()
  }) {a = [1, 2]} : () -> (index, f32)
  "t.br"()[^bb2] : () -> ()
^bb2:
  return
}

// CHECK: }) : () -> ()
