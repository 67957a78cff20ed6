// RUN: dlc-opt %s --pipeline='decompose,fuse,lower' | FileCheck %s --check-prefix=IR
// RUN: dlc-run %s --entry=square --check --seed 7 --no-cache | FileCheck %s
// RUN: dlc-run %s --entry=cube --check --seed 8 --no-cache | FileCheck %s
// RUN: dlc-run %s --entry=other --check --seed 9 --no-cache | FileCheck %s
// RUN: dlc-run %s --entry=pow_arg --check --seed 10 --no-cache | FileCheck %s

// A float power whose exponent is the constant 2 or 3 is lowered as `x * x` or `x * x * x`
// (the square correctly rounded, the cube within two roundings) where `math.powf` (exp and
// log) only approximates them in a hundred instructions. Other exponents (2.5), and an
// exponent that is not a constant, stay `math.powf`. Each compiled function matches the graph
// interpreter.

// IR-LABEL: loop.kernel @square_0_fusion
// IR-NOT:     math.powf
// IR:         %[[X:.*]] = loop.load %arg0
// IR-NEXT:    arith.mulf %[[X]], %[[X]] : f32
// IR-NOT:     math.powf
func.func @square(%x: tensor<8x20xf32>) -> tensor<8x20xf32> {
  %c = graph.constant dense<2.0> : tensor<f32>
  %p = graph.pow %x, %c : tensor<8x20xf32>, tensor<f32> -> tensor<8x20xf32>
  %y = graph.sqrt %p : tensor<8x20xf32>
  return %y : tensor<8x20xf32>
}

// IR-LABEL: loop.kernel @cube_1_fusion
// IR-NOT:     math.powf
// IR:         %[[X:.*]] = loop.load %arg0
// IR-NEXT:    %[[S:.*]] = arith.mulf %[[X]], %[[X]] : f32
// IR-NEXT:    arith.mulf %[[S]], %[[X]] : f32
// IR-NOT:     math.powf
// IR-LABEL: loop.kernel @other_2_fusion
// IR:         math.powf
func.func @cube(%x: tensor<8x20xf32>) -> tensor<8x20xf32> {
  %c = graph.constant dense<3.0> : tensor<f32>
  %p = graph.pow %x, %c : tensor<8x20xf32>, tensor<f32> -> tensor<8x20xf32>
  %y = graph.sqrt %p : tensor<8x20xf32>
  return %y : tensor<8x20xf32>
}

// IR-LABEL: loop.kernel @pow_arg_3_fusion
// IR:         math.powf
func.func @other(%x: tensor<8x20xf32>) -> tensor<8x20xf32> {
  %c = graph.constant dense<2.5> : tensor<f32>
  %p = graph.pow %x, %c : tensor<8x20xf32>, tensor<f32> -> tensor<8x20xf32>
  %y = graph.sqrt %p : tensor<8x20xf32>
  return %y : tensor<8x20xf32>
}

func.func @pow_arg(%x: tensor<8x20xf32>, %e: tensor<f32>) -> tensor<8x20xf32> {
  %p = graph.pow %x, %e : tensor<8x20xf32>, tensor<f32> -> tensor<8x20xf32>
  %y = graph.sqrt %p : tensor<8x20xf32>
  return %y : tensor<8x20xf32>
}

// CHECK: check output 0: {{.*}}: ok
