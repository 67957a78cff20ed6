// Static kernels whose buffer indices are computed with index arithmetic: a transpose through
// a flattened buffer (i*16 + j, and j*8 + i) and a row-block copy with a division and a
// remainder. long-to-int computes the indices in i32.
module {
  loop.kernel @flat_transpose(%x: !loop.buffer<128xf32, global>, %y: !loop.buffer<128xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    loop.for parallel %i = %c0 to %c8 step %c1 {
      loop.for serial %j = %c0 to %c16 step %c1 {
        loop.schedule_block "transpose" (%i0 = %i, %j0 = %j) {
          %a = arith.muli %i0, %c16 : index
          %o = arith.addi %a, %j0 : index
          %v = loop.load %x[%o] : !loop.buffer<128xf32, global>
          %b = arith.muli %j0, %c8 : index
          %p = arith.addi %b, %i0 : index
          loop.store %v, %y[%p] : !loop.buffer<128xf32, global>
        }
      }
    }
    loop.return
  }
  loop.kernel @blocks(%y: !loop.buffer<128xf32, global>, %z: !loop.buffer<16x8xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    loop.for serial %f = %c0 to %c128 step %c1 {
      %r = arith.divsi %f, %c8 : index
      %c = arith.remsi %f, %c8 : index
      %v = loop.load %y[%f] : !loop.buffer<128xf32, global>
      loop.store %v, %z[%r, %c] : !loop.buffer<16x8xf32, global>
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<128xf32, global>) -> !loop.buffer<16x8xf32, global> {
    %y = loop.alloc : !loop.buffer<128xf32, global>
    %z = loop.alloc : !loop.buffer<16x8xf32, global>
    loop.launch @flat_transpose(%x, %y) : (!loop.buffer<128xf32, global>, !loop.buffer<128xf32, global>) -> ()
    loop.launch @blocks(%y, %z) : (!loop.buffer<128xf32, global>, !loop.buffer<16x8xf32, global>) -> ()
    return %z : !loop.buffer<16x8xf32, global>
  }
}
