// The act ops' custom syntax prints back as it parses; a number may be written as an integer.
// RUN: act-opt %s | FileCheck %s
// RUN: act-opt %s | act-opt - | FileCheck %s

// CHECK-LABEL: func.func @all_three
func.func @all_three(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // CHECK: act.scale %arg0, 2.500000e-01 : tensor<2x?xf32>
  %a = act.scale %x, 0.25 : tensor<2x?xf32>
  // CHECK: act.clamp %{{.*}}, -1.000000e+00, 6.000000e+00 : tensor<2x?xf32>
  %b = act.clamp %a, -1, 6.0 : tensor<2x?xf32>
  // CHECK: act.hard_swish %{{.*}} : tensor<2x?xf32>
  %c = act.hard_swish %b : tensor<2x?xf32>
  return %c : tensor<2x?xf32>
}
