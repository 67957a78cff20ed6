// `inline` runs MLIR's simplification pipeline on each function, callees first: before
// inlining into it and again after each round that inlined something, up to `max-iterations`
// rounds. The default pipeline is `canonicalize`; `default-pipeline=` runs none, a pipeline text
// (`canonicalize,cse`) runs that, and `op-pipelines=func.func(...)` replaces the default for
// functions. Every output matches mlir-opt-22's byte for byte. (The callees are public: MLIR
// also erases private callees it inlined everywhere, which dlc leaves to `symbol-dce`.)
// RUN: dlc-opt %s --pipeline=inline > %t.dlc
// RUN: mlir-opt %s --inline > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline='inline{default-pipeline=}' > %t.dlc.none
// RUN: mlir-opt %s --inline='default-pipeline=' > %t.mlir.none
// RUN: diff %t.dlc.none %t.mlir.none
// RUN: dlc-opt %s --pipeline='inline{default-pipeline=canonicalize,cse}' > %t.dlc.cse
// RUN: mlir-opt %s --inline='default-pipeline=canonicalize,cse' > %t.mlir.cse
// RUN: diff %t.dlc.cse %t.mlir.cse
// RUN: dlc-opt %s --pipeline='builtin.module(inline{default-pipeline=canonicalize,cse})' -mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s --pass-pipeline='builtin.module(inline{default-pipeline=canonicalize,cse})' -mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %s --pipeline='inline{max-iterations=1}' > %t.dlc.once
// RUN: mlir-opt %s --inline='max-iterations=1' > %t.mlir.once
// RUN: diff %t.dlc.once %t.mlir.once
// RUN: dlc-opt %s --pipeline='inline{default-pipeline= op-pipelines=func.func(canonicalize,cse)}' > %t.dlc.op
// RUN: mlir-opt %s --inline='default-pipeline= op-pipelines=func.func(canonicalize,cse)' > %t.mlir.op
// RUN: diff %t.dlc.op %t.mlir.op
// RUN: FileCheck %s < %t.dlc
// RUN: FileCheck %s --check-prefix=NONE < %t.dlc.none
// RUN: FileCheck %s --check-prefix=CSE < %t.dlc.cse
// RUN: FileCheck %s --check-prefix=ONCE < %t.dlc.once

// The default canonicalizes every function, the callees before they are copied and the callers
// after; `x + 0` and `x * 1` are gone, and the never-called @unused is simplified too.
// CHECK-LABEL: func.func @unused
// CHECK-NEXT: return %arg0 : i32
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.muli %0, %0 : i32
// CHECK-NEXT: %2 = arith.muli %arg0, %arg0 : i32
// CHECK-NEXT: %3 = arith.addi %1, %2 : i32
// CHECK-NEXT: %4 = arith.addi %1, %2 : i32
// CHECK-NEXT: return %3, %4 : i32, i32

// NONE-LABEL: func.func @unused
// NONE-NEXT: arith.constant 0 : i32
// NONE-LABEL: func.func @main
// NONE: arith.addi %{{.*}}, %c0_i32

// CSE-LABEL: func.func @main
// CSE-NEXT: %0 = arith.muli %arg0, %arg0 : i32
// CSE-NEXT: %1 = arith.muli %0, %0 : i32
// CSE-NEXT: %2 = arith.addi %1, %0 : i32
// CSE-NEXT: return %2, %2 : i32, i32

// With one round a function is simplified only before calls are inlined into it, so what the
// inlined body makes foldable (`x + 0` once @add sees the constant) stays.
// CHECK-LABEL: func.func @plus_zero
// CHECK-NEXT: return %arg0 : i32
// ONCE-LABEL: func.func @plus_zero
// ONCE-NEXT: %c0_i32 = arith.constant 0 : i32
// ONCE-NEXT: %0 = arith.addi %arg0, %c0_i32 : i32
// ONCE-NEXT: return %0 : i32

func.func @sq(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.muli %a, %a : i32
  %1 = arith.addi %0, %c0 : i32
  return %1 : i32
}
func.func @twice(%a: i32) -> i32 {
  %0 = func.call @sq(%a) : (i32) -> i32
  %1 = func.call @sq(%0) : (i32) -> i32
  %c1 = arith.constant 1 : i32
  %2 = arith.muli %1, %c1 : i32
  return %2 : i32
}
func.func @unused(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}
func.func @main(%x: i32) -> (i32, i32) {
  %0 = func.call @twice(%x) : (i32) -> i32
  %1 = func.call @sq(%x) : (i32) -> i32
  %2 = arith.addi %0, %1 : i32
  %3 = arith.addi %0, %1 : i32
  return %2, %3 : i32, i32
}
func.func @add(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}
func.func @plus_zero(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = func.call @add(%x, %c0) : (i32, i32) -> i32
  return %0 : i32
}
