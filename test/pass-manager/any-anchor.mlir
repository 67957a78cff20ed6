// A pass anchored on several op names (`simplify`: loop kernels and host functions) runs in an
// `any(...)` pipeline: a flat pipeline nests it there, and the `any` pipeline runs on each op
// of the module that all its passes accept. Consecutive such passes share one `any` pipeline;
// an op-agnostic pass stays on the module.

// RUN: dlc-opt %s --pipeline=simplify,simplify,cse,simplify --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: Pass Manager with builtin.module(any(simplify{max-iterations=10},simplify{max-iterations=10}),cse,any(simplify{max-iterations=10}))

// The flat form and the explicit `any` form simplify the kernel and the function alike.
// RUN: dlc-opt %s --pipeline=simplify | FileCheck %s
// RUN: dlc-opt %s -p 'builtin.module(any(simplify))' | FileCheck %s
// CHECK-LABEL: loop.kernel @k
// CHECK-NEXT: %c6 = arith.constant 6 : index
// CHECK-NEXT: loop.store %arg1, %arg0[%c6]
// CHECK-LABEL: func.func @f
// CHECK-NEXT: %c6 = arith.constant 6 : index
// CHECK-NEXT: return %c6 : index

// Nested under one of its anchors it runs on those ops only.
// RUN: dlc-opt %s -p 'builtin.module(loop.kernel(simplify))' | FileCheck %s --check-prefix=KERNEL
// KERNEL-LABEL: loop.kernel @k
// KERNEL-NEXT: %c6 = arith.constant 6 : index
// KERNEL-LABEL: func.func @f
// KERNEL-NEXT: arith.constant 2 : index

// Placed directly in the module pipeline it is an error that says how to nest it.
// RUN: not dlc-opt %s -p 'builtin.module(simplify)' 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// PLACEMENT: --pass-pipeline:16: error: pass 'simplify' runs on 'loop.kernel' or 'func.func' ops but is placed in a 'builtin.module' pipeline; nest it as 'any(simplify)'

// A module without kernels or functions: the `any` pipeline finds nothing and says so.
// RUN: echo 'module {}' | dlc-opt --pipeline=simplify 2>&1 | FileCheck %s --check-prefix=NOTHING
// NOTHING: <stdin>:1:1: warning: no 'loop.kernel' or 'func.func' op to run on: pass 'simplify' did nothing

loop.kernel @k(%b: !loop.buffer<8xindex, global>, %v: index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i = arith.muli %c2, %c3 : index
  loop.store %v, %b[%i] : !loop.buffer<8xindex, global>
  loop.return
}

func.func @f() -> index {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = arith.muli %c2, %c3 : index
  return %r : index
}
