// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: dlc-opt %s --cse --dce | FileCheck %s --check-prefix=KEPT

// loop.check: the run stops with the message where the i1 condition is false; `lower` emits
// one per runtime equality of two sizes derived from the arguments' dims. Custom and generic
// forms read back to the same text, and nothing removes it (it has no result, but it is the
// check the kernels after it rely on).

// CHECK-LABEL: func.func @twice(%arg0: !loop.buffer<?xf32, global>, %arg1: !loop.buffer<?xf32, global>) {
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: loop.check %[[EQ]], "s2 and s1 must be equal" {origin = "test"}
// GENERIC: "loop.check"(%{{.*}}) <{message = "s2 and s1 must be equal"}> {origin = "test"} : (i1) -> ()
// KEPT: loop.check
func.func @twice(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %m = loop.dim %y, 0 : !loop.buffer<?xf32, global>
  %c2 = arith.constant 2 : index
  %d = arith.muli %n, %c2 : index
  %eq = arith.cmpi eq, %d, %m : index
  loop.check %eq, "s2 and s1 must be equal" {origin = "test"}
  return
}
