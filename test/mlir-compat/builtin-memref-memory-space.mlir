// A memref's memory space may be any integer, string or dictionary attribute, or an attribute
// of a registered dialect, after a layout or alone, on ranked and unranked memrefs; dlc prints
// each as mlir-opt-22 does: an integer 0 of any type (`false` included) is the default space
// and goes, an `i64` integer prints without its type, dictionary entries are sorted and keep
// their types, and the custom and the generic form match byte for byte.
// RUN: dlc-opt %s -allow-unregistered-dialect > %t.dlc
// RUN: mlir-opt %s -allow-unregistered-dialect > %t.mlir
// RUN: diff %t.dlc %t.mlir
// RUN: dlc-opt %t.dlc -allow-unregistered-dialect | diff - %t.mlir
// RUN: dlc-opt %s -allow-unregistered-dialect --mlir-print-op-generic > %t.dlc.generic
// RUN: mlir-opt %s -allow-unregistered-dialect --mlir-print-op-generic > %t.mlir.generic
// RUN: diff %t.dlc.generic %t.mlir.generic
// RUN: dlc-opt %t.dlc.generic -allow-unregistered-dialect | diff - %t.mlir
// RUN: FileCheck %s < %t.dlc

// CHECK-LABEL: func.func @dictionaries
// CHECK-SAME: memref<5x6x7xf32, {memSpace = "special", subIndex = 1 : i64}>
// CHECK-SAME: memref<5xf32, #map, {memSpace = "special"}>
// CHECK-SAME: memref<*xf32, {a = 1 : i64}>
// CHECK-SAME: memref<4xf32, {}>
// CHECK-SAME: memref<4xf32, {a = [1], b = 1 : i32, c}>
// CHECK-SAME: memref<?x4xf32, strided<[?, 1], offset: ?>, {a = "b" : i8}>
func.func @dictionaries(%a: memref<5x6x7xf32, {memSpace = "special", subIndex = 1 : i64}>,
    %b: memref<5xf32, affine_map<(d0) -> (d0 + 1)>, {memSpace = "special"}>,
    %c: memref<*xf32, {a = 1}>,
    %d: memref<4xf32, {}>,
    %e: memref<4xf32, {c, b = 1 : i32, a = [1]}>,
    %f: memref<?x4xf32, strided<[?, 1], offset: ?>, {a = "b" : i8}>) {
  return
}

// CHECK-LABEL: func.func @integers
// CHECK-SAME: memref<*xf32, 4>
// CHECK-SAME: memref<4xf32, 1>
// CHECK-SAME: memref<4xf32, 1 : i32>
// CHECK-SAME: memref<4xf32, -1>
// CHECK-SAME: memref<4xf32, 2 : index>
// CHECK-SAME: memref<4xf32, 1 : ui8>
// CHECK-SAME: memref<4xf32, 1 : si8>
// CHECK-SAME: memref<4xf32, true>
// CHECK-SAME: memref<4xf32, true>
func.func @integers(%a: memref<*xf32, 4>, %b: memref<4xf32, 1 : i64>, %c: memref<4xf32, 1 : i32>,
    %d: memref<4xf32, -1>, %e: memref<4xf32, 2 : index>, %f: memref<4xf32, 1 : ui8>,
    %g: memref<4xf32, 1 : si8>, %h: memref<4xf32, true>, %i: memref<4xf32, 1 : i1>) {
  return
}

// CHECK-LABEL: func.func @defaults
// CHECK-SAME: (%arg0: memref<4xf32>, %arg1: memref<4xf32>, %arg2: memref<4xf32>, %arg3: memref<*xf32>, %arg4: memref<*xf32>, %arg5: memref<4xf32>, %arg6: memref<4xf32>, %arg7: memref<4xf32>)
func.func @defaults(%a: memref<4xf32, 0>, %b: memref<4xf32, 0 : i32>, %c: memref<4xf32, 0 : index>,
    %d: memref<*xf32, 0 : i64>, %e: memref<*xf32, 0 : i8>, %f: memref<4xf32, false>,
    %g: memref<4xf32, 0 : ui8>, %h: memref<4xf32, affine_map<(d0) -> (d0)>, 0>) {
  return
}

// CHECK-LABEL: func.func @strings_and_dialects
// CHECK-SAME: memref<4xf32, "gpu">
// CHECK-SAME: memref<4xf32, "x" : i32>
// CHECK-SAME: memref<4xf32, "x">
// CHECK-SAME: memref<4xf32, strided<[1]>, "a">
// CHECK-SAME: memref<4xf32, #arith.fastmath<fast>>
// CHECK-SAME: memref<*xf32, #arith.overflow<nsw>>
func.func @strings_and_dialects(%a: memref<4xf32, "gpu">, %b: memref<4xf32, "x" : i32>,
    %c: memref<4xf32, "x" : none>, %d: memref<4xf32, strided<[1]>, "a">,
    %e: memref<4xf32, #arith.fastmath<fast>>, %f: memref<*xf32, #arith.overflow<nsw>>) {
  return
}

// CHECK-LABEL: func.func @in_attributes
// CHECK: {t = memref<2xi8, {k = "v"}>} : () -> memref<*xi8, "s" : i16>
func.func @in_attributes() {
  %0 = "t.op"() {t = memref<2xi8, {k = "v"}>} : () -> memref<*xi8, "s" : i16>
  return
}
