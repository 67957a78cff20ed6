// A local staging buffer written and read at 2 * i + 2 (local-index-factor-elim shrinks it
// from 10 to 4 elements) and one written at 4 * i and read at 2 * (2 * i).
module {
  loop.kernel @strided(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %t = loop.alloc : !loop.buffer<10xf32, local>
    %u = loop.alloc : !loop.buffer<13xf32, local>
    loop.for serial %i = %c0 to %c4 step %c1 {
      loop.schedule_block "a" (%i0 = %i) {
        %v = loop.load %x[%i0] : !loop.buffer<4xf32, global>
        %d = arith.muli %i0, %c2 : index
        %p = arith.addi %d, %c2 : index
        loop.store %v, %t[%p] : !loop.buffer<10xf32, local>
        %q = arith.muli %i0, %c4 : index
        %e = math.exp %v : f32
        loop.store %e, %u[%q] : !loop.buffer<13xf32, local>
      }
      loop.schedule_block "b" (%i0 = %i) {
        %d = arith.muli %i0, %c2 : index
        %p = arith.addi %d, %c2 : index
        %w = loop.load %t[%p] : !loop.buffer<10xf32, local>
        %d2 = arith.muli %d, %c2 : index
        %z = loop.load %u[%d2] : !loop.buffer<13xf32, local>
        %s = arith.addf %w, %z : f32
        loop.store %s, %y[%i0] : !loop.buffer<4xf32, global>
      }
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
    %y = loop.alloc : !loop.buffer<4xf32, global>
    loop.launch @strided(%x, %y) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
    return %y : !loop.buffer<4xf32, global>
  }
}
