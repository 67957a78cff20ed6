// RUN: dlc-opt %s --pipeline=decompose,fuse,lower --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower{read-through=false} --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: dlc-opt %s --pipeline=decompose,fuse,lower --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: dlc-run %s --entry=transpose_add --check --no-cache | FileCheck %s --check-prefix=EXEC
// RUN: dlc-run %s --entry=gather_chain --check --no-cache | FileCheck %s --check-prefix=EXEC
// RUN: dlc-run %s --entry=im2col --check --no-cache | FileCheck %s --check-prefix=EXEC
// RUN: dlc-run %s --entry=im2col --cpu=x86-64-v3 --check --no-cache | FileCheck %s --check-prefix=EXEC
// RUN: dlc-run %s --entry=slices --check --no-cache | FileCheck %s --check-prefix=EXEC
// RUN: dlc-run %s --entry=slice_of_transpose --check --no-cache | FileCheck %s --check-prefix=EXEC

// Movement ops read through: a transpose, slice, reshape or gather whose consumers all load
// its elements where they need them has no kernel; each consumer loads from the op's operand
// at the index the op maps its point to. The compiled programs match the interpreter.
// EXEC: check output 0: {{.*}}: ok
// STATS: (S) 12 num-read-through

// A transpose read by an elementwise fusion: one kernel, loading the argument transposed.
// CHECK-LABEL: loop.kernel @transpose_add_0_fusion(%arg0: !loop.buffer<8x4xf32, global> {loop.noalias}, %arg1: !loop.buffer<4x8xf32, global> {loop.noalias}, %arg2: !loop.buffer<4x8xf32, global> {loop.noalias}) {
// CHECK:         loop.for parallel %[[I:.*]] = %c0 to %c4
// CHECK:           loop.for serial %[[J:.*]] = %c0 to %c8
// CHECK:             loop.schedule_block "add_0" (%[[P:.*]] = %[[I]], %[[Q:.*]] = %[[J]])
// CHECK:               loop.load %arg0[%[[Q]], %[[P]]] : !loop.buffer<8x4xf32, global>
// CHECK-NOT:   loop.kernel
// CHECK-LABEL: func.func @transpose_add(
// CHECK-NEXT:    loop.alloc
// CHECK-NEXT:    loop.launch @transpose_add_0_fusion(%arg0, %arg1, %{{.*}})
// OFF-LABEL: func.func @transpose_add(
// OFF:           loop.launch @transpose_add_0_transpose
// OFF:           loop.launch @transpose_add_1_fusion
func.func @transpose_add(%x: tensor<8x4xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %s = graph.add %t, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %r = graph.relu %s : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A chain composes: a gather (a negative index counts from the end), a reshape and a
// transpose, read by a concat, are one kernel. The gather's indices are a constant, every
// one in range, so the kernel declares none for the runtime to check (indices from an
// argument are checked: test/dlc-run/gather-bounds.mlir); the negative one still wraps.
// CHECK-LABEL: loop.kernel @gather_chain_0_concat(%arg0: !loop.buffer<4x6xf32, global> {loop.noalias}, %arg1: !loop.buffer<3x2xi64, global> {loop.noalias}, %arg2: !loop.buffer<1x12xf32, global> {loop.noalias}, %arg3: !loop.buffer<3x12xf32, global> {loop.noalias}) {
// CHECK:         loop.load %arg1
// CHECK:         arith.cmpi slt
// CHECK:         arith.select
// CHECK:         loop.load %arg0
// CHECK-NOT:   loop.kernel
// CHECK-LABEL: func.func @gather_chain(
// CHECK:         loop.launch @gather_chain_0_concat(%arg0, %{{.*}}, %arg1, %{{.*}})
// CHECK-NOT:     loop.launch
// OFF-LABEL: func.func @gather_chain(
// OFF:           loop.launch @gather_chain_0_gather
// OFF:           loop.reshape
// OFF:           loop.launch @gather_chain_1_transpose
// OFF:           loop.launch @gather_chain_2_concat
func.func @gather_chain(%x: tensor<4x6xf32>, %y: tensor<1x12xf32>) -> tensor<3x12xf32> {
  %i = graph.constant dense<[[5, 0], [-1, 2], [3, 4]]> : tensor<3x2xi64>
  %g = graph.gather %x, %i {axis = 1 : i64} : tensor<4x6xf32>, tensor<3x2xi64> -> tensor<4x3x2xf32>
  %r = graph.reshape %g {shape = array<i64: 12, 2>} : tensor<4x3x2xf32> -> tensor<12x2xf32>
  %t = graph.transpose %r {perm = array<i64: 1, 0>} : tensor<12x2xf32> -> tensor<2x12xf32>
  %c = graph.concat %t, %y {axis = 0 : i64} : tensor<2x12xf32>, tensor<1x12xf32> -> tensor<3x12xf32>
  return %c : tensor<3x12xf32>
}

// -----

// An im2col convolution (stride 2): its matmul reads the window gather through, with no
// gather kernel. The table's load at the column gives each column's index into the padded
// input, a load `tile` copies column by column into its packed block (`Class::Gather` in
// passes/src/loops/cpu/tile).
// CHECK-LABEL: loop.kernel @im2col_1_matmul(%arg0: !loop.buffer<1x8x36xf32, global> {loop.noalias}, %arg1: !loop.buffer<1x4x196xf32, global> {loop.noalias}, %arg2: !loop.buffer<9x36xi32, global> {loop.noalias}
// CHECK:         %[[TAP:.*]] = arith.remui %{{.*}}, %c9 : index
// CHECK:         %[[CHANNEL:.*]] = arith.divui %{{.*}}, %c9 : index
// CHECK:         %[[T:.*]] = loop.load %arg2[%[[TAP]], %{{.*}}] : !loop.buffer<9x36xi32, global>
// CHECK:         %[[AT:.*]] = arith.index_cast %[[T]] : i32 to index
// CHECK:         loop.load %arg1[%c0, %[[CHANNEL]], %[[AT]]] : !loop.buffer<1x4x196xf32, global>
// CHECK-NOT:   loop.kernel
// CHECK-LABEL: func.func @im2col(
// CHECK-NOT:     _gather
// OFF-LABEL: func.func @im2col(
// OFF:           loop.launch @im2col_1_gather
// OFF:           loop.launch @im2col_2_matmul
func.func @im2col(%x: tensor<1x4x12x12xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x4x12x12xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Two slices of one slice, read by one fusion: the three slices are read through, and each
// read composes both offsets and steps.
// CHECK-LABEL: loop.kernel @slices_0_fusion(%arg0: !loop.buffer<6x10xf32, global> {loop.noalias}, %arg1: !loop.buffer<2x4xf32, global> {loop.noalias}) {
// CHECK-NOT:   loop.kernel
// CHECK-LABEL: func.func @slices(
// CHECK-NEXT:    loop.alloc
// CHECK-NEXT:    loop.launch @slices_0_fusion
// CHECK-NEXT:    return
func.func @slices(%x: tensor<6x10xf32>) -> tensor<2x4xf32> {
  %a = graph.slice %x {starts = array<i64: 1, 1>, ends = array<i64: 5, 9>, steps = array<i64: 2, 1>} : tensor<6x10xf32> -> tensor<2x8xf32>
  %b = graph.slice %a {starts = array<i64: 0, 0>, ends = array<i64: 2, 8>, steps = array<i64: 1, 2>} : tensor<2x8xf32> -> tensor<2x4xf32>
  %c = graph.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 2, 8>, steps = array<i64: 1, 2>} : tensor<2x8xf32> -> tensor<2x4xf32>
  %m = graph.mul %b, %c : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %s = graph.sub %m, %b : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

// -----

// A slice of a transpose that keeps the innermost dim, read by a reduction: one kernel.
// CHECK-LABEL: loop.kernel @slice_of_transpose_0_reduce_sum(%arg0: !loop.buffer<3x5x4xf32, global> {loop.noalias}, %arg1: !loop.buffer<4x2xf32, global> {loop.noalias}) {
// CHECK-NOT:   loop.kernel
// CHECK-LABEL: func.func @slice_of_transpose(
func.func @slice_of_transpose(%x: tensor<3x5x4xf32>) -> tensor<4x2xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<3x5x4xf32> -> tensor<5x3x4xf32>
  %s = graph.slice %t {starts = array<i64: 1, 0, 0>, ends = array<i64: 3, 3, 4>, steps = array<i64: 1, 1, 1>} : tensor<5x3x4xf32> -> tensor<2x3x4xf32>
  %p = graph.transpose %s {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %r = graph.reduce_sum %p {axes = array<i64: 2>} : tensor<4x2x3xf32> -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// Counter-examples: a transpose a matmul reads keeps its kernel (the matmul's vector loads
// want contiguous rows); so does one that is returned as well as read, and one that is padded
// (its kernel writes the padded buffer).
// CHECK-LABEL: func.func @kept(
// CHECK:         loop.launch @kept_0_transpose
// CHECK:         loop.launch @kept_1_matmul
// CHECK:         loop.launch @kept_2_transpose
// CHECK:         loop.launch @kept_3_relu
// CHECK:         loop.launch @kept_4_transpose
func.func @kept(%x: tensor<8x4xf32>, %w: tensor<8x3xf32>) -> (tensor<4x3xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x10xf32>) {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %m = graph.matmul %t, %w : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %u = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %r = graph.relu %u : tensor<4x8xf32>
  %v = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  %p = graph.pad %v {low = array<i64: 1, 1>, high = array<i64: 1, 1>, value = 0.0 : f32} : tensor<4x8xf32> -> tensor<6x10xf32>
  return %m, %u, %r, %p : tensor<4x3xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<6x10xf32>
}

// -----

// Edge cases: a transpose over a `?` dim keeps its kernel (the consumer would need the sizes
// of the intermediate dims); so does one that moves the innermost dim of an operand larger
// than a 16th of any L2 (512 KiB: the exp would read it with a stride of 128 elements); and
// a gather whose indices are data keeps the transpose before it, since its kernel checks the
// indices against that transpose's buffer. A gather is read through by data-movement kernels
// only (its loads would leave an elementwise consumer's loop scalar), so the exp reads it
// from the gather's kernel.
// CHECK-LABEL: func.func @dynamic(
// CHECK:         loop.launch @dynamic_0_transpose
// CHECK:         loop.launch @dynamic_1_exp
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<?x4xf32> -> tensor<4x?xf32>
  %e = graph.exp %t : tensor<4x?xf32>
  return %e : tensor<4x?xf32>
}
// CHECK-LABEL: func.func @strided(
// CHECK:         loop.launch @strided_{{[0-9]+}}_transpose
// CHECK:         loop.launch @strided_{{[0-9]+}}_exp
func.func @strided(%x: tensor<1024x128xf32>) -> tensor<128x1024xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<1024x128xf32> -> tensor<128x1024xf32>
  %e = graph.exp %t : tensor<128x1024xf32>
  return %e : tensor<128x1024xf32>
}
// CHECK-LABEL: func.func @data_indices(
// CHECK:         loop.launch @data_indices_{{[0-9]+}}_transpose
// CHECK:         loop.launch @data_indices_{{[0-9]+}}_gather
// CHECK:         loop.launch @data_indices_{{[0-9]+}}_exp
// CHECK-NOT:     loop.launch
func.func @data_indices(%x: tensor<4x6xf32>, %i: tensor<3xi64>) -> tensor<6x3xf32> {
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<6x4xf32>
  %g = graph.gather %t, %i {axis = 1 : i64} : tensor<6x4xf32>, tensor<3xi64> -> tensor<6x3xf32>
  %e = graph.exp %g : tensor<6x3xf32>
  return %e : tensor<6x3xf32>
}
