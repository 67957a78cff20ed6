// Kernels with index arithmetic, bound checks, unit loops and selects (for simplify).
module {
  loop.kernel @k(%a: !loop.buffer<16xf32, global>, %b: !loop.buffer<48xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    loop.for serial %i = %c0 to %c16 step %c1 {
      loop.for serial %j = %c0 to %c3 step %c1 {
        %0 = arith.muli %i, %c3 : index
        %1 = arith.addi %0, %j : index
        %2 = arith.divsi %1, %c3 : index
        %3 = arith.remsi %1, %c3 : index
        %ok = arith.cmpi slt, %i, %c16 : index
        loop.if %ok {
          %v = loop.load %a[%2] : !loop.buffer<16xf32, global>
          %f = arith.index_cast %3 : index to i32
          %g = arith.sitofp %f : i32 to f32
          %s = arith.addf %v, %g : f32
          loop.store %s, %b[%1] : !loop.buffer<48xf32, global>
        }
      }
    }
    loop.return
  }
  loop.kernel @u(%a: !loop.buffer<4xi32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    loop.for serial %i = %c1 to %c2 step %c1 {
      %x = loop.load %a[%i] : !loop.buffer<4xi32, global>
      %y = loop.load %a[%c0] : !loop.buffer<4xi32, global>
      %le = arith.cmpi sle, %x, %y : i32
      %m = arith.select %le, %y, %x : i32
      loop.store %m, %a[%i] : !loop.buffer<4xi32, global>
      %gt = arith.cmpi sgt, %x, %y : i32
      %mn = arith.select %gt, %y, %x : i32
      loop.store %mn, %a[%c2] : !loop.buffer<4xi32, global>
    }
    loop.for serial %j = %c0 to %n step %c1 {
      %in = arith.cmpi ult, %j, %n : index
      loop.if %in {
        %v = loop.load %a[%j] : !loop.buffer<4xi32, global>
        %w = arith.addi %v, %v : i32
        loop.store %w, %a[%j] : !loop.buffer<4xi32, global>
      }
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<16xf32, global>, %y: !loop.buffer<4xi32, global>) -> (!loop.buffer<48xf32, global>, !loop.buffer<4xi32, global>) {
    %c3 = arith.constant 3 : index
    %b = loop.alloc : !loop.buffer<48xf32, global>
    loop.launch @k(%x, %b) : (!loop.buffer<16xf32, global>, !loop.buffer<48xf32, global>) -> ()
    loop.launch @u(%y, %c3) : (!loop.buffer<4xi32, global>, index) -> ()
    return %b, %y : !loop.buffer<48xf32, global>, !loop.buffer<4xi32, global>
  }
}
