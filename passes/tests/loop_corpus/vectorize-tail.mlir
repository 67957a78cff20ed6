// Rows of 19 elements: y = exp(x - s[row]) * 0.5 through a register, then an unroll(3) loop.
// vectorize makes a vector loop over 16 columns plus a scalar tail of 3, splats s[row] and
// widens the register; unroll partially unrolls the marked loop.
module {
  loop.kernel @rows(%x: !loop.buffer<?x19xf32, global>, %s: !loop.buffer<?xf32, global>, %y: !loop.buffer<?x19xf32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c19 = arith.constant 19 : index
    loop.for parallel %i = %c0 to %n step %c1 {
      %r = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %j = %c0 to %c19 step %c1 {
        loop.schedule_block "sub_exp" (%i0 = %i, %j0 = %j) {
          %a = loop.load %x[%i0, %j0] : !loop.buffer<?x19xf32, global>
          %b = loop.load %s[%i0] : !loop.buffer<?xf32, global>
          %d = arith.subf %a, %b : f32
          %e = math.exp %d : f32
          loop.store %e, %r[] : !loop.buffer<f32, local>
        }
        loop.schedule_block "half" (%i0 = %i, %j0 = %j) {
          %e = loop.load %r[] : !loop.buffer<f32, local>
          %h = arith.constant 5.000000e-01 : f32
          %p = arith.mulf %e, %h : f32
          loop.store %p, %y[%i0, %j0] : !loop.buffer<?x19xf32, global>
        }
      }
      loop.for unroll(3) %j = %c0 to %c19 step %c1 {
        %a = loop.load %y[%i, %j] : !loop.buffer<?x19xf32, global>
        %t = arith.addf %a, %a : f32
        loop.store %t, %y[%i, %j] : !loop.buffer<?x19xf32, global>
      }
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<?x19xf32, global>, %s: !loop.buffer<?xf32, global>) -> !loop.buffer<?x19xf32, global> {
    %n = loop.dim %x, 0 : !loop.buffer<?x19xf32, global>
    %y = loop.alloc(%n) : !loop.buffer<?x19xf32, global>
    loop.launch @rows(%x, %s, %y, %n) : (!loop.buffer<?x19xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?x19xf32, global>, index) -> ()
    return %y : !loop.buffer<?x19xf32, global>
  }
}
