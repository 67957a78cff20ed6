// Shapes whose sizes overflow i64 are verifier errors, not arithmetic overflow.
// RUN: dlc-opt %s --split-input-file --verify-diagnostics

func.func @f(%x: tensor<9223372036854775807xf32>) -> tensor<1xf32> {
// expected-error @+1 {{'graph.concat' op the concatenated dim 0 overflows i64}}
 %0 = graph.concat %x, %x {axis = 0 : i64} : tensor<9223372036854775807xf32>, tensor<9223372036854775807xf32> -> tensor<1xf32>
 return %0 : tensor<1xf32>
}

// -----
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32> {
// expected-error @+1 {{'graph.conv2d' op the dilated kernel size overflows i64}}
 %0 = graph.conv2d %x, %w {dilations = array<i64: 9223372036854775807, 1>} : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x4x4xf32>
 return %0 : tensor<1x6x4x4xf32>
}

// -----
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32> {
// expected-error @+1 {{'graph.conv2d' op the kernel output size overflows i64}}
 %0 = graph.conv2d %x, %w {padding = array<i64: 9223372036854775807, 9223372036854775807, 0, 0>} : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x4x4xf32>
 return %0 : tensor<1x6x4x4xf32>
}

// -----
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
// expected-error @+1 {{'graph.pad' op the padded dim 0 overflows i64}}
 %0 = graph.pad %x {low = array<i64: 9223372036854775807>, high = array<i64: 9223372036854775807>} : tensor<4xf32> -> tensor<4xf32>
 return %0 : tensor<4xf32>
}

// -----
func.func @f(%x: tensor<4294967296x4294967296xf32>) -> tensor<1xf32> {
// expected-error @+1 {{'graph.reshape' op the input has more elements than fit in i64}}
 %0 = graph.reshape %x {shape = array<i64: -1>} : tensor<4294967296x4294967296xf32> -> tensor<1xf32>
 return %0 : tensor<1xf32>
}

