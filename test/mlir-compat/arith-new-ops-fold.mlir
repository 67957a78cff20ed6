// canonicalize folds the added arith ops exactly as mlir-opt-22 does (the whole output is
// diffed): ceildivsi/floordivsi/ceildivui round up or down, leave a zero divisor and signed
// overflow unfolded (ceildivsi also a non-zero dividend with the signed minimum on either
// side, which MLIR's negations overflow on) and fold `x / 1`; maxui/minui use the unsigned
// order and absorb 0 and all ones; maxnumf/minnumf take the non-NaN operand, order -0 below
// +0 and fold `x` against any NaN; uitofp/fptoui/index_castui read integers as unsigned and
// leave NaN and out-of-range conversions (-1.0, 256.0 to i8) unfolded while -0.5 truncates to
// 0; the extended ops fold constants to both halves, `x + 0` to `x, false`, and turn into
// addi/muli when the second result is unused; mulsi_extended by 1 gives the sign of `x`.
// RUN: dlc-opt %s --pipeline=canonicalize > %t.dlc
// RUN: mlir-opt %s --canonicalize > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %s --pipeline=canonicalize | FileCheck %s

// CHECK: return %c4_i8, %c-3_i8, %c-3_i8, %c4_i8, %0, %1, %2, %c0_i8, %arg0, %3
// CHECK: return %c3_i8, %c-4_i8, %c-4_i8, %c3_i8, %0, %1, %c-64_i8, %c64_i8, %2
// CHECK: return %c4_i8, %c-128_i8, %0, %arg0, %c0_i8, %1
// CHECK: return %arg0, %true, %false, %true
// CHECK: return %c-56_i8, %c100_i8, %c-1_i8, %arg0, %c0_i8, %arg0, %arg0, %0
// CHECK: return %cst_1, %cst_2, %cst_0, %cst_0, %arg0, %arg0, %arg0, %0, %cst
func.func @ceildivsi(%x: i8) -> (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8) {
  %c7 = arith.constant 7 : i8
  %c2 = arith.constant 2 : i8
  %cm7 = arith.constant -7 : i8
  %cm2 = arith.constant -2 : i8
  %c0 = arith.constant 0 : i8
  %c1 = arith.constant 1 : i8
  %min = arith.constant -128 : i8
  %0 = arith.ceildivsi %c7, %c2 : i8
  %1 = arith.ceildivsi %cm7, %c2 : i8
  %2 = arith.ceildivsi %c7, %cm2 : i8
  %3 = arith.ceildivsi %cm7, %cm2 : i8
  %4 = arith.ceildivsi %c7, %c0 : i8
  %5 = arith.ceildivsi %min, %c2 : i8
  %6 = arith.ceildivsi %c7, %min : i8
  %7 = arith.ceildivsi %c0, %min : i8
  %8 = arith.ceildivsi %x, %c1 : i8
  %9 = arith.ceildivsi %x, %c2 : i8
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i8, i8, i8, i8, i8, i8, i8, i8, i8, i8
}
func.func @floordivsi(%x: i8) -> (i8, i8, i8, i8, i8, i8, i8, i8, i8) {
  %c7 = arith.constant 7 : i8
  %c2 = arith.constant 2 : i8
  %cm7 = arith.constant -7 : i8
  %cm2 = arith.constant -2 : i8
  %cm1 = arith.constant -1 : i8
  %c0 = arith.constant 0 : i8
  %min = arith.constant -128 : i8
  %0 = arith.floordivsi %c7, %c2 : i8
  %1 = arith.floordivsi %cm7, %c2 : i8
  %2 = arith.floordivsi %c7, %cm2 : i8
  %3 = arith.floordivsi %cm7, %cm2 : i8
  %4 = arith.floordivsi %c7, %c0 : i8
  %5 = arith.floordivsi %min, %cm1 : i8
  %6 = arith.floordivsi %min, %c2 : i8
  %7 = arith.floordivsi %min, %cm2 : i8
  %8 = arith.floordivsi %x, %c7 : i8
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : i8, i8, i8, i8, i8, i8, i8, i8, i8
}
func.func @ceildivui(%x: i8) -> (i8, i8, i8, i8, i8, i8) {
  %c7 = arith.constant 7 : i8
  %c2 = arith.constant 2 : i8
  %c255 = arith.constant 255 : i8
  %c0 = arith.constant 0 : i8
  %c1 = arith.constant 1 : i8
  %0 = arith.ceildivui %c7, %c2 : i8
  %1 = arith.ceildivui %c255, %c2 : i8
  %2 = arith.ceildivui %c7, %c0 : i8
  %3 = arith.ceildivui %x, %c1 : i8
  %4 = arith.ceildivui %c0, %c255 : i8
  %5 = arith.ceildivui %x, %c2 : i8
  return %0, %1, %2, %3, %4, %5 : i8, i8, i8, i8, i8, i8
}
func.func @divs_i1(%x: i1) -> (i1, i1, i1, i1) {
  %t = arith.constant true
  %f = arith.constant false
  %0 = arith.ceildivsi %x, %t : i1
  %1 = arith.floordivsi %t, %t : i1
  %2 = arith.ceildivsi %f, %t : i1
  %3 = arith.ceildivui %t, %t : i1
  return %0, %1, %2, %3 : i1, i1, i1, i1
}
func.func @divs_vector() -> (vector<3xi32>, vector<3xi32>) {
  %a = arith.constant dense<[7, -7, 9]> : vector<3xi32>
  %b = arith.constant dense<[2, 2, -4]> : vector<3xi32>
  %z = arith.constant dense<[2, 0, 1]> : vector<3xi32>
  %0 = arith.floordivsi %a, %b : vector<3xi32>
  %1 = arith.ceildivsi %a, %z : vector<3xi32>
  return %0, %1 : vector<3xi32>, vector<3xi32>
}
func.func @minmax_ui(%x: i8) -> (i8, i8, i8, i8, i8, i8, i8, i8) {
  %c200 = arith.constant 200 : i8
  %c100 = arith.constant 100 : i8
  %c255 = arith.constant 255 : i8
  %c0 = arith.constant 0 : i8
  %0 = arith.maxui %c200, %c100 : i8
  %1 = arith.minui %c200, %c100 : i8
  %2 = arith.maxui %x, %c255 : i8
  %3 = arith.maxui %x, %c0 : i8
  %4 = arith.minui %c0, %x : i8
  %5 = arith.minui %x, %c255 : i8
  %6 = arith.maxui %x, %x : i8
  %7 = arith.minui %x, %c100 : i8
  return %0, %1, %2, %3, %4, %5, %6, %7 : i8, i8, i8, i8, i8, i8, i8, i8
}
func.func @minmax_num(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  %nz = arith.constant -0.0 : f32
  %pz = arith.constant 0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %0 = arith.maxnumf %nz, %pz : f32
  %1 = arith.minnumf %pz, %nz : f32
  %2 = arith.maxnumf %nan, %one : f32
  %3 = arith.minnumf %one, %two : f32
  %4 = arith.maxnumf %x, %nan : f32
  %5 = arith.minnumf %nan, %x : f32
  %6 = arith.maxnumf %x, %x : f32
  %7 = arith.maxnumf %x, %one : f32
  %8 = arith.minnumf %nan, %nan : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : f32, f32, f32, f32, f32, f32, f32, f32, f32
}
func.func @casts(%x: i8) -> (f32, f32, f16, i8, i8, i8, i8, index, i8, f32) {
  %m1 = arith.constant -1 : i8
  %big = arith.constant 65535 : i32
  %c = arith.constant 3.75 : f32
  %neg = arith.constant -0.5 : f32
  %negone = arith.constant -1.0 : f32
  %over = arith.constant 256.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %ci = arith.constant -1 : i32
  %idx = arith.constant -1 : index
  %0 = arith.uitofp %m1 : i8 to f32
  %1 = arith.sitofp %m1 : i8 to f32
  %2 = arith.uitofp %big : i32 to f16
  %3 = arith.fptoui %c : f32 to i8
  %4 = arith.fptoui %neg : f32 to i8
  %5 = arith.fptoui %negone : f32 to i8
  %6 = arith.fptoui %over : f32 to i8
  %7 = arith.index_castui %ci : i32 to index
  %8 = arith.index_castui %idx : index to i8
  %9 = arith.uitofp %x : i8 to f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : f32, f32, f16, i8, i8, i8, i8, index, i8, f32
}
func.func @fptoui_nan() -> i8 {
  %nan = arith.constant 0x7FC00000 : f32
  %0 = arith.fptoui %nan : f32 to i8
  return %0 : i8
}
func.func @extended(%x: i8, %y: i8) -> (i8, i1, i8, i1, i8, i8, i8, i8, i8, i8, i8, i1) {
  %c200 = arith.constant 200 : i8
  %c100 = arith.constant 100 : i8
  %c0 = arith.constant 0 : i8
  %s0, %o0 = arith.addui_extended %c200, %c100 : i8, i1
  %s1, %o1 = arith.addui_extended %x, %c0 : i8, i1
  %l0, %h0 = arith.mulsi_extended %c200, %c100 : i8
  %l1, %h1 = arith.mului_extended %c200, %c100 : i8
  %l2, %h2 = arith.mului_extended %x, %c0 : i8
  %s3, %o3 = arith.addui_extended %x, %y : i8, i1
  return %s0, %o0, %s1, %o1, %l0, %h0, %l1, %h1, %l2, %h2, %s3, %o3 : i8, i1, i8, i1, i8, i8, i8, i8, i8, i8, i8, i1
}
func.func @extended_patterns(%x: i32, %y: i32, %v: vector<2xi32>) -> (i32, i32, i32, i32, i32, vector<2xi32>, vector<2xi32>) {
  %c1 = arith.constant 1 : i32
  %one = arith.constant dense<1> : vector<2xi32>
  %s, %o = arith.addui_extended %x, %y : i32, i1
  %l, %h = arith.mulsi_extended %x, %y : i32
  %l1, %h1 = arith.mului_extended %x, %y : i32
  %l2, %h2 = arith.mulsi_extended %x, %c1 : i32
  %l3, %h3 = arith.mulsi_extended %v, %one : vector<2xi32>
  %l4, %h4 = arith.mului_extended %x, %c1 : i32
  return %s, %l, %l1, %h2, %h4, %l3, %h3 : i32, i32, i32, i32, i32, vector<2xi32>, vector<2xi32>
}
