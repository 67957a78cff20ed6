// Kernel count and structure of `decompose,fuse,lower` on each graph example in docs/examples:
// one kernel per fusion group (or unfused op), named after it, with one schedule block per op.
// The transformer block lowers to 12 kernels; passes/src/graph/fuse.rs explains the count.

// RUN: dlc-opt %S/../../docs/examples/mlp.mlir --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=MLP
// RUN: dlc-opt %S/../../docs/examples/transformer_block.mlir --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=TB
// RUN: dlc-opt %S/../../docs/examples/softmax.mlir --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=SM
// RUN: dlc-opt %S/../../docs/examples/layer_norm.mlir --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=LN
// RUN: dlc-opt %S/../../docs/examples/gelu_linear.mlir --pipeline=decompose,fuse,lower | FileCheck %s --check-prefix=GL
// RUN: dlc-opt %S/../../docs/examples/mlp.mlir --pipeline=decompose,fuse,lower | grep -c "^  loop.kernel @" | FileCheck %s --check-prefix=MLP-KERNELS
// RUN: dlc-opt %S/../../docs/examples/transformer_block.mlir --pipeline=decompose,fuse,lower | grep -c "^  loop.kernel @" | FileCheck %s --check-prefix=TB-KERNELS
// RUN: dlc-opt %S/../../docs/examples/softmax.mlir --pipeline=decompose,fuse,lower | grep -c "^  loop.kernel @" | FileCheck %s --check-prefix=SM-KERNELS
// RUN: dlc-opt %S/../../docs/examples/layer_norm.mlir --pipeline=decompose,fuse,lower | grep -c "^  loop.kernel @" | FileCheck %s --check-prefix=LN-KERNELS
// RUN: dlc-opt %S/../../docs/examples/gelu_linear.mlir --pipeline=decompose,fuse,lower | grep -c "^  loop.kernel @" | FileCheck %s --check-prefix=GL-KERNELS

// MLP-KERNELS: {{^}}2{{$}}
// TB-KERNELS: {{^}}12{{$}}
// SM-KERNELS: {{^}}1{{$}}
// LN-KERNELS: {{^}}1{{$}}
// GL-KERNELS: {{^}}1{{$}}

// MLP-LABEL: loop.kernel @mlp_0_fusion(
// MLP:         loop.schedule_block "matmul_0"
// MLP:         loop.schedule_block "add_1"
// MLP:         loop.schedule_block "relu_2"
// MLP-LABEL: loop.kernel @mlp_1_fusion(
// MLP:         loop.schedule_block "matmul_0"
// MLP:         loop.schedule_block "add_1"
// MLP-LABEL: func.func @mlp(
// MLP:         loop.launch @mlp_0_fusion(
// MLP:         loop.launch @mlp_1_fusion(

// TB-LABEL: loop.kernel @transformer_block_0_fusion(
// TB:         loop.schedule_block "reduce_mean_0"
// TB:         loop.schedule_block "sub_1"
// TB:         loop.schedule_block "mul_2"
// TB:         loop.schedule_block "reduce_mean_3"
// TB:         loop.schedule_block "add_4"
// TB:         loop.schedule_block "rsqrt_5"
// TB:         loop.schedule_block "mul_6"
// TB:         loop.schedule_block "mul_7"
// TB:         loop.schedule_block "add_8"
// TB-LABEL: loop.kernel @transformer_block_1_fusion(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "add_1"
// TB-LABEL: loop.kernel @transformer_block_2_fusion(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "add_1"
// TB-LABEL: loop.kernel @transformer_block_3_fusion(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "add_1"
// TB-LABEL: loop.kernel @transformer_block_4_transpose(
// TB:         loop.schedule_block "transpose_0"
// TB-LABEL: loop.kernel @transformer_block_5_fusion(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "mul_1"
// TB-LABEL: loop.kernel @transformer_block_6_fusion(
// TB:         loop.schedule_block "reduce_max_0"
// TB:         loop.schedule_block "sub_1"
// TB:         loop.schedule_block "exp_2"
// TB:         loop.schedule_block "reduce_sum_3"
// TB:         loop.schedule_block "div_4"
// TB-LABEL: loop.kernel @transformer_block_7_matmul(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "store_1"
// TB-LABEL: loop.kernel @transformer_block_8_fusion(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "add_1"
// TB:         loop.schedule_block "add_2"
// TB-LABEL: loop.kernel @transformer_block_9_fusion(
// TB:         loop.schedule_block "reduce_mean_0"
// TB:         loop.schedule_block "sub_1"
// TB:         loop.schedule_block "mul_2"
// TB:         loop.schedule_block "reduce_mean_3"
// TB:         loop.schedule_block "add_4"
// TB:         loop.schedule_block "rsqrt_5"
// TB:         loop.schedule_block "mul_6"
// TB:         loop.schedule_block "mul_7"
// TB:         loop.schedule_block "add_8"
// TB-LABEL: loop.kernel @transformer_block_10_fusion(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "add_1"
// TB:         loop.schedule_block "div_2"
// TB:         loop.schedule_block "erf_3"
// TB:         loop.schedule_block "add_4"
// TB:         loop.schedule_block "mul_5"
// TB:         loop.schedule_block "mul_6"
// TB-LABEL: loop.kernel @transformer_block_11_fusion(
// TB:         loop.schedule_block "matmul_0"
// TB:         loop.schedule_block "add_1"
// TB:         loop.schedule_block "add_2"
// TB-LABEL: func.func @transformer_block(
// TB:         loop.launch @transformer_block_0_fusion(
// TB:         loop.launch @transformer_block_1_fusion(
// TB:         loop.launch @transformer_block_2_fusion(
// TB:         loop.launch @transformer_block_3_fusion(
// TB:         loop.launch @transformer_block_4_transpose(
// TB:         loop.launch @transformer_block_5_fusion(
// TB:         loop.launch @transformer_block_6_fusion(
// TB:         loop.launch @transformer_block_7_matmul(
// TB:         loop.launch @transformer_block_8_fusion(
// TB:         loop.launch @transformer_block_9_fusion(
// TB:         loop.launch @transformer_block_10_fusion(
// TB:         loop.launch @transformer_block_11_fusion(

// SM-LABEL: loop.kernel @softmax_0_fusion(
// SM:         loop.schedule_block "reduce_max_0"
// SM:         loop.schedule_block "reduce_max_1"
// SM:         loop.schedule_block "sub_2"
// SM:         loop.schedule_block "exp_3"
// SM:         loop.schedule_block "reduce_sum_4"
// SM:         loop.schedule_block "sub_5"
// SM:         loop.schedule_block "exp_6"
// SM:         loop.schedule_block "reduce_sum_7"
// SM:         loop.schedule_block "log_8"
// SM:         loop.schedule_block "div_9"
// SM:         loop.schedule_block "sub_10"
// SM-LABEL: func.func @softmax(
// SM:         loop.launch @softmax_0_fusion(

// LN-LABEL: loop.kernel @layer_norm_0_fusion(
// LN:         loop.schedule_block "reduce_mean_0"
// LN:         loop.schedule_block "sub_1"
// LN:         loop.schedule_block "mul_2"
// LN:         loop.schedule_block "reduce_mean_3"
// LN:         loop.schedule_block "add_4"
// LN:         loop.schedule_block "rsqrt_5"
// LN:         loop.schedule_block "mul_6"
// LN:         loop.schedule_block "mul_7"
// LN:         loop.schedule_block "add_8"
// LN-LABEL: func.func @layer_norm(
// LN:         loop.launch @layer_norm_0_fusion(

// GL-LABEL: loop.kernel @gelu_linear_0_fusion(
// GL:         loop.schedule_block "matmul_0"
// GL:         loop.schedule_block "add_1"
// GL:         loop.schedule_block "mul_2"
// GL:         loop.schedule_block "mul_3"
// GL:         loop.schedule_block "mul_4"
// GL:         loop.schedule_block "add_5"
// GL:         loop.schedule_block "mul_6"
// GL:         loop.schedule_block "tanh_7"
// GL:         loop.schedule_block "add_8"
// GL:         loop.schedule_block "mul_9"
// GL:         loop.schedule_block "mul_10"
// GL-LABEL: func.func @gelu_linear(
// GL:         loop.launch @gelu_linear_0_fusion(
