// ClampOfClamp, act.clamp's canonicalization pattern: a clamp of a clamp whose ranges overlap
// is one clamp to their intersection; disjoint ranges stay two clamps.
// RUN: act-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK-LABEL: func.func @overlapping
func.func @overlapping(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[Y:.*]] = act.clamp %arg0, range<1.000000e+00, 4.000000e+00> : tensor<4xf32>
  // CHECK-NEXT: return %[[Y]]
  %a = act.clamp %x, range<0.0, 4.0> : tensor<4xf32>
  %b = act.clamp %a, range<1.0, 6.0> : tensor<4xf32>
  return %b : tensor<4xf32>
}

// Ranges that only touch meet in one point.
// CHECK-LABEL: func.func @touching
func.func @touching(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[Y:.*]] = act.clamp %arg0, range<2.000000e+00, 2.000000e+00> : tensor<4xf32>
  // CHECK-NEXT: return %[[Y]]
  %a = act.clamp %x, range<0.0, 2.0> : tensor<4xf32>
  %b = act.clamp %a, range<2.0, 3.0> : tensor<4xf32>
  return %b : tensor<4xf32>
}

// CHECK-LABEL: func.func @disjoint
func.func @disjoint(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[A:.*]] = act.clamp %arg0, range<0.000000e+00, 1.000000e+00>
  // CHECK-NEXT: %[[B:.*]] = act.clamp %[[A]], range<2.000000e+00, 3.000000e+00>
  // CHECK-NEXT: return %[[B]]
  %a = act.clamp %x, range<0.0, 1.0> : tensor<4xf32>
  %b = act.clamp %a, range<2.0, 3.0> : tensor<4xf32>
  return %b : tensor<4xf32>
}

// A chain of three overlapping clamps folds to one; the inner clamp kept for its other use.
// CHECK-LABEL: func.func @chain
func.func @chain(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[A:.*]] = act.clamp %arg0, range<0.000000e+00, 6.000000e+00>
  // CHECK-NEXT: %[[C:.*]] = act.clamp %arg0, range<1.000000e+00, 5.000000e+00>
  // CHECK-NEXT: return %[[C]], %[[A]]
  %a = act.clamp %x, range<0.0, 6.0> : tensor<4xf32>
  %b = act.clamp %a, range<1.0, 7.0> : tensor<4xf32>
  %c = act.clamp %b, range<-1.0, 5.0> : tensor<4xf32>
  return %c, %a : tensor<4xf32>, tensor<4xf32>
}
