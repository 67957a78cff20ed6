// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower,tile{dot=4 cpu=x86-64-v4}' -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: dlc-run %t.mlir --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-run %t.mlir --check --no-cache | FileCheck %s
// RUN: dlc-run %t.mlir --backend mlir --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower,tile{dot=2 cpu=x86-64-v3}' -o %t.dot2.mlir
// RUN: FileCheck %s --check-prefix=DOT2 < %t.dot2.mlir
// RUN: dlc-run %t.dot2.mlir --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-run %t.dot2.mlir --cpu=x86-64 --check --no-cache | FileCheck %s
// RUN: dlc-run %t.dot2.mlir --backend mlir --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower,tile{dot=2 cpu=x86-64-v4}' -o %t.dot2-16.mlir
// RUN: dlc-run %t.dot2-16.mlir --check --no-cache | FileCheck %s
// RUN: dlc-run %s --cpu=x86-64 --check --no-cache | FileCheck %s
// RUN: dlc-run %s --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower,tile{dot=4 cpu=x86-64-v4 k-block=10}' -o %t.kb.mlir
// RUN: FileCheck %s --check-prefix=KB < %t.kb.mlir
// RUN: dlc-run %t.kb.mlir --check --no-cache | FileCheck %s
// RUN: rm -rf %t.in && mkdir -p %t.in
// RUN: python3 -c "import numpy as n; n.save('%t.in/a.npy', n.full((70, 128), 255, n.uint8)); n.save('%t.in/b.npy', n.full((128, 100), -128, n.int8)); c = n.full((2, 33, 64), 255, n.uint8); c[1] = 0; n.save('%t.in/c.npy', c); d = n.full((64, 48), 127, n.int8); d[:, ::2] = -128; n.save('%t.in/d.npy', d); n.save('%t.in/e.npy', n.full((7, 27), 255, n.uint8)); n.save('%t.in/f.npy', d[:27]); n.save('%t.in/g.npy', n.full((13, 3), 255, n.uint8)); n.save('%t.in/h.npy', n.full((3, 100), -128, n.int8))"
// RUN: dlc-run %t.dot2.mlir --cpu=x86-64-v3 --inputs %t.in/a.npy,%t.in/b.npy,%t.in/c.npy,%t.in/d.npy,%t.in/e.npy,%t.in/f.npy,%t.in/g.npy,%t.in/h.npy --outputs %t.out --check --no-cache | FileCheck %s
// RUN: python3 -c "import numpy as n; [print(i, sorted(set(n.load('%t.out/out%%d.npy' %% i).ravel().tolist()))) for i in range(4)]" | FileCheck %s --check-prefix=EXTREMES

// 8-bit integer products (`ui8 x i8 -> i32`, MatMulInteger's form after import) compiled and
// compared with the interpreters: as the host's pipeline tiles them (with `loop.dot4` where
// the host has VNNI, else `loop.dot2`); tiled with `loop.dot4` for any CPU, then
// code-generated for AVX2 (the widening multiply-adds), for the host (`vpdpbusd` with VNNI)
// and through the MLIR export; and tiled with `loop.dot2` for AVX2, then code-generated for
// AVX2 (`vpmaddwd`), for SSE2 (whose `pmaddwd` is narrower than the 8 lanes: the widening
// multiply-adds) and through the MLIR export; tiled with `loop.dot2` on 16 lanes and run on
// the host (one AVX-512BW `vpmaddwd` each where the host has it); and with the host's
// pipeline for SSE2 (`loop.dot2` on 4 lanes, one `pmaddwd` each) and for AVX2 (8 lanes),
// against the graph interpreter. 70 rows and 100
// columns leave row and column remainders, which keep the integer tile; the batched product
// has 33 rows; the third's 27 steps end in a partial group (three steps of `loop.dot4`'s
// four, one of `loop.dot2`'s two), whose missing steps are zeros and whose bytes of `A` are
// read one at a time, none past a row (the loop interpreter would report such a read); with
// `k-block=10`, rounded down to 8 (two groups), the 27 steps are three blocks of two groups
// and a last block of two and the partial one. The fourth's 3 steps, shorter than a group of four, keep
// the integer tile under `loop.dot4` and take one pair and a partial one under `loop.dot2`.

// IR-LABEL: loop.kernel @main_0_matmul(
// IR: loop.dot4
// IR-LABEL: loop.kernel @main_1_matmul(
// IR: loop.dot4
// IR-LABEL: loop.kernel @main_2_matmul(
// IR: loop.dot4
// IR-LABEL: loop.kernel @main_3_matmul(
// IR-NOT: loop.dot4
// KB-LABEL: loop.kernel @main_2_matmul(
// KB: loop.alloc : !loop.buffer<2x192xi8, local>
// KB: loop.for serial %{{.*}} = %c0{{.*}} to %c27{{.*}} step %c8
// KB: loop.dot4
// DOT2-LABEL: loop.kernel @main_0_matmul(
// DOT2: loop.dot2 %{{.*}} : vector<8xi32>, vector<2xi16>, vector<16xi16>
// DOT2-LABEL: loop.kernel @main_1_matmul(
// DOT2: loop.dot2
// DOT2-LABEL: loop.kernel @main_2_matmul(
// DOT2: loop.dot2
// DOT2-LABEL: loop.kernel @main_3_matmul(
// DOT2: loop.dot2
// DOT2-NOT: loop.dot4

// `loop.dot2` is exact where AVX2's byte multiply-add (`vpmaddubsw`, saturating to 16 bits)
// is not: the largest products, 255 · -128 and 255 · 127 two at a time, add up to -4177920
// over 128 steps, -2088960 and 2072640 over 64 (and 0 where `A` is 0), -881280 and 874395
// over 27, -97920 over 3.
// EXTREMES: 0 [-4177920]
// EXTREMES-NEXT: 1 [-2088960, 0, 2072640]
// EXTREMES-NEXT: 2 [-881280, 874395]
// EXTREMES-NEXT: 3 [-97920]
// CHECK-COUNT-4: check output {{[0-9]}}: {{.*}}: ok

func.func @main(%a: tensor<70x128xui8>, %b: tensor<128x100xi8>, %c: tensor<2x33x64xui8>, %d: tensor<64x48xi8>, %e: tensor<7x27xui8>, %f: tensor<27x48xi8>, %g: tensor<13x3xui8>, %h: tensor<3x100xi8>)
    -> (tensor<70x100xi32>, tensor<2x33x48xi32>, tensor<7x48xi32>, tensor<13x100xi32>) {
  %0 = graph.matmul %a, %b : tensor<70x128xui8>, tensor<128x100xi8> -> tensor<70x100xi32>
  %1 = graph.matmul %c, %d : tensor<2x33x64xui8>, tensor<64x48xi8> -> tensor<2x33x48xi32>
  %2 = graph.matmul %e, %f : tensor<7x27xui8>, tensor<27x48xi8> -> tensor<7x48xi32>
  %3 = graph.matmul %g, %h : tensor<13x3xui8>, tensor<3x100xi8> -> tensor<13x100xi32>
  return %0, %1, %2, %3 : tensor<70x100xi32>, tensor<2x33x48xi32>, tensor<7x48xi32>, tensor<13x100xi32>
}
