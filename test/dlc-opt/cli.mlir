// RUN: dlc-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: dlc-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: dlc-opt -show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: dlc-opt %s | FileCheck %s
// RUN: dlc-opt - < %s | FileCheck %s
// RUN: dlc-opt < %s | FileCheck %s
// RUN: dlc-opt %s -o %t && FileCheck %s < %t
// RUN: dlc-opt %s -o - | FileCheck %s
// RUN: dlc-opt %s -print-generic -o %t && dlc-opt %t | FileCheck %s
// RUN: not dlc-opt %t.does-not-exist 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not dlc-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=BADFLAG
// RUN: not dlc-opt %s -no-such-flag 2>&1 | FileCheck %s --check-prefix=BADFLAG-SINGLE
// RUN: dlc-opt --help | FileCheck %s --check-prefix=HELP

// dlc-opt's command line: input from a file or standard input ('-' or nothing), output to
// stdout or -o, mlir-opt's single-dash spellings of long options, and errors for missing files
// and unknown flags (exit code 1).

// VERSION: dlc-opt {{[0-9]+\.[0-9]+\.[0-9]+}}
// DIALECTS: Available Dialects: arith, builtin, func, graph, loop, math{{$}}
// NOFILE: dlc-opt: could not open input file '{{.*}}does-not-exist': No such file or directory
// BADFLAG: error: unexpected argument '--no-such-flag' found
// BADFLAG-SINGLE: error: unexpected argument
// HELP: Usage: dlc-opt [OPTIONS] [INPUT]
// HELP-DAG: --split-input-file
// HELP-DAG: --verify-diagnostics
// HELP-DAG: --allow-unregistered-dialect
// HELP-DAG: --print-generic
// HELP-DAG: --print-debuginfo
// HELP-DAG: --show-dialects

// CHECK-LABEL: module {
// CHECK-NEXT:    func.func private @f(i32) -> i32
// CHECK-NEXT:  }
func.func private @f(i32) -> i32
