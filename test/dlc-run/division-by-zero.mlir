// RUN: rm -rf %t && dlc-run %s --seed 1 --outputs %t/llvm && dlc-run %s --seed 1 --backend=mlir --outputs %t/mlir
// RUN: python3 -c "import numpy as n; [print(n.load('%t/' + b + '/out0.npy').tolist()) for b in ('llvm', 'mlir')]" | FileCheck %s

// Integer division and remainder by zero, and INT_MIN / -1, give 0 on both backends instead of
// a SIGFPE; the divisors are data, not constants, so the guards stay. (The interpreters report
// these divisions as errors, so --check does not apply.)
// CHECK:      {{\[}}[0, 0, -2147483648, -1073741824], [0, 0, 0, -715827882]]
// CHECK-NEXT: {{\[}}[0, 0, -2147483648, -1073741824], [0, 0, 0, -715827882]]
func.func @division(%x: tensor<2x4xi32>) -> (tensor<2x4xi32>, tensor<2x4xi32>) {
  %zero = graph.constant dense<0> : tensor<1xi32>
  %min = graph.constant dense<-2147483648> : tensor<1xi32>
  %d = graph.constant dense<[[0, -1, 1, 2], [0, 0, -1, 3]]> : tensor<2x4xi32>
  %z = graph.mul %x, %zero : tensor<2x4xi32>, tensor<1xi32> -> tensor<2x4xi32>
  %a = graph.add %z, %min : tensor<2x4xi32>, tensor<1xi32> -> tensor<2x4xi32>
  %q = graph.div %a, %d : tensor<2x4xi32>
  %r = graph.rem %x, %d : tensor<2x4xi32>
  return %q, %r : tensor<2x4xi32>, tensor<2x4xi32>
}
