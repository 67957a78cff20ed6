// RUN: dlc-opt %s --split-input-file --verify-diagnostics

// Shape and dtype errors of the graph ops, one per chunk.

func.func @unary_float_only(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'graph.exp' op operand #0 must be a tensor of f16, bf16, f32 or f64 values, but got 'tensor<4xi32>'}}
  %0 = graph.exp %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @not_on_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.not' op operand #0 must be a tensor of i1, i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values}}
  %0 = graph.not %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @neg_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{operand #0 must be a tensor of f16, bf16, f32, f64, i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values, but got 'tensor<4xi1>'}}
  %0 = graph.neg %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @unsupported_dtype(%x: tensor<4xsi16>) -> tensor<4xsi16> {
  // expected-error @+1 {{operand #0 must be a tensor of f16, bf16, f32, f64, i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values, but got 'tensor<4xsi16>'}}
  %0 = graph.abs %x : tensor<4xsi16>
  return %0 : tensor<4xsi16>
}

// -----

func.func @broadcast_mismatch(%a: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'graph.add' op operands are not broadcast-compatible: dim 0 of operand #1 is 4, but operand #0 has 3 there}}
  %0 = graph.add %a, %b : tensor<4x3xf32>, tensor<4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @binary_dtype_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.mul' op operand #1 has element type 'f16', but operand #0 has 'f32'}}
  %0 = graph.mul %a, %b : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @binary_wrong_result(%a: tensor<4x1xf32>, %b: tensor<1x8xf32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{'graph.sub' op result type 'tensor<4x9xf32>' is incompatible with the inferred type 'tensor<4x8xf32>'}}
  %0 = graph.sub %a, %b : tensor<4x1xf32>, tensor<1x8xf32> -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

func.func @and_on_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.and' op operand #0 must be a tensor of i1, i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values}}
  %0 = graph.and %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cmp_result_not_i1(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result type 'tensor<4xf32>' is incompatible with the inferred type 'tensor<4xi1>'}}
  %0 = "graph.cmp"(%a, %a) <{predicate = "lt"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cmp_bad_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{attribute 'predicate' must be one of eq, ne, lt, le, gt, ge, but got "ult"}}
  %0 = "graph.cmp"(%a, %a) <{predicate = "ult"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @select_condition_not_i1(%c: tensor<4xi32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 (the condition) must be a tensor of i1 values, but got 'tensor<4xi32>'}}
  %0 = graph.select %c, %a, %a : tensor<4xi32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_changes_shape(%a: tensor<4xf32>) -> tensor<5xi32> {
  // expected-error @+1 {{'graph.cast' op result shape 5 differs from the operand shape 4}}
  %0 = graph.cast %a : tensor<4xf32> -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @broadcast_to_incompatible(%a: tensor<3x4xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'graph.broadcast_to' op dim 1 of the operand (4) cannot be broadcast to 5}}
  %0 = graph.broadcast_to %a {shape = array<i64: 3, 5>} : tensor<3x4xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @broadcast_to_lower_rank(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot broadcast an operand of rank 2 to the lower rank 1}}
  %0 = graph.broadcast_to %a {shape = array<i64: 4>} : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reshape_count(%a: tensor<4x6xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'graph.reshape' op cannot reshape 4x6 (24 elements) into 4x5 (20 elements)}}
  %0 = graph.reshape %a {shape = array<i64: 4, 5>} : tensor<4x6xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @reshape_inferred_not_integer(%a: tensor<4x6xf32>) -> tensor<5x?xf32> {
  // expected-error @+1 {{cannot reshape 4x6 (24 elements) into 5x-1: the -1 entry has no integer size}}
  %0 = graph.reshape %a {shape = array<i64: 5, -1>} : tensor<4x6xf32> -> tensor<5x?xf32>
  return %0 : tensor<5x?xf32>
}

// -----

func.func @reshape_two_inferred(%a: tensor<4x6xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{attribute 'shape' may contain at most one -1}}
  %0 = graph.reshape %a {shape = array<i64: -1, -1>} : tensor<4x6xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_missing_shape(%a: tensor<4x6xf32>) -> tensor<24xf32> {
  // expected-error @+1 {{'graph.reshape' op requires attribute 'shape' (array<i64: ...>)}}
  %0 = graph.reshape %a : tensor<4x6xf32> -> tensor<24xf32>
  return %0 : tensor<24xf32>
}

// -----

func.func @transpose_not_a_permutation(%a: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error @+1 {{attribute 'perm' must be a permutation of 0..3, but has entry 0}}
  %0 = graph.transpose %a {perm = array<i64: 2, 0, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

func.func @transpose_wrong_result(%a: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{result type 'tensor<2x3x4xf32>' is incompatible with the inferred type 'tensor<4x2x3xf32>'}}
  %0 = graph.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @slice_zero_step(%a: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.slice' op step 0 of axis 0 must be positive}}
  %0 = graph.slice %a {ends = array<i64: 8>, starts = array<i64: 0>, steps = array<i64: 0>} : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_rank(%a: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{attribute 'ends' has 1 entries, but the operand has rank 2}}
  %0 = graph.slice %a {ends = array<i64: 8>, starts = array<i64: 0, 0>, steps = array<i64: 2, 1>} : tensor<8x2xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @slice_wrong_size(%a: tensor<8xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{result type 'tensor<3xf32>' is incompatible with the inferred type 'tensor<4xf32>'}}
  %0 = graph.slice %a {ends = array<i64: -1>, starts = array<i64: -8>, steps = array<i64: 2>} : tensor<8xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @concat_axis_out_of_bounds(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'graph.concat' op axis 2 is out of bounds for operand #0 of rank 2}}
  %0 = graph.concat %a, %a {axis = 2 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_other_dim(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{dim 0 of operand #1 is 3, but operand #0 has 2 (only axis 1 may differ)}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : tensor<2x3xf32>, tensor<3x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @pad_negative(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.pad' op attribute 'low' has negative padding -1 on axis 0}}
  %0 = graph.pad %a {high = array<i64: 1>, low = array<i64: -1>} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pad_value_kind(%a: tensor<4xi32>) -> tensor<6xi32> {
  // expected-error @+1 {{attribute 'value' must be an integer attribute for element type 'i32'}}
  %0 = graph.pad %a {high = array<i64: 1>, low = array<i64: 1>, value = 1.0 : f32} : tensor<4xi32> -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

func.func @gather_float_indices(%a: tensor<4x3xf32>, %i: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gather' op operand #1 (the indices) must be a tensor of i32 or i64 values, but got 'tensor<2xf32>'}}
  %0 = graph.gather %a, %i {axis = 0 : i64} : tensor<4x3xf32>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_shape(%a: tensor<4x3xf32>, %i: tensor<2x5xi32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{result type 'tensor<2x3xf32>' is incompatible with the inferred type 'tensor<4x2x5xf32>'}}
  %0 = graph.gather %a, %i {axis = 1 : i64} : tensor<4x3xf32>, tensor<2x5xi32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reduce_axis_out_of_bounds(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.reduce_sum' op axis 2 is out of bounds for operand #0 of rank 2}}
  %0 = graph.reduce_sum %a {axes = array<i64: 2>} : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_duplicate_axis(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{axis 1 appears twice in 'axes'}}
  %0 = graph.reduce_max %a {axes = array<i64: 1, 1>} : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_keepdim(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result type 'tensor<4xf32>' is incompatible with the inferred type 'tensor<4x1xf32>'}}
  %0 = graph.reduce_min %a {axes = array<i64: 1>, keepdim = true} : tensor<4x3xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_mean_int(%a: tensor<4x3xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'graph.reduce_mean' op operand #0 must be a tensor of f16, bf16, f32 or f64 values}}
  %0 = graph.reduce_mean %a {axes = array<i64: 1>} : tensor<4x3xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @argmax_result_i64(%a: tensor<4x3xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'graph.argmax' op result type 'tensor<4xi32>' is incompatible with the inferred type 'tensor<4xi64>'}}
  %0 = graph.argmax %a {axis = 1 : i64} : tensor<4x3xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @matmul_inner(%a: tensor<4x8xf32>, %b: tensor<7x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'graph.matmul' op inner dims do not match: operand #0 is 4x8 and operand #1 is 7x5 (K = 8 vs 7)}}
  %0 = graph.matmul %a, %b : tensor<4x8xf32>, tensor<7x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{operands must have rank ≥ 2, but have ranks 1 and 2}}
  %0 = graph.matmul %a, %b : tensor<8xf32>, tensor<8x5xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{batch dims: operands are not broadcast-compatible: dim 0 of operand #1 is 3, but operand #0 has 2 there}}
  %0 = graph.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

func.func @constant_type() -> tensor<4xf32> {
  // expected-error @+1 {{'graph.constant' op the type of attribute 'value' ('tensor<4xf64>') differs from the result type 'tensor<4xf32>'}}
  %0 = "graph.constant"() <{value = dense<1.0> : tensor<4xf64>}> : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @iota_dynamic(%d: index) -> tensor<?xi32> {
  // expected-error @+1 {{'graph.iota' op expects one index operand per '?' dim of the result (1), but has 0}}
  %0 = graph.iota {axis = 0 : i64} : tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

func.func @reshape_sizes(%x: tensor<?x32xf32>, %d: index) -> tensor<?x?x8xf32> {
  // expected-error @+1 {{'graph.reshape' op expects one index operand per -1 entry of 'shape' (2), but has 1}}
  %0 = graph.reshape %x, %d {shape = array<i64: -1, -1, 8>} : tensor<?x32xf32>, index -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

func.func @fill_operands(%d: index) -> tensor<?x?xf32> {
  // expected-error @+1 {{'graph.fill' op expects one index operand per '?' dim of the result (2), but has 1}}
  %0 = graph.fill %d {value = 0.0 : f32} : index -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dim_axis(%a: tensor<4x?xf32>) -> index {
  // expected-error @+1 {{'graph.dim' op axis 2 is out of bounds for operand #0 of rank 2}}
  %0 = graph.dim %a, 2 : tensor<4x?xf32> -> index
  return %0 : index
}

// -----

func.func @softmax_axis(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'graph.softmax' op axis -1 is out of bounds for operand #0 of rank 2}}
  %0 = graph.softmax %a {axis = -1 : i64} : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @layer_norm_gamma(%x: tensor<2x8x16xf32>, %g: tensor<8xf32>, %b: tensor<16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'graph.layer_norm' op operand #1 (gamma) has shape 8, but the normalized shape (operand #0 from axis 2) is 16}}
  %0 = graph.layer_norm %x, %g, %b {axis = 2 : i64, epsilon = 1.0e-5 : f64} : tensor<2x8x16xf32>, tensor<8xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}

// -----

func.func @rms_norm_epsilon(%x: tensor<2x16xf32>, %g: tensor<16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{'graph.rms_norm' op requires float attribute 'epsilon'}}
  %0 = graph.rms_norm %x, %g {axis = 1 : i64} : tensor<2x16xf32>, tensor<16xf32> -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

func.func @gelu_mode(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'approximate' must be "none" or "tanh", but got "fast"}}
  %0 = graph.gelu %x {approximate = "fast"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @linear_bias(%x: tensor<2x16xf32>, %w: tensor<16x32xf32>, %b: tensor<16xf32>) -> tensor<2x32xf32> {
  // expected-error @+1 {{'graph.linear' op the bias (operand #2) has 16 elements, but the weight (operand #1) has 32 columns}}
  %0 = graph.linear %x, %w, %b : tensor<2x16xf32>, tensor<16x32xf32>, tensor<16xf32> -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

func.func @conv_int32(%x: tensor<1x4x8x8xi32>, %w: tensor<8x4x3x3xi32>) -> tensor<1x8x6x6xi32> {
  // expected-error @+1 {{'graph.conv2d' op operand #0 must be a tensor of f16, bf16, f32 or f64 values}}
  %0 = graph.conv2d %x, %w : tensor<1x4x8x8xi32>, tensor<8x4x3x3xi32> -> tensor<1x8x6x6xi32>
  return %0 : tensor<1x8x6x6xi32>
}

// -----

func.func @conv_byte_by_float(%x: tensor<1x4x8x8xui8>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'graph.conv2d' op operand #0 must be a tensor of f16, bf16, f32 or f64 values}}
  %0 = graph.conv2d %x, %w : tensor<1x4x8x8xui8>, tensor<8x4x3x3xf32> -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'graph.conv2d' op input channels (4) must equal weight input channels (3) × groups (1)}}
  %0 = graph.conv2d %x, %w : tensor<1x4x8x8xf32>, tensor<8x3x3x3xf32> -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv_output_size(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> {
  // expected-error @+1 {{result type 'tensor<1x8x8x8xf32>' is incompatible with the inferred type 'tensor<1x8x3x3xf32>'}}
  %0 = graph.conv2d %x, %w {strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

func.func @conv_strides_len(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{attribute 'strides' must have 2 entries, but has 3}}
  %0 = graph.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @pool_padding(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+1 {{'graph.max_pool2d' op padding 2 must be smaller than the kernel size 2}}
  %0 = graph.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 2, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

func.func @pool_kernel_missing(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'graph.avg_pool2d' op requires attribute 'kernel' (array<i64: ...>)}}
  %0 = graph.avg_pool2d %x {strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @sdpa_head_dim(%q: tensor<2x8x16xf32>, %k: tensor<2x10x8xf32>, %v: tensor<2x10x32xf32>) -> tensor<2x8x32xf32> {
  // expected-error @+1 {{'graph.sdpa' op the head dim of q (16) and k (8) must match}}
  %0 = graph.sdpa %q, %k, %v {scale = 0.25 : f64} : tensor<2x8x16xf32>, tensor<2x10x8xf32>, tensor<2x10x32xf32> -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

func.func @sdpa_mask(%q: tensor<2x8x16xf32>, %k: tensor<2x10x16xf32>, %v: tensor<2x10x32xf32>, %m: tensor<8x9xf32>) -> tensor<2x8x32xf32> {
  // expected-error @+1 {{the mask (operand #3) of shape 8x9 does not broadcast to the scores' shape 2x8x10}}
  %0 = graph.sdpa %q, %k, %v, %m {scale = 0.25 : f64} : tensor<2x8x16xf32>, tensor<2x10x16xf32>, tensor<2x10x32xf32>, tensor<8x9xf32> -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

func.func @fusion_yield_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %1 = graph.cast %x : tensor<4xf32> -> tensor<4xf16>
    // expected-error @+1 {{'graph.yield' op operand #0 has type 'tensor<4xf16>', but result #0 of the parent 'graph.fusion' has type 'tensor<4xf32>'}}
    graph.yield %1 : tensor<4xf16>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_isolated(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.fusion () : () -> tensor<4xf32> {
    // expected-error @+1 {{use of undeclared SSA value name '%a'}}
    %1 = graph.neg %a : tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside_fusion(%a: tensor<4xf32>) {
  // expected-error @+1 {{'graph.yield' op expects parent op to be one of 'graph.fusion', 'graph.if', 'graph.loop'}}
  graph.yield %a : tensor<4xf32>
}

// -----

func.func @short_form_needs_arrow(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected one type, or operand types followed by '->' and the result type}}
  %0 = graph.add %a, %b : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @read_size_of_two(%a: tensor<2xi64>) -> index {
  // expected-error @+1 {{'graph.read_size' op operand #0 must hold one element, but has shape 2}}
  %n = graph.read_size %a : tensor<2xi64> -> index
  return %n : index
}

// -----

func.func @read_size_of_float(%a: tensor<f32>) -> index {
  // expected-error @+1 {{'graph.read_size' op operand #0 must be}}
  %n = graph.read_size %a : tensor<f32> -> index
  return %n : index
}
