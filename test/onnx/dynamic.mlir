// Shapes computed from `?` dims (docs/onnx.md, "Dynamic dims"): the Reshapes of a multi-head
// attention block whose targets are Concats of Gathers of Shape(x) import as graph.reshapes
// sized by graph.dim (the merge to [0, 0, -1] works out as 32), and the model, compiled once,
// runs at three (batch, seq) sizes, the later runs from the kernel cache, matching
// onnxruntime. Flatten, Expand, ConstantOfShape, Size and Reshape to [-1] over dynamic dims,
// and Shape used as data, match too, through both backends; so do windows over a dynamic
// height and width (convolutions, pools, nearest Resize, ConvTranspose; through the LLVM
// backend only: MLIR's takes seconds to compile their symbolic loops), and position ids that
// are a Range up to Shape(ids)[1] (an empty strided Range at length 1 included), and a float
// Range up to that length cast to float (a detector's anchor grid). All of these run with
// --keep-dynamic; without it, dlc-run compiles for the given inputs' shapes (MHA-STATIC).
// RUN: rm -rf %t && python3 %S/Inputs/dynamic.py %t
// RUN: dlc-import %t/mha.onnx | FileCheck %s
// RUN: dlc-run %t/windows.onnx --keep-dynamic --no-cache --inputs %t/windows_1x3x9x14_x.npy --expected %t/windows_1x3x9x14_y0.npy,%t/windows_1x3x9x14_y1.npy --check | FileCheck %s --check-prefix=WIN9
// RUN: dlc-run %t/positions.onnx --keep-dynamic --no-cache --inputs %t/positions_2x5_ids.npy --expected %t/positions_2x5_y0.npy,%t/positions_2x5_y1.npy,%t/positions_2x5_y2.npy --check | FileCheck %s --check-prefix=POS5
// RUN: dlc-run %t/positions.onnx --keep-dynamic --no-cache --inputs %t/positions_1x1_ids.npy --expected %t/positions_1x1_y0.npy,%t/positions_1x1_y1.npy,%t/positions_1x1_y2.npy | FileCheck %s --check-prefix=POS1
// RUN: dlc-run %t/windows.onnx --keep-dynamic --no-cache --inputs %t/windows_1x3x32x20_x.npy --expected %t/windows_1x3x32x20_y0.npy,%t/windows_1x3x32x20_y1.npy | FileCheck %s --check-prefix=WIN32
// RUN: dlc-run %t/windows.onnx --no-cache --inputs %t/windows_1x3x32x20_x.npy --expected %t/windows_1x3x32x20_y0.npy,%t/windows_1x3x32x20_y1.npy --check | FileCheck %s --check-prefix=STATIC32
// RUN: dlc-import %t/windows.onnx --input-shape x=1x3x32x20 | FileCheck %s --check-prefix=STATIC-IR
// RUN: rm -rf %t/cache && env DLC_CACHE_DIR=%t/cache dlc-run %t/mha.onnx --keep-dynamic --inputs %t/mha_1x1x32_x.npy --expected %t/mha_1x1x32_y0.npy --check | FileCheck %s --check-prefix=MHA1
// RUN: env DLC_CACHE_DIR=%t/cache dlc-run %t/mha.onnx --keep-dynamic --inputs %t/mha_2x7x32_x.npy --expected %t/mha_2x7x32_y0.npy --check | FileCheck %s --check-prefix=MHA7
// RUN: env DLC_CACHE_DIR=%t/cache dlc-run %t/mha.onnx --keep-dynamic --inputs %t/mha_1x128x32_x.npy --expected %t/mha_1x128x32_y0.npy | FileCheck %s --check-prefix=MHA128
// RUN: dlc-run %t/mha.onnx --no-cache --inputs %t/mha_2x7x32_x.npy --expected %t/mha_2x7x32_y0.npy --print-kernels | FileCheck %s --check-prefix=MHA-STATIC
// RUN: dlc-run %t/shapes.onnx --keep-dynamic --no-cache --inputs %t/shapes_2x3x5x4_1x1x5_x.npy,%t/shapes_2x3x5x4_1x1x5_row.npy --expected %t/shapes_2x3x5x4_1x1x5_y0.npy,%t/shapes_2x3x5x4_1x1x5_y1.npy,%t/shapes_2x3x5x4_1x1x5_y2.npy,%t/shapes_2x3x5x4_1x1x5_y3.npy,%t/shapes_2x3x5x4_1x1x5_y4.npy --check | FileCheck %s --check-prefix=SHAPES
// RUN: dlc-run %t/shapes.onnx --keep-dynamic --no-cache --backend mlir --inputs %t/shapes_1x6x2x4_1x1x2_x.npy,%t/shapes_1x6x2x4_1x1x2_row.npy --expected %t/shapes_1x6x2x4_1x1x2_y0.npy,%t/shapes_1x6x2x4_1x1x2_y1.npy,%t/shapes_1x6x2x4_1x1x2_y2.npy,%t/shapes_1x6x2x4_1x1x2_y3.npy,%t/shapes_1x6x2x4_1x1x2_y4.npy | FileCheck %s --check-prefix=SHAPES-MLIR
// RUN: rm -rf %t/acache && env DLC_CACHE_DIR=%t/acache dlc-run %t/attention.onnx --keep-dynamic --inputs %t/attention_b1s1p3_q.npy,%t/attention_b1s1p3_k.npy,%t/attention_b1s1p3_v.npy,%t/attention_b1s1p3_past_k.npy,%t/attention_b1s1p3_past_v.npy --expected %t/attention_b1s1p3_y0.npy,%t/attention_b1s1p3_y1.npy,%t/attention_b1s1p3_y2.npy --check | FileCheck %s --check-prefix=ATT1
// RUN: env DLC_CACHE_DIR=%t/acache dlc-run %t/attention.onnx --keep-dynamic --inputs %t/attention_b2s6p4_q.npy,%t/attention_b2s6p4_k.npy,%t/attention_b2s6p4_v.npy,%t/attention_b2s6p4_past_k.npy,%t/attention_b2s6p4_past_v.npy --expected %t/attention_b2s6p4_y0.npy,%t/attention_b2s6p4_y1.npy,%t/attention_b2s6p4_y2.npy | FileCheck %s --check-prefix=ATT6
// RUN: rm -rf %t/kcache && env DLC_CACHE_DIR=%t/kcache dlc-run %t/kernels.onnx --keep-dynamic --inputs %t/kernels_2x5_2x3_x.npy,%t/kernels_2x5_2x3_diag.npy,%t/kernels_2x5_2x3_idx.npy --expected %t/kernels_2x5_2x3_y0.npy,%t/kernels_2x5_2x3_y1.npy,%t/kernels_2x5_2x3_y2.npy,%t/kernels_2x5_2x3_y3.npy,%t/kernels_2x5_2x3_y4.npy,%t/kernels_2x5_2x3_y5.npy,%t/kernels_2x5_2x3_y6.npy,%t/kernels_2x5_2x3_y7.npy,%t/kernels_2x5_2x3_y8.npy,%t/kernels_2x5_2x3_y9.npy --check | FileCheck %s --check-prefix=KER5
// RUN: env DLC_CACHE_DIR=%t/kcache dlc-run %t/kernels.onnx --keep-dynamic --inputs %t/kernels_3x9_3x11_x.npy,%t/kernels_3x9_3x11_diag.npy,%t/kernels_3x9_3x11_idx.npy --expected %t/kernels_3x9_3x11_y0.npy,%t/kernels_3x9_3x11_y1.npy,%t/kernels_3x9_3x11_y2.npy,%t/kernels_3x9_3x11_y3.npy,%t/kernels_3x9_3x11_y4.npy,%t/kernels_3x9_3x11_y5.npy,%t/kernels_3x9_3x11_y6.npy,%t/kernels_3x9_3x11_y7.npy,%t/kernels_3x9_3x11_y8.npy,%t/kernels_3x9_3x11_y9.npy | FileCheck %s --check-prefix=KER9
// RUN: env DLC_CACHE_DIR=%t/kcache dlc-run %t/kernels.onnx --keep-dynamic --inputs %t/kernels_1x1_1x2_x.npy,%t/kernels_1x1_1x2_diag.npy,%t/kernels_1x1_1x2_idx.npy --expected %t/kernels_1x1_1x2_y0.npy,%t/kernels_1x1_1x2_y1.npy,%t/kernels_1x1_1x2_y2.npy,%t/kernels_1x1_1x2_y3.npy,%t/kernels_1x1_1x2_y4.npy,%t/kernels_1x1_1x2_y5.npy,%t/kernels_1x1_1x2_y6.npy,%t/kernels_1x1_1x2_y7.npy,%t/kernels_1x1_1x2_y8.npy,%t/kernels_1x1_1x2_y9.npy | FileCheck %s --check-prefix=KER1
// RUN: rm -rf %t/rcache && env DLC_CACHE_DIR=%t/rcache dlc-run %t/resize.onnx --keep-dynamic --inputs %t/resize_up_x.npy,%t/resize_up_skip.npy --expected %t/resize_up_y0.npy,%t/resize_up_y1.npy --check | FileCheck %s --check-prefix=RSZUP
// RUN: env DLC_CACHE_DIR=%t/rcache dlc-run %t/resize.onnx --keep-dynamic --inputs %t/resize_mixed_x.npy,%t/resize_mixed_skip.npy --expected %t/resize_mixed_y0.npy,%t/resize_mixed_y1.npy | FileCheck %s --check-prefix=RSZMIX

// CHECK-LABEL: func.func @main(%arg0: tensor<?x?x32xf32> {graph.dim_names = ["batch", "seq", ""]}) -> tensor<?x?x32xf32>
// CHECK: %[[B:.*]] = graph.dim %arg0, 0 : tensor<?x?x32xf32> -> index
// CHECK: %[[S:.*]] = graph.dim %arg0, 1 : tensor<?x?x32xf32> -> index
// CHECK: graph.reshape %{{.*}}, %[[B]], %[[S]] {shape = array<i64: -1, -1, 4, 8>} : tensor<?x?x32xf32>, index, index -> tensor<?x?x4x8xf32>
// CHECK: %[[O:.*]] = graph.transpose %{{.*}} {perm = array<i64: 0, 2, 1, 3>} : tensor<?x4x?x8xf32> -> tensor<?x?x4x8xf32>
// CHECK: graph.reshape %[[O]], %{{.*}}, %{{.*}} {shape = array<i64: -1, -1, 32>} : tensor<?x?x4x8xf32>, index, index -> tensor<?x?x32xf32>
// CHECK-NOT: arith.divsi

// MHA1: cache: 0 hits
// MHA1: output 0: f32 [1, 1, 32]
// MHA1: check output 0: {{.*}}: ok
// MHA1: expected output 0 ({{.*}}): {{.*}}: ok
// MHA7: cache: {{[1-9][0-9]*}} hits, 0 misses
// MHA7: output 0: f32 [2, 7, 32]
// MHA7: check output 0: {{.*}}: ok
// MHA7: expected output 0 ({{.*}}): {{.*}}: ok
// MHA128: cache: {{[1-9][0-9]*}} hits, 0 misses
// MHA128: output 0: f32 [1, 128, 32]
// MHA128: expected output 0 ({{.*}}): {{.*}}: ok

// MHA-STATIC: func.func @main(%arg0: !loop.buffer<2x7x32xf32, global>) -> !loop.buffer<2x7x32xf32, global>
// MHA-STATIC: expected output 0 ({{.*}}): {{.*}}: ok

// SHAPES: output 0: f32 [6, 20]
// SHAPES: output 1: f32 [2, 3, 5]
// SHAPES: output 2: i64 []
// SHAPES: output 3: f32 [120]
// SHAPES: output 4: f32 [4]
// SHAPES-COUNT-5: check output {{[0-4]}}: {{.*}}: ok
// SHAPES-COUNT-5: expected output {{[0-4]}} ({{.*}}): {{.*}}: ok
// SHAPES-MLIR-COUNT-5: expected output {{[0-4]}} ({{.*}}): {{.*}}: ok

// WIN9: output 0: f32 [1, 4, 4, 4]
// WIN9: output 1: f32 [1, 2, 12, 16]
// WIN9-COUNT-2: check output {{[01]}}: {{.*}}: ok
// WIN9-COUNT-2: expected output {{[01]}} ({{.*}}): {{.*}}: ok
// WIN32: output 0: f32 [1, 4, 15, 5]
// WIN32: output 1: f32 [1, 2, 32, 20]
// WIN32-COUNT-2: expected output {{[01]}} ({{.*}}): {{.*}}: ok
// The same windows compiled for the input's shape (not --keep-dynamic): the ConvTranspose
// whose kernel equals its strides is the same matmul and interleaving transpose as over `?`
// dims, not a convolution over the input dilated with zeros.
// STATIC-IR: graph.matmul
// STATIC-IR-SAME: -> tensor<1x8x160xf32>
// STATIC-IR: graph.transpose %{{.*}} {perm = array<i64: 0, 1, 4, 2, 5, 3>} : tensor<1x2x2x2x16x10xf32> -> tensor<1x2x16x2x10x2xf32>
// STATIC32: output 1: f32 [1, 2, 32, 20]
// STATIC32-COUNT-2: check output {{[01]}}: {{.*}}: ok
// STATIC32-COUNT-2: expected output {{[01]}} ({{.*}}): {{.*}}: ok

// POS5-NOT: specialized
// POS5: output 0: f32 [2, 5, 8]
// POS5: output 1: i64 [2]
// POS5: output 2: f32 [5]
// POS5-COUNT-3: check output {{[0-2]}}: {{.*}}: ok
// POS5-COUNT-3: expected output {{[0-2]}} ({{.*}}): {{.*}}: ok
// POS1-NOT: specialized
// POS1: output 0: f32 [1, 1, 8]
// POS1: output 1: i64 [0]
// POS1: output 2: f32 [1]
// POS1-COUNT-3: expected output {{[0-2]}} ({{.*}}): {{.*}}: ok

// Tile (constant repeats and repeats from Shape(x)), Trilu with a run-time k, CumSum
// (forward, and reversed exclusive: a masked sum over the `?` axis), GatherElements, a Range
// from -s, Slices bounded by s - 1 and s - 3, and a Pad by s - 2 (a crop at s = 1), compiled
// once for all three sizes.
// KER5: cache: 0 hits
// KER5: output 0: f32 [4, 5]
// KER5: output 1: f32 [2, 10]
// KER5: output 6: i64 [5]
// KER5: output 7: f32 [2, 3]
// KER5: output 8: f32 [2, 2]
// KER5: output 9: f32 [3, 10]
// KER5-COUNT-10: check output {{[0-9]}}: {{.*}}: ok
// KER5-COUNT-10: expected output {{[0-9]}} ({{.*}}): {{.*}}: ok
// KER9: cache: {{[1-9][0-9]*}} hits, 0 misses
// KER9: output 0: f32 [6, 9]
// KER9: output 1: f32 [3, 27]
// KER9: output 5: f32 [3, 11]
// KER9: output 6: i64 [9]
// KER9: output 9: f32 [4, 18]
// KER9-COUNT-10: expected output {{[0-9]}} ({{.*}}): {{.*}}: ok
// KER1: cache: {{[1-9][0-9]*}} hits, 0 misses
// KER1: output 7: f32 [1, 0]
// KER1: output 9: f32 [2, 2]
// KER1-COUNT-10: expected output {{[0-9]}} ({{.*}}): {{.*}}: ok

// Resize to sizes computed from another tensor's Shape: the source coordinates, rounding and
// weights computed at run time, compiled once.
// RSZUP: cache: 0 hits
// RSZUP: output 0: f32 [1, 2, 10, 14]
// RSZUP-COUNT-2: check output {{[01]}}: {{.*}}: ok
// RSZUP-COUNT-2: expected output {{[01]}} ({{.*}}): {{.*}}: ok
// RSZMIX: cache: {{[1-9][0-9]*}} hits, 0 misses
// RSZMIX: output 1: f32 [1, 2, 4, 13]
// RSZMIX-COUNT-2: expected output {{[01]}} ({{.*}}): {{.*}}: ok

// Opset-23 Attention over `?` batch, sequence and past lengths (grouped-query, causal, with
// a past cache), compiled once.
// ATT1: cache: 0 hits
// ATT1: output 0: f32 [1, 1, 32]
// ATT1: output 1: f32 [1, 2, 4, 8]
// ATT1-COUNT-3: check output {{[0-2]}}: {{.*}}: ok
// ATT1-COUNT-3: expected output {{[0-2]}} ({{.*}}): {{.*}}: ok
// ATT6: cache: {{[1-9][0-9]*}} hits, 0 misses
// ATT6: output 0: f32 [2, 6, 32]
// ATT6: output 2: f32 [2, 2, 10, 8]
// ATT6-COUNT-3: expected output {{[0-2]}} ({{.*}}): {{.*}}: ok
