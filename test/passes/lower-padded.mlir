// RUN: dlc-opt %s --pipeline=lower{cpu=x86-64-v4} --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=lower{padded-outputs=false} --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: dlc-opt %s --pipeline=lower{target=gpu} --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: dlc-opt %s --pipeline=lower{cpu=x86-64-v3} --split-input-file | FileCheck %s --check-prefix=V3
// RUN: dlc-opt %s --pipeline=lower{cpu=x86-64-v4} --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// A result that is only padded is written into the pad's buffer: the kernel stores each
// element at its place inside the padding (shifted by `low`) and a second nest stores the pad
// value on the border (whole rows of the border, the columns before and after the inner part
// of the others); the pad is no kernel. With padded-outputs=false, or for the GPU, the pad is
// a kernel of its own.

// CHECK-LABEL: loop.kernel @relu_pad_0_relu(%arg0: !loop.buffer<2x2x3xf32, global> {loop.noalias}, %arg1: !loop.buffer<2x4x5xf32, global> {loop.noalias}) {
// CHECK:         loop.schedule_block "relu_0"
// CHECK:           %[[Y:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK:           %[[X:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK:           loop.store %{{.*}}, %arg1[%{{.*}}, %[[Y]], %[[X]]] : !loop.buffer<2x4x5xf32, global>
// CHECK:         loop.schedule_block "pad_border_1"
// CHECK:           loop.if
// CHECK-NEXT:        loop.for serial %{{.*}} = %c0 to %c1
// CHECK-NEXT:          loop.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}, %{{.*}}] : !loop.buffer<2x4x5xf32, global>
// CHECK:             loop.for serial %{{.*}} = %c4 to %c5
// CHECK:           } else {
// CHECK-NEXT:        loop.for serial %{{.*}} = %c0 to %c5
// CHECK-NOT:   loop.kernel
// CHECK-LABEL: func.func @relu_pad(
// CHECK-NEXT:    %0 = loop.alloc : !loop.buffer<2x4x5xf32, global>
// CHECK-NEXT:    loop.launch @relu_pad_0_relu(%arg0, %0)
// CHECK-NEXT:    return %0 : !loop.buffer<2x4x5xf32, global>
// OFF-LABEL: func.func @relu_pad(
// OFF:           loop.launch @relu_pad_0_relu
// OFF:           loop.launch @relu_pad_1_pad
// The statistics count over the splits: one padded output in each of two, and the three copy
// kernels of @pads_stay below, which write padded outputs too.
// STATS: (S) 6 num-padded-outputs
// STATS: (S) 4 num-pad-copies
// STATS: (S) 1 num-read-through
func.func @relu_pad(%x: tensor<2x2x3xf32>) -> tensor<2x4x5xf32> {
  %s = graph.relu %x : tensor<2x2x3xf32>
  %p = graph.pad %s {high = array<i64: 0, 1, 1>, low = array<i64: 0, 1, 1>, value = -1.0 : f32} : tensor<2x2x3xf32> -> tensor<2x4x5xf32>
  return %p : tensor<2x4x5xf32>
}

// -----

// Counter-examples: a result the pad shares with another use, a pad of an argument and a pad
// of a reshape (the store would divide per element) are not written padded by their
// producers; each gets a copy kernel (a same-type cast) that writes the padded buffer, with
// its border nest. The pad of a `?` dim stays a pad kernel.
// CHECK-LABEL: loop.kernel @pads_stay_2_cast(%arg0: !loop.buffer<4xf32, global> {loop.noalias}, %arg1: !loop.buffer<6xf32, global> {loop.noalias}) {
// CHECK:         loop.store %{{.*}}, %arg1[%{{.*}}] : !loop.buffer<6xf32, global>
// CHECK:         loop.schedule_block "pad_border_1"
// CHECK-LABEL: func.func @pads_stay(
// CHECK:         loop.launch @pads_stay_1_cast
// CHECK:         loop.launch @pads_stay_2_cast(%arg0,
// CHECK:         loop.launch @pads_stay_3_neg
// CHECK:         loop.launch @pads_stay_4_pad
// CHECK:         loop.launch @pads_stay_6_cast
func.func @pads_stay(%x: tensor<4xf32>, %d: tensor<?xf32>) -> (tensor<4xf32>, tensor<6xf32>, tensor<6xf32>, tensor<?xf32>, tensor<4x4xf32>) {
  %e = graph.exp %x : tensor<4xf32>
  %p = graph.pad %e {high = array<i64: 1>, low = array<i64: 1>, value = 0.0 : f32} : tensor<4xf32> -> tensor<6xf32>
  %q = graph.pad %x {high = array<i64: 1>, low = array<i64: 1>, value = 0.0 : f32} : tensor<4xf32> -> tensor<6xf32>
  %n = graph.neg %d : tensor<?xf32>
  %r = graph.pad %n {high = array<i64: 1>, low = array<i64: 1>, value = 0.0 : f32} : tensor<?xf32> -> tensor<?xf32>
  %a = graph.abs %x : tensor<4xf32>
  %s = graph.reshape %a {shape = array<i64: 2, 2>} : tensor<4xf32> -> tensor<2x2xf32>
  %t = graph.pad %s {high = array<i64: 1, 1>, low = array<i64: 1, 1>, value = 0.0 : f32} : tensor<2x2xf32> -> tensor<4x4xf32>
  return %e, %p, %q, %r, %t : tensor<4xf32>, tensor<6xf32>, tensor<6xf32>, tensor<?xf32>, tensor<4x4xf32>
}

// -----

// Edge case: an empty result (a dim of 0) runs no iteration of its own nest; the border nest
// writes every element of the padded buffer.
// CHECK-LABEL: loop.kernel @empty_0_neg
// CHECK:         loop.schedule_block "pad_border_1"
// CHECK-LABEL: func.func @empty(
// CHECK-NOT:     loop.launch @empty_{{[0-9]+}}_pad
func.func @empty(%x: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %n = graph.neg %x : tensor<0x3xf32>
  %p = graph.pad %n {high = array<i64: 1, 0>, low = array<i64: 1, 0>, value = 7.0 : f32} : tensor<0x3xf32> -> tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}

// -----

// A pad of an argument read only by direct depthwise convolutions (one channel per group)
// whose output rows hold a vector (20 columns, 16 lanes of f32 with AVX-512; with AVX2, one
// of the two 8-lane vectors of a row reads inside it, enough) is read through: each
// convolution loads its input with `loop.load_padded` at the point less `low`, the pad's
// value outside it, and the pad has neither a kernel nor a copy. A pad that is also returned
// keeps its copy kernel (counter-example), as do the GPU and padded-outputs=false (a pad
// kernel).
// CHECK-LABEL: loop.kernel @dw_0_conv2d(
// CHECK:         loop.schedule_block "conv2d_0"
// CHECK:           %[[H:.*]] = arith.addi %{{.*}}, %c-1 : index
// CHECK:           loop.load_padded %arg0[%{{.*}}, %{{.*}}, %[[H]], %{{.*}}], %cst : !loop.buffer<1x4x6x20xf32, global>
// CHECK-LABEL: loop.kernel @dw_1_conv2d(
// CHECK:           loop.load_padded %arg0[
// CHECK-LABEL: loop.kernel @dw_2_cast(
// CHECK-LABEL: loop.kernel @dw_3_conv2d(
// CHECK-NOT:       loop.load_padded
// CHECK-LABEL: func.func @dw(
// CHECK-NEXT:    loop.alloc
// CHECK-NEXT:    loop.launch @dw_0_conv2d(%arg0, %arg1,
// CHECK-NEXT:    loop.alloc
// CHECK-NEXT:    loop.launch @dw_1_conv2d(%arg0, %arg1,
// OFF-LABEL: func.func @dw(
// OFF:           loop.launch @dw_0_pad
// V3-LABEL: func.func @dw(
// V3-NEXT:       loop.alloc
// V3-NEXT:       loop.launch @dw_0_conv2d(%arg0, %arg1,
func.func @dw(%x: tensor<1x4x6x20xf32>, %w: tensor<4x1x3x3xf32>) -> (tensor<1x4x6x20xf32>, tensor<1x4x6x20xf32>, tensor<1x4x8x22xf32>, tensor<1x4x6x20xf32>) {
  %p = graph.pad %x {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, value = 0.0 : f32} : tensor<1x4x6x20xf32> -> tensor<1x4x8x22xf32>
  %a = graph.conv2d %p, %w {groups = 4 : i64} : tensor<1x4x8x22xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x6x20xf32>
  %b = graph.conv2d %p, %w {groups = 4 : i64} : tensor<1x4x8x22xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x6x20xf32>
  %r = graph.pad %x {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, value = 0.0 : f32} : tensor<1x4x6x20xf32> -> tensor<1x4x8x22xf32>
  %c = graph.conv2d %r, %w {groups = 4 : i64} : tensor<1x4x8x22xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x6x20xf32>
  return %a, %b, %r, %c : tensor<1x4x6x20xf32>, tensor<1x4x6x20xf32>, tensor<1x4x8x22xf32>, tensor<1x4x6x20xf32>
}
