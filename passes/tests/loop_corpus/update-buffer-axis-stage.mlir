// A 4x8 local staging buffer indexed by the loop indices (i, j) in every access:
// update-buffer-axis shrinks it to 1x1. A second buffer keeps its column axis, which two
// nests index with their own induction variables.
module {
  loop.kernel @stage(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %t = loop.alloc : !loop.buffer<4x8xf32, local>
    %r = loop.alloc : !loop.buffer<4x8xf32, local>
    loop.for serial %i = %c0 to %c4 step %c1 {
      loop.for serial %j = %c0 to %c8 step %c1 {
        loop.schedule_block "a" (%i0 = %i, %j0 = %j) {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
          %e = math.exp %v : f32
          loop.store %e, %t[%i0, %j0] : !loop.buffer<4x8xf32, local>
        }
        loop.schedule_block "b" (%i0 = %i, %j0 = %j) {
          %v = loop.load %t[%i0, %j0] : !loop.buffer<4x8xf32, local>
          loop.store %v, %r[%i0, %j0] : !loop.buffer<4x8xf32, local>
        }
      }
      loop.for serial %k = %c0 to %c8 step %c1 {
        loop.schedule_block "c" (%i0 = %i, %k0 = %k) {
          %v = loop.load %r[%i0, %k0] : !loop.buffer<4x8xf32, local>
          %w = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
          %s = arith.addf %v, %w : f32
          loop.store %s, %y[%i0, %k0] : !loop.buffer<4x8xf32, global>
        }
      }
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<4x8xf32, global>) -> !loop.buffer<4x8xf32, global> {
    %y = loop.alloc : !loop.buffer<4x8xf32, global>
    loop.launch @stage(%x, %y) : (!loop.buffer<4x8xf32, global>, !loop.buffer<4x8xf32, global>) -> ()
    return %y : !loop.buffer<4x8xf32, global>
  }
}
