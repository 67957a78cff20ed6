// Nested pipelines over several functions run on the thread pool; the output must be
// byte-identical to a single-threaded run.
// RUN: dlc-opt %s -p 'builtin.module(func.func(strip-debuginfo))' --print-debuginfo > %t.threads
// RUN: dlc-opt %s -p 'builtin.module(func.func(strip-debuginfo))' --print-debuginfo --disable-threading > %t.serial
// RUN: diff %t.threads %t.serial
// RUN: FileCheck %s < %t.threads

// CHECK-LABEL: func.func @f0
// CHECK: arith.addi {{.*}} loc(unknown)
// CHECK-LABEL: func.func @f7
// CHECK: arith.addi {{.*}} loc(unknown)

func.func @f0(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 0 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":0:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
func.func @f1(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":1:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
func.func @f2(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 2 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":2:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
func.func @f3(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 3 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":3:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
func.func @f4(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 4 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":4:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
func.func @f5(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 5 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":5:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
func.func @f6(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 6 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":6:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
func.func @f7(%a: i32, %x: f32) -> (i32, f32) {
  %c = arith.constant 7 : i32
  %s = arith.addi %a, %c : i32 loc("m.py":7:1)
  %y = arith.mulf %x, %x : f32
  return %s, %y : i32, f32
}
