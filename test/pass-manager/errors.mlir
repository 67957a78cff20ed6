// Bad pipeline text: the flag, the 1-based column, the message, then the text with a caret under
// the column. Exit code 1, nothing printed on stdout.

// RUN: not dlc-opt %s --pipeline='cse,strip-debugnfo' 2>&1 | FileCheck %s --check-prefix=UNKNOWN --strict-whitespace
// UNKNOWN: {{^}}--pipeline:5: error: unknown pass or pipeline 'strip-debugnfo' (did you mean 'strip-debuginfo'?)
// UNKNOWN-NEXT: {{^}}cse,strip-debugnfo{{$}}
// UNKNOWN-NEXT: {{^}}    ^{{$}}

// RUN: not dlc-opt %s --pipeline=xyzzy 2>&1 | FileCheck %s --check-prefix=NO-HINT
// NO-HINT: --pipeline:1: error: unknown pass or pipeline 'xyzzy'{{$}}

// RUN: not dlc-opt %s --pipeline='canonicalize{max-iteration=3}' 2>&1 | FileCheck %s --check-prefix=OPTION --strict-whitespace
// OPTION: {{^}}--pipeline:14: error: pass 'canonicalize': unknown option 'max-iteration' (did you mean 'max-iterations'?)
// OPTION-NEXT: {{^}}canonicalize{max-iteration=3}{{$}}
// OPTION-NEXT: {{^}}             ^{{$}}

// RUN: not dlc-opt %s --pipeline='cse,canonicalize{top-down=false max-iterations=x}' 2>&1 | FileCheck %s --check-prefix=VALUE --strict-whitespace
// VALUE: {{^}}--pipeline:33: error: pass 'canonicalize': option 'max-iterations': expected an integer, got 'x'
// VALUE-NEXT: {{^}}cse,canonicalize{top-down=false max-iterations=x}{{$}}
// VALUE-NEXT: {{^}}                                ^{{$}}

// RUN: not dlc-opt %s --pipeline='test-pass-failure{fail=maybe}' 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: --pipeline:19: error: pass 'test-pass-failure': option 'fail': expected a boolean (true/false/1/0), got 'maybe'

// RUN: not dlc-opt %s -p 'builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=PAREN --strict-whitespace
// PAREN: {{^}}--pass-pipeline:30: error: expected ')' to close 'builtin.module(' opened at column 1
// PAREN-NEXT: {{^}}builtin.module(func.func(cse){{$}}
// PAREN-NEXT: {{^}}                             ^{{$}}

// RUN: not dlc-opt %s -p 'builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: --pass-pipeline:20: error: unbalanced ')' in pipeline

// RUN: not dlc-opt %s --pipeline='canonicalize{max-iterations=3' 2>&1 | FileCheck %s --check-prefix=BRACE
// BRACE: --pipeline:13: error: unbalanced '{': options are not closed

// RUN: not dlc-opt %s --pipeline='cse,,dce' 2>&1 | FileCheck %s --check-prefix=EMPTY-ELEMENT
// EMPTY-ELEMENT: --pipeline:5: error: expected a pass name, found ','

// A pass must fit the pipeline it is placed in, and the root must be the module.
// RUN: not dlc-opt %s -p 'builtin.module(test-invalid-ir)' 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// PLACEMENT: --pass-pipeline:16: error: pass 'test-invalid-ir' runs on 'func.func' ops but is placed in a 'builtin.module' pipeline; nest it as 'func.func(test-invalid-ir)'
// RUN: not dlc-opt %s -p 'func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ROOT
// ROOT: --pass-pipeline:1: error: pipeline anchored on 'func.func' cannot run on the root op 'builtin.module'

// The same errors for pass flags, shown in the pipeline text the flags make.
// RUN: not dlc-opt %s --cse --canonicalize=max-iterations=x 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: pass flags:18: error: pass 'canonicalize': option 'max-iterations': expected an integer, got 'x'
// FLAG-NEXT: cse,canonicalize{max-iterations=x}

func.func @f() {
  return
}
