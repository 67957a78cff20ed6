// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-run %s --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{cpu=x86-64-v4}' -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: dlc-run %t.mlir --check --no-cache | FileCheck %s
// RUN: dlc-run %t.mlir --backend mlir --check --no-cache | FileCheck %s
// RUN: dlc-opt %t.mlir --pipeline='simplify,vectorize{cpu=x86-64-v4}' | FileCheck %s --check-prefix=VEC
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{cpu=x86-64-v3}' | FileCheck %s --check-prefix=AVX2

// Depthwise convolutions whose padded input no producer's kernel can write (a function
// argument, a reshaped matmul result, a value with another use) read it through their
// padding when their output rows hold a vector (16 lanes of f32 with AVX-512) and, with AVX2
// (8 lanes, masked loads dearer), when at least half of a row's vectors read inside the input
// row: `lower` gives the pad no kernel and loads the input with
// `loop.load_padded`, which `vectorize` makes masked vector loads (`loop.vload_padded`) at
// the row's borders and plain ones inside it. The compiled program matches the interpreter
// on this CPU, with AVX2, from the IR lowered for AVX-512, and through the MLIR backend.
// Counter-examples keep the copy kernel that writes the padded input: a convolution over 7
// columns, a dense one (8 channels per group: `tile` takes plain loads only), and with AVX2 the
// 5x5 over 16 columns (no 8-lane vector of its rows reads inside them).

// IR-NOT: loop.kernel @main_{{[0-9]+}}_pad
// IR: loop.kernel @main_0_fusion
// IR: loop.load_padded
// IR: loop.kernel @main_1_matmul
// IR: loop.kernel @main_2_conv2d
// IR: loop.load_padded
// IR: loop.kernel @main_3_conv2d
// IR: loop.load_padded
// IR: loop.kernel @main_4_conv2d
// IR: loop.load_padded
// IR: loop.kernel @main_5_cast
// IR-NOT: loop.load_padded
// IR-NOT: loop.kernel @main_{{[0-9]+}}_pad
// VEC: loop.vload_padded
// AVX2: loop.kernel @main_0_fusion
// AVX2: loop.load_padded
// AVX2: loop.kernel @main_2_cast
// AVX2: loop.kernel @main_3_conv2d
// AVX2-NOT: loop.load_padded
// AVX2: loop.kernel @main_4_conv2d
// AVX2: loop.load_padded
// AVX2: loop.kernel @main_5_conv2d
// AVX2: loop.load_padded
// AVX2: loop.kernel @main_6_cast
// AVX2-NOT: loop.load_padded
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok
// CHECK: check output 2: {{.*}}: ok
// CHECK: check output 3: {{.*}}: ok
// CHECK: check output 4: {{.*}}: ok
// CHECK: check output 5: {{.*}}: ok

func.func @main(%x: tensor<1x8x6x20xf32>, %dw: tensor<8x1x3x3xf32>, %b: tensor<8x1x1xf32>,
                %a: tensor<16x8xf32>, %y: tensor<8x256xf32>, %dw5: tensor<16x1x5x5xf32>,
                %dw2: tensor<8x1x3x2xf32>, %u: tensor<1x4x5x40xf32>, %du: tensor<4x1x3x3xf32>,
                %v: tensor<1x4x7x7xf32>, %w: tensor<4x8x3x3xf32>)
    -> (tensor<1x8x6x20xf32>, tensor<1x16x16x16xf32>, tensor<1x8x3x21xf32>, tensor<1x4x5x40xf32>,
        tensor<1x4x7x7xf32>, tensor<1x4x6x20xf32>) {
  // Over an argument, padding 1, with bias and relu.
  %0 = graph.conv2d %x, %dw {padding = array<i64: 1, 1, 1, 1>, groups = 8 : i64} : tensor<1x8x6x20xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x6x20xf32>
  %1 = graph.add %0, %b : tensor<1x8x6x20xf32>, tensor<8x1x1xf32> -> tensor<1x8x6x20xf32>
  %2 = graph.relu %1 : tensor<1x8x6x20xf32>
  // Over a matmul result reshaped to 16x16 (a 1x1 convolution run as a matmul), padding 2.
  %3 = graph.matmul %a, %y : tensor<16x8xf32>, tensor<8x256xf32> -> tensor<16x256xf32>
  %4 = graph.reshape %3 {shape = array<i64: 1, 16, 16, 16>} : tensor<16x256xf32> -> tensor<1x16x16x16xf32>
  %5 = graph.conv2d %4, %dw5 {padding = array<i64: 2, 2, 2, 2>, groups = 16 : i64} : tensor<1x16x16x16xf32>, tensor<16x1x5x5xf32> -> tensor<1x16x16x16xf32>
  // Over the argument again (it has other uses), asymmetric padding and a row stride of 2.
  %6 = graph.conv2d %x, %dw2 {padding = array<i64: 1, 0, 0, 2>, strides = array<i64: 2, 1>, groups = 8 : i64} : tensor<1x8x6x20xf32>, tensor<8x1x3x2xf32> -> tensor<1x8x3x21xf32>
  // 40 columns.
  %7 = graph.conv2d %u, %du {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : tensor<1x4x5x40xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x5x40xf32>
  // 7 columns: a copy.
  %8 = graph.conv2d %v, %du {padding = array<i64: 1, 1, 1, 1>, groups = 4 : i64} : tensor<1x4x7x7xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x7x7xf32>
  // A dense convolution over the argument.
  %9 = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x20xf32>, tensor<4x8x3x3xf32> -> tensor<1x4x6x20xf32>
  return %2, %5, %6, %7, %8, %9 : tensor<1x8x6x20xf32>, tensor<1x16x16x16xf32>, tensor<1x8x3x21xf32>, tensor<1x4x5x40xf32>, tensor<1x4x7x7xf32>, tensor<1x4x6x20xf32>
}
