// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect | dlc-opt | FileCheck %s
// RUN: dlc-opt %s --print-generic | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | dlc-opt | FileCheck %s

// Every loop and math op in custom form; the generic form (dlc-opt and mlir-opt) reads back to
// the same custom text.

// Buffer types: static and dynamic dims, every element type, rank 0.
loop.kernel @buffer_types(%a: !loop.buffer<64x?xf32, global>, %b: !loop.buffer<?x?x4xbf16, global>, %c: !loop.buffer<f64, global>, %d: !loop.buffer<8xi1, global>, %e: !loop.buffer<2x2xi8, global>, %f: !loop.buffer<3xi32, global>, %g: !loop.buffer<3xi64, global>, %h: !loop.buffer<3xindex, global>, %i: !loop.buffer<16xf16, global>) {
  loop.return
}

// A kernel with symbolic and constant launch dims, next to a host function.
loop.kernel @launch(%a: !loop.buffer<?xf32, global>, %n: index) attributes {block = [128 : index, 1 : index, 1 : index], grid = ["arg1", 1 : index, 1 : index]} {
  loop.return
}

func.func @host(%n: index) -> index {
  return %n : index
}

// Loop kinds, including the implicit yield.
loop.kernel @loop_kinds(%a: !loop.buffer<?x128xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  loop.for serial %i = %c0 to %n step %c1 {
    loop.for parallel %j = %c0 to %c128 step %c1 {
      loop.yield
    }
    loop.for vectorize(4) %j = %c0 to %c128 step %c4 {
      %v = loop.vload %a[%i, %j] : !loop.buffer<?x128xf32, global> -> vector<4xf32>
      loop.vstore %v, %a[%i, %j] : vector<4xf32>, !loop.buffer<?x128xf32, global>
    }
    loop.for unroll(2) %j = %c0 to %c128 step %c1 attributes {note = "kept"} {
      %x = loop.load %a[%i, %j] : !loop.buffer<?x128xf32, global>
      loop.store %x, %a[%i, %j] : !loop.buffer<?x128xf32, global>
    }
    loop.yield
  }
  loop.return
}

// Every GPU binding, ids, dims, barriers, reductions, shared and local buffers.
loop.kernel @gpu(%a: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  loop.for block.x %bx = %c0 to %n step %c1 {
    loop.for block.y %by = %c0 to %c2 step %c1 {
      loop.for block.z %bz = %c0 to %c2 step %c1 {
        loop.for thread.z %tz = %c0 to %c2 step %c1 {
          loop.for thread.y %ty = %c0 to %c2 step %c1 {
            loop.for thread.x %tx = %c0 to %c2 step %c1 {
              %s = loop.alloc : !loop.buffer<2x2xf32, shared>
              %l = loop.alloc(%n) : !loop.buffer<?xi32, local>
              %t0 = loop.thread_id x
              %t1 = loop.thread_id y
              %t2 = loop.thread_id z
              %b0 = loop.block_id x
              %b1 = loop.block_id y
              %b2 = loop.block_id z
              %d0 = loop.block_dim x
              %d1 = loop.block_dim y
              %d2 = loop.block_dim z
              %v = loop.load %a[%bx] : !loop.buffer<?xf32, global>
              %w = loop.warp_reduce %v {kind = "max"} : f32
              %r = loop.block_reduce %w {kind = "add"} : f32
              loop.store %r, %s[%ty, %tx] : !loop.buffer<2x2xf32, shared>
              loop.barrier
              %k = loop.load %l[%tx] : !loop.buffer<?xi32, local>
              %m = loop.warp_reduce %k {kind = "and"} : i32
              %o = loop.block_reduce %m {kind = "or"} : i32
              %p = loop.warp_reduce %o {kind = "mul"} : i32
              %q = loop.block_reduce %p {kind = "min"} : i32
              loop.store %q, %l[%tx] : !loop.buffer<?xi32, local>
            }
          }
        }
      }
    }
  }
  loop.return
}

// Schedule blocks: spatial only, with a reduction init, with no iter vars.
loop.kernel @schedule_blocks(%a: !loop.buffer<?x128xf32, global>, %out: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  loop.schedule_block "root" () {
    loop.for serial %i = %c0 to %n step %c1 {
      loop.for serial %k = %c0 to %c128 step %c1 {
        loop.schedule_block "var_1" (%i0 = %i, %k0 = %k reduce) attributes {reduce_method = "warp"} init {
          %z = arith.constant 0.000000e+00 : f32
          loop.store %z, %out[%i0] : !loop.buffer<?xf32, global>
        } {
          %x = loop.load %a[%i0, %k0] : !loop.buffer<?x128xf32, global>
          %acc = loop.load %out[%i0] : !loop.buffer<?xf32, global>
          %s = arith.addf %acc, %x : f32
          loop.store %s, %out[%i0] : !loop.buffer<?xf32, global>
        }
        loop.schedule_block "var_2" (%i1 = %i, %j1 = %k) {
          %x = loop.load %a[%i1, %j1] : !loop.buffer<?x128xf32, global>
          loop.store %x, %a[%i1, %j1] : !loop.buffer<?x128xf32, global>
        }
      }
    }
  }
  loop.return
}

// loop.if with and without else.
loop.kernel @conditionals(%a: !loop.buffer<4xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %cond = arith.cmpi eq, %n, %c0 : index
  loop.if %cond {
    %x = loop.load %a[%c0] : !loop.buffer<4xf32, global>
    loop.store %x, %a[%c0] : !loop.buffer<4xf32, global>
  }
  loop.if %cond {
    loop.yield
  } else {
    loop.yield
  }
  loop.return
}

// The math ops.
func.func @math(%x: f32, %y: f32, %z: f32, %v: vector<4xf16>) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.log %0 : f32
  %2 = math.tanh %1 : f32
  %3 = math.erf %2 : f32
  %4 = math.sqrt %3 : f32
  %5 = math.rsqrt %4 : f32
  %6 = math.sin %5 : f32
  %7 = math.cos %6 : f32
  %8 = math.floor %7 : f32
  %9 = math.ceil %8 : f32
  %10 = math.round %9 : f32
  %11 = math.absf %10 : f32
  %12 = math.powf %11, %y : f32
  %13 = math.fma %12, %y, %z : f32
  %14 = math.exp %v : vector<4xf16>
  %15 = math.sqrt %x fastmath<fast> : f32
  %16 = math.fma %x, %y, %z fastmath<nnan,ninf> : f32
  %17 = math.roundeven %x : f32
  return %13 : f32
}

// The expected custom form.
// CHECK-LABEL: loop.kernel @buffer_types(%arg0: !loop.buffer<64x?xf32, global>, %arg1: !loop.buffer<?x?x4xbf16, global>, %arg2: !loop.buffer<f64, global>, %arg3: !loop.buffer<8xi1, global>, %arg4: !loop.buffer<2x2xi8, global>, %arg5: !loop.buffer<3xi32, global>, %arg6: !loop.buffer<3xi64, global>, %arg7: !loop.buffer<3xindex, global>, %arg8: !loop.buffer<16xf16, global>) {
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
// CHECK-LABEL: loop.kernel @launch(%arg0: !loop.buffer<?xf32, global>, %arg1: index) attributes {block = [128 : index, 1 : index, 1 : index], grid = ["arg1", 1 : index, 1 : index]} {
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
// CHECK-LABEL: func.func @host(%arg0: index) -> index {
// CHECK-NEXT: return %arg0 : index
// CHECK-NEXT: }
// CHECK-LABEL: loop.kernel @loop_kinds(%arg0: !loop.buffer<?x128xf32, global>, %arg1: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %c128 = arith.constant 128 : index
// CHECK-NEXT: loop.for serial %arg2 = %c0 to %arg1 step %c1 {
// CHECK-NEXT: loop.for parallel %arg3 = %c0 to %c128 step %c1 {
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.for vectorize(4) %arg3 = %c0 to %c128 step %c4 {
// CHECK-NEXT: %0 = loop.vload %arg0[%arg2, %arg3] : !loop.buffer<?x128xf32, global> -> vector<4xf32>
// CHECK-NEXT: loop.vstore %0, %arg0[%arg2, %arg3] : vector<4xf32>, !loop.buffer<?x128xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.for unroll(2) %arg3 = %c0 to %c128 step %c1 attributes {note = "kept"} {
// CHECK-NEXT: %0 = loop.load %arg0[%arg2, %arg3] : !loop.buffer<?x128xf32, global>
// CHECK-NEXT: loop.store %0, %arg0[%arg2, %arg3] : !loop.buffer<?x128xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
// CHECK-LABEL: loop.kernel @gpu(%arg0: !loop.buffer<?xf32, global>, %arg1: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: loop.for block.x %arg2 = %c0 to %arg1 step %c1 {
// CHECK-NEXT: loop.for block.y %arg3 = %c0 to %c2 step %c1 {
// CHECK-NEXT: loop.for block.z %arg4 = %c0 to %c2 step %c1 {
// CHECK-NEXT: loop.for thread.z %arg5 = %c0 to %c2 step %c1 {
// CHECK-NEXT: loop.for thread.y %arg6 = %c0 to %c2 step %c1 {
// CHECK-NEXT: loop.for thread.x %arg7 = %c0 to %c2 step %c1 {
// CHECK-NEXT: %0 = loop.alloc : !loop.buffer<2x2xf32, shared>
// CHECK-NEXT: %1 = loop.alloc(%arg1) : !loop.buffer<?xi32, local>
// CHECK-NEXT: %2 = loop.thread_id x
// CHECK-NEXT: %3 = loop.thread_id y
// CHECK-NEXT: %4 = loop.thread_id z
// CHECK-NEXT: %5 = loop.block_id x
// CHECK-NEXT: %6 = loop.block_id y
// CHECK-NEXT: %7 = loop.block_id z
// CHECK-NEXT: %8 = loop.block_dim x
// CHECK-NEXT: %9 = loop.block_dim y
// CHECK-NEXT: %10 = loop.block_dim z
// CHECK-NEXT: %11 = loop.load %arg0[%arg2] : !loop.buffer<?xf32, global>
// CHECK-NEXT: %12 = loop.warp_reduce %11 {kind = "max"} : f32
// CHECK-NEXT: %13 = loop.block_reduce %12 {kind = "add"} : f32
// CHECK-NEXT: loop.store %13, %0[%arg6, %arg7] : !loop.buffer<2x2xf32, shared>
// CHECK-NEXT: loop.barrier
// CHECK-NEXT: %14 = loop.load %1[%arg7] : !loop.buffer<?xi32, local>
// CHECK-NEXT: %15 = loop.warp_reduce %14 {kind = "and"} : i32
// CHECK-NEXT: %16 = loop.block_reduce %15 {kind = "or"} : i32
// CHECK-NEXT: %17 = loop.warp_reduce %16 {kind = "mul"} : i32
// CHECK-NEXT: %18 = loop.block_reduce %17 {kind = "min"} : i32
// CHECK-NEXT: loop.store %18, %1[%arg7] : !loop.buffer<?xi32, local>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
// CHECK-LABEL: loop.kernel @schedule_blocks(%arg0: !loop.buffer<?x128xf32, global>, %arg1: !loop.buffer<?xf32, global>, %arg2: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c128 = arith.constant 128 : index
// CHECK-NEXT: loop.schedule_block "root" () {
// CHECK-NEXT: loop.for serial %arg3 = %c0 to %arg2 step %c1 {
// CHECK-NEXT: loop.for serial %arg4 = %c0 to %c128 step %c1 {
// CHECK-NEXT: loop.schedule_block "var_1" (%arg5 = %arg3, %arg6 = %arg4 reduce) attributes {reduce_method = "warp"} init {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: loop.store %cst, %arg1[%arg5] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: } {
// CHECK-NEXT: %0 = loop.load %arg0[%arg5, %arg6] : !loop.buffer<?x128xf32, global>
// CHECK-NEXT: %1 = loop.load %arg1[%arg5] : !loop.buffer<?xf32, global>
// CHECK-NEXT: %2 = arith.addf %1, %0 : f32
// CHECK-NEXT: loop.store %2, %arg1[%arg5] : !loop.buffer<?xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.schedule_block "var_2" (%arg5 = %arg3, %arg6 = %arg4) {
// CHECK-NEXT: %0 = loop.load %arg0[%arg5, %arg6] : !loop.buffer<?x128xf32, global>
// CHECK-NEXT: loop.store %0, %arg0[%arg5, %arg6] : !loop.buffer<?x128xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
// CHECK-LABEL: loop.kernel @conditionals(%arg0: !loop.buffer<4xf32, global>, %arg1: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %0 = arith.cmpi eq, %arg1, %c0 : index
// CHECK-NEXT: loop.if %0 {
// CHECK-NEXT: %1 = loop.load %arg0[%c0] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.store %1, %arg0[%c0] : !loop.buffer<4xf32, global>
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.if %0 {
// CHECK-NEXT: loop.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: loop.yield
// CHECK-NEXT: }
// CHECK-NEXT: loop.return
// CHECK-NEXT: }
// CHECK-LABEL: func.func @math(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: vector<4xf16>) -> f32 {
// CHECK-NEXT: %0 = math.exp %arg0 : f32
// CHECK-NEXT: %1 = math.log %0 : f32
// CHECK-NEXT: %2 = math.tanh %1 : f32
// CHECK-NEXT: %3 = math.erf %2 : f32
// CHECK-NEXT: %4 = math.sqrt %3 : f32
// CHECK-NEXT: %5 = math.rsqrt %4 : f32
// CHECK-NEXT: %6 = math.sin %5 : f32
// CHECK-NEXT: %7 = math.cos %6 : f32
// CHECK-NEXT: %8 = math.floor %7 : f32
// CHECK-NEXT: %9 = math.ceil %8 : f32
// CHECK-NEXT: %10 = math.round %9 : f32
// CHECK-NEXT: %11 = math.absf %10 : f32
// CHECK-NEXT: %12 = math.powf %11, %arg1 : f32
// CHECK-NEXT: %13 = math.fma %12, %arg1, %arg2 : f32
// CHECK-NEXT: %14 = math.exp %arg3 : vector<4xf16>
// CHECK-NEXT: %15 = math.sqrt %arg0 fastmath<fast> : f32
// CHECK-NEXT: %16 = math.fma %arg0, %arg1, %arg2 fastmath<nnan,ninf> : f32
// CHECK-NEXT: %17 = math.roundeven %arg0 : f32
// CHECK-NEXT: return %13 : f32
// CHECK-NEXT: }

// A dot product of byte groups (what `tile` emits for 8-bit products on VNNI targets).
loop.kernel @dot4(%a: !loop.buffer<64xi8, global>, %c: !loop.buffer<16xi32, global>) {
  %c0 = arith.constant 0 : index
  %x = loop.vload %a[%c0] : !loop.buffer<64xi8, global> -> vector<64xi8>
  %s = loop.vload %c[%c0] : !loop.buffer<16xi32, global> -> vector<16xi32>
  %d = loop.dot4 %s, %x, %x : vector<16xi32>, vector<64xi8>
  loop.vstore %d, %c[%c0] : vector<16xi32>, !loop.buffer<16xi32, global>
  loop.return
}

// CHECK-LABEL: loop.kernel @dot4
// CHECK: %[[D:.*]] = loop.dot4 %{{.*}}, %[[X:.*]], %[[X]] : vector<16xi32>, vector<64xi8>
// CHECK-NEXT: loop.vstore %[[D]]

// A quad (four bytes for every group) as either byte operand: the types are written out.
loop.kernel @dot4_quad(%a: !loop.buffer<64xi8, global>, %c: !loop.buffer<16xi32, global>) {
  %c0 = arith.constant 0 : index
  %x = loop.vload %a[%c0] : !loop.buffer<64xi8, global> -> vector<64xi8>
  %q = loop.vload %a[%c0] : !loop.buffer<64xi8, global> -> vector<4xi8>
  %s = loop.vload %c[%c0] : !loop.buffer<16xi32, global> -> vector<16xi32>
  %d = loop.dot4 %s, %q, %x : vector<16xi32>, vector<4xi8>, vector<64xi8>
  %e = loop.dot4 %d, %x, %q : vector<16xi32>, vector<64xi8>, vector<4xi8>
  loop.vstore %e, %c[%c0] : vector<16xi32>, !loop.buffer<16xi32, global>
  loop.return
}

// CHECK-LABEL: loop.kernel @dot4_quad
// CHECK: %[[D:.*]] = loop.dot4 %{{.*}}, %[[Q:.*]], %[[X:.*]] : vector<16xi32>, vector<4xi8>, vector<64xi8>
// CHECK-NEXT: loop.dot4 %[[D]], %[[X]], %[[Q]] : vector<16xi32>, vector<64xi8>, vector<4xi8>

// A dot product of 16-bit pairs (what `tile` emits for 8-bit products on x86 without VNNI),
// with a pair (two elements for every group) as either operand.
loop.kernel @dot2(%a: !loop.buffer<16xi16, global>, %c: !loop.buffer<8xi32, global>) {
  %c0 = arith.constant 0 : index
  %x = loop.vload %a[%c0] : !loop.buffer<16xi16, global> -> vector<16xi16>
  %p = loop.vload %a[%c0] : !loop.buffer<16xi16, global> -> vector<2xi16>
  %s = loop.vload %c[%c0] : !loop.buffer<8xi32, global> -> vector<8xi32>
  %d = loop.dot2 %s, %x, %x : vector<8xi32>, vector<16xi16>
  %e = loop.dot2 %d, %p, %x : vector<8xi32>, vector<2xi16>, vector<16xi16>
  %f = loop.dot2 %e, %x, %p : vector<8xi32>, vector<16xi16>, vector<2xi16>
  loop.vstore %f, %c[%c0] : vector<8xi32>, !loop.buffer<8xi32, global>
  loop.return
}

// CHECK-LABEL: loop.kernel @dot2
// CHECK: %[[D:.*]] = loop.dot2 %{{.*}}, %[[X:.*]], %[[X]] : vector<8xi32>, vector<16xi16>
// CHECK-NEXT: %[[E:.*]] = loop.dot2 %[[D]], %[[P:.*]], %[[X]] : vector<8xi32>, vector<2xi16>, vector<16xi16>
// CHECK-NEXT: loop.dot2 %[[E]], %[[X]], %[[P]] : vector<8xi32>, vector<16xi16>, vector<2xi16>

// Reads that give a padding value outside the buffer (a convolution's input read through
// its padding).
loop.kernel @padded_loads(%a: !loop.buffer<6x20xf32, global>, %m: !loop.buffer<4xi1, global>, %i: index, %j: index) {
  %z = arith.constant 0.000000e+00 : f32
  %x = loop.load_padded %a[%i, %j], %z : !loop.buffer<6x20xf32, global>
  %v = loop.vload_padded %a[%i, %j], %x : !loop.buffer<6x20xf32, global> -> vector<8xf32>
  loop.vstore %v, %a[%i, %j] : vector<8xf32>, !loop.buffer<6x20xf32, global>
  %t = arith.constant true
  %b = loop.vload_padded %m[%i], %t : !loop.buffer<4xi1, global> -> vector<4xi1>
  loop.vstore %b, %m[%i] : vector<4xi1>, !loop.buffer<4xi1, global>
  loop.return
}

// CHECK-LABEL: loop.kernel @padded_loads
// CHECK: %[[X:.*]] = loop.load_padded %arg0[%arg2, %arg3], %{{.*}} : !loop.buffer<6x20xf32, global>
// CHECK-NEXT: loop.vload_padded %arg0[%arg2, %arg3], %[[X]] : !loop.buffer<6x20xf32, global> -> vector<8xf32>
// CHECK: loop.vload_padded %arg1[%arg2], %{{.*}} : !loop.buffer<4xi1, global> -> vector<4xi1>

// A scalar in every lane (what `vectorize` and `tile` splat a lane-invariant value with).
loop.kernel @broadcast(%a: !loop.buffer<4xf32, global>, %c: !loop.buffer<8xi1, global>) {
  %c0 = arith.constant 0 : index
  %x = loop.load %a[%c0] : !loop.buffer<4xf32, global>
  %v = loop.broadcast %x : f32 to vector<4xf32>
  loop.vstore %v, %a[%c0] : vector<4xf32>, !loop.buffer<4xf32, global>
  %t = arith.constant true
  %m = loop.broadcast %t : i1 to vector<8xi1>
  loop.vstore %m, %c[%c0] : vector<8xi1>, !loop.buffer<8xi1, global>
  loop.return
}

// CHECK-LABEL: loop.kernel @broadcast
// CHECK: %[[X:.*]] = loop.load
// CHECK-NEXT: %[[V:.*]] = loop.broadcast %[[X]] : f32 to vector<4xf32>
// CHECK-NEXT: loop.vstore %[[V]]
// CHECK: loop.broadcast %{{.*}} : i1 to vector<8xi1>
