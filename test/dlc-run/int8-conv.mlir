// RUN: dlc-run %s --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{dot=none},tile{dot=4 cpu=x86-64-v4}' -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: dlc-run %t.mlir --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-run %t.mlir --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{dot=4},tile{dot=4 cpu=x86-64-v4}' -o %t.packed.mlir
// RUN: FileCheck %s --check-prefix=PACKED < %t.packed.mlir
// RUN: dlc-run %t.packed.mlir --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-run %s --pipeline='decompose,fuse,lower{dot=4},cpu-default' --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{dot=2 cpu=x86-64-v3},tile{dot=2 cpu=x86-64-v3}' -o %t.dot2.mlir
// RUN: FileCheck %s --check-prefix=DOT2 < %t.dot2.mlir
// RUN: dlc-run %s --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-run %t.dot2.mlir --cpu=x86-64-v3 --check --no-cache | FileCheck %s
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{dot=4},tile{dot=4 cpu=x86-64-v4}' --pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// Convolutions of bytes (`ui8` input, `i8` weights -> `i32`: ConvInteger and the QDQ
// pattern after import) compiled and compared with the interpreters. All run as im2col, the
// product a byte matmul whose `i8` weights are the signed operand of `loop.dot4` (the first
// has 16·9 = 144 taps, the third 8·9 = 72 and the fourth 4·9 = 36 per group, which four
// divides; the second's and the fifth's 3·9 = 27 are six groups of four and a last of
// three, their packed row zero past them), the padding the integer 0. The second, with a
// column stride of 1 and 40 output columns, would run direct as a float convolution.

// IR-COUNT-1: loop.dot4
// CHECK: check output 0: {{.*}}: ok
// CHECK: check output 1: {{.*}}: ok
// CHECK: check output 2: {{.*}}: ok
// CHECK: check output 3: {{.*}}: ok
// CHECK: check output 4: {{.*}}: ok

// With `lower{dot=4}` the first and third matmuls read their columns through the window
// table (no gather kernel of their own; the second, over a batch of two images, a matrix of
// columns per image, keeps its gather, main_3). `tile` packs each block of columns straight
// from the input through the table, and the threads share out the column blocks (8 of them,
// so on machines
// of up to 8 threads): 484 columns are 7 whole blocks of 64 and a clamped one whose packing
// stops at column 484 and zeroes the rest; the write-back stops there too. The third's 7 rows
// leave 3 after a tile of 4 (no height from 4 down to 2 divides 7), run after the blocks. The
// fourth, of two groups, keeps its gather (main_8): a matrix of columns per group, which the
// tile's rows would each gather from their own. The fifth, 27 taps over one 19x19 image,
// reads through too: 361 columns in 6 column blocks, the last clamped, and a last group of
// three taps in the block that ends the range (past step 24).
// PACKED-NOT: loop.kernel @main_{{[0-9]+}}_gather(
// PACKED-LABEL: loop.kernel @main_1_matmul(
// PACKED: loop.for parallel %[[JB:.*]] = %{{.*}} to %c8{{.*}} step
// PACKED: %[[J0:.*]] = arith.addi %c0, %{{.*}} : index
// PACKED: %[[PACK:.*]] = loop.alloc : !loop.buffer<36x256xi8, local>
// PACKED: %[[LEFT:.*]] = arith.subi %c484, %[[J0]] : index
// PACKED: %[[COLS:.*]] = arith.minsi %{{.*}}, %[[LEFT]] : index
// PACKED: loop.for serial %{{.*}} = %{{.*}} to %[[COLS]] step
// PACKED: %[[T:.*]] = loop.load %arg2[%{{.*}}, %{{.*}}] : !loop.buffer<9x484xi32, global>
// PACKED: %[[AT:.*]] = arith.index_cast %[[T]] : i32 to index
// PACKED: %[[BYTE:.*]] = loop.load %arg1[%c0, %{{.*}}, %[[AT]]] : !loop.buffer<1x16x2116xi8, global>
// PACKED: loop.store %[[BYTE]], %[[PACK]]
// PACKED: arith.constant 0 : i8
// PACKED: loop.dot4
// PACKED: %[[WB:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// PACKED: loop.for serial %{{.*}} = %{{.*}} to %[[WB]] step
// PACKED: loop.kernel @main_3_gather(
// PACKED-NOT: loop.kernel @main_{{[0-9]+}}_gather(
// PACKED-LABEL: loop.kernel @main_6_matmul(
// PACKED: loop.for parallel %{{.*}} = %{{.*}} to %c8{{.*}} step
// PACKED: loop.dot4
// PACKED: loop.if
// PACKED: loop.kernel @main_8_gather(
// PACKED-NOT: loop.kernel @main_{{[0-9]+}}_gather(
// PACKED-LABEL: loop.kernel @main_11_matmul(
// PACKED: loop.for parallel %{{.*}} = %{{.*}} to %c6{{.*}} step
// PACKED: loop.alloc : !loop.buffer<7x256xi8, local>
// PACKED: arith.cmpi sgt, %{{.*}}, %c24{{.*}} : index
// PACKED: loop.dot4 %{{.*}} : vector<16xi32>, vector<64xi8>, vector<4xi8>
// With `dot=2` (AVX2) the same convolutions read their columns through the window table,
// which `tile` packs two reduction steps per row, widened to `i16` (zero-extended: the
// columns are the `ui8` input). The second's 27 taps (after its gather) are thirteen pairs
// and a last step: its packed block has 14 rows, the last one's second step zero, and the
// block that ends the range (a `loop.if` on its end past step 26) reads that step's byte of
// each row of `A` alone into a local pair, so nothing past the 27 taps is read. `dlc-run %s
// --cpu=x86-64-v3 --check` compiles the whole program so for AVX2 and compares it with the
// graph interpreter.
// DOT2-NOT: loop.kernel @main_{{[0-9]+}}_gather(
// DOT2-LABEL: loop.kernel @main_1_matmul(
// DOT2: %[[PACK:.*]] = loop.alloc : !loop.buffer<72x64xi16, local>
// DOT2: %[[BYTE:.*]] = loop.load %arg1[%c0, %{{.*}}, %{{.*}}] : !loop.buffer<1x16x2116xi8, global>
// DOT2: %[[WIDE:.*]] = arith.extui %[[BYTE]] : i8 to i16
// DOT2: loop.store %[[WIDE]], %[[PACK]]
// DOT2: arith.constant 0 : i16
// DOT2: loop.dot2
// DOT2: loop.kernel @main_3_gather(
// DOT2-LABEL: loop.kernel @main_4_matmul(
// DOT2: loop.alloc : !loop.buffer<14x64xi16, local>
// DOT2: %[[WHOLE:.*]] = arith.minsi %{{.*}}, %c26{{.*}} : index
// DOT2: loop.for serial %{{.*}} = %{{.*}} to %[[WHOLE]] step %c2
// DOT2: %[[ENDS:.*]] = arith.cmpi sgt, %{{.*}}, %c26{{.*}} : index
// DOT2-NEXT: loop.if %[[ENDS]] {
// DOT2: arith.constant 0 : i16
// DOT2: loop.dot2
// DOT2: loop.if %{{.*}} {
// DOT2: %[[PAIR:.*]] = loop.alloc : !loop.buffer<2xi8, local>
// DOT2: %[[BYTE:.*]] = loop.load %arg0[%c0, %{{.*}}, %{{.*}}] : !loop.buffer<1x8x27xi8, global>
// DOT2-NEXT: loop.store %[[BYTE]], %[[PAIR]][%c0{{.*}}] : !loop.buffer<2xi8, local>
// DOT2: loop.store %c0_i8, %[[PAIR]][%c1{{.*}}] : !loop.buffer<2xi8, local>
// DOT2: loop.vload %[[PAIR]][%c0{{.*}}] : !loop.buffer<2xi8, local> -> vector<2xi8>
// DOT2: loop.dot2
// DOT2-LABEL: loop.kernel @main_6_matmul(
// DOT2: loop.dot2
// DOT2: loop.kernel @main_8_gather(
// DOT2-NOT: loop.kernel @main_{{[0-9]+}}_gather(
// DOT2-LABEL: loop.kernel @main_11_matmul(
// DOT2: loop.alloc : !loop.buffer<14x64xi16, local>
// DOT2: loop.dot2
// STATS: tile
// STATS-DAG: (S) 5 nests-tiled
// STATS-DAG: (S) 3 column-blocks
// STATS-DAG: (S) 1 row-remainders

func.func @main(%x: tensor<1x16x44x44xui8>, %w: tensor<32x16x3x3xi8>, %y: tensor<2x3x40x40xui8>, %v: tensor<8x3x3x3xi8>, %z: tensor<1x8x44x44xui8>, %u: tensor<7x8x3x3xi8>, %g: tensor<1x8x12x12xui8>, %h: tensor<8x4x3x3xi8>, %r: tensor<1x3x19x19xui8>, %q: tensor<8x3x3x3xi8>)
    -> (tensor<1x32x22x22xi32>, tensor<2x8x40x40xi32>, tensor<1x7x22x22xi32>, tensor<1x8x6x6xi32>, tensor<1x8x19x19xi32>) {
  %0 = graph.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x16x44x44xui8>, tensor<32x16x3x3xi8> -> tensor<1x32x22x22xi32>
  %1 = graph.conv2d %y, %v {padding = array<i64: 1, 1, 1, 1>} : tensor<2x3x40x40xui8>, tensor<8x3x3x3xi8> -> tensor<2x8x40x40xi32>
  %2 = graph.conv2d %z, %u {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x44x44xui8>, tensor<7x8x3x3xi8> -> tensor<1x7x22x22xi32>
  %3 = graph.conv2d %g, %h {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : tensor<1x8x12x12xui8>, tensor<8x4x3x3xi8> -> tensor<1x8x6x6xi32>
  %4 = graph.conv2d %r, %q {padding = array<i64: 1, 1, 1, 1>} : tensor<1x3x19x19xui8>, tensor<8x3x3x3xi8> -> tensor<1x8x19x19xi32>
  return %0, %1, %2, %3, %4 : tensor<1x32x22x22xi32>, tensor<2x8x40x40xi32>, tensor<1x7x22x22xi32>, tensor<1x8x6x6xi32>, tensor<1x8x19x19xi32>
}
