// A CPU-style row softmax over an [N, 128] f32 buffer: y[i, :] = softmax(x[i, :]).
// Each row runs three schedule blocks: the row max and the sum of exponentials are
// reductions (init region: runs once per row, when the reduce iter value is 0, before the
// body), then a spatial block normalizes. The running max and sum live in per-row local
// buffers.
loop.kernel @row_softmax(%x: !loop.buffer<?x128xf32, global>, %y: !loop.buffer<?x128xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  loop.for parallel %i = %c0 to %n step %c1 {
    %max = loop.alloc : !loop.buffer<1xf32, local>
    %sum = loop.alloc : !loop.buffer<1xf32, local>
    loop.for serial %k = %c0 to %c128 step %c1 {
      loop.schedule_block "row_max" (%i0 = %i, %k0 = %k reduce) init {
        %ninf = arith.constant 0xFF800000 : f32
        loop.store %ninf, %max[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      } {
        %v = loop.load %x[%i0, %k0] : !loop.buffer<?x128xf32, global>
        %m = loop.load %max[%c0] : !loop.buffer<1xf32, local>
        %r = arith.maximumf %m, %v : f32
        loop.store %r, %max[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      }
      loop.yield
    }
    loop.for serial %k = %c0 to %c128 step %c1 {
      loop.schedule_block "row_sum_exp" (%i1 = %i, %k1 = %k reduce) init {
        %zero = arith.constant 0.000000e+00 : f32
        loop.store %zero, %sum[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      } {
        %v = loop.load %x[%i1, %k1] : !loop.buffer<?x128xf32, global>
        %m = loop.load %max[%c0] : !loop.buffer<1xf32, local>
        %d = arith.subf %v, %m : f32
        %e = math.exp %d : f32
        %s = loop.load %sum[%c0] : !loop.buffer<1xf32, local>
        %t = arith.addf %s, %e : f32
        loop.store %t, %sum[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      }
      loop.yield
    }
    loop.for serial %j = %c0 to %c128 step %c1 {
      loop.schedule_block "normalize" (%i2 = %i, %j2 = %j) {
        %v = loop.load %x[%i2, %j2] : !loop.buffer<?x128xf32, global>
        %m = loop.load %max[%c0] : !loop.buffer<1xf32, local>
        %d = arith.subf %v, %m : f32
        %e = math.exp %d : f32
        %s = loop.load %sum[%c0] : !loop.buffer<1xf32, local>
        %q = arith.divf %e, %s : f32
        loop.store %q, %y[%i2, %j2] : !loop.buffer<?x128xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
