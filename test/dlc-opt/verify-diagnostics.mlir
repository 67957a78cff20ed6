// RUN: not dlc-opt %s --split-input-file --verify-diagnostics 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=error: --implicit-check-not=panicked

// --verify-diagnostics matches the diagnostics of each chunk against its annotations: a
// diagnostic nobody expected, and an annotation no diagnostic matched, are errors (exit code
// 1); matched ones are silent. Only the first chunk below is wrong.

// An annotation whose text differs is not matched, and the real error is unexpected.
// CHECK: verify-diagnostics.mlir:[[@LINE+2]]:31: error: unexpected error: expected non-function type, found 'i32x'
// expected-error @+1 {{unknown type}}
func.func private @wrong_text(i32x)
// CHECK: verify-diagnostics.mlir:[[@LINE-2]]:4: error: expected error "unknown type" was not produced

// -----

// @below, @above and @-N name other lines; -re takes a regex between double braces.
// expected-error @below {{expected non-function type, found 'i32x'}}
func.func private @below(i32x)

// -----

func.func private @above(i32x)
// expected-error @above {{found 'i32x'}}

// -----

func.func private @minus(i32x)

// expected-error-re @-2 {{found '{{i[0-9]+}}x'}}

// -----

// Notes are matched like errors.
// expected-note @+1 {{see existing symbol definition here}}
func.func private @dup()
// expected-error @+1 {{redefinition of symbol named 'dup'}}
func.func private @dup()

// -----

// A chunk without diagnostics and without annotations is fine.
func.func private @fine()
