// --timing prints mlir-opt's execution time report to stderr. The numbers vary; the structure
// does not. Tree (the default): passes nested in their pipelines, between Parser and Output.

// RUN: dlc-opt %s -p 'builtin.module(func.func(cse,dce),symbol-dce)' --timing --disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE --strict-whitespace
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse,dce),symbol-dce)' --mlir-timing --mlir-timing-display=tree --disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=TREE --strict-whitespace
// TREE:      ===-------------------------------------------------------------------------===
// TREE-NEXT: ... Execution time report ...
// TREE-NEXT: ===-------------------------------------------------------------------------===
// TREE-NEXT: {{^}}  Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TREE-EMPTY:
// TREE-NEXT: {{^}}  ----Wall Time----  ----Name----{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Parser{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  'func.func' Pipeline{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}    cse{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}    dce{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  symbol-dce{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Output{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+ \( *[0-9]+\.[0-9]%\)}}  Rest{{$}}
// TREE-NEXT: {{^ +[0-9]+\.[0-9]+}} (100.0%)  Total{{$}}

// List: every timer once, not indented, slowest first; only the set of names is fixed.
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse,dce),symbol-dce)' --timing --timing-display=list --disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIST --strict-whitespace
// LIST: ... Execution time report ...
// LIST: {{^}}  ----Wall Time----  ----Name----{{$}}
// LIST-DAG: %)  Parser{{$}}
// LIST-DAG: %)  'func.func' Pipeline{{$}}
// LIST-DAG: %)  cse{{$}}
// LIST-DAG: %)  dce{{$}}
// LIST-DAG: %)  symbol-dce{{$}}
// LIST-DAG: %)  Output{{$}}
// LIST: %)  Rest{{$}}
// LIST-NEXT: (100.0%)  Total{{$}}

// With threads, the report adds a User Time column (all threads added up) and keeps the tree.
// RUN: dlc-opt %s -p 'builtin.module(func.func(cse,dce),symbol-dce)' --timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS --strict-whitespace
// THREADS: {{^}}  ----User Time----  ----Wall Time----  ----Name----
// THREADS-NEXT: %)  Parser{{$}}
// THREADS-NEXT: %)  'func.func' Pipeline{{$}}
// THREADS-NEXT: %)    cse{{$}}
// THREADS-NEXT: %)    dce{{$}}
// THREADS-NEXT: %)  symbol-dce{{$}}

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
func.func @g(%a: i32) -> i32 {
  return %a : i32
}
func.func @h(%a: i32) -> i32 {
  return %a : i32
}
