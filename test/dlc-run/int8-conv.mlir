// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower,tile{vnni=true cpu=x86-64-v4}' -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: dlc-run %t.mlir --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-run %t.mlir --check --no-cache | FileCheck %s

// Convolutions of bytes (`ui8` input, `i8` weights -> `i32`: ConvInteger and the QDQ
// pattern after import) compiled and compared with the interpreters. Both run as im2col, the
// product a byte matmul whose `i8` weights are the signed operand of `loop.dot4` (the first
// has 16·9 = 144 taps, which four divides; the second's 3·9 = 27 keep the integer tile), the
// padding the integer 0. The second, with a column stride of 1 and 40 output columns, would
// run direct as a float convolution.

// IR-COUNT-1: loop.dot4
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok

func.func @main(%x: tensor<1x16x20x20xui8>, %w: tensor<32x16x3x3xi8>, %y: tensor<2x3x40x40xui8>, %v: tensor<8x3x3x3xi8>)
    -> (tensor<1x32x10x10xi32>, tensor<2x8x40x40xi32>) {
  %0 = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x16x20x20xui8>, tensor<32x16x3x3xi8> -> tensor<1x32x10x10xi32>
  %1 = graph.conv2d %y, %v {padding = array<i64: 1, 1, 1, 1>} : tensor<2x3x40x40xui8>, tensor<8x3x3x3xi8> -> tensor<2x8x40x40xi32>
  return %0, %1 : tensor<1x32x10x10xi32>, tensor<2x8x40x40xi32>
}
