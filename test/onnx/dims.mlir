// A dim_param shared by two inputs is one size: the import names the dims in the argument
// attribute graph.dim_names, the symbolic shape analysis makes them one runtime constraint, and
// dlc-run refuses inputs that disagree before running anything, although no op combines them:
// when it compiles for the given shapes (the default), at the import; with --keep-dynamic,
// before the run.
// RUN: rm -rf %t && python3 %S/Inputs/models.py %t
// RUN: dlc-import %t/shared_dim.onnx | FileCheck %s
// RUN: dlc-run %t/shared_dim.onnx --inputs %t/rows3.npy,%t/rows3.npy | FileCheck %s --check-prefix=SAME
// RUN: not dlc-run %t/shared_dim.onnx --inputs %t/rows3.npy,%t/rows5.npy 2>&1 | FileCheck %s --check-prefix=DIFFERENT
// RUN: not dlc-run %t/shared_dim.onnx --keep-dynamic --inputs %t/rows3.npy,%t/rows5.npy 2>&1 | FileCheck %s --check-prefix=DIFFERENT-DYN
// RUN: dlc-run %t/shared_dim.onnx --dim n=3 --inputs %t/rows3.npy,%t/rows3.npy | FileCheck %s --check-prefix=SAME

// CHECK: func.func @main(%arg0: tensor<?x4xf32> {graph.dim_names = ["n", ""]}, %arg1: tensor<?x4xf32> {graph.dim_names = ["n", ""]})

// SAME: output 1: f32 [3, 4]

// DIFFERENT: error: graph input '{{.*}}': dim 0 ('n') is 5 in the given value, but 3 in graph input '{{.*}}'
// DIFFERENT-DYN: error: input 1 ('%arg1'): dim 0 is 5 but must equal dim 0 of input 0 (3)
