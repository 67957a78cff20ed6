// A pool window larger than its padded input has no position: the output is empty (ONNX's
// output-size formula gives 0 and onnxruntime returns an empty tensor), whether the sizes are
// static (the verifier infers 0; `decompose` replaces a composite whose results are all empty
// by fills) or `?` (the host computes 0). The interpreter agrees. (A convolution's window
// larger than its input stays a verifier error, as onnxruntime refuses it.)
// RUN: dlc-run %s --entry static --check --no-cache | FileCheck %s --check-prefix=STATIC
// RUN: dlc-run %s --entry dynamic --dynamic-size 2 --check --no-cache | FileCheck %s --check-prefix=DYN2
// RUN: dlc-run %s --entry dynamic --dynamic-size 4 --check --no-cache | FileCheck %s --check-prefix=DYN4

// STATIC: output 0: f32 [1, 2, 0, 0]
// STATIC: check output 0: {{.*}}: ok
// DYN2: output 0: f32 [1, 2, 0, 0]
// DYN2: output 1: f32 [1, 2, 0, 0]
// DYN2-COUNT-2: check output {{[01]}}: {{.*}}: ok
// DYN4: output 0: f32 [1, 2, 2, 2]
// DYN4: output 1: f32 [1, 2, 2, 2]
// DYN4-COUNT-2: check output {{[01]}}: {{.*}}: ok
func.func @static(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x0x0xf32> {
  %0 = graph.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<1x2x2x2xf32> -> tensor<1x2x0x0xf32>
  return %0 : tensor<1x2x0x0xf32>
}

func.func @dynamic(%x: tensor<1x2x?x?xf32>) -> (tensor<1x2x?x?xf32>, tensor<1x2x?x?xf32>) {
  %0 = graph.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<1x2x?x?xf32> -> tensor<1x2x?x?xf32>
  %1 = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>} : tensor<1x2x?x?xf32> -> tensor<1x2x?x?xf32>
  return %0, %1 : tensor<1x2x?x?xf32>, tensor<1x2x?x?xf32>
}

