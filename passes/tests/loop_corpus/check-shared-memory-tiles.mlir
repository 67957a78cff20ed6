// Scratch buffers sized by a symbolic dim clamped by a tile: a shared buffer of min(n, 64)
// elements per block and a local buffer of min(n, 8) elements per thread. check-shared-memory
// gives both their static upper bound.
module {
  loop.kernel @reverse_rows(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    loop.for block.x %row = %c0 to %c4 step %c1 {
      %sn = arith.minsi %n, %c64 : index
      %shm = loop.alloc(%sn) : !loop.buffer<?xf32, shared>
      loop.for thread.x %t = %c0 to %c8 step %c1 {
        %ln = arith.minsi %n, %c8 : index
        %tmp = loop.alloc(%ln) : !loop.buffer<?xf32, local>
        %v = loop.load %x[%row, %t] : !loop.buffer<4x8xf32, global>
        %d = arith.addf %v, %v : f32
        loop.store %d, %tmp[%c0] : !loop.buffer<?xf32, local>
        %w = loop.load %tmp[%c0] : !loop.buffer<?xf32, local>
        loop.store %w, %shm[%t] : !loop.buffer<?xf32, shared>
        loop.barrier
        %r = arith.subi %c7, %t : index
        %u = loop.load %shm[%r] : !loop.buffer<?xf32, shared>
        loop.store %u, %y[%row, %t] : !loop.buffer<4x8xf32, global>
      }
    }
    loop.return
  }
  func.func @main(%x: !loop.buffer<4x8xf32, global>) -> !loop.buffer<4x8xf32, global> {
    %n = loop.dim %x, 1 : !loop.buffer<4x8xf32, global>
    %y = loop.alloc : !loop.buffer<4x8xf32, global>
    loop.launch @reverse_rows(%x, %y, %n) : (!loop.buffer<4x8xf32, global>, !loop.buffer<4x8xf32, global>, index) -> ()
    return %y : !loop.buffer<4x8xf32, global>
  }
}
