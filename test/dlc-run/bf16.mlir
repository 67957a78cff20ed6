// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 -c "import numpy as n; n.save('%t/x.npy', n.array([1.00390625, 1.01171875, -2.5, float('nan'), float('inf'), 3.4e38, 1e-40, 0.3], n.float32)); n.save('%t/d.npy', n.array([1.00390625, 1.01171875, -0.0, 1e300, 65536.5, 3.0, 1e-45, 0.1])); n.save('%t/i.npy', n.array([257, 259, -7, 0, 1, 300001, 2147483647, -129], n.int32))"
// RUN: dlc-run %s --inputs %t/x.npy,%t/d.npy,%t/i.npy --check --no-cache | FileCheck %s
// RUN: dlc-run %s --inputs %t/x.npy,%t/d.npy,%t/i.npy --check --no-cache --backend mlir | FileCheck %s
// RUN: dlc-run %s --inputs %t/x.npy,%t/d.npy,%t/i.npy --outputs %t/out --check --no-cache --cpu=x86-64-v3 | FileCheck %s
// RUN: python3 -c "import numpy as n; [print(i, n.load('%t/out/out%%d.npy' %% i).tolist()) for i in range(5)]" | FileCheck %s --check-prefix=VALUES

// Narrowing to bf16 compiled and run on any CPU: without AVX512-BF16 (x86-64-v3 here, and the
// host when it lacks it) LLVM calls `__truncsfbf2` / `__truncdfbf2` for every f32 or f64 →
// bf16 conversion, bf16 arithmetic included (computed in f32), and both JITs (dlc's and MLIR's
// execution engine) define them (dlc_runtime's `float_libcalls`). Rounding is to nearest even:
// 1 + 2^-8 and 1 + 3 * 2^-8 are ties that go to 1.0 and 1.015625, 259 to 260, 3.4e38 past the
// largest bf16 to inf; an f32 subnormal keeps its bf16 subnormal; NaN and infinities pass.
// `--check` compares every output with the graph interpreter.

// CHECK-COUNT-5: check output {{[0-9]}}: {{.*}}: ok

// VALUES: 0 [1.0, 1.015625, -2.5, nan, inf, inf, 9.183549615799121e-41, 0.30078125]
// VALUES-NEXT: 1 [1.0, 1.015625, -0.0, inf, 65536.0, 3.0, 0.0, 0.10009765625]
// VALUES-NEXT: 2 [256.0, 260.0, -7.0, 0.0, 1.0, 299008.0, 2147483648.0, -129.0]
// VALUES-NEXT: 3 [256.0, 262.0, -9.5, nan, inf, inf, 2147483648.0, -129.0]
// VALUES-NEXT: 4 [2.71875, 2.765625, 0.08203125, nan, inf, inf, 1.0, 1.3515625]

func.func @main(%x: tensor<8xf32>, %d: tensor<8xf64>, %i: tensor<8xi32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>) {
  %a = graph.cast %x : tensor<8xf32> -> tensor<8xbf16>
  %b = graph.cast %d : tensor<8xf64> -> tensor<8xbf16>
  %c = graph.cast %i : tensor<8xi32> -> tensor<8xbf16>
  %s = graph.add %a, %c : tensor<8xbf16>
  %e = graph.exp %a : tensor<8xbf16>
  %a32 = graph.cast %a : tensor<8xbf16> -> tensor<8xf32>
  %b32 = graph.cast %b : tensor<8xbf16> -> tensor<8xf32>
  %c32 = graph.cast %c : tensor<8xbf16> -> tensor<8xf32>
  %s32 = graph.cast %s : tensor<8xbf16> -> tensor<8xf32>
  return %a32, %b32, %c32, %s32, %e
      : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>
}
