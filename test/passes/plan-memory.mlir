// RUN: dlc-opt %s --pipeline=plan-memory --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=plan-memory --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// plan-memory places the intermediate buffers of a host function (allocs used only by launches
// and loop.dim, not returned) in one i8 arena: buffers whose live intervals do not overlap share
// a slot, and an output may take over an input that dies at its launch (in place). The inputs
// are the output of `lower` (test/passes/lower.mlir) on small graphs.

// Statistics, added up over the cases below: the static arenas take 512 + 256 + 128 + 128 +
// 512 bytes where separate allocations would take 768 + 512 + 128 + 192 + 512.
// STATS: plan-memory
// STATS-NEXT: (S) 16 buffers-planned
// STATS-NEXT: (S) 14 slots
// STATS-NEXT: (S) 2 in-place
// STATS-NEXT: (S) 1536 peak-bytes
// STATS-NEXT: (S) 2112 unplanned-bytes

// Doc example 1: three intermediates used one after another. %0 dies at the first transpose,
// before the second one's output is made, so that output takes %0's slot: two 256-byte slots
// for three buffers. The transposes change the shape, so none is in place; the returned buffer
// keeps its alloc.

// CHECK-LABEL: func.func @seq(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c256 = arith.constant 256 : index
// CHECK-NEXT: %0 = loop.alloc : !loop.buffer<512xi8, global>
// CHECK-NEXT: %1 = loop.view %0[%c0] : !loop.buffer<512xi8, global> -> !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @seq_0_exp(%arg0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
// CHECK-NEXT: %2 = loop.view %0[%c256] : !loop.buffer<512xi8, global> -> !loop.buffer<16x4xf32, global>
// CHECK-NEXT: loop.launch @seq_1_transpose(%1, %2) : (!loop.buffer<4x16xf32, global>, !loop.buffer<16x4xf32, global>) -> ()
// CHECK-NEXT: %3 = loop.view %0[%c0] : !loop.buffer<512xi8, global> -> !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @seq_2_transpose(%2, %3) : (!loop.buffer<16x4xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
// CHECK-NEXT: %4 = loop.alloc : !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @seq_3_neg(%3, %4) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
// CHECK-NEXT: return %4 : !loop.buffer<4x16xf32, global>
// CHECK-NEXT: }

loop.kernel @seq_0_exp(%arg0: !loop.buffer<4x16xf32, global>, %arg1: !loop.buffer<4x16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c16 step %c1 {
      loop.schedule_block "exp_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        %1 = math.exp %0 : f32
        loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @seq_1_transpose(%arg0: !loop.buffer<4x16xf32, global>, %arg1: !loop.buffer<16x4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  loop.for parallel %arg2 = %c0 to %c16 step %c1 {
    loop.for serial %arg3 = %c0 to %c4 step %c1 {
      loop.schedule_block "transpose_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg5, %arg4] : !loop.buffer<4x16xf32, global>
        loop.store %0, %arg1[%arg4, %arg5] : !loop.buffer<16x4xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @seq_2_transpose(%arg0: !loop.buffer<16x4xf32, global>, %arg1: !loop.buffer<4x16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c16 step %c1 {
      loop.schedule_block "transpose_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg5, %arg4] : !loop.buffer<16x4xf32, global>
        loop.store %0, %arg1[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @seq_3_neg(%arg0: !loop.buffer<4x16xf32, global>, %arg1: !loop.buffer<4x16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c16 step %c1 {
      loop.schedule_block "neg_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        %1 = arith.negf %0 : f32
        loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @seq(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
  %0 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @seq_0_exp(%arg0, %0) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<16x4xf32, global>
  loop.launch @seq_1_transpose(%0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<16x4xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @seq_2_transpose(%1, %2) : (!loop.buffer<16x4xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  %3 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @seq_3_neg(%2, %3) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  return %3 : !loop.buffer<4x16xf32, global>
}

// -----

// Doc example 2: an elementwise chain. neg reads each element of %0 only where it writes the
// same element of %1, and %0 dies there: %1 becomes %0 (in place), so neg's two arguments lose
// loop.noalias (the launch passes one buffer for both). abs writes the returned buffer, which
// is not planned.

// CHECK-LABEL: loop.kernel @chain_0_exp(%arg0: !loop.buffer<4x16xf32, global> {loop.noalias}, %arg1: !loop.buffer<4x16xf32, global> {loop.noalias}) {
// CHECK-LABEL: loop.kernel @chain_1_neg(%arg0: !loop.buffer<4x16xf32, global>, %arg1: !loop.buffer<4x16xf32, global>) {
// CHECK-LABEL: loop.kernel @chain_2_abs(%arg0: !loop.buffer<4x16xf32, global> {loop.noalias}, %arg1: !loop.buffer<4x16xf32, global> {loop.noalias}) {
// CHECK-LABEL: func.func @chain(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %0 = loop.alloc : !loop.buffer<256xi8, global>
// CHECK-NEXT: %1 = loop.view %0[%c0] : !loop.buffer<256xi8, global> -> !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @chain_0_exp(%arg0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
// CHECK-NEXT: loop.launch @chain_1_neg(%1, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
// CHECK-NEXT: %2 = loop.alloc : !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @chain_2_abs(%1, %2) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
// CHECK-NEXT: return %2 : !loop.buffer<4x16xf32, global>
// CHECK-NEXT: }

loop.kernel @chain_0_exp(%arg0: !loop.buffer<4x16xf32, global> {loop.noalias}, %arg1: !loop.buffer<4x16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c16 step %c1 {
      loop.schedule_block "exp_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        %1 = math.exp %0 : f32
        loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @chain_1_neg(%arg0: !loop.buffer<4x16xf32, global> {loop.noalias}, %arg1: !loop.buffer<4x16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c16 step %c1 {
      loop.schedule_block "neg_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        %1 = arith.negf %0 : f32
        loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @chain_2_abs(%arg0: !loop.buffer<4x16xf32, global> {loop.noalias}, %arg1: !loop.buffer<4x16xf32, global> {loop.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c16 step %c1 {
      loop.schedule_block "abs_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        %1 = math.absf %0 : f32
        loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @chain(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
  %0 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @chain_0_exp(%arg0, %0) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @chain_1_neg(%0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @chain_2_abs(%1, %2) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  return %2 : !loop.buffer<4x16xf32, global>
}

// -----

// Counter-example: the transpose reads its input at the transposed index, so writing its
// output over the input would clobber elements not read yet. Same type, but not in place.

// CHECK-LABEL: func.func @transposed(%arg0: !loop.buffer<4x4xf32, global>) -> !loop.buffer<4x4xf32, global> {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %0 = loop.alloc : !loop.buffer<128xi8, global>
// CHECK-NEXT: %1 = loop.view %0[%c0] : !loop.buffer<128xi8, global> -> !loop.buffer<4x4xf32, global>
// CHECK-NEXT: loop.launch @transposed_0_exp(%arg0, %1) : (!loop.buffer<4x4xf32, global>, !loop.buffer<4x4xf32, global>) -> ()
// CHECK-NEXT: %2 = loop.view %0[%c64] : !loop.buffer<128xi8, global> -> !loop.buffer<4x4xf32, global>
// CHECK-NEXT: loop.launch @transposed_1_transpose(%1, %2) : (!loop.buffer<4x4xf32, global>, !loop.buffer<4x4xf32, global>) -> ()
// CHECK-NEXT: %3 = loop.alloc : !loop.buffer<4x4xf32, global>
// CHECK-NEXT: loop.launch @transposed_2_neg(%2, %3) : (!loop.buffer<4x4xf32, global>, !loop.buffer<4x4xf32, global>) -> ()
// CHECK-NEXT: return %3 : !loop.buffer<4x4xf32, global>
// CHECK-NEXT: }

loop.kernel @transposed_0_exp(%arg0: !loop.buffer<4x4xf32, global>, %arg1: !loop.buffer<4x4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c4 step %c1 {
      loop.schedule_block "exp_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x4xf32, global>
        %1 = math.exp %0 : f32
        loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x4xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @transposed_1_transpose(%arg0: !loop.buffer<4x4xf32, global>, %arg1: !loop.buffer<4x4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c4 step %c1 {
      loop.schedule_block "transpose_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg5, %arg4] : !loop.buffer<4x4xf32, global>
        loop.store %0, %arg1[%arg4, %arg5] : !loop.buffer<4x4xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @transposed_2_neg(%arg0: !loop.buffer<4x4xf32, global>, %arg1: !loop.buffer<4x4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c4 step %c1 {
      loop.schedule_block "neg_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x4xf32, global>
        %1 = arith.negf %0 : f32
        loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x4xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @transposed(%arg0: !loop.buffer<4x4xf32, global>) -> !loop.buffer<4x4xf32, global> {
  %0 = loop.alloc : !loop.buffer<4x4xf32, global>
  loop.launch @transposed_0_exp(%arg0, %0) : (!loop.buffer<4x4xf32, global>, !loop.buffer<4x4xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<4x4xf32, global>
  loop.launch @transposed_1_transpose(%0, %1) : (!loop.buffer<4x4xf32, global>, !loop.buffer<4x4xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<4x4xf32, global>
  loop.launch @transposed_2_neg(%1, %2) : (!loop.buffer<4x4xf32, global>, !loop.buffer<4x4xf32, global>) -> ()
  return %2 : !loop.buffer<4x4xf32, global>
}

// -----

// Counter-example: %0 is still read by add after neg, so neg's output cannot take it over;
// add's output can take over neg's (both inputs die there, each read at the written index).

// CHECK-LABEL: func.func @live(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %0 = loop.alloc : !loop.buffer<128xi8, global>
// CHECK-NEXT: %1 = loop.view %0[%c0] : !loop.buffer<128xi8, global> -> !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.launch @live_0_exp(%arg0, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
// CHECK-NEXT: %2 = loop.view %0[%c64] : !loop.buffer<128xi8, global> -> !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.launch @live_1_neg(%1, %2) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
// CHECK-NEXT: loop.launch @live_2_add(%2, %1, %2) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
// CHECK-NEXT: %3 = loop.alloc : !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.launch @live_3_abs(%2, %3) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
// CHECK-NEXT: return %3 : !loop.buffer<16xf32, global>
// CHECK-NEXT: }

loop.kernel @live_0_exp(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%arg3 = %arg2) {
      %0 = loop.load %arg0[%arg3] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%arg3] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @live_1_neg(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c16 step %c1 {
    loop.schedule_block "neg_0" (%arg3 = %arg2) {
      %0 = loop.load %arg0[%arg3] : !loop.buffer<16xf32, global>
      %1 = arith.negf %0 : f32
      loop.store %1, %arg1[%arg3] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @live_2_add(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>, %arg2: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg3 = %c0 to %c16 step %c1 {
    loop.schedule_block "add_0" (%arg4 = %arg3) {
      %0 = loop.load %arg0[%arg4] : !loop.buffer<16xf32, global>
      %1 = loop.load %arg1[%arg4] : !loop.buffer<16xf32, global>
      %2 = arith.addf %0, %1 : f32
      loop.store %2, %arg2[%arg4] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @live_3_abs(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c16 step %c1 {
    loop.schedule_block "abs_0" (%arg3 = %arg2) {
      %0 = loop.load %arg0[%arg3] : !loop.buffer<16xf32, global>
      %1 = math.absf %0 : f32
      loop.store %1, %arg1[%arg3] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @live(%arg0: !loop.buffer<16xf32, global>) -> !loop.buffer<16xf32, global> {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @live_0_exp(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @live_1_neg(%0, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @live_2_add(%1, %0, %2) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %3 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @live_3_abs(%2, %3) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %3 : !loop.buffer<16xf32, global>
}

// -----

// Dynamic sizes: the arena's size is computed from loop.dim of the argument, each slot
// rounded up to 64 bytes.

// CHECK-LABEL: func.func @dyn(%arg0: !loop.buffer<?x16xf32, global>) -> !loop.buffer<?x16xf32, global> {
// CHECK-NEXT: %0 = loop.dim %arg0, 0 : !loop.buffer<?x16xf32, global>
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %1 = arith.muli %0, %c64 : index
// CHECK-NEXT: %c63 = arith.constant 63 : index
// CHECK-NEXT: %2 = arith.addi %1, %c63 : index
// CHECK-NEXT: %3 = arith.divui %2, %c64 : index
// CHECK-NEXT: %4 = arith.muli %3, %c64 : index
// CHECK-NEXT: %5 = arith.addi %4, %4 : index
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %6 = loop.alloc(%5) : !loop.buffer<?xi8, global>
// CHECK-NEXT: %7 = loop.view %6[%c0](%0) : !loop.buffer<?xi8, global> -> !loop.buffer<?x16xf32, global>
// CHECK-NEXT: loop.launch @dyn_0_exp(%arg0, %7, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
// CHECK-NEXT: %8 = loop.view %6[%4](%0) : !loop.buffer<?xi8, global> -> !loop.buffer<16x?xf32, global>
// CHECK-NEXT: loop.launch @dyn_1_transpose(%7, %8, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<16x?xf32, global>, index) -> ()
// CHECK-NEXT: %9 = loop.view %6[%c0](%0) : !loop.buffer<?xi8, global> -> !loop.buffer<?x16xf32, global>
// CHECK-NEXT: loop.launch @dyn_2_transpose(%8, %9, %0) : (!loop.buffer<16x?xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
// CHECK-NEXT: %10 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
// CHECK-NEXT: loop.launch @dyn_3_neg(%9, %10, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
// CHECK-NEXT: return %10 : !loop.buffer<?x16xf32, global>
// CHECK-NEXT: }

loop.kernel @dyn_0_exp(%arg0: !loop.buffer<?x16xf32, global>, %arg1: !loop.buffer<?x16xf32, global>, %arg2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
    loop.for serial %arg4 = %c0 to %c16 step %c1 {
      loop.schedule_block "exp_0" (%arg5 = %arg3, %arg6 = %arg4) {
        %0 = loop.load %arg0[%arg5, %arg6] : !loop.buffer<?x16xf32, global>
        %1 = math.exp %0 : f32
        loop.store %1, %arg1[%arg5, %arg6] : !loop.buffer<?x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @dyn_1_transpose(%arg0: !loop.buffer<?x16xf32, global>, %arg1: !loop.buffer<16x?xf32, global>, %arg2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg3 = %c0 to %c16 step %c1 {
    loop.for serial %arg4 = %c0 to %arg2 step %c1 {
      loop.schedule_block "transpose_0" (%arg5 = %arg3, %arg6 = %arg4) {
        %0 = loop.load %arg0[%arg6, %arg5] : !loop.buffer<?x16xf32, global>
        loop.store %0, %arg1[%arg5, %arg6] : !loop.buffer<16x?xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @dyn_2_transpose(%arg0: !loop.buffer<16x?xf32, global>, %arg1: !loop.buffer<?x16xf32, global>, %arg2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
    loop.for serial %arg4 = %c0 to %c16 step %c1 {
      loop.schedule_block "transpose_0" (%arg5 = %arg3, %arg6 = %arg4) {
        %0 = loop.load %arg0[%arg6, %arg5] : !loop.buffer<16x?xf32, global>
        loop.store %0, %arg1[%arg5, %arg6] : !loop.buffer<?x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @dyn_3_neg(%arg0: !loop.buffer<?x16xf32, global>, %arg1: !loop.buffer<?x16xf32, global>, %arg2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
    loop.for serial %arg4 = %c0 to %c16 step %c1 {
      loop.schedule_block "neg_0" (%arg5 = %arg3, %arg6 = %arg4) {
        %0 = loop.load %arg0[%arg5, %arg6] : !loop.buffer<?x16xf32, global>
        %1 = arith.negf %0 : f32
        loop.store %1, %arg1[%arg5, %arg6] : !loop.buffer<?x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @dyn(%arg0: !loop.buffer<?x16xf32, global>) -> !loop.buffer<?x16xf32, global> {
  %0 = loop.dim %arg0, 0 : !loop.buffer<?x16xf32, global>
  %1 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
  loop.launch @dyn_0_exp(%arg0, %1, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
  %2 = loop.alloc(%0) : !loop.buffer<16x?xf32, global>
  loop.launch @dyn_1_transpose(%1, %2, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<16x?xf32, global>, index) -> ()
  %3 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
  loop.launch @dyn_2_transpose(%2, %3, %0) : (!loop.buffer<16x?xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
  %4 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
  loop.launch @dyn_3_neg(%3, %4, %0) : (!loop.buffer<?x16xf32, global>, !loop.buffer<?x16xf32, global>, index) -> ()
  return %4 : !loop.buffer<?x16xf32, global>
}

// -----

// Hoisting: the sizes %2 and %5 are computed after the first launch; they are pure index
// arithmetic on the arguments, so they move to the top, where the arena's size needs them.

// CHECK-LABEL: func.func @hoist(%arg0: !loop.buffer<?xf32, global>, %arg1: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
// CHECK-NEXT: %0 = loop.dim %arg0, 0 : !loop.buffer<?xf32, global>
// CHECK-NEXT: %1 = loop.dim %arg1, 0 : !loop.buffer<?xf32, global>
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %2 = arith.addi %c0, %0 : index
// CHECK-NEXT: %3 = arith.addi %2, %1 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %4 = arith.muli %0, %c4 : index
// CHECK-NEXT: %c63 = arith.constant 63 : index
// CHECK-NEXT: %5 = arith.addi %4, %c63 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %6 = arith.divui %5, %c64 : index
// CHECK-NEXT: %7 = arith.muli %6, %c64 : index
// CHECK-NEXT: %8 = arith.muli %1, %c4 : index
// CHECK-NEXT: %9 = arith.addi %8, %c63 : index
// CHECK-NEXT: %10 = arith.divui %9, %c64 : index
// CHECK-NEXT: %11 = arith.muli %10, %c64 : index
// CHECK-NEXT: %12 = arith.addi %7, %11 : index
// CHECK-NEXT: %13 = arith.muli %3, %c4 : index
// CHECK-NEXT: %14 = arith.addi %13, %c63 : index
// CHECK-NEXT: %15 = arith.divui %14, %c64 : index
// CHECK-NEXT: %16 = arith.muli %15, %c64 : index
// CHECK-NEXT: %17 = arith.addi %12, %16 : index
// CHECK-NEXT: %18 = loop.alloc(%17) : !loop.buffer<?xi8, global>
// CHECK-NEXT: %19 = loop.view %18[%c0](%0) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.launch @hoist_0_exp(%arg0, %19, %0) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
// CHECK-NEXT: %20 = loop.view %18[%7](%1) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.launch @hoist_1_exp(%arg1, %20, %1) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
// CHECK-NEXT: %21 = loop.view %18[%12](%3) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.launch @hoist_2_concat(%19, %20, %21, %0, %1, %3) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index, index, index) -> ()
// CHECK-NEXT: %22 = loop.alloc(%3) : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.launch @hoist_3_neg(%21, %22, %3) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
// CHECK-NEXT: return %22 : !loop.buffer<?xf32, global>
// CHECK-NEXT: }

loop.kernel @hoist_0_exp(%arg0: !loop.buffer<?xf32, global>, %arg1: !loop.buffer<?xf32, global>, %arg2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
    loop.schedule_block "exp_0" (%arg4 = %arg3) {
      %0 = loop.load %arg0[%arg4] : !loop.buffer<?xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%arg4] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @hoist_1_exp(%arg0: !loop.buffer<?xf32, global>, %arg1: !loop.buffer<?xf32, global>, %arg2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
    loop.schedule_block "exp_0" (%arg4 = %arg3) {
      %0 = loop.load %arg0[%arg4] : !loop.buffer<?xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%arg4] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @hoist_2_concat(%arg0: !loop.buffer<?xf32, global>, %arg1: !loop.buffer<?xf32, global>, %arg2: !loop.buffer<?xf32, global>, %arg3: index, %arg4: index, %arg5: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %arg6 = %c0 to %arg5 step %c1 {
    %0 = loop.alloc : !loop.buffer<f32, local>
    loop.schedule_block "concat_0" (%arg7 = %arg6) {
      %1 = arith.subi %arg7, %c0 : index
      %2 = arith.cmpi slt, %1, %arg3 : index
      loop.if %2 {
        %4 = loop.load %arg0[%1] : !loop.buffer<?xf32, global>
        loop.store %4, %0[] : !loop.buffer<f32, local>
        loop.yield
      } else {
        %4 = arith.addi %c0, %arg3 : index
        %5 = arith.subi %arg7, %4 : index
        %6 = loop.load %arg1[%5] : !loop.buffer<?xf32, global>
        loop.store %6, %0[] : !loop.buffer<f32, local>
        loop.yield
      }
      %3 = loop.load %0[] : !loop.buffer<f32, local>
      loop.store %3, %arg2[%arg7] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @hoist_3_neg(%arg0: !loop.buffer<?xf32, global>, %arg1: !loop.buffer<?xf32, global>, %arg2: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
    loop.schedule_block "neg_0" (%arg4 = %arg3) {
      %0 = loop.load %arg0[%arg4] : !loop.buffer<?xf32, global>
      %1 = arith.negf %0 : f32
      loop.store %1, %arg1[%arg4] : !loop.buffer<?xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @hoist(%arg0: !loop.buffer<?xf32, global>, %arg1: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %0 = loop.dim %arg0, 0 : !loop.buffer<?xf32, global>
  %1 = loop.alloc(%0) : !loop.buffer<?xf32, global>
  loop.launch @hoist_0_exp(%arg0, %1, %0) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  %2 = loop.dim %arg1, 0 : !loop.buffer<?xf32, global>
  %3 = loop.alloc(%2) : !loop.buffer<?xf32, global>
  loop.launch @hoist_1_exp(%arg1, %3, %2) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  %c0 = arith.constant 0 : index
  %4 = arith.addi %c0, %0 : index
  %5 = arith.addi %4, %2 : index
  %6 = loop.alloc(%5) : !loop.buffer<?xf32, global>
  loop.launch @hoist_2_concat(%1, %3, %6, %0, %2, %5) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index, index, index) -> ()
  %7 = loop.alloc(%5) : !loop.buffer<?xf32, global>
  loop.launch @hoist_3_neg(%6, %7, %5) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %7 : !loop.buffer<?xf32, global>
}

// -----

// Returned buffers outlive the call: nothing is planned, the function is unchanged.

// CHECK-LABEL: func.func @returned(%arg0: !loop.buffer<16xf32, global>) -> (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) {
// CHECK-NEXT: %0 = loop.alloc : !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.launch @returned_0_exp(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
// CHECK-NEXT: %1 = loop.alloc : !loop.buffer<16xf32, global>
// CHECK-NEXT: loop.launch @returned_1_neg(%0, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
// CHECK-NEXT: return %0, %1 : !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>
// CHECK-NEXT: }

loop.kernel @returned_0_exp(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c16 step %c1 {
    loop.schedule_block "exp_0" (%arg3 = %arg2) {
      %0 = loop.load %arg0[%arg3] : !loop.buffer<16xf32, global>
      %1 = math.exp %0 : f32
      loop.store %1, %arg1[%arg3] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
loop.kernel @returned_1_neg(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c16 step %c1 {
    loop.schedule_block "neg_0" (%arg3 = %arg2) {
      %0 = loop.load %arg0[%arg3] : !loop.buffer<16xf32, global>
      %1 = arith.negf %0 : f32
      loop.store %1, %arg1[%arg3] : !loop.buffer<16xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @returned(%arg0: !loop.buffer<16xf32, global>) -> (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) {
  %0 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @returned_0_exp(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  %1 = loop.alloc : !loop.buffer<16xf32, global>
  loop.launch @returned_1_neg(%0, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
  return %0, %1 : !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>
}

// -----

// A reshaped intermediate: `loop.reshape` shares %0's memory, so %0 lives until the reshape's
// last use (the second copy) and its slot is not %1's. The second copy reads each element where
// it writes it, yet %0 is not reused in place: a reshape of it is what the launch reads.

// CHECK-LABEL: func.func @reshaped(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
// CHECK:      %[[ARENA:.*]] = loop.alloc : !loop.buffer<512xi8, global>
// CHECK-NEXT: %[[A:.*]] = loop.view %[[ARENA]][%c0] : !loop.buffer<512xi8, global> -> !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @copy(%arg0, %[[A]])
// CHECK-NEXT: %[[R:.*]] = loop.reshape %[[A]] : !loop.buffer<4x16xf32, global> -> !loop.buffer<4x16xf32, global>
// CHECK-NEXT: %[[B:.*]] = loop.view %[[ARENA]][%c256] : !loop.buffer<512xi8, global> -> !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @copy(%[[R]], %[[B]])
// CHECK-NEXT: %[[C:.*]] = loop.alloc : !loop.buffer<4x16xf32, global>
// CHECK-NEXT: loop.launch @copy(%[[B]], %[[C]])
// CHECK-NEXT: return %[[C]]

loop.kernel @copy(%arg0: !loop.buffer<4x16xf32, global>, %arg1: !loop.buffer<4x16xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  loop.for parallel %arg2 = %c0 to %c4 step %c1 {
    loop.for serial %arg3 = %c0 to %c16 step %c1 {
      loop.schedule_block "copy_0" (%arg4 = %arg2, %arg5 = %arg3) {
        %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.store %0, %arg1[%arg4, %arg5] : !loop.buffer<4x16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @reshaped(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
  %0 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @copy(%arg0, %0) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  %r = loop.reshape %0 : !loop.buffer<4x16xf32, global> -> !loop.buffer<4x16xf32, global>
  %1 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @copy(%r, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  %2 = loop.alloc : !loop.buffer<4x16xf32, global>
  loop.launch @copy(%1, %2) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
  return %2 : !loop.buffer<4x16xf32, global>
}
