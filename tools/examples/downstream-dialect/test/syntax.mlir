// The act ops' custom syntax prints back as it parses; a number may be written as an integer.
// The clamp's range is a dialect attribute: `range<...>` in the op's syntax, `#act.range<...>`
// in generic form, where it prints back the same.
// RUN: act-opt %s | FileCheck %s
// RUN: act-opt %s | act-opt - | FileCheck %s

// CHECK-LABEL: func.func @all_three
func.func @all_three(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // CHECK: act.scale %arg0, 2.500000e-01 : tensor<2x?xf32>
  %a = act.scale %x, 0.25 : tensor<2x?xf32>
  // CHECK: act.clamp %{{.*}}, range<-1.000000e+00, 6.000000e+00> : tensor<2x?xf32>
  %b = act.clamp %a, range<-1, 6.0> : tensor<2x?xf32>
  // CHECK: act.hard_swish %{{.*}} : tensor<2x?xf32>
  %c = act.hard_swish %b : tensor<2x?xf32>
  return %c : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @generic
func.func @generic(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: act.clamp %arg0, range<0.000000e+00, 1.000000e+00> {note = #act.range<2.000000e+00, 3.000000e+00>} : tensor<4xf32>
  %y = "act.clamp"(%x) {range = #act.range<0.0, 1.0>, note = #act.range<2.0, 3.0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
