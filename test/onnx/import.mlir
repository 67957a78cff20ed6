// dlc-import: a small CNN (Conv, BatchNormalization, Relu, GlobalAveragePool, Flatten, Gemm,
// Softmax) with a symbolic batch dim. The weights stay packed bytes, BatchNormalization folds to
// one scale and one shift per channel, and --dim makes the batch static.
// RUN: rm -rf %t && python3 %S/Inputs/models.py %t
// RUN: dlc-import %t/cnn.onnx | FileCheck %s
// RUN: dlc-import %t/cnn.onnx --dim batch=2 | FileCheck %s --check-prefix=STATIC
// RUN: dlc-import %t/cnn.onnx -o %t/cnn.mlir && dlc-opt %t/cnn.mlir --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func @main(%arg0: tensor<?x3x8x8xf32> {graph.dim_names = ["batch", "", "", ""]}) -> tensor<?x2xf32>
// CHECK: graph.constant dense<"0x{{[0-9A-F]+}}"> : tensor<4x3x3x3xf32>
// CHECK: graph.conv2d %arg0
// CHECK-SAME: padding = array<i64: 1, 1, 1, 1>
// CHECK: graph.constant dense<0.707105041> : tensor<1x4x1x1xf32>
// CHECK: graph.constant dense<-0.35355252> : tensor<1x4x1x1xf32>
// CHECK-NOT: graph.rsqrt
// CHECK: graph.relu
// CHECK: graph.reduce_mean {{.*}}axes = array<i64: 2, 3>, keepdim = true
// CHECK: graph.reshape {{.*}}shape = array<i64: -1, 4>
// CHECK: graph.matmul
// CHECK: graph.softmax {{.*}}axis = 1
// CHECK: return

// STATIC: func.func @main(%arg0: tensor<2x3x8x8xf32>) -> tensor<2x2xf32>

// LOWER: loop.kernel
// LOWER: func.func @main
