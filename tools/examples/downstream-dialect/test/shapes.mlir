// An act op's `InferShapes` gives its symbolic rule (`infer_symbolic`: the operand's shape),
// so dlc's symbolic shape analysis carries a `?` through it: the scale of %x keeps %x's
// symbol s0, and the add that meets %y's s1 records `s0 == s1` (without the rule the scale's
// result would be a symbol of its own, s2, and the constraint `s1 == s2`).
// RUN: act-opt %s --print-symbolic-shapes | FileCheck %s

// CHECK: sym_symbols = ["s0 = dim 1 of argument 0", "s1 = dim 1 of argument 1", "s0 == s1 at run time"]
// CHECK: graph.add {{.*}} {sym_shape_str = "shape[2, s0]"}
func.func @f(%x: tensor<2x?xf32>, %y: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %a = act.scale %x, 0.25 : tensor<2x?xf32>
  %b = graph.add %a, %y : tensor<2x?xf32>, tensor<2x?xf32> -> tensor<2x?xf32>
  return %b : tensor<2x?xf32>
}
