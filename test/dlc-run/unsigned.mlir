// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 -c "import numpy as n; n.save('%t/a.npy', n.array([200, 255, 7, 0, 128, 3], n.uint8)); n.save('%t/b.npy', n.array([3, 16, 2, 1, 200, 9], n.uint8)); n.save('%t/x.npy', n.array([-1.5, 0.5, 300.0, 255.9, float('nan'), 1e10], n.float32))"
// RUN: dlc-run %s --inputs %t/a.npy,%t/b.npy,%t/x.npy --outputs %t/out --check | FileCheck %s
// RUN: python3 -c "import numpy as n; [print(i, n.load('%t/out/out%%d.npy' %% i).dtype, n.load('%t/out/out%%d.npy' %% i).tolist()) for i in range(10)]" | FileCheck %s --check-prefix=VALUES

// Unsigned integers compiled and run: division, remainder, comparison, max, right shift,
// conversion to float, reduction and argmax are unsigned (200 and 255 are large, not
// negative), a float converts to ui8 saturating at [0, 255] with NaN at 0, and ui8 tensors
// come in and go out as numpy's uint8. `--check` compares every output with the graph
// interpreter.

// CHECK-COUNT-10: check output {{[0-9]}}: {{.*}}: ok

// VALUES: 0 uint8 [66, 15, 3, 0, 0, 0]
// VALUES-NEXT: 1 uint8 [2, 15, 1, 0, 128, 3]
// VALUES-NEXT: 2 bool [True, True, True, False, False, False]
// VALUES-NEXT: 3 uint8 [200, 255, 7, 1, 200, 9]
// VALUES-NEXT: 4 uint8 [25, 0, 1, 0, 0, 0]
// VALUES-NEXT: 5 float32 [200.0, 255.0, 7.0, 0.0, 128.0, 3.0]
// VALUES-NEXT: 6 uint8 255
// VALUES-NEXT: 7 int64 1
// VALUES-NEXT: 8 uint8 [0, 0, 255, 255, 0, 255]
// VALUES-NEXT: 9 int32 [-56, -1, 7, 0, -128, 3]

func.func @main(%a: tensor<6xui8>, %b: tensor<6xui8>, %x: tensor<6xf32>)
    -> (tensor<6xui8>, tensor<6xui8>, tensor<6xi1>, tensor<6xui8>, tensor<6xui8>, tensor<6xf32>,
        tensor<ui8>, tensor<i64>, tensor<6xui8>, tensor<6xi32>) {
  %div = graph.div %a, %b : tensor<6xui8>
  %rem = graph.rem %a, %b : tensor<6xui8>
  %gt = graph.cmp gt, %a, %b : tensor<6xui8>
  %max = graph.max %a, %b : tensor<6xui8>
  %shr = graph.shr %a, %b : tensor<6xui8>
  %f = graph.cast %a : tensor<6xui8> -> tensor<6xf32>
  %rmax = graph.reduce_max %a {axes = array<i64: 0>, keepdim = false} : tensor<6xui8> -> tensor<ui8>
  %amax = graph.argmax %a {axis = 0 : i64} : tensor<6xui8> -> tensor<i64>
  %sat = graph.cast %x : tensor<6xf32> -> tensor<6xui8>
  %s8 = graph.bitcast %a : tensor<6xui8> -> tensor<6xi8>
  %wide = graph.cast %s8 : tensor<6xi8> -> tensor<6xi32>
  return %div, %rem, %gt, %max, %shr, %f, %rmax, %amax, %sat, %wide
      : tensor<6xui8>, tensor<6xui8>, tensor<6xi1>, tensor<6xui8>, tensor<6xui8>, tensor<6xf32>,
        tensor<ui8>, tensor<i64>, tensor<6xui8>, tensor<6xi32>
}
