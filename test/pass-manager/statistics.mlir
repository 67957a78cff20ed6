// --pass-statistics: per pass instance, nested as in the pipeline (the default, or
// --pass-statistics-display=pipeline), or per pass with the counts of its instances added up
// (=list, sorted by pass name). cse runs twice here: once CSE-ing one op, once nothing.

// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce,func.func(cse))' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce,func.func(cse))' --mlir-pass-statistics --mlir-pass-statistics-display=pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE:      ===-------------------------------------------------------------------------===
// PIPELINE-NEXT:                          ... Pass statistics report ...
// PIPELINE-NEXT: ===-------------------------------------------------------------------------===
// PIPELINE-NEXT: 'builtin.module' Pipeline
// PIPELINE-NEXT:   'func.func' Pipeline
// PIPELINE-NEXT:     cse
// PIPELINE-NEXT:       (S) 1 num-cse - Number of operations CSE'd
// PIPELINE:        symbol-dce
// PIPELINE-NEXT:     (S) 1 num-dce - Number of symbols DCE'd
// PIPELINE-NEXT:   'func.func' Pipeline
// PIPELINE-NEXT:     cse
// PIPELINE-NEXT:       (S) 0 num-cse - Number of operations CSE'd

// RUN: dlc-opt %s -p 'builtin.module(func.func(cse),symbol-dce,func.func(cse))' --pass-statistics --pass-statistics-display=list -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIST
// LIST:      ... Pass statistics report ...
// LIST-NEXT: ===-------------------------------------------------------------------------===
// LIST-NEXT: cse
// LIST-NEXT:   (S) 1 num-cse - Number of operations CSE'd
// LIST:      symbol-dce
// LIST-NEXT:   (S) 1 num-dce - Number of symbols DCE'd
// LIST-NOT:  cse

// RUN: not dlc-opt %s --pass-statistics-display=tree 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: invalid value 'tree' for '--pass-statistics-display <PASS_STATISTICS_DISPLAY>'

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func private @g() {
  return
}
