// RUN: not dlc-opt %s 2>&1 | FileCheck %s --strict-whitespace --match-full-lines --implicit-check-not=panicked
// RUN: not dlc-opt %s --split-input-file 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SPLIT --strict-whitespace --match-full-lines --implicit-check-not=panicked
// RUN: bash -c 'dlc-opt "$0" 2>/dev/null; test $? -eq 1' %s
// RUN: bash -c 'dlc-opt "$0" --split-input-file 2>/dev/null; test $? -eq 1' %s

// Diagnostics render as `file:line:col: error: message`, then the source line and a caret under
// the column, notes the same way; the exit code is 1 and nothing panics. Patterns start right
// after the colon: whitespace is checked exactly.

// Without --split-input-file only the first error is reported. A tab before the error is copied
// into the caret line so the caret lines up; the column counts bytes, as in MLIR.
// CHECK:{{.*}}rendering.mlir:[[@LINE+6]]:41: error: unexpected character
// CHECK-NEXT:	func.func private @f(i32 {s = "éé"}) `
// CHECK-NEXT:	                                     ^
// CHECK-NOT:{{.}}
// SPLIT:{{.*}}rendering.mlir:[[@LINE+2]]:41: error: unexpected character
// SPLIT-NEXT:	func.func private @f(i32 {s = "éé"}) `
	func.func private @f(i32 {s = "éé"}) `
// SPLIT-NEXT:	                                     ^

// -----

// Verifier errors point at the op; notes are rendered like errors.
// SPLIT-NEXT:{{.*}}rendering.mlir:[[@LINE+7]]:1: error: redefinition of symbol named 'g'
// SPLIT-NEXT:func.func private @g() -> i32
// SPLIT-NEXT:^
// SPLIT-NEXT:{{.*}}rendering.mlir:[[@LINE+3]]:1: note: see existing symbol definition here
// SPLIT-NEXT:func.func private @g() -> i32
// SPLIT-NEXT:^
func.func private @g() -> i32
func.func private @g() -> i32

// -----

// SPLIT-NEXT:{{.*}}rendering.mlir:[[@LINE+4]]:3: error: 'func.return' op has 1 operands, but enclosing function (@h) returns 0
// SPLIT-NEXT:  return %arg0 : i32
// SPLIT-NEXT:  ^
func.func @h(%arg0: i32) {
  return %arg0 : i32
}

// -----

// An error at the end of the input is reported just after the last text, as mlir-opt does.
// SPLIT-NEXT:{{.*}}rendering.mlir:[[@LINE+4]]:28: error: expected '}' to end a region
// SPLIT-NEXT:func.func @unterminated() {
// SPLIT-NEXT:                           ^
// SPLIT-NOT:{{.}}
func.func @unterminated() {
