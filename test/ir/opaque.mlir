// RUN: dlc-opt %s --allow-unregistered-dialect | dlc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | dlc-opt --allow-unregistered-dialect | FileCheck %s

// Types, attributes and ops of unregistered dialects are kept as written under
// --allow-unregistered-dialect and printed in mlir-opt's spelling: `!dialect.name<...>` when
// the body starts with an identifier, else `!dialect<body>`.

// CHECK-LABEL: func.func @opaque_types(%arg0: !foo.bar, %arg1: !foo.baz<1, [2], "s">, %arg2: !foo<"x y">, %arg3: !foo.x<y>, %arg4: !foo<a-b>, %arg5: !foo.bar, %arg6: !foo.b.c_d<"x">, %arg7: !foo<1>, %arg8: tensor<2x!foo.elem>) -> !foo.bar {
// CHECK-NEXT: return %arg0 : !foo.bar
// CHECK-NEXT: }
func.func @opaque_types(%a: !foo.bar, %b: !foo.baz<1, [2], "s">, %c: !foo<"x y">, %d: !foo<x<y>>, %e: !foo.a-b, %f: !foo<bar>, %g: !foo.b.c_d<"x">, %h: !foo<1>, %i: tensor<2x!foo.elem>) -> !foo.bar {
  return %a : !foo.bar
}

// CHECK-LABEL: func.func private @opaque_in_signatures(!foo.t<{k = [1, 2]}>, (!foo.a) -> !foo.b) -> (!bar.c, !foo<"nested <angle> \"quoted\"">)
func.func private @opaque_in_signatures(!foo.t<{k = [1, 2]}>, (!foo.a) -> !foo.b) -> (!bar.c, !foo<"nested <angle> \"quoted\"">)

// CHECK-LABEL: func.func @opaque_attributes() {
// CHECK-NEXT: "foo.op"() {a = #foo.attr, b = #foo<"q">, c = #foo.p<{k = 1}>, d = #foo.a<b>, e = #foo<x-y>, f = #foo<"a b"<c>>, g = #foo.p, h = [#foo.one, #bar.two<3>], i = {nested = #foo.n<"v">}} : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @opaque_attributes() {
  "foo.op"() {a = #foo.attr, b = #foo<"q">, c = #foo.p<{k = 1}>, d = #foo<a<b>>, e = #foo.x-y, f = #foo<"a b"<c>>, g = #foo<p>, h = [#foo.one, #bar.two<3>], i = {nested = #foo.n<"v">}} : () -> ()
  return
}

// CHECK-LABEL: func.func @opaque_ops(%arg0: !foo.t) -> !foo.t {
// CHECK-NEXT: %0 = "foo.make"(%arg0) {kind = #foo.kind<fast>} : (!foo.t) -> !foo.t
// CHECK-NEXT: %1:2 = "bar.split"(%0) : (!foo.t) -> (!foo.t, i32)
// CHECK-NEXT: "foo.consume"(%1#1, %1#0) : (i32, !foo.t) -> ()
// CHECK-NEXT: return %1#0 : !foo.t
// CHECK-NEXT: }
func.func @opaque_ops(%arg0: !foo.t) -> !foo.t {
  %0 = "foo.make"(%arg0) {kind = #foo.kind<fast>} : (!foo.t) -> !foo.t
  %1:2 = "bar.split"(%0) : (!foo.t) -> (!foo.t, i32)
  "foo.consume"(%1#1, %1#0) : (i32, !foo.t) -> ()
  return %1#0 : !foo.t
}
