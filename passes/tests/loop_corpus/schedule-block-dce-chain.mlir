// A fused kernel with a dead register chain: "a" feeds only "b", and nothing reads "b"; a
// shared-memory stage in a GPU-bound kernel that nothing reads after the barrier. The
// schedule-block-dce differential case needs a program with dead blocks.
module {
  loop.kernel @chain(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    loop.for parallel %i = %c0 to %c4 step %c1 {
      %a = loop.alloc : !loop.buffer<f32, local>
      %b = loop.alloc : !loop.buffer<8xf32, local>
      %s = loop.alloc : !loop.buffer<f32, local>
      loop.for serial %j = %c0 to %c8 step %c1 {
        loop.schedule_block "a" (%i0 = %i, %j0 = %j) {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
          %e = math.exp %v : f32
          loop.store %e, %a[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.schedule_block "b" (%i0 = %i, %j0 = %j) {
          %v = loop.load %a[] : !loop.buffer<f32, local>
          %t = math.tanh %v : f32
          loop.store %t, %b[%j0] : !loop.buffer<8xf32, local>
          loop.yield
        }
        loop.schedule_block "sum" (%i0 = %i, %j0 = %j reduce) init {
          %z = arith.constant 0.0 : f32
          loop.store %z, %s[] : !loop.buffer<f32, local>
          loop.yield
        } {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
          %acc = loop.load %s[] : !loop.buffer<f32, local>
          %r = arith.addf %acc, %v : f32
          loop.store %r, %s[] : !loop.buffer<f32, local>
          loop.yield
        }
        loop.yield
      }
      loop.for serial %j = %c0 to %c8 step %c1 {
        loop.schedule_block "out" (%i0 = %i, %j0 = %j) {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
          %m = loop.load %s[] : !loop.buffer<f32, local>
          %r = arith.subf %v, %m : f32
          loop.store %r, %y[%i0, %j0] : !loop.buffer<4x8xf32, global>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  loop.kernel @stage(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    loop.for block.x %i = %c0 to %c4 step %c1 {
      %sh = loop.alloc : !loop.buffer<8xf32, shared>
      loop.for thread.x %j = %c0 to %c8 step %c1 {
        loop.schedule_block "stage" (%i0 = %i, %j0 = %j) {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
          loop.store %v, %sh[%j0] : !loop.buffer<8xf32, shared>
          loop.yield
        }
        loop.barrier
        loop.schedule_block "out" (%i0 = %i, %j0 = %j) {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
          %d = arith.addf %v, %v : f32
          loop.store %d, %y[%i0, %j0] : !loop.buffer<4x8xf32, global>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<4x8xf32, global>) -> (!loop.buffer<4x8xf32, global>, !loop.buffer<4x8xf32, global>) {
    %y = loop.alloc : !loop.buffer<4x8xf32, global>
    %z = loop.alloc : !loop.buffer<4x8xf32, global>
    loop.launch @chain(%x, %y) : (!loop.buffer<4x8xf32, global>, !loop.buffer<4x8xf32, global>) -> ()
    loop.launch @stage(%x, %z) : (!loop.buffer<4x8xf32, global>, !loop.buffer<4x8xf32, global>) -> ()
    return %y, %z : !loop.buffer<4x8xf32, global>, !loop.buffer<4x8xf32, global>
  }
}
