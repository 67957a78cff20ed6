// RUN: dlc-opt %s --pipeline='fuse{max-group-size=3}' | FileCheck %s --check-prefix=SIZE
// RUN: dlc-opt %s --pipeline='fuse{elementwise=false}' | FileCheck %s --check-prefix=NOELT
// RUN: dlc-opt %s --pipeline='fuse{reduction=false}' | FileCheck %s --check-prefix=NORED
// RUN: dlc-opt %s --pipeline='fuse{matmul-epilogue=false}' | FileCheck %s --check-prefix=NOMM
// RUN: dlc-opt %s --pipeline='fuse{sink-reshapes=false}' | FileCheck %s --check-prefix=NOSINK
// RUN: dlc-opt %s --pipeline=fuse --pass-statistics -o %t 2>&1 | FileCheck %s --check-prefix=STATS

// Rule 5: with max-group-size=3 the five-op chain splits into groups of 3 and 2.

// SIZE-LABEL: func.func @chain
// SIZE:         graph.fusion
// SIZE-NEXT:    ^bb0
// SIZE-NEXT:      graph.exp
// SIZE-NEXT:      graph.neg
// SIZE-NEXT:      graph.tanh
// SIZE-NEXT:      graph.yield
// SIZE:         graph.fusion
// SIZE-NEXT:    ^bb0
// SIZE-NEXT:      graph.abs
// SIZE-NEXT:      graph.sigmoid
// SIZE-NEXT:      graph.yield

// NOELT-LABEL: func.func @chain
// NOELT-NOT:     graph.fusion
// NOELT-LABEL: func.func @softmax
// NOELT:         graph.fusion
// NOELT-LABEL: func.func @linear_relu
// NOELT:         graph.fusion

// With reduction=false the reductions stay alone; the elementwise ops between them still fuse.
// NORED-LABEL: func.func @softmax
// NORED-NEXT:    %0 = graph.reduce_max %arg0
// NORED-NEXT:    %1 = graph.fusion (%arg0, %0)
// NORED-NEXT:    ^bb0
// NORED-NEXT:      graph.sub
// NORED-NEXT:      graph.exp
// NORED-NEXT:      graph.yield
// NORED-NEXT:    }
// NORED-NEXT:    %2 = graph.reduce_sum %1
// NORED-NEXT:    %3 = graph.div %1, %2
// NORED-LABEL: func.func @linear_relu

// With matmul-epilogue=false the matmul stays alone; its epilogue is an elementwise group.
// NOMM-LABEL: func.func @linear_relu
// NOMM-NEXT:    %0 = graph.matmul %arg0, %arg1
// NOMM-NEXT:    %1 = graph.fusion (%0, %arg2)
// NOMM-NEXT:    ^bb0
// NOMM-NEXT:      graph.add
// NOMM-NEXT:      graph.relu
// NOMM-NEXT:      graph.yield

// With sink-reshapes=false (rule 0 off) the reshape is a boundary: exp and neg stay apart.
// NOSINK-LABEL: func.func @reshaped_chain
// NOSINK-NEXT:    %0 = graph.exp %arg0
// NOSINK-NEXT:    %1 = graph.reshape %0
// NOSINK-NEXT:    %2 = graph.neg %1
// NOSINK-NEXT:    return %2

// Four groups of 15 ops. Each value made internal saves a write and a read (2 × elements × 4
// bytes): 4 of [4, 8] in @chain (1024), 2 of [4, 8] and 2 of [4, 1] in @softmax (512 + 64),
// 2 of [4, 8] in @linear_relu (512), 1 of [4, 8] in @reshaped_chain (256), whose neg moved
// above its reshape.
// STATS:      'func.func' Pipeline
// STATS-NEXT:   fuse
// STATS-NEXT:     (S) 4 num-groups
// STATS-NEXT:     (S) 15 num-fused-ops
// STATS-NEXT:     (S) 2368 bytes-saved
// STATS:          (S) 1 num-sunk-reshapes

func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.neg %0 : tensor<4x8xf32>
  %2 = graph.tanh %1 : tensor<4x8xf32>
  %3 = graph.abs %2 : tensor<4x8xf32>
  %4 = graph.sigmoid %3 : tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.reduce_max %x {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %1 = graph.sub %x, %0 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %2 = graph.exp %1 : tensor<4x8xf32>
  %3 = graph.reduce_sum %2 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  %4 = graph.div %2, %3 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

func.func @linear_relu(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %1 = graph.add %0, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %2 = graph.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

func.func @reshaped_chain(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = graph.exp %x : tensor<4x8xf32>
  %1 = graph.reshape %0 {shape = array<i64: 32>} : tensor<4x8xf32> -> tensor<32xf32>
  %2 = graph.neg %1 : tensor<32xf32>
  return %2 : tensor<32xf32>
}
