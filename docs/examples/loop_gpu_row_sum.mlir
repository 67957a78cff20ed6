// A GPU row sum: out[i] = sum(x[i, :]) for an [N, 128] f32 buffer. One GPU block per row
// (block.x), 128 threads per block (thread.x). Each thread stages one element in shared
// memory, then a tree reduction halves the active threads seven times (stride 64, 32, ..., 1),
// with a barrier after every step; all threads reach every barrier (uniform control flow).
// Thread 0 writes the result.
loop.kernel @gpu_row_sum(%x: !loop.buffer<?x128xf32, global>, %out: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  loop.for block.x %row = %c0 to %n step %c1 {
    %partial = loop.alloc : !loop.buffer<128xf32, shared>
    loop.for thread.x %t = %c0 to %c128 step %c1 {
      %v = loop.load %x[%row, %t] : !loop.buffer<?x128xf32, global>
      loop.store %v, %partial[%t] : !loop.buffer<128xf32, shared>
      loop.barrier
      loop.for serial %step = %c0 to %c7 step %c1 {
        %stride = arith.shrui %c64, %step : index
        %active = arith.cmpi ult, %t, %stride : index
        loop.if %active {
          %other = arith.addi %t, %stride : index
          %a = loop.load %partial[%t] : !loop.buffer<128xf32, shared>
          %b = loop.load %partial[%other] : !loop.buffer<128xf32, shared>
          %s = arith.addf %a, %b : f32
          loop.store %s, %partial[%t] : !loop.buffer<128xf32, shared>
          loop.yield
        }
        loop.barrier
        loop.yield
      }
      %first = arith.cmpi eq, %t, %c0 : index
      loop.if %first {
        %r = loop.load %partial[%c0] : !loop.buffer<128xf32, shared>
        loop.store %r, %out[%row] : !loop.buffer<?xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
