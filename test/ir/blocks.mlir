// RUN: dlc-opt %s --allow-unregistered-dialect | dlc-opt --allow-unregistered-dialect | FileCheck %s
// RUN: dlc-opt %s --allow-unregistered-dialect --print-generic | dlc-opt --allow-unregistered-dialect | FileCheck %s

// Blocks, block arguments, successors and forward references round-trip; blocks are renumbered
// ^bb0, ^bb1, ... in order and mlir-opt's predecessor comments are printed after their labels.

// CHECK-LABEL: func.func @diamond(%arg0: i1, %arg1: i32) -> i32 {
// CHECK-NEXT: "t.cond_br"(%arg0, %arg1)[^bb1, ^bb2] : (i1, i32) -> ()
// CHECK-NEXT: ^bb1(%0: i32):  // pred: ^bb0
// CHECK-NEXT: "t.br"(%0)[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: %1 = "t.const"() : () -> i32
// CHECK-NEXT: "t.br"(%1)[^bb3] : (i32) -> ()
// CHECK-NEXT: ^bb3(%2: i32):  // 2 preds: ^bb1, ^bb2
// CHECK-NEXT: return %2 : i32
// CHECK-NEXT: }
func.func @diamond(%cond: i1, %x: i32) -> i32 {
  "t.cond_br"(%cond, %x)[^then, ^else] : (i1, i32) -> ()
^then(%a: i32):
  "t.br"(%a)[^join] : (i32) -> ()
^else:
  %c = "t.const"() : () -> i32
  "t.br"(%c)[^join] : (i32) -> ()
^join(%r: i32):
  return %r : i32
}

// CHECK-LABEL: func.func @forward_value_reference(%arg0: i32) -> i32 {
// CHECK-NEXT: "t.br"()[^bb2] : () -> ()
// CHECK-NEXT: ^bb1:  // pred: ^bb2
// CHECK-NEXT: "t.use"(%0) : (f32) -> ()
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: %0 = "t.def"() : () -> f32
// CHECK-NEXT: "t.br"()[^bb1] : () -> ()
// CHECK-NEXT: }
func.func @forward_value_reference(%x: i32) -> i32 {
  "t.br"()[^def] : () -> ()
^use:
  "t.use"(%late) : (f32) -> ()
  return %x : i32
^def:
  %late = "t.def"() : () -> f32
  "t.br"()[^use] : () -> ()
}

// CHECK-LABEL: func.func @loop(%arg0: index) {
// CHECK-NEXT: %0 = "t.zero"() : () -> index
// CHECK-NEXT: "t.br"(%0)[^bb1] : (index) -> ()
// CHECK-NEXT: ^bb1(%1: index):  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT: %2 = "t.cmp"(%1, %arg0) : (index, index) -> i1
// CHECK-NEXT: "t.cond_br"(%2, %1)[^bb3, ^bb2] : (i1, index) -> ()
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT: %3 = "t.inc"(%1) : (index) -> index
// CHECK-NEXT: "t.br"(%3)[^bb1] : (index) -> ()
// CHECK-NEXT: ^bb3:  // pred: ^bb1
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @loop(%n: index) {
  %zero = "t.zero"() : () -> index
  "t.br"(%zero)[^header] : (index) -> ()
^header(%i: index):
  %done = "t.cmp"(%i, %n) : (index, index) -> i1
  "t.cond_br"(%done, %i)[^exit, ^body] : (i1, index) -> ()
^body:
  %next = "t.inc"(%i) : (index) -> index
  "t.br"(%next)[^header] : (index) -> ()
^exit:
  return
}

// CHECK-LABEL: func.func @same_successor_twice(%arg0: i1) {
// CHECK-NEXT: "t.cond_br"(%arg0)[^bb1, ^bb1] : (i1) -> ()
// CHECK-NEXT: ^bb1:  // 2 preds: ^bb0, ^bb0
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @same_successor_twice(%c: i1) {
  "t.cond_br"(%c)[^next, ^next] : (i1) -> ()
^next:
  return
}

// CHECK-LABEL: func.func @unreachable_block() {
// CHECK-NEXT: return
// CHECK-NEXT: ^bb1(%0: f64):  // no predecessors
// CHECK-NEXT: "t.use"(%0) : (f64) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @unreachable_block() {
  return
^dead(%v: f64):
  "t.use"(%v) : (f64) -> ()
  return
}

// CHECK-LABEL: func.func @switch(%arg0: i32) {
// CHECK-NEXT: "t.switch"(%arg0)[^bb1, ^bb2, ^bb3, ^bb1] : (i32) -> ()
// CHECK-NEXT: ^bb1:  // 3 preds: ^bb0, ^bb0, ^bb3
// CHECK-NEXT: return
// CHECK-NEXT: ^bb2:  // pred: ^bb0
// CHECK-NEXT: "t.br"()[^bb3] : () -> ()
// CHECK-NEXT: ^bb3:  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT: "t.br"()[^bb1] : () -> ()
// CHECK-NEXT: }
func.func @switch(%v: i32) {
  "t.switch"(%v)[^a, ^b, ^c, ^a] : (i32) -> ()
^a:
  return
^b:
  "t.br"()[^c] : () -> ()
^c:
  "t.br"()[^a] : () -> ()
}

// CHECK-LABEL: func.func @regions_of_generic_ops() {
// CHECK-NEXT: %0:2 = "t.multi"() ({
// CHECK-NEXT: %1 = "t.inner"() : () -> i32
// CHECK-NEXT: "t.yield"(%1) : (i32) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%arg0: index, %arg1: f32):
// CHECK-NEXT: "t.br"(%arg0)[^bb1] : (index) -> ()
// CHECK-NEXT: ^bb1(%1: index):  // pred: ^bb0
// CHECK-NEXT: "t.yield"(%1) : (index) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: }) {a = 2 : i64, z = 1 : i64} : () -> (i32, i64)
// CHECK-NEXT: "t.use"(%0#1, %0#0) : (i64, i32) -> ()
// CHECK-NEXT: "t.empty_block"() ({
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: "t.nested"() ({
// CHECK-NEXT: "t.deeper"() ({
// CHECK-NEXT: %1 = "t.d"(%0#0) : (i32) -> i32
// CHECK-NEXT: "t.yield"(%1) : (i32) -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @regions_of_generic_ops() {
  %0:2 = "t.multi"() ({
    %i = "t.inner"() : () -> i32
    "t.yield"(%i) : (i32) -> ()
  }, {
  ^bb0(%q: index, %r: f32):
    "t.br"(%q)[^bb1] : (index) -> ()
  ^bb1(%s: index):
    "t.yield"(%s) : (index) -> ()
  }, {
  }) {z = 1, a = 2} : () -> (i32, i64)
  "t.use"(%0#1, %0#0) : (i64, i32) -> ()
  "t.empty_block"() ({
  ^bb0:
  }) : () -> ()
  "t.nested"() ({
    "t.deeper"() ({
      %d = "t.d"(%0#0) : (i32) -> i32
      "t.yield"(%d) : (i32) -> ()
    }) : () -> ()
  }) : () -> ()
  return
}
