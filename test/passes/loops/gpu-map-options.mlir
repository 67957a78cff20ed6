// RUN: dlc-opt %s --pipeline='gpu-map{block-size=8 max-blocks=2 loops=parallel,serial}' --split-input-file | FileCheck %s
// RUN: not dlc-opt %s --pipeline='gpu-map{block-size=2000}' 2>&1 | FileCheck %s --check-prefix=BADSIZE
// RUN: not dlc-opt %s --pipeline='gpu-map{loops=thread.x}' 2>&1 | FileCheck %s --check-prefix=BADKIND
// BADSIZE: option 'block-size': 2000 is not in 1..=1024
// BADKIND: option 'loops': 'thread.x' is not a mappable loop kind

// A grid capped by max-blocks: a block-stride loop covers the rest, with a non-zero lower bound and step 2.
// CHECK-LABEL: loop.kernel @strided
// CHECK-SAME: block = [8 : index, 1 : index, 1 : index], grid = [2 : index, 1 : index, 1 : index]
// CHECK: %[[I:.*]] = arith.addi
// CHECK: loop.for serial %[[K:.*]] = %[[I]] to %c48 step %c16 {
// CHECK: %[[S:.*]] = arith.muli %[[K]], %c2
// CHECK: %[[IV:.*]] = arith.addi %c4, %[[S]]
// CHECK: loop.load %arg0[%[[IV]]]
loop.kernel @strided(%x: !loop.buffer<100xf32, global>) {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  loop.for parallel %i = %c4 to %c100 step %c2 {
    %v = loop.load %x[%i] : !loop.buffer<100xf32, global>
    %s = arith.addf %v, %v : f32
    loop.store %s, %x[%i] : !loop.buffer<100xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// loops=parallel,serial maps a serial point loop too.
// CHECK-LABEL: loop.kernel @serial_points
// CHECK-SAME: block = [8 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]
// CHECK-NOT: loop.for
loop.kernel @serial_points(%x: !loop.buffer<8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for serial %i = %c0 to %c8 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<8xf32, global>
    loop.store %v, %x[%i] : !loop.buffer<8xf32, global>
    loop.yield
  }
  loop.return
}

// -----

// A symbolic trip count with max-blocks: the host caps the grid size, the kernel strides by it.
// CHECK-LABEL: loop.kernel @rows
// CHECK-SAME: %arg2: index, %arg3: index
// CHECK-SAME: grid = ["arg3", 1 : index, 1 : index]
// CHECK: %[[TOTAL:.*]] = arith.muli %{{.*}}, %c8
// CHECK: %[[I:.*]] = arith.addi
// CHECK: %[[STEP:.*]] = arith.muli %arg3, %c8
// CHECK: loop.for serial %{{.*}} = %[[I]] to %[[TOTAL]] step %[[STEP]]
// CHECK-LABEL: func.func @main
// CHECK: %[[G:.*]] = arith.maxsi %c1, %{{.*}}
// CHECK: %[[CAP:.*]] = arith.minsi %c2, %[[G]]
// CHECK: loop.launch @rows(%arg0, %{{.*}}, %{{.*}}, %[[CAP]])
loop.kernel @rows(%x: !loop.buffer<?x8xf32, global>, %y: !loop.buffer<?x8xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  loop.for parallel %i = %c0 to %n step %c1 {
    loop.for parallel %j = %c0 to %c8 step %c1 {
      %v = loop.load %x[%i, %j] : !loop.buffer<?x8xf32, global>
      loop.store %v, %y[%i, %j] : !loop.buffer<?x8xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
func.func @main(%x: !loop.buffer<?x8xf32, global>) -> !loop.buffer<?x8xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?x8xf32, global>
  %y = loop.alloc(%n) : !loop.buffer<?x8xf32, global>
  loop.launch @rows(%x, %y, %n) : (!loop.buffer<?x8xf32, global>, !loop.buffer<?x8xf32, global>, index) -> ()
  return %y : !loop.buffer<?x8xf32, global>
}
