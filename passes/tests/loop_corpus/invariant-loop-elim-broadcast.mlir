// Kernels with loops whose variable the body does not use (for invariant-loop-elim): a
// broadcast loop, a loop with a symbolic extent, and a read-modify-write loop that must stay.
module {
  loop.kernel @bcast(%x: !loop.buffer<8xf32, global>, %out: !loop.buffer<8xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2.0 : f32
    loop.for parallel %i = %c0 to %c8 step %c1 {
      loop.for serial %j = %c0 to %c4 step %c1 {
        %v = loop.load %x[%i] : !loop.buffer<8xf32, global>
        %m = arith.mulf %v, %two : f32
        loop.store %m, %out[%i] : !loop.buffer<8xf32, global>
      }
    }
    loop.return
  }
  loop.kernel @sym(%x: !loop.buffer<8xf32, global>, %out: !loop.buffer<8xf32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    loop.for serial %j = %c0 to %n step %c1 {
      %v = loop.load %x[%c3] : !loop.buffer<8xf32, global>
      %w = math.exp %v : f32
      loop.store %w, %out[%c0] : !loop.buffer<8xf32, global>
    }
    loop.return
  }
  loop.kernel @rmw(%out: !loop.buffer<8xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1.0 : f32
    loop.for serial %j = %c0 to %c4 step %c1 {
      %t = loop.load %out[%c1] : !loop.buffer<8xf32, global>
      %s = arith.addf %t, %one : f32
      loop.store %s, %out[%c1] : !loop.buffer<8xf32, global>
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<8xf32, global>) -> (!loop.buffer<8xf32, global>, !loop.buffer<8xf32, global>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %a = loop.alloc : !loop.buffer<8xf32, global>
    %b = loop.alloc : !loop.buffer<8xf32, global>
    loop.launch @bcast(%x, %a) : (!loop.buffer<8xf32, global>, !loop.buffer<8xf32, global>) -> ()
    loop.launch @sym(%x, %b, %c2) : (!loop.buffer<8xf32, global>, !loop.buffer<8xf32, global>, index) -> ()
    loop.launch @sym(%x, %b, %c0) : (!loop.buffer<8xf32, global>, !loop.buffer<8xf32, global>, index) -> ()
    loop.launch @rmw(%a) : (!loop.buffer<8xf32, global>) -> ()
    return %a, %b : !loop.buffer<8xf32, global>, !loop.buffer<8xf32, global>
  }
}
