// Guards the lowering does not produce: runs of equal loop.if conditions (the same value,
// structurally equal recomputations, else branches, equal guards nested in the merged
// branches), and a counter-example whose second guard loads a flag the first body clears,
// which if-fusion must leave apart.
module {
  loop.kernel @guards(%x: !loop.buffer<16xf32, global>, %y: !loop.buffer<16xf32, global>, %z: !loop.buffer<16xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %two = arith.constant 2.0 : f32
    loop.for serial %i = %c0 to %c16 step %c1 {
      %p = arith.cmpi ult, %i, %c8 : index
      loop.if %p {
        %v = loop.load %x[%i] : !loop.buffer<16xf32, global>
        loop.store %v, %y[%i] : !loop.buffer<16xf32, global>
        loop.yield
      } else {
        %v = loop.load %x[%i] : !loop.buffer<16xf32, global>
        %n = arith.negf %v : f32
        loop.store %n, %y[%i] : !loop.buffer<16xf32, global>
        loop.yield
      }
      %r = arith.remui %i, %c2 : index
      %even = arith.cmpi eq, %r, %c0 : index
      %q = arith.cmpi ult, %i, %c8 : index
      loop.if %q {
        loop.if %even {
          %v = loop.load %y[%i] : !loop.buffer<16xf32, global>
          %m = arith.mulf %v, %two : f32
          loop.store %m, %z[%i] : !loop.buffer<16xf32, global>
          loop.yield
        }
        loop.yield
      }
      loop.if %p {
        loop.if %even {
          %v = loop.load %z[%i] : !loop.buffer<16xf32, global>
          %m = arith.addf %v, %two : f32
          loop.store %m, %z[%i] : !loop.buffer<16xf32, global>
          loop.yield
        }
        loop.yield
      } else {
        %v = loop.load %y[%i] : !loop.buffer<16xf32, global>
        loop.store %v, %z[%i] : !loop.buffer<16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  loop.kernel @flag(%x: !loop.buffer<16xf32, global>, %y: !loop.buffer<16xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %flag = loop.alloc : !loop.buffer<f32, local>
    loop.for serial %i = %c0 to %c16 step %c1 {
      %v = loop.load %x[%i] : !loop.buffer<16xf32, global>
      loop.store %v, %flag[] : !loop.buffer<f32, local>
      %f = loop.load %flag[] : !loop.buffer<f32, local>
      %p = arith.cmpf ogt, %f, %zero : f32
      loop.if %p {
        %n = arith.negf %v : f32
        loop.store %n, %flag[] : !loop.buffer<f32, local>
        loop.yield
      }
      %g = loop.load %flag[] : !loop.buffer<f32, local>
      %q = arith.cmpf ogt, %g, %zero : f32
      loop.if %q {
        loop.store %v, %y[%i] : !loop.buffer<16xf32, global>
        loop.yield
      } else {
        %w = loop.load %flag[] : !loop.buffer<f32, local>
        loop.store %w, %y[%i] : !loop.buffer<16xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<16xf32, global>) -> (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) {
    %y = loop.alloc : !loop.buffer<16xf32, global>
    %z = loop.alloc : !loop.buffer<16xf32, global>
    %w = loop.alloc : !loop.buffer<16xf32, global>
    loop.launch @guards(%x, %y, %z) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
    loop.launch @flag(%x, %w) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
    return %y, %z, %w : !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>
  }
}
