// Control flow known only at run time: an If on a graph input becomes graph.if (its branches
// give 3 and 6 elements), a Loop whose trip count is a graph input and whose body decides when
// to stop becomes graph.loop (an If inside its body), a Scan of 40 steps (past the unroll
// bound) becomes a graph.loop gathering each step, and so does a Scan over a dynamic number of
// steps (the same model runs 3 and 25 steps). Each case matches onnxruntime's outputs (zero
// trips included); the If runs through the MLIR backend too (whose export casts the branches'
// static results to the If's `?` one).
// RUN: rm -rf %t && python3 %S/Inputs/control.py %t
// RUN: dlc-import %t/loop.onnx | FileCheck %s
// RUN: dlc-run %t/if.onnx --inputs %t/if_then_c.npy,%t/if_then_x.npy --expected %t/if_then_y0.npy --check | FileCheck %s --check-prefix=IF-THEN
// RUN: dlc-run %t/if.onnx --inputs %t/if_else_c.npy,%t/if_else_x.npy --expected %t/if_else_y0.npy --check | FileCheck %s --check-prefix=IF-ELSE
// RUN: dlc-run %t/if.onnx --inputs %t/if_else_c.npy,%t/if_else_x.npy --expected %t/if_else_y0.npy --backend mlir | FileCheck %s --check-prefix=IF-MLIR
// RUN: dlc-run %t/loop.onnx --inputs %t/loop_m10_m.npy,%t/loop_m10_x.npy --expected %t/loop_m10_y0.npy,%t/loop_m10_y1.npy --check | FileCheck %s --check-prefix=LOOP10
// RUN: dlc-run %t/loop.onnx --inputs %t/loop_m2_m.npy,%t/loop_m2_x.npy --expected %t/loop_m2_y0.npy,%t/loop_m2_y1.npy | FileCheck %s --check-prefix=LOOP2
// RUN: dlc-run %t/loop.onnx --inputs %t/loop_m0_m.npy,%t/loop_m0_x.npy --expected %t/loop_m0_y0.npy,%t/loop_m0_y1.npy --check | FileCheck %s --check-prefix=LOOP0
// RUN: dlc-run %t/scan.onnx --inputs %t/scan_run_s0.npy,%t/scan_run_x.npy --expected %t/scan_run_y0.npy,%t/scan_run_y1.npy --check | FileCheck %s --check-prefix=SCAN
// RUN: dlc-run %t/scan_dyn.onnx --inputs %t/scan_dyn_t3_s0.npy,%t/scan_dyn_t3_x.npy --expected %t/scan_dyn_t3_y0.npy,%t/scan_dyn_t3_y1.npy --check | FileCheck %s --check-prefix=SCAN-DYN3
// RUN: dlc-run %t/scan_dyn.onnx --inputs %t/scan_dyn_t25_s0.npy,%t/scan_dyn_t25_x.npy --expected %t/scan_dyn_t25_y0.npy,%t/scan_dyn_t25_y1.npy --check | FileCheck %s --check-prefix=SCAN-DYN25

// CHECK-LABEL: func.func @main(%arg0: tensor<i64>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<?x2x3xf32>)
// CHECK: graph.loop (%arg0, %{{.*}}, %arg1) : (tensor<i64>, tensor<i1>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<?x2x3xf32>) {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<2x3xf32>):
// CHECK: graph.if %{{.*}} : tensor<i1> -> tensor<2x3xf32> {
// CHECK: } else {
// CHECK: graph.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>

// IF-THEN: 2 kernels (0 launches and calls of 2 host functions)
// IF-THEN: output 0: f32 [3]
// IF-THEN: check output 0: {{.*}}: ok
// IF-THEN: expected output 0 ({{.*}}): {{.*}}: ok
// IF-ELSE: output 0: f32 [6]
// IF-ELSE: check output 0: {{.*}}: ok
// IF-ELSE: expected output 0 ({{.*}}): {{.*}}: ok
// IF-MLIR: output 0: f32 [6]
// IF-MLIR: expected output 0 ({{.*}}): {{.*}}: ok

// The sum passes 40 after four iterations of ten.
// LOOP10: output 1: f32 [4, 2, 3]
// LOOP10: check output 1: {{.*}}: ok
// LOOP10: expected output 0 ({{.*}}): {{.*}}: ok
// LOOP10: expected output 1 ({{.*}}): {{.*}}: ok
// LOOP2: output 1: f32 [2, 2, 3]
// LOOP2: expected output 0 ({{.*}}): {{.*}}: ok
// LOOP2: expected output 1 ({{.*}}): {{.*}}: ok
// LOOP0: output 1: f32 [0, 2, 3]
// LOOP0: expected output 0 ({{.*}}): {{.*}}: ok
// LOOP0: expected output 1 ({{.*}}): {{.*}}: ok

// SCAN: output 1: f32 [4, 40]
// SCAN: check output 1: {{.*}}: ok
// SCAN: expected output 0 ({{.*}}): {{.*}}: ok
// SCAN: expected output 1 ({{.*}}): {{.*}}: ok

// SCAN-DYN3: output 1: f32 [4, 3]
// SCAN-DYN3: check output 1: {{.*}}: ok
// SCAN-DYN3: expected output 0 ({{.*}}): {{.*}}: ok
// SCAN-DYN3: expected output 1 ({{.*}}): {{.*}}: ok
// SCAN-DYN25: output 1: f32 [4, 25]
// SCAN-DYN25: check output 1: {{.*}}: ok
// SCAN-DYN25: expected output 0 ({{.*}}): {{.*}}: ok
// SCAN-DYN25: expected output 1 ({{.*}}): {{.*}}: ok
