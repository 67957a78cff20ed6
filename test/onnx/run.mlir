// dlc-run on ONNX models: --expected compares with reference outputs (onnx's reference
// evaluator here) and fails on a mismatch; a graph input that must be constant is specialized
// on the value given with --inputs, with a note.
// RUN: rm -rf %t && python3 %S/Inputs/models.py %t
// RUN: dlc-run %t/cnn.onnx --inputs %t/cnn_x.npy --expected %t/cnn_y.npy | FileCheck %s
// RUN: dlc-run %t/cnn.onnx --inputs %t/cnn_x.npy --no-cache | FileCheck %s --check-prefix=IMPORT
// RUN: not dlc-run %t/cnn.onnx --inputs %t/cnn_x.npy --expected %t/cnn_wrong.npy | FileCheck %s --check-prefix=WRONG
// RUN: dlc-run %t/reshape.onnx --inputs %t/reshape_x.npy,%t/reshape_shape.npy --check | FileCheck %s --check-prefix=SPEC
// RUN: dlc-import %t/reshape.onnx --const shape=%t/reshape_shape.npy | FileCheck %s --check-prefix=CONST

// CHECK: output 0: f32 [2, 2]
// CHECK: expected output 0 ({{.*}}cnn_y.npy): max abs err {{.*}}: ok

// Compiled without the model cache, the compile line counts the ONNX import first.
// IMPORT: cnn.onnx: {{[0-9]+}} kernels ({{.*}}), compiled in {{[0-9.]+}} ms (import {{[0-9.]+}} ms, parse

// WRONG: expected output 0 ({{.*}}cnn_wrong.npy): {{.*}}: MISMATCH

// SPEC: note: graph input 'shape' specialized to the given value
// SPEC: output 0: f32 [3, 4]
// SPEC: check output 0: {{.*}}: ok

// CONST: func.func @main(%arg0: tensor<2x6xf32>) -> tensor<3x4xf32>
// CONST: graph.reshape %arg0 {shape = array<i64: 3, 4>}
