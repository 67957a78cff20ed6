// RUN: dlc-opt %s --allow-unregistered-dialect --print-debuginfo | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --mlir-print-debuginfo \
// RUN:   | dlc-opt --allow-unregistered-dialect --print-debuginfo | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect -mlir-print-debuginfo --print-generic \
// RUN:   | dlc-opt --allow-unregistered-dialect --print-debuginfo | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect | FileCheck %s --check-prefix=NOLOC

// Locations of every kind, written inline or as `#loc` aliases defined after their use (the way
// mlir-opt prints them), are printed back inline with --print-debuginfo and dropped without it.

// NOLOC-NOT: loc(
// NOLOC-NOT: #loc

// CHECK-LABEL: module @locations {
module @locations {
  // dlc does not keep block argument locations yet; mlir-opt prints `%arg0: i32 loc(...)`.
  // CHECK-NEXT: func.func @kinds(
  func.func @kinds(%arg0: i32 loc("args.py":1:2)) -> i32 {
    // CHECK-NEXT: %0 = call @kinds(%arg0) : (i32) -> i32 loc("file.py":3:7)
    %0 = "func.call"(%arg0) <{callee = @kinds}> : (i32) -> i32 loc("file.py":3:7)
    // CHECK-NEXT: %1 = call @kinds(%0) : (i32) -> i32 loc("just a name")
    %1 = func.call @kinds(%0) : (i32) -> i32 loc("just a name")
    // CHECK-NEXT: loc("named"("inner.py":2:3))
    %2 = func.call @kinds(%1) : (i32) -> i32 loc("named"("inner.py":2:3))
    // CHECK-NEXT: loc(callsite("callee.py":1:2 at "caller.py":3:4))
    %3 = func.call @kinds(%2) : (i32) -> i32 loc(callsite("callee.py":1:2 at "caller.py":3:4))
    // CHECK-NEXT: loc(callsite("f" at callsite("g" at "main.py":5:6)))
    %4 = func.call @kinds(%3) : (i32) -> i32 loc(callsite("f" at callsite("g" at "main.py":5:6)))
    // CHECK-NEXT: loc(fused["a.py":1:1, "b.py":2:2])
    %5 = func.call @kinds(%4) : (i32) -> i32 loc(fused["a.py":1:1, "b.py":2:2])
    // CHECK-NEXT: loc(fused<"metadata">["a.py":1:1, "name"])
    %6 = func.call @kinds(%5) : (i32) -> i32 loc(fused<"metadata">["a.py":1:1, "name"])
    // CHECK-NEXT: loc(unknown)
    %7 = func.call @kinds(%6) : (i32) -> i32 loc(unknown)
    // CHECK-NEXT: loc("escaped \22quote\22.py":10:20)
    %8 = func.call @kinds(%7) : (i32) -> i32 loc("escaped \"quote\".py":10:20)
    // CHECK-NEXT: return %8 : i32 loc("ret.py":9:1)
    return %8 : i32 loc("ret.py":9:1)
  // CHECK-NEXT: } loc("func.py":1:1)
  } loc("func.py":1:1)

  // CHECK-NEXT: func.func @aliases() {
  func.func @aliases() {
    // CHECK-NEXT: "t.a"() : () -> () loc("alias.py":1:1)
    "t.a"() : () -> () loc(#loc1)
    // CHECK-NEXT: "t.b"() : () -> () loc(callsite("alias.py":1:1 at "top.py":7:7))
    "t.b"() : () -> () loc(#loc3)
    // CHECK-NEXT: "t.c"() : () -> () loc(fused["alias.py":1:1, "top.py":7:7])
    "t.c"() : () -> () loc(#loc4)
    // CHECK-NEXT: return loc("alias.py":1:1)
    return loc(#loc1)
  // CHECK-NEXT: } loc(unknown)
  } loc(#loc5)
// CHECK-NEXT: } loc("module.py":1:1)
} loc(#loc)
#loc = loc("module.py":1:1)
#loc1 = loc("alias.py":1:1)
#loc2 = loc("top.py":7:7)
#loc3 = loc(callsite(#loc1 at #loc2))
#loc4 = loc(fused[#loc1, #loc2])
#loc5 = loc(unknown)
