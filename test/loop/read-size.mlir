// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: dlc-opt %s --cse --dce | FileCheck %s --check-prefix=KEPT

// loop.read_size: the one element of a one-element integer buffer, as an index, so that a size a
// kernel counted can size what the host allocates after that kernel. Custom and generic forms
// read back to the same text.

loop.kernel @count_positive(%x: !loop.buffer<?xf32, global>, %count: !loop.buffer<i64, global>, %n: index) {
  loop.return
}

loop.kernel @keep_positive(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  loop.return
}

// The example of docs/dialects/loop.md: a result sized by what the first kernel counts.
// CHECK-LABEL: func.func @filter(%arg0: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
// CHECK: %[[COUNT:.*]] = loop.alloc : !loop.buffer<i64, global>
// CHECK-NEXT: loop.launch @count_positive(%arg0, %[[COUNT]], %{{.*}})
// CHECK-NEXT: %[[K:.*]] = loop.read_size %[[COUNT]] : !loop.buffer<i64, global>
// CHECK-NEXT: %[[Y:.*]] = loop.alloc(%[[K]]) : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.launch @keep_positive(%arg0, %[[Y]], %{{.*}})
// GENERIC-LABEL: sym_name = "filter"
// GENERIC: %[[K:.*]] = "loop.read_size"(%{{.*}}) : (!loop.buffer<i64, global>) -> index
// GENERIC-NEXT: "loop.alloc"(%[[K]])
func.func @filter(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %count = loop.alloc : !loop.buffer<i64, global>
  loop.launch @count_positive(%x, %count, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<i64, global>, index) -> ()
  %k = loop.read_size %count : !loop.buffer<i64, global>
  %y = loop.alloc(%k) : !loop.buffer<?xf32, global>
  loop.launch @keep_positive(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y : !loop.buffer<?xf32, global>
}

// Every integer width, every dim a static 1 (rank 0 included), an attribute dictionary, and the
// generic form as input.
// CHECK-LABEL: func.func @widths(
// CHECK-NEXT: %0 = loop.read_size %arg0 {note = "rows kept"} : !loop.buffer<1x1xi32, global>
// CHECK-NEXT: %1 = loop.read_size %arg1 : !loop.buffer<1xi8, global>
// CHECK-NEXT: %2 = loop.read_size %arg2 : !loop.buffer<i16, global>
// CHECK-NEXT: return %0, %1, %2 : index, index, index
// GENERIC-LABEL: sym_name = "widths"
// GENERIC: "loop.read_size"(%{{.*}}) {note = "rows kept"} : (!loop.buffer<1x1xi32, global>) -> index
// GENERIC-NEXT: "loop.read_size"(%{{.*}}) : (!loop.buffer<1xi8, global>) -> index
// GENERIC-NEXT: "loop.read_size"(%{{.*}}) : (!loop.buffer<i16, global>) -> index
func.func @widths(%a: !loop.buffer<1x1xi32, global>, %b: !loop.buffer<1xi8, global>, %c: !loop.buffer<i16, global>) -> (index, index, index) {
  %0 = loop.read_size %a {note = "rows kept"} : !loop.buffer<1x1xi32, global>
  %1 = "loop.read_size"(%b) : (!loop.buffer<1xi8, global>) -> index
  %2 = loop.read_size %c : !loop.buffer<i16, global>
  return %0, %1, %2 : index, index, index
}

// A read of memory, not a pure op: two reads of one buffer around a launch that writes it are
// neither merged nor moved.
// KEPT-LABEL: func.func @reads_around_a_launch(
// KEPT-NEXT: %0 = loop.read_size %arg1
// KEPT-NEXT: loop.launch @count_positive
// KEPT-NEXT: %1 = loop.read_size %arg1
// KEPT-NEXT: return %0, %1 : index, index
func.func @reads_around_a_launch(%x: !loop.buffer<?xf32, global>, %count: !loop.buffer<i64, global>, %n: index) -> (index, index) {
  %0 = loop.read_size %count : !loop.buffer<i64, global>
  loop.launch @count_positive(%x, %count, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<i64, global>, index) -> ()
  %1 = loop.read_size %count : !loop.buffer<i64, global>
  return %0, %1 : index, index
}
