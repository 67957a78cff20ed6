// RUN: dlc-opt %s --pipeline=fuse,lower --split-input-file | FileCheck %s
// RUN: dlc-opt %s --pipeline=fuse,lower{target=gpu} --split-input-file | FileCheck %s --check-prefix=GPU
// RUN: dlc-opt %s --pipeline=fuse,lower --split-input-file --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// An elementwise fusion: one kernel, a parallel row loop and a serial column loop, one schedule
// block per op; the intermediate lives in a register; the bias is read with its broadcast index.

// CHECK-LABEL: loop.kernel @bias_relu_0_fusion(%arg0: !loop.buffer<4x8xf32, global> {loop.noalias}, %arg1: !loop.buffer<8xf32, global> {loop.noalias}, %arg2: !loop.buffer<4x8xf32, global> {loop.noalias}) {
// CHECK:         loop.for parallel %arg3 = %c0 to %c4 step %c1 {
// CHECK-NEXT:      loop.for serial %arg4 = %c0 to %c8 step %c1 {
// CHECK-NEXT:        %0 = loop.alloc : !loop.buffer<f32, local>
// CHECK-NEXT:        loop.schedule_block "add_0" (%arg5 = %arg3, %arg6 = %arg4) {
// CHECK-NEXT:          %1 = loop.load %arg0[%arg5, %arg6] : !loop.buffer<4x8xf32, global>
// CHECK-NEXT:          %2 = loop.load %arg1[%arg6] : !loop.buffer<8xf32, global>
// CHECK-NEXT:          %3 = arith.addf %1, %2 : f32
// CHECK-NEXT:          loop.store %3, %0[] : !loop.buffer<f32, local>
// CHECK:             loop.schedule_block "relu_1" (%arg5 = %arg3, %arg6 = %arg4) {
// CHECK-NEXT:          %1 = loop.load %0[] : !loop.buffer<f32, local>
// CHECK:               %2 = arith.cmpf ugt, %1, %cst : f32
// CHECK-NEXT:          %3 = arith.select %2, %1, %cst : f32
// CHECK-NEXT:          loop.store %3, %arg2[%arg5, %arg6] : !loop.buffer<4x8xf32, global>
// CHECK-LABEL: func.func @bias_relu(%arg0: !loop.buffer<4x8xf32, global>, %arg1: !loop.buffer<8xf32, global>) -> !loop.buffer<4x8xf32, global> {
// CHECK-NEXT:    %0 = loop.alloc : !loop.buffer<4x8xf32, global>
// CHECK-NEXT:    loop.launch @bias_relu_0_fusion(%arg0, %arg1, %0) : (!loop.buffer<4x8xf32, global>, !loop.buffer<8xf32, global>, !loop.buffer<4x8xf32, global>) -> ()
// CHECK-NEXT:    return %0 : !loop.buffer<4x8xf32, global>

// With target=gpu every point loop is parallel, left for gpu-map.
// GPU-LABEL: loop.kernel @bias_relu_0_fusion
// GPU:         loop.for parallel %arg3 = %c0 to %c4 step %c1 {
// GPU-NEXT:      loop.for parallel %arg4 = %c0 to %c8 step %c1 {
func.func @bias_relu(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = graph.relu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A softmax fusion over a dynamic number of rows: the row count is a kernel argument computed
// on the host; one row loop holds three reduce nests (max; sub, exp and sum; divide). exp's
// value is read again in the third nest, so it is kept in a local buffer over the row.

// CHECK-LABEL: loop.kernel @softmax_0_fusion(%arg0: !loop.buffer<?x16xf32, global> {loop.noalias}, %arg1: !loop.buffer<?x16xf32, global> {loop.noalias}, %arg2: index) {
// CHECK:         loop.for parallel %arg3 = %c0 to %arg2 step %c1 {
// CHECK:           %2 = loop.alloc : !loop.buffer<16xf32, local>
// CHECK:           loop.for serial %arg4 = %c0 to %c16 step %c1 {
// CHECK-NEXT:        loop.schedule_block "reduce_max_0" (%arg5 = %arg3, %arg6 = %arg4 reduce) init {
// CHECK-NEXT:          %cst = arith.constant 0xFF800000 : f32
// CHECK:               arith.maximumf
// CHECK:           loop.for serial %arg4 = %c0 to %c16 step %c1 {
// CHECK-NEXT:        loop.schedule_block "sub_1" (%arg5 = %arg3, %arg6 = %arg4) {
// CHECK:             loop.schedule_block "exp_2" (%arg5 = %arg3, %arg6 = %arg4) {
// CHECK:               loop.store %5, %2[%arg6] : !loop.buffer<16xf32, local>
// CHECK:             loop.schedule_block "reduce_sum_3" (%arg5 = %arg3, %arg6 = %arg4 reduce) init {
// CHECK:           loop.for serial %arg4 = %c0 to %c16 step %c1 {
// CHECK-NEXT:        loop.schedule_block "div_4" (%arg5 = %arg3, %arg6 = %arg4) {
// CHECK-NEXT:          %4 = loop.load %2[%arg6] : !loop.buffer<16xf32, local>
// CHECK:               loop.store %6, %arg1[%arg5, %arg6] : !loop.buffer<?x16xf32, global>
// CHECK-LABEL: func.func @softmax(%arg0: !loop.buffer<?x16xf32, global>) -> !loop.buffer<?x16xf32, global> attributes {loop.dim_symbols = [array<i64: 0>]} {
// CHECK-NEXT:    %0 = loop.dim %arg0, 0 : !loop.buffer<?x16xf32, global>
// CHECK-NEXT:    %1 = loop.alloc(%0) : !loop.buffer<?x16xf32, global>
// CHECK-NEXT:    loop.launch @softmax_0_fusion(%arg0, %1, %0)
func.func @softmax(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = graph.reduce_max %x {axes = array<i64: 1>, keepdim = true} : tensor<?x16xf32> -> tensor<?x1xf32>
  %1 = graph.sub %x, %0 : tensor<?x16xf32>, tensor<?x1xf32> -> tensor<?x16xf32>
  %2 = graph.exp %1 : tensor<?x16xf32>
  %3 = graph.reduce_sum %2 {axes = array<i64: 1>, keepdim = true} : tensor<?x16xf32> -> tensor<?x1xf32>
  %4 = graph.div %2, %3 : tensor<?x16xf32>, tensor<?x1xf32> -> tensor<?x16xf32>
  return %4 : tensor<?x16xf32>
}

// -----

// A matmul with its bias epilogue: the K loop is a reduce nest inside the (M, N) point loops,
// and the bias add runs after it on the accumulated register.

// CHECK-LABEL: loop.kernel @matmul_bias_0_fusion
// CHECK:         loop.for parallel %arg5 = %c0 to %arg4 step %c1 {
// CHECK-NEXT:      loop.for serial %arg6 = %c0 to %c8 step %c1 {
// CHECK-NEXT:        %0 = loop.alloc : !loop.buffer<f32, local>
// CHECK-NEXT:        loop.for serial %arg7 = %c0 to %c16 step %c1 {
// CHECK-NEXT:          loop.schedule_block "matmul_0" (%arg8 = %arg5, %arg9 = %arg6, %arg10 = %arg7 reduce) init {
// CHECK:                 %1 = loop.load %arg0[%arg8, %arg10] : !loop.buffer<?x16xf32, global>
// CHECK-NEXT:            %2 = loop.load %arg1[%arg10, %arg9] : !loop.buffer<16x8xf32, global>
// CHECK-NEXT:            %3 = arith.mulf %1, %2 : f32
// CHECK:             loop.schedule_block "add_1" (%arg7 = %arg5, %arg8 = %arg6) {
// CHECK-NEXT:          %1 = loop.load %0[] : !loop.buffer<f32, local>
// CHECK-NEXT:          %2 = loop.load %arg2[%arg8] : !loop.buffer<8xf32, global>
func.func @matmul_bias(%x: tensor<?x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = graph.matmul %x, %w : tensor<?x16xf32>, tensor<16x8xf32> -> tensor<?x8xf32>
  %1 = graph.add %0, %b : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// Edge case: a reshape whose inferred dim is dynamic, between kernels: no kernel, a
// `loop.reshape` of the argument's memory. The host computes the inferred size from its
// symbolic expression: rows * 6 / 3 is the polynomial rows * 2.

// CHECK-LABEL: func.func @reshape(%arg0: !loop.buffer<?x6xf32, global>) -> !loop.buffer<?x3xf32, global> attributes {loop.dim_symbols = [array<i64: 0>]} {
// CHECK-NEXT:    %0 = loop.dim %arg0, 0 : !loop.buffer<?x6xf32, global>
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %1 = arith.muli %0, %c2 : index
// CHECK-NEXT:    %2 = loop.reshape %arg0(%1) : !loop.buffer<?x6xf32, global> -> !loop.buffer<?x3xf32, global>
// CHECK-NEXT:    return %2
// STATS: (S) 1 num-host-reshapes
func.func @reshape(%x: tensor<?x6xf32>) -> tensor<?x3xf32> {
  %0 = graph.reshape %x {shape = array<i64: -1, 3>} : tensor<?x6xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Edge case: the same reshape inside a fusion is a kernel, which maps each output index to
// the input's through the linear offset.

// CHECK-LABEL: loop.kernel @reshape_kernel_0_reshape(%arg0: !loop.buffer<?x6xf32, global> {loop.noalias}, %arg1: !loop.buffer<?x3xf32, global> {loop.noalias}, %arg2: index, %arg3: index) {
// CHECK:             loop.schedule_block "reshape_0" (%arg6 = %arg4, %arg7 = %arg5) {
// CHECK-NEXT:          %0 = arith.muli %arg6, %c3 : index
// CHECK-NEXT:          %1 = arith.addi %0, %arg7 : index
// CHECK-NEXT:          %2 = arith.remui %1, %c6 : index
// CHECK-NEXT:          %3 = arith.divui %1, %c6 : index
// CHECK-NEXT:          %4 = loop.load %arg0[%3, %2] : !loop.buffer<?x6xf32, global>
// CHECK-LABEL: func.func @reshape_kernel
// CHECK:         %2 = loop.alloc(%1) : !loop.buffer<?x3xf32, global>
// CHECK-NEXT:    loop.launch @reshape_kernel_0_reshape(%arg0, %2, %0, %1)
func.func @reshape_kernel(%x: tensor<?x6xf32>) -> tensor<?x3xf32> {
  %0 = graph.fusion (%x) : (tensor<?x6xf32>) -> tensor<?x3xf32> {
  ^bb0(%a: tensor<?x6xf32>):
    %r = graph.reshape %a {shape = array<i64: -1, 3>} : tensor<?x6xf32> -> tensor<?x3xf32>
    graph.yield %r : tensor<?x3xf32>
  }
  return %0 : tensor<?x3xf32>
}

// -----

// Edge case: a reshape that splits only its last dim maps the point through that dim alone:
// the leading dims keep their index, and no division is left for the split.

// CHECK-LABEL: loop.kernel @reshape_split_0_reshape(
// CHECK:             loop.schedule_block "reshape_0" (%arg6 = %arg2, %arg7 = %arg3, %arg8 = %arg4, %arg9 = %arg5) {
// CHECK-NEXT:          %0 = arith.muli %arg8, %c4 : index
// CHECK-NEXT:          %1 = arith.addi %0, %arg9 : index
// CHECK-NEXT:          %2 = loop.load %arg0[%arg6, %arg7, %1] : !loop.buffer<2x3x12xf32, global>
func.func @reshape_split(%x: tensor<2x3x12xf32>) -> tensor<2x3x3x4xf32> {
  %0 = graph.fusion (%x) : (tensor<2x3x12xf32>) -> tensor<2x3x3x4xf32> {
  ^bb0(%a: tensor<2x3x12xf32>):
    %r = graph.reshape %a {shape = array<i64: 2, 3, 3, 4>} : tensor<2x3x12xf32> -> tensor<2x3x3x4xf32>
    graph.yield %r : tensor<2x3x3x4xf32>
  }
  return %0 : tensor<2x3x3x4xf32>
}

// -----

// Edge case: rank-0 tensors need no loops; constants outside a kernel are host buffers, and a
// returned argument is returned as is.

// CHECK-LABEL: loop.kernel @scalar_0_mul(%arg0: !loop.buffer<f32, global> {loop.noalias}, %arg1: !loop.buffer<f32, global> {loop.noalias}, %arg2: !loop.buffer<f32, global> {loop.noalias}) {
// CHECK-NEXT:    loop.schedule_block "mul_0" () {
// CHECK-LABEL: func.func @scalar
// CHECK-NEXT:    %0 = loop.constant dense<2.000000e+00> : !loop.buffer<f32, global>
// CHECK-NEXT:    %1 = loop.alloc : !loop.buffer<f32, global>
// CHECK-NEXT:    loop.launch @scalar_0_mul(%arg0, %0, %1)
// CHECK-NEXT:    %2 = loop.constant dense<[1.000000e+00, 2.000000e+00]> : !loop.buffer<2xf32, global>
// CHECK-NEXT:    return %1, %arg0, %2
func.func @scalar(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<2xf32>) {
  %c = graph.constant dense<2.0> : tensor<f32>
  %0 = graph.mul %x, %c : tensor<f32>
  %k = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0, %x, %k : tensor<f32>, tensor<f32>, tensor<2xf32>
}

// -----

// Counter-example: a function without graph ops is left alone.

// CHECK-LABEL: func.func @not_graph(%arg0: index, %arg1: index) -> index {
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg1 : index
// CHECK-NEXT:    return %0 : index
// CHECK-NOT:   loop.kernel
func.func @not_graph(%a: index, %b: index) -> index {
  %0 = arith.addi %a, %b : index
  return %0 : index
}

// -----

// A direct convolution (unpadded, column stride 1; two groups) with its bias add: an implicit
// GEMM over [N, O, OH, OW, C/G], the loops nested n, oh, o, ow (the output channels are the
// rows `tile` blocks, an output row its vectors) and a serial loop over the group's input
// channels. The block unrolls the 2x2 window: input row oh + kh, column ow + kw, channel
// o / (O/G) * C/G + c; the weights at [o, c, kh, kw]. The bias add is the epilogue.
// CHECK-LABEL: loop.kernel @conv_0_fusion
// CHECK:         loop.for parallel %[[N:.*]] = %c0 to %c1 step %c1 {
// CHECK-NEXT:      loop.for parallel %[[OH:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT:        loop.for parallel %[[O:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:          loop.for serial %[[OW:.*]] = %c0 to %c32 step %c1 {
// CHECK:                 loop.for serial %[[C:.*]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:              loop.schedule_block "conv2d_0" (%[[BN:.*]] = %[[N]], %[[BOH:.*]] = %[[OH]], %[[BO:.*]] = %[[O]], %[[BOW:.*]] = %[[OW]], %[[BC:.*]] = %[[C]] reduce) init {
// CHECK:                   %[[G:.*]] = arith.divui %[[BO]], %c2 : index
// CHECK-NEXT:              %[[BASE:.*]] = arith.muli %[[G]], %c2 : index
// CHECK-NEXT:              %[[CIN:.*]] = arith.addi %[[BASE]], %[[BC]] : index
// CHECK-NEXT:              %[[IH1:.*]] = arith.addi %[[BOH]], %c1 : index
// CHECK-NEXT:              %[[IW1:.*]] = arith.addi %[[BOW]], %c1 : index
// CHECK-NEXT:              loop.load %arg0[%[[BN]], %[[CIN]], %[[BOH]], %[[BOW]]] : !loop.buffer<1x4x4x33xf32, global>
// CHECK-NEXT:              loop.load %arg1[%[[BO]], %[[BC]], %c0, %c0] : !loop.buffer<4x2x2x2xf32, global>
// CHECK-NEXT:              loop.load %arg0[%[[BN]], %[[CIN]], %[[BOH]], %[[IW1]]]
// CHECK-NEXT:              loop.load %arg1[%[[BO]], %[[BC]], %c0, %c1]
// CHECK-NEXT:              loop.load %arg0[%[[BN]], %[[CIN]], %[[IH1]], %[[BOW]]]
// CHECK-NEXT:              loop.load %arg1[%[[BO]], %[[BC]], %c1, %c0]
// CHECK-NEXT:              loop.load %arg0[%[[BN]], %[[CIN]], %[[IH1]], %[[IW1]]]
// CHECK-NEXT:              loop.load %arg1[%[[BO]], %[[BC]], %c1, %c1]
// CHECK-COUNT-4:           arith.mulf
// CHECK-NEXT:              loop.load %{{.*}}[] : !loop.buffer<f32, local>
// CHECK-COUNT-4:           arith.addf
// CHECK:                 loop.schedule_block "add_1"
// CHECK:                   loop.store %{{.*}}, %arg3[%{{.*}}, %[[EO:.*]], %[[EH:.*]], %{{.*}}] : !loop.buffer<1x4x3x32xf32, global>
// GPU-LABEL: loop.kernel @conv_0_fusion
// GPU-COUNT-4: loop.for parallel
// GPU-NEXT: loop.alloc
func.func @conv(%x: tensor<1x4x4x33xf32>, %w: tensor<4x2x2x2xf32>, %b: tensor<4x1x1xf32>) -> tensor<1x4x3x32xf32> {
  %c = graph.conv2d %x, %w {groups = 2 : i64} : tensor<1x4x4x33xf32>, tensor<4x2x2x2xf32> -> tensor<1x4x3x32xf32>
  %y = graph.add %c, %b : tensor<1x4x3x32xf32>, tensor<4x1x1xf32> -> tensor<1x4x3x32xf32>
  return %y : tensor<1x4x3x32xf32>
}

// -----

// A gather whose indices are a constant, none negative and every one in range (an im2col
// convolution's window table): the kernel loads the data at each index as it is, with no
// test for a negative one, and declares no index check for the runtime. Indices that are not
// a constant are checked (test/dlc-run/gather-bounds.mlir).
// CHECK-LABEL: loop.kernel @table_0_gather(%arg0: !loop.buffer<2x6xf32, global> {loop.noalias}, %arg1: !loop.buffer<3xi32, global> {loop.noalias}, %arg2: !loop.buffer<2x3xf32, global> {loop.noalias}) {
// CHECK:         %[[I:.*]] = loop.load %arg1
// CHECK-NEXT:    %[[J:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:    loop.load %arg0[%{{.*}}, %[[J]]]
func.func @table(%x: tensor<2x6xf32>) -> tensor<2x3xf32> {
  %i = graph.constant dense<[5, 0, 2]> : tensor<3xi32>
  %g = graph.gather %x, %i {axis = 1 : i64} : tensor<2x6xf32>, tensor<3xi32> -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}
