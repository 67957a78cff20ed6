// RUN: mlir-opt %s -allow-unregistered-dialect | dlc-opt -allow-unregistered-dialect | FileCheck %s
// RUN: mlir-opt %s -allow-unregistered-dialect --mlir-print-op-generic | dlc-opt -allow-unregistered-dialect | FileCheck %s
// RUN: mlir-opt %s -allow-unregistered-dialect --mlir-print-debuginfo \
// RUN:   | dlc-opt -allow-unregistered-dialect --print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: mlir-opt %s -allow-unregistered-dialect --mlir-print-debuginfo --mlir-print-op-generic \
// RUN:   | dlc-opt -allow-unregistered-dialect --print-debuginfo | FileCheck %s --check-prefix=LOC

// dlc-opt reads what mlir-opt 22 prints: custom and generic forms, and with
// --mlir-print-debuginfo the `#locN` aliases mlir-opt defines after their use (and before the
// module for block argument locations), which dlc-opt prints back inline.

// CHECK-LABEL: module @from_mlir attributes {dlc.version = 1 : i32} {
// CHECK-NEXT:    func.func private @callee(f32) -> f32
// CHECK-NEXT:    func.func @main(%arg0: f32, %arg1: i1) -> f32 {
// CHECK-NEXT:      %0 = call @callee(%arg0) : (f32) -> f32
// CHECK-NEXT:      "t.cond_br"(%arg1, %0)[^bb1, ^bb2] : (i1, f32) -> ()
// CHECK-NEXT:    ^bb1(%1: f32):  // pred: ^bb0
// CHECK-NEXT:      %2 = "t.scale"(%1) {factor = 2.500000e+00 : f32, nan = 0x7FC00000 : f32} : (f32) -> f32
// CHECK-NEXT:      "t.br"(%2)[^bb2] : (f32) -> ()
// CHECK-NEXT:    ^bb2(%3: f32):  // 2 preds: ^bb0, ^bb1
// CHECK-NEXT:      return %3 : f32
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// LOC-LABEL: module @from_mlir attributes {dlc.version = 1 : i32} {
// LOC-NEXT:    func.func private @callee(f32) -> f32 loc("model.py":2:1)
// LOC-NEXT:    func.func @main(%arg0: f32, %arg1: i1) -> f32 {
// LOC-NEXT:      %0 = call @callee(%arg0) : (f32) -> f32 loc(callsite("layer" at "model.py":10:4))
// LOC-NEXT:      "t.cond_br"(%arg1, %0)[^bb1, ^bb2] : (i1, f32) -> () loc(fused["model.py":11:1, "cond"])
// LOC-NEXT:    ^bb1(%1: f32):  // pred: ^bb0
// LOC-NEXT:      %2 = "t.scale"(%1) {factor = 2.500000e+00 : f32, nan = 0x7FC00000 : f32} : (f32) -> f32 loc("scale"("model.py":12:5))
// LOC-NEXT:      "t.br"(%2)[^bb2] : (f32) -> () loc(unknown)
// LOC-NEXT:    ^bb2(%3: f32):  // 2 preds: ^bb0, ^bb1
// LOC-NEXT:      return %3 : f32 loc("model.py":13:1)
// LOC-NEXT:    } loc("model.py":4:1)
// LOC-NEXT:  } loc("{{.*}}from-mlir-opt.mlir":[[@LINE+2]]:1)
#loc_in = loc("model.py":10:4)
module @from_mlir attributes {dlc.version = 1 : i32} {
  func.func private @callee(f32) -> f32 loc("model.py":2:1)
  func.func @main(%arg0: f32 loc("model.py":5:9), %arg1: i1 loc("model.py":5:20)) -> f32 {
    %0 = call @callee(%arg0) : (f32) -> f32 loc(callsite("layer" at #loc_in))
    "t.cond_br"(%arg1, %0)[^bb1, ^bb2] : (i1, f32) -> () loc(fused["model.py":11:1, "cond"])
  ^bb1(%1: f32 loc("model.py":12:2)):
    %2 = "t.scale"(%1) {factor = 2.5 : f32, nan = 0x7FC00000 : f32} : (f32) -> f32 loc("scale"("model.py":12:5))
    "t.br"(%2)[^bb2] : (f32) -> () loc(unknown)
  ^bb2(%3: f32):
    return %3 : f32 loc("model.py":13:1)
  } loc("model.py":4:1)
}
