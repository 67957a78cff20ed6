// RUN: dlc-opt %s --allow-unregistered-dialect | dlc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | dlc-opt --allow-unregistered-dialect | FileCheck %s

// Values are renamed as mlir-opt names them: `%argN` for entry block arguments, `%N` for the
// rest. A region's own values are numbered first; the regions nested in its ops then continue
// from where it ended, sibling regions reusing the same numbers.

// CHECK: %0 = "t.global"() : () -> i32
%g = "t.global"() : () -> i32

// CHECK-LABEL: func.func @nested_regions(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: %2 = "t.a"() ({
// CHECK-NEXT: %6 = "t.b"() : () -> i32
// CHECK-NEXT: %7 = "t.c"() ({
// CHECK-NEXT: %8 = "t.x"(%6, %arg1) : (i32, i32) -> i32
// CHECK-NEXT: "t.y"() : () -> ()
// CHECK-NEXT: }) : () -> i32
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: %6 = "t.d"(%arg0) : (i32) -> i32
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }) : () -> i32
// CHECK-NEXT: %3 = "t.e"() : () -> i32
// CHECK-NEXT: %4 = "t.f"() ({
// CHECK-NEXT: ^bb0(%arg2: i32):
// CHECK-NEXT: %6 = "t.g"(%arg2, %3) : (i32, i32) -> i32
// CHECK-NEXT: "t.r"() ({
// CHECK-NEXT: ^bb0(%arg3: i32):
// CHECK-NEXT: "t.use"(%arg3, %6) : (i32, i32) -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: "t.yield"() : () -> ()
// CHECK-NEXT: }) : () -> i32
// CHECK-NEXT: %5:3 = "t.h"() : () -> (i32, f32, f32)
// CHECK-NEXT: return %5#0 : i32
// CHECK-NEXT: }
func.func @nested_regions(%a: i32, %b: i32) -> i32 {
  %x = "t.a"() ({
    %y = "t.b"() : () -> i32
    %z = "t.c"() ({
      %w = "t.x"(%y, %b) : (i32, i32) -> i32
      "t.y"() : () -> ()
    }) : () -> i32
    "t.yield"() : () -> ()
  }, {
    %d = "t.d"(%a) : (i32) -> i32
    "t.yield"() : () -> ()
  }) : () -> i32
  %e = "t.e"() : () -> i32
  %f = "t.f"() ({
  ^bb0(%q: i32):
    %h = "t.g"(%q, %e) : (i32, i32) -> i32
    "t.r"() ({
    ^bb0(%inner: i32):
      "t.use"(%inner, %h) : (i32, i32) -> ()
    }) : () -> ()
    "t.yield"() : () -> ()
  }) : () -> i32
  %named, %other:2 = "t.h"() : () -> (i32, f32, f32)
  return %named : i32
}

// CHECK: %1 = "t.global2"() ({
// CHECK-NEXT: ^bb0(%arg0: i32):
// CHECK-NEXT: %2 = "t.y"() : () -> i32
// CHECK-NEXT: "t.end"() : () -> ()
// CHECK-NEXT: }) : () -> i32
%m = "t.global2"() ({
^bb0(%z: i32):
  %y = "t.y"() : () -> i32
  "t.end"() : () -> ()
}) : () -> i32
