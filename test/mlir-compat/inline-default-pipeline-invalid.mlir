// A bad pipeline in `inline`'s options is a pipeline error at its place in the text: dlc-opt
// reports it with the column, the text and a caret, prints nothing and exits 1. mlir-opt-22
// reports the unknown pass too (its own parser, counting from the nested text) but then inlines
// without that pipeline and exits 0, so only its message is checked.
// RUN: not dlc-opt %s --pipeline='inline{default-pipeline=canonicalize,nosuch}' 2>&1 | FileCheck %s --check-prefix=UNKNOWN --strict-whitespace
// UNKNOWN: {{^}}--pipeline:38: error: pass 'inline': option 'default-pipeline': unknown pass or pipeline 'nosuch'{{$}}
// UNKNOWN-NEXT: {{^}}inline{default-pipeline=canonicalize,nosuch}{{$}}
// UNKNOWN-NEXT: {{^}}                                     ^{{$}}
// RUN: mlir-opt %s --inline='default-pipeline=canonicalize,nosuch' 2>&1 | FileCheck %s --check-prefix=MLIR
// MLIR: 'nosuch' does not refer to a registered pass or pass pipeline

// RUN: not dlc-opt %s --pipeline='inline{default-pipeline=canonicalize{max-iterations=x}}' 2>&1 | FileCheck %s --check-prefix=VALUE --strict-whitespace
// VALUE: {{^}}--pipeline:38: error: pass 'inline': option 'default-pipeline': pass 'canonicalize': option 'max-iterations': expected an integer, got 'x'{{$}}
// VALUE-NEXT: {{^}}inline{default-pipeline=canonicalize{max-iterations=x}}{{$}}
// VALUE-NEXT: {{^}}                                     ^{{$}}

// RUN: not dlc-opt %s --pipeline='inline{default-pipeline=func.func(cse}' 2>&1 | FileCheck %s --check-prefix=PAREN
// PAREN: --pipeline:38: error: expected ')' to close '(' opened at column 34

// RUN: not dlc-opt %s --pipeline='inline{default-pipeline=builtin.module(cse)}' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: --pipeline:25: error: pass 'inline': option 'default-pipeline': pipeline anchored on 'builtin.module' cannot run on the root op 'func.func'

// RUN: not dlc-opt %s --pipeline='inline{op-pipelines=cse}' 2>&1 | FileCheck %s --check-prefix=OP
// OP: --pipeline:21: error: pass 'inline': option 'op-pipelines': expected a pipeline nested on an op, as 'op-name(pass,...)'

// RUN: not dlc-opt %s --pipeline='inline{max-iterations=many}' 2>&1 | FileCheck %s --check-prefix=ITER
// ITER: --pipeline:8: error: pass 'inline': option 'max-iterations': expected an integer, got 'many'

func.func @f() {
  return
}
