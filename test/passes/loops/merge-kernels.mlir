// RUN: dlc-opt %s --pipeline=merge-kernels --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=merge-kernels --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: dlc-run %s --entry=twice --check --no-cache | FileCheck %s --check-prefix=EXEC
// RUN: dlc-run %s --entry=mix --check --no-cache | FileCheck %s --check-prefix=EXEC

// merge-kernels erases the kernels of a module that are op for op the same as an earlier one
// (names of values and locations aside), and points their launches at the earlier one. The
// kernels below are what `lower` makes of `graph.exp` (or `graph.neg`) over a vector.

// Statistics over the cases below: one copy in the doc example, three in the interleaved case,
// one launched from two functions, one in counter-example 3 (the copy nothing else names), none
// in the other counter-examples and the single-kernel case, one in the nested-module case.
// STATS: merge-kernels
// STATS-NEXT: (S) 7 num-merged

// dlc-run compiles the whole file with `cpu-default`, which starts with merge-kernels: the doc
// example and the interleaved case compute what the interpreter computes before any pass.
// EXEC: check output 0: {{.*}}: ok

// Doc example 1: the same exp on two arguments; the copy has another location, which does
// not count. Its launch launches the first kernel, with its own operands.
// CHECK-LABEL: loop.kernel @twice_0_exp(
// CHECK-NOT: loop.kernel @twice_1_exp
// CHECK-LABEL: func.func @twice(
// CHECK: loop.launch @twice_0_exp(%arg0, %0)
// CHECK: loop.launch @twice_0_exp(%arg1, %1)

loop.kernel @twice_0_exp(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @twice_1_exp(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32 loc("elsewhere.mlir":3:7)
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @twice(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) -> (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @twice_0_exp(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @twice_1_exp(%arg1, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %0, %1 : !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>
}

// -----

// Interleaved copies of two kernels: each copy goes to the first of its kind, in module order.
// CHECK-LABEL: loop.kernel @mix_a(
// CHECK: math.exp
// CHECK-LABEL: loop.kernel @mix_b(
// CHECK: math.absf
// CHECK-NOT: loop.kernel
// CHECK-LABEL: func.func @mix(
// CHECK: loop.launch @mix_a(%arg0, %0)
// CHECK: loop.launch @mix_b(%0, %1)
// CHECK: loop.launch @mix_a(%1, %2)
// CHECK: loop.launch @mix_b(%2, %3)
// CHECK: loop.launch @mix_a(%3, %4)

loop.kernel @mix_a(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @mix_b(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.absf %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @mix_a2(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @mix_b2(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.absf %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @mix_a3(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @mix(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @mix_a(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @mix_b(%0, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @mix_a2(%1, %2) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %3 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @mix_b2(%2, %3) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %4 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @mix_a3(%3, %4) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %4 : !loop.buffer<16xf32, global>
}

// -----

// A copy launched from two host functions: both launches move.
// CHECK-LABEL: loop.kernel @two_0(
// CHECK-NOT: loop.kernel @two_1
// CHECK-LABEL: func.func @first(
// CHECK: loop.launch @two_0(%arg0, %0)
// CHECK: loop.launch @two_0(%0, %1)
// CHECK-LABEL: func.func @second(
// CHECK: loop.launch @two_0(%arg0, %0)

loop.kernel @two_0(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @two_1(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @first(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @two_0(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @two_1(%0, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %1 : !loop.buffer<16xf32, global>
}
func.func @second(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @two_1(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %0 : !loop.buffer<16xf32, global>
}

// -----

// Counter-examples 1 and 2: another length, another `loop.noalias` on the first argument,
// another op: every kernel stays, and so does every launch.
// CHECK-LABEL: loop.kernel @len16(
// CHECK-LABEL: loop.kernel @len32(
// CHECK-LABEL: loop.kernel @aliased(
// CHECK-LABEL: loop.kernel @negated(
// CHECK-LABEL: func.func @kinds(
// CHECK: loop.launch @len16(
// CHECK: loop.launch @len32(
// CHECK: loop.launch @aliased(
// CHECK: loop.launch @negated(

loop.kernel @len16(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @len32(%arg0: !loop.buffer<32xf32, global> {loop.noalias}, %arg1: !loop.buffer<32xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  loop.for parallel %i = %c0 to %c32 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<32xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<32xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @aliased(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @negated(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = arith.negf %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @kinds(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<32xf32, global>) -> (!loop.buffer<16xf32, global>, !loop.buffer<32xf32, global>) {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @len16(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<32xf32, global>
  loop.launch @len32(%arg1, %1) : (!loop.buffer<32xf32, global>, !loop.buffer<32xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @aliased(%0, %2) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %3 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @negated(%2, %3) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %3, %1 : !loop.buffer<16xf32, global>, !loop.buffer<32xf32, global>
}

// -----

// Counter-example 3: a copy that another op names (here in an attribute of a function) keeps
// its kernel, its launch and the reference; a later copy of it goes to the first.
// CHECK-LABEL: loop.kernel @named_0(
// CHECK-LABEL: loop.kernel @named_1(
// CHECK-NOT: loop.kernel @named_2
// CHECK-LABEL: func.func @named(
// CHECK: loop.launch @named_0(
// CHECK: loop.launch @named_1(
// CHECK: loop.launch @named_0(
// CHECK: func.func @holder() attributes {kernels = [@named_1]}

loop.kernel @named_0(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @named_1(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @named_2(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @named(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @named_0(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @named_1(%0, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @named_2(%1, %2) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %2 : !loop.buffer<16xf32, global>
}
func.func @holder() attributes {kernels = [@named_1]} {
  return
}

// -----

// Edge case: one kernel, nothing to merge; the module is unchanged.
// CHECK-LABEL: loop.kernel @alone(
// CHECK-LABEL: func.func @single(
// CHECK: loop.launch @alone(

loop.kernel @alone(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @single(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @alone(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %0 : !loop.buffer<16xf32, global>
}

// -----

// Edge case: a nested module has a kernel of the copy's name and launches it; the launch
// resolves in the nested module, so it keeps its callee while the outer launch moves.
// CHECK-LABEL: loop.kernel @outer_0(
// CHECK-NOT: loop.kernel @outer_1(
// CHECK: module @inner {
// CHECK: loop.kernel @outer_1(
// CHECK: loop.launch @outer_1(%arg0, %0)
// CHECK-LABEL: func.func @outer(
// CHECK: loop.launch @outer_0(%arg0, %0)

loop.kernel @outer_0(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @outer_1(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %i = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%i0 = %i) {
      %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
module @inner {
  loop.kernel @outer_1(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    loop.for parallel %i = %c0 to %c16 step %c1 {
      loop.schedule_block "exp_0" (%i0 = %i) {
        %0 = loop.load %arg0[%i0] : !loop.buffer<16xf32, global>
        %1 = math.absf %0 : f32
        loop.store %1, %arg1[%i0] : !loop.buffer<16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  func.func @inner_fn(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
    %0 = loop.alloc : !loop.buffer<16xf32, global>
    loop.launch @outer_1(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
    return %0 : !loop.buffer<16xf32, global>
  }
}
func.func @outer(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @outer_1(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %0 : !loop.buffer<16xf32, global>
}
