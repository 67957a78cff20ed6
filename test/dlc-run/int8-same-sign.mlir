// RUN: rm -rf %t && mkdir -p %t
// RUN: dlc-run %s --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{dot=2 cpu=x86-64-v3},tile{dot=2 cpu=x86-64-v3}' -o %t/dot2.mlir
// RUN: FileCheck %s --check-prefix=DOT2 < %t/dot2.mlir
// RUN: dlc-opt %t/dot2.mlir --emit=llvm --target=x86-64-v3 | FileCheck %s --check-prefix=LLVM
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{dot=4 cpu=x86-64-v4},tile{dot=4 cpu=x86-64-v4}' | FileCheck %s --check-prefix=QUADS
// RUN: python3 -c "import numpy as n; n.save('%t/a.npy', n.full((9, 64), -128, n.int8)); b = n.full((64, 40), -128, n.int8); b[:, 1::2] = 127; n.save('%t/b.npy', b); n.save('%t/c.npy', n.full((9, 64), 255, n.uint8)); n.save('%t/d.npy', n.full((64, 40), 255, n.uint8)); x = n.full((1, 8, 10, 10), 127, n.int8); x[0, :, ::2] = -128; n.save('%t/x.npy', x); n.save('%t/w.npy', n.full((16, 8, 3, 3), -128, n.int8))"
// RUN: dlc-run %s --cpu=x86-64-v3 --inputs %t/a.npy,%t/b.npy,%t/c.npy,%t/d.npy,%t/x.npy,%t/w.npy --outputs %t/out --check --no-cache | FileCheck %s
// RUN: python3 -c "import numpy as n; [print(i, sorted(set(n.load('%t/out/out%%d.npy' %% i).ravel().tolist()))) for i in range(3)]" | FileCheck %s --check-prefix=EXTREMES

// 8-bit products whose operands have the same signedness (`i8 x i8` and `ui8 x ui8` into
// `i32`), which `vpdpbusd` (one unsigned and one signed operand) cannot take and `pmaddwd` on
// bytes widened to `i16` can: `tile` computes them with `loop.dot2` under `dot=2` (AVX2), and
// under `dot=4` too (a VNNI CPU is an x86 one), on 16 lanes there. `lower` reads the
// convolution's window gather through for it (no gather kernel: `tile` packs the columns).
// The compiled code is compared with the graph interpreter on random inputs and on the
// types' limits: -128 · -128 twice is 32768, past `i16` (the pairs' sums are 32-bit), and 255 ·
// 255 twice is 130050.

// CHECK-COUNT-3: check output {{[0-9]}}: {{.*}}: ok

// DOT2-LABEL: loop.kernel @main_0_matmul(
// DOT2: arith.extsi %{{.*}} : i8 to i16
// DOT2: arith.extsi %{{.*}} : vector<2xi8> to vector<2xi16>
// DOT2: loop.dot2 %{{.*}} : vector<8xi32>, vector<2xi16>, vector<16xi16>
// DOT2-LABEL: loop.kernel @main_1_matmul(
// DOT2: arith.extui %{{.*}} : i8 to i16
// DOT2: arith.extui %{{.*}} : vector<2xi8> to vector<2xi16>
// DOT2: loop.dot2 %{{.*}} : vector<8xi32>, vector<2xi16>, vector<16xi16>
// DOT2-NOT: _gather(
// DOT2-LABEL: loop.kernel @main_3_matmul(
// DOT2: loop.dot2 %{{.*}} : vector<8xi32>, vector<2xi16>, vector<16xi16>
// DOT2-NOT: _gather(
// LLVM: call <8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16>
// QUADS-NOT: loop.dot4
// QUADS: loop.dot2 %{{.*}} : vector<16xi32>, vector<2xi16>, vector<32xi16>
// QUADS-NOT: loop.dot4

// Over 64 steps: -128 · -128 = 16384 and -128 · 127 = -16256, each 64 times; 255 · 255 =
// 65025 64 times; the convolution's 72 taps of -128 over rows of 127 or -128, zero-padded at
// the border (fewer taps there).
// EXTREMES: 0 [-1040384, 1048576]
// EXTREMES-NEXT: 1 [4161600]
// EXTREMES-NEXT: 2 [-387072, -258048, 2048, 3072, 264192, 396288]

func.func @main(%a: tensor<9x64xi8>, %b: tensor<64x40xi8>, %c: tensor<9x64xui8>, %d: tensor<64x40xui8>, %x: tensor<1x8x10x10xi8>, %w: tensor<16x8x3x3xi8>)
    -> (tensor<9x40xi32>, tensor<9x40xi32>, tensor<1x16x10x10xi32>) {
  %0 = graph.matmul %a, %b : tensor<9x64xi8>, tensor<64x40xi8> -> tensor<9x40xi32>
  %1 = graph.matmul %c, %d : tensor<9x64xui8>, tensor<64x40xui8> -> tensor<9x40xi32>
  %2 = graph.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x10x10xi8>, tensor<16x8x3x3xi8> -> tensor<1x16x10x10xi32>
  return %0, %1, %2 : tensor<9x40xi32>, tensor<9x40xi32>, tensor<1x16x10x10xi32>
}
