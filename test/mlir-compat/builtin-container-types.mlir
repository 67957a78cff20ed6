// complex, tuple, unranked tensors, tensor encodings, memrefs with strided layouts and memory
// spaces, unranked memrefs and scalable vectors print as mlir-opt-22 prints them: whitespace
// in shapes goes, `offset: 0` and an integer memory space 0 are dropped, and an `i64` memory
// space prints without its type.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: mlir-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %s -allow-unregistered-dialect --mlir-print-op-generic | dlc-opt -allow-unregistered-dialect | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK: (complex<f32>, complex<i8>, complex<si8>, tuple<>, tuple<i32, tuple<f32>, tensor<?xf32>>, tuple<i32, f32>)
"t.op"() : () -> (complex<f32>, complex<i8>, complex<si8>, tuple<>, tuple<i32, tuple<f32>, tensor<?xf32>>, tuple<i32,f32>)

// CHECK: (tensor<*xf32>, tensor<*xf32>, tensor<4xf32, "enc">, tensor<?xf32, #foo.bar>, tensor<4xf32, 1 : i64>, tensor<4xcomplex<f32>>, tensor<4xvector<4xf32>>)
"t.op"() : () -> (tensor<*xf32>, tensor<* x f32>, tensor<4xf32, "enc">, tensor<?xf32, #foo.bar>, tensor<4xf32, 1 : i64>, tensor<4xcomplex<f32>>, tensor<4xvector<4xf32>>)

// CHECK: (memref<*xf32>, memref<*xf32, 1>, memref<*xf32>, memref<4x4xf32, strided<[4, 1], offset: ?>, 1>, memref<4x4xf32, strided<[?, 1]>>, memref<4xf32, "gpu">, memref<4xf32>, memref<4xf32, 1 : i32>, memref<f32, strided<[], offset: 5>>, memref<4xf32, strided<[-1]>>)
"t.op"() : () -> (memref<*xf32>, memref<*xf32, 1>, memref<*xf32, 0>, memref<4x4xf32, strided<[4,1], offset: ?>, 1>, memref<4x4xf32, strided<[?, 1], offset: 0>>, memref<4xf32, "gpu">, memref<4xf32, 0 : i32>, memref<4xf32, 1 : i32>, memref<f32, strided<[], offset: 5>>, memref<4xf32, strided<[-1]>>)

// CHECK: (memref<4xcomplex<f32>>, memref<4xvector<4xf32>>, memref<4xmemref<4xf32>>, memref<4xf32, strided<[1]>>)
"t.op"() : () -> (memref<4xcomplex<f32>>, memref<4xvector<4xf32>>, memref<4xmemref<4xf32>>, memref<4xf32, strided<[1]>, 0>)

// CHECK: (vector<[4]xi32>, vector<2x[4]xf32>, vector<[4]x[4]xf32>, vector<[4]xf32>)
"t.op"() : () -> (vector<[4]xi32>, vector<2x[4]xf32>, vector<[4]x[4]xf32>, vector<[ 4 ] x f32>)

// A strided layout is an attribute of its own too.
// CHECK: {a = strided<[1, ?], offset: ?>, b = strided<[]>}
"t.op"() {a = strided<[1, ?], offset: ?>, b = strided<[]>} : () -> ()
