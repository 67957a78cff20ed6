// A perfect nest of parallel loops over a [4, 6] buffer (collapsed into one parallel loop over
// 24 points) and a small parallel loop over 5 elements (below the grain size: made serial).
module {
  loop.kernel @scale_add(%x: !loop.buffer<4x6xf32, global>, %b: !loop.buffer<5xf32, global>, %y: !loop.buffer<4x6xf32, global>, %z: !loop.buffer<5xf32, global>, %m: index, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %two = arith.constant 2.000000e+00 : f32
    loop.for parallel %i = %c0 to %m step %c1 {
      loop.for parallel %j = %c0 to %n step %c1 {
        loop.schedule_block "scale" (%i0 = %i, %j0 = %j) {
          %v = loop.load %x[%i0, %j0] : !loop.buffer<4x6xf32, global>
          %w = arith.mulf %v, %two : f32
          loop.store %w, %y[%i0, %j0] : !loop.buffer<4x6xf32, global>
        }
      }
    }
    loop.for parallel %k = %c0 to %c5 step %c1 {
      %v = loop.load %b[%k] : !loop.buffer<5xf32, global>
      %w = arith.addf %v, %two : f32
      loop.store %w, %z[%k] : !loop.buffer<5xf32, global>
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<4x6xf32, global>, %b: !loop.buffer<5xf32, global>) -> (!loop.buffer<4x6xf32, global>, !loop.buffer<5xf32, global>) {
    %m = loop.dim %x, 0 : !loop.buffer<4x6xf32, global>
    %n = loop.dim %x, 1 : !loop.buffer<4x6xf32, global>
    %y = loop.alloc : !loop.buffer<4x6xf32, global>
    %z = loop.alloc : !loop.buffer<5xf32, global>
    loop.launch @scale_add(%x, %b, %y, %z, %m, %n) : (!loop.buffer<4x6xf32, global>, !loop.buffer<5xf32, global>, !loop.buffer<4x6xf32, global>, !loop.buffer<5xf32, global>, index, index) -> ()
    return %y, %z : !loop.buffer<4x6xf32, global>, !loop.buffer<5xf32, global>
  }
}
