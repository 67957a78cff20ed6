// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower,tile{vnni=true cpu=x86-64-v4}' -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: dlc-run %t.mlir --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-run %t.mlir --check --no-cache | FileCheck %s
// RUN: dlc-run %t.mlir --backend mlir --check --no-cache | FileCheck %s

// 8-bit integer products (`ui8 x i8 -> i32`, MatMulInteger's form after import) compiled and
// compared with the interpreters: as the host's pipeline tiles them (with `loop.dot4` where
// the host has VNNI); and tiled with `loop.dot4` for any CPU, then code-generated for AVX2
// (the widening multiply-adds), for the host (`vpdpbusd` with VNNI) and through the MLIR
// export. 70 rows and 100
// columns leave row and column remainders, which keep the integer tile; the batched product
// has 33 rows.

// IR-COUNT-2: loop.dot4
// CHECK-COUNT-2: check output {{[0-9]}}: {{.*}}: ok

func.func @main(%a: tensor<70x128xui8>, %b: tensor<128x100xi8>, %c: tensor<2x33x64xui8>, %d: tensor<64x48xi8>)
    -> (tensor<70x100xi32>, tensor<2x33x48xi32>) {
  %0 = graph.matmul %a, %b : tensor<70x128xui8>, tensor<128x100xi8> -> tensor<70x100xi32>
  %1 = graph.matmul %c, %d : tensor<2x33x64xui8>, tensor<64x48xi8> -> tensor<2x33x48xi32>
  return %0, %1 : tensor<70x100xi32>, tensor<2x33x48xi32>
}
