// Row reductions in CINN's cross-thread pattern: one row per GPU block, the reduce axis bound
// to thread.x, the accumulator a global element. Sums over 64 threads (block reduction), maxima
// over 128 threads (block reduction), sums over 32 threads (warp reduction), a max over one
// thread (no reduction at all), and partial warps: sums over 40 threads (a block reduction
// whose second warp has 8 lanes: two shared slots) and 24 threads (a warp reduction over a
// warp of 24 lanes).
module {
  loop.kernel @row_sum_64(%x: !loop.buffer<4x64xf32, global>, %out: !loop.buffer<4xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    loop.for block.x %row = %c0 to %c4 step %c1 {
      loop.for thread.x %k = %c0 to %c64 step %c1 {
        loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) init {
          %zero = arith.constant 0.0 : f32
          loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
        } {
          %v = loop.load %x[%i, %kk] : !loop.buffer<4x64xf32, global>
          %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
          %s = arith.addf %a, %v : f32
          loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
        }
      }
    }
    loop.return
  }
  loop.kernel @row_max_128(%x: !loop.buffer<4x128xf32, global>, %out: !loop.buffer<4xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    loop.for block.x %row = %c0 to %c4 step %c1 {
      loop.for thread.x %k = %c0 to %c128 step %c1 {
        loop.schedule_block "row_max" (%i = %row, %kk = %k reduce) init {
          %ninf = arith.constant 0xFF800000 : f32
          loop.store %ninf, %out[%i] : !loop.buffer<4xf32, global>
        } {
          %v = loop.load %x[%i, %kk] : !loop.buffer<4x128xf32, global>
          %e = math.exp %v : f32
          %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
          %m = arith.maximumf %e, %a : f32
          loop.store %m, %out[%i] : !loop.buffer<4xf32, global>
        }
      }
    }
    loop.return
  }
  loop.kernel @row_sum_32(%x: !loop.buffer<4x32xf32, global>, %out: !loop.buffer<4xf32, global>) attributes {block = [32 : index, 1 : index, 1 : index], grid = [4 : index, 1 : index, 1 : index]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    loop.for block.x %row = %c0 to %c4 step %c1 {
      loop.for thread.x %k = %c0 to %c32 step %c1 {
        loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) init {
          %zero = arith.constant 0.0 : f32
          loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
        } {
          %v = loop.load %x[%i, %kk] : !loop.buffer<4x32xf32, global>
          %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
          %s = arith.addf %a, %v : f32
          loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
        }
      }
    }
    loop.return
  }
  loop.kernel @row_max_1(%x: !loop.buffer<4x1xf32, global>, %out: !loop.buffer<4xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    loop.for block.x %row = %c0 to %c4 step %c1 {
      loop.for thread.x %k = %c0 to %c1 step %c1 {
        loop.schedule_block "row_max" (%i = %row, %kk = %k reduce) init {
          %ninf = arith.constant 0xFF800000 : f32
          loop.store %ninf, %out[%i] : !loop.buffer<4xf32, global>
        } {
          %v = loop.load %x[%i, %kk] : !loop.buffer<4x1xf32, global>
          %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
          %m = arith.maximumf %a, %v : f32
          loop.store %m, %out[%i] : !loop.buffer<4xf32, global>
        }
      }
    }
    loop.return
  }
  loop.kernel @row_sum_40(%x: !loop.buffer<4x40xf32, global>, %out: !loop.buffer<4xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c40 = arith.constant 40 : index
    loop.for block.x %row = %c0 to %c4 step %c1 {
      loop.for thread.x %k = %c0 to %c40 step %c1 {
        loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) init {
          %zero = arith.constant 0.0 : f32
          loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
        } {
          %v = loop.load %x[%i, %kk] : !loop.buffer<4x40xf32, global>
          %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
          %s = arith.addf %a, %v : f32
          loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
        }
      }
    }
    loop.return
  }
  loop.kernel @row_sum_24(%x: !loop.buffer<4x24xf32, global>, %out: !loop.buffer<4xf32, global>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c24 = arith.constant 24 : index
    loop.for block.x %row = %c0 to %c4 step %c1 {
      loop.for thread.x %k = %c0 to %c24 step %c1 {
        loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) init {
          %zero = arith.constant 0.0 : f32
          loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
        } {
          %v = loop.load %x[%i, %kk] : !loop.buffer<4x24xf32, global>
          %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
          %s = arith.addf %a, %v : f32
          loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
        }
      }
    }
    loop.return
  }
  func.func @main(%x64: !loop.buffer<4x64xf32, global>, %x128: !loop.buffer<4x128xf32, global>, %x32: !loop.buffer<4x32xf32, global>, %x1: !loop.buffer<4x1xf32, global>, %x40: !loop.buffer<4x40xf32, global>, %x24: !loop.buffer<4x24xf32, global>) -> (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) {
    %s64 = loop.alloc : !loop.buffer<4xf32, global>
    %m128 = loop.alloc : !loop.buffer<4xf32, global>
    %s32 = loop.alloc : !loop.buffer<4xf32, global>
    %m1 = loop.alloc : !loop.buffer<4xf32, global>
    %s40 = loop.alloc : !loop.buffer<4xf32, global>
    %s24 = loop.alloc : !loop.buffer<4xf32, global>
    loop.launch @row_sum_64(%x64, %s64) : (!loop.buffer<4x64xf32, global>, !loop.buffer<4xf32, global>) -> ()
    loop.launch @row_max_128(%x128, %m128) : (!loop.buffer<4x128xf32, global>, !loop.buffer<4xf32, global>) -> ()
    loop.launch @row_sum_32(%x32, %s32) : (!loop.buffer<4x32xf32, global>, !loop.buffer<4xf32, global>) -> ()
    loop.launch @row_max_1(%x1, %m1) : (!loop.buffer<4x1xf32, global>, !loop.buffer<4xf32, global>) -> ()
    loop.launch @row_sum_40(%x40, %s40) : (!loop.buffer<4x40xf32, global>, !loop.buffer<4xf32, global>) -> ()
    loop.launch @row_sum_24(%x24, %s24) : (!loop.buffer<4x24xf32, global>, !loop.buffer<4xf32, global>) -> ()
    return %s64, %m128, %s32, %m1, %s40, %s24 : !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>
  }
}
