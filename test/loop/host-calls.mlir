// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC

// Host calls: loop.call_if calls one of two host functions as a one-element i1 buffer says,
// loop.call_loop calls a body host function as an ONNX Loop (trip count, condition, carried
// values, captures; results: the last carried values, then the stacked scan outputs). The
// callees are named inline; `then_callee`, `else_callee`, `callee` and `num_carried` are the
// attributes of the generic form. Custom and generic forms read back to the same text.

func.func @pass(%a: !loop.buffer<?xf32, global>, %n: index) -> (!loop.buffer<?xf32, global>, index) {
  return %a, %n : !loop.buffer<?xf32, global>, index
}

func.func @fresh(%a: !loop.buffer<?xf32, global>, %n: index) -> (!loop.buffer<?xf32, global>, index) {
  %b = loop.alloc(%n) : !loop.buffer<?xf32, global>
  return %b, %n : !loop.buffer<?xf32, global>, index
}

// CHECK-LABEL: func.func @if_two_results(%arg0: !loop.buffer<i1, global>, %arg1: !loop.buffer<?xf32, global>, %arg2: index) -> (!loop.buffer<?xf32, global>, index) {
// CHECK-NEXT: %0:2 = loop.call_if %arg0 then @pass else @fresh (%arg1, %arg2) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index) -> (!loop.buffer<?xf32, global>, index)
// CHECK-NEXT: return %0#0, %0#1 : !loop.buffer<?xf32, global>, index
// GENERIC-LABEL: "func.func"() <{function_type = (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index) -> (!loop.buffer<?xf32, global>, index), sym_name = "if_two_results"}>
// GENERIC: "loop.call_if"(%{{.*}}, %{{.*}}, %{{.*}}) <{else_callee = @fresh, then_callee = @pass}> : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index) -> (!loop.buffer<?xf32, global>, index)
func.func @if_two_results(%c: !loop.buffer<i1, global>, %a: !loop.buffer<?xf32, global>, %n: index) -> (!loop.buffer<?xf32, global>, index) {
  %r:2 = loop.call_if %c then @pass else @fresh (%a, %n) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index) -> (!loop.buffer<?xf32, global>, index)
  return %r#0, %r#1 : !loop.buffer<?xf32, global>, index
}

func.func @one() -> index {
  %c1 = arith.constant 1 : index
  return %c1 : index
}

func.func @two() -> index {
  %c2 = arith.constant 2 : index
  return %c2 : index
}

func.func @nothing() {
  return
}

// One result prints bare; a condition of any rank whose dims are all 1; other attributes stay.
// CHECK-LABEL: func.func @if_one_result(%arg0: !loop.buffer<1x1xi1, global>) -> index {
// CHECK-NEXT: %0 = loop.call_if %arg0 then @one else @two () {note = "kept"} : (!loop.buffer<1x1xi1, global>) -> index
// CHECK-NEXT: loop.call_if %arg0 then @nothing else @nothing () : (!loop.buffer<1x1xi1, global>) -> ()
// GENERIC-LABEL: sym_name = "if_one_result"
// GENERIC: "loop.call_if"(%{{.*}}) <{else_callee = @two, then_callee = @one}> {note = "kept"} : (!loop.buffer<1x1xi1, global>) -> index
func.func @if_one_result(%c: !loop.buffer<1x1xi1, global>) -> index {
  %r = loop.call_if %c then @one else @two () {note = "kept"} : (!loop.buffer<1x1xi1, global>) -> index
  loop.call_if %c then @nothing else @nothing () : (!loop.buffer<1x1xi1, global>) -> ()
  return %r : index
}

// A body with one carried value, one capture and two scan elements.
func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>, %y: !loop.buffer<4xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<i64, global>) {
  return %c, %x, %y, %i : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<i64, global>
}

// CHECK-LABEL: func.func @loop(
// CHECK-NEXT: %0:3 = loop.call_loop @body (%arg0, %arg1, %arg2) captures (%arg3) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<4xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x4xf32, global>, !loop.buffer<3xi64, global>)
// CHECK-NEXT: return %0#0, %0#1, %0#2
// GENERIC-LABEL: sym_name = "loop"
// GENERIC: "loop.call_loop"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{callee = @body, num_carried = 1 : i64}> : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<4xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x4xf32, global>, !loop.buffer<3xi64, global>)
func.func @loop(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>, %y: !loop.buffer<4xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x4xf32, global>, !loop.buffer<3xi64, global>) {
  %r:3 = loop.call_loop @body (%m, %c, %x) captures (%y) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<4xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x4xf32, global>, !loop.buffer<3xi64, global>)
  return %r#0, %r#1, %r#2 : !loop.buffer<?xf32, global>, !loop.buffer<?x4xf32, global>, !loop.buffer<3xi64, global>
}

func.func @spin(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>) -> !loop.buffer<i1, global> {
  return %c : !loop.buffer<i1, global>
}

func.func @counter(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %n: index) -> (!loop.buffer<i1, global>, index) {
  %c1 = arith.constant 1 : index
  %m = arith.addi %n, %c1 : index
  return %c, %m : !loop.buffer<i1, global>, index
}

// No carried values, captures or results; a scalar carried value; one-element operands of
// rank 1. The generic form may also be written by hand.
// CHECK-LABEL: func.func @loop_forms(
// CHECK-NEXT: loop.call_loop @spin (%arg0, %arg1) : (!loop.buffer<1xi64, global>, !loop.buffer<1xi1, global>) -> ()
// CHECK-NEXT: %0 = loop.call_loop @counter (%arg0, %arg1, %arg2) {note} : (!loop.buffer<1xi64, global>, !loop.buffer<1xi1, global>, index) -> index
// CHECK-NEXT: %1 = loop.call_loop @counter (%arg0, %arg1, %0) : (!loop.buffer<1xi64, global>, !loop.buffer<1xi1, global>, index) -> index
// CHECK-NEXT: return %1 : index
// GENERIC-LABEL: sym_name = "loop_forms"
// GENERIC: "loop.call_loop"(%{{.*}}, %{{.*}}) <{callee = @spin, num_carried = 0 : i64}> : (!loop.buffer<1xi64, global>, !loop.buffer<1xi1, global>) -> ()
func.func @loop_forms(%m: !loop.buffer<1xi64, global>, %c: !loop.buffer<1xi1, global>, %n: index) -> index {
  loop.call_loop @spin (%m, %c) : (!loop.buffer<1xi64, global>, !loop.buffer<1xi1, global>) -> ()
  %a = loop.call_loop @counter (%m, %c, %n) {note} : (!loop.buffer<1xi64, global>, !loop.buffer<1xi1, global>, index) -> index
  %b = "loop.call_loop"(%m, %c, %a) <{callee = @counter, num_carried = 1 : i64}> : (!loop.buffer<1xi64, global>, !loop.buffer<1xi1, global>, index) -> index
  return %b : index
}
