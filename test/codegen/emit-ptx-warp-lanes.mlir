// RUN: dlc-opt %s --split-input-file --emit=ptx | FileCheck %s

// A warp shuffle names its member lanes in a mask, and shfl.sync with a lane in the mask that
// does not exist is undefined behaviour: loop.warp_reduce uses the full mask only when every
// warp of the block is full (docs/codegen.md, GPU).

// 64 threads, two full warps: five butterfly steps, full mask.
// CHECK-LABEL: .entry full_warps(
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NOT: shfl.sync.down
loop.kernel @full_warps(%x: !loop.buffer<64xf32, global>, %out: !loop.buffer<64xf32, global>) attributes {block = [64 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<64xf32, global>
  %s = loop.warp_reduce %v {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<64xf32, global>
  loop.return
}

// -----

// 16 threads (gpu-default's block for short rows): lanes 0-15 only, so the mask is 0xffff and
// the butterfly starts at offset 8.
// CHECK-LABEL: .entry lanes16(
// CHECK-NOT: shfl.sync.bfly.b32 {{.*}}, 16, 31
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, 65535;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 4, 31, 65535;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, 65535;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, 65535;
// CHECK-NOT: shfl.sync
// CHECK: ret;
loop.kernel @lanes16(%x: !loop.buffer<16xf32, global>, %out: !loop.buffer<16xf32, global>) attributes {block = [16 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<16xf32, global>
  %s = loop.warp_reduce %v {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<16xf32, global>
  loop.return
}

// -----

// 24 threads, not a power of two: a butterfly would pair lanes 8-15 with the missing lanes
// 24-31. The mask is computed from the warp's lane count (-1 >> (32 - live)), lane l adds lane
// l + offset's value only when that lane exists, and lane 0's total is broadcast.
// CHECK-LABEL: .entry lanes24(
// CHECK: shr.u32 [[MASK:%r[0-9]+]], {{.*}};
// CHECK: shfl.sync.down.b32 {{.*}}, 16, 31, [[MASK]];
// CHECK: shfl.sync.down.b32 {{.*}}, 1, 31, [[MASK]];
// CHECK: shfl.sync.idx.b32 {{.*}}, 0, 31, [[MASK]];
// CHECK-NOT: shfl.sync.bfly
// CHECK: ret;
loop.kernel @lanes24(%x: !loop.buffer<24xi32, global>, %out: !loop.buffer<24xi32, global>) attributes {block = [24 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<24xi32, global>
  %s = loop.warp_reduce %v {kind = "max"} : i32
  loop.store %s, %out[%t] : !loop.buffer<24xi32, global>
  loop.return
}

// -----

// 40 threads: the second warp has 8 lanes, so both levels of the block reduction count lanes.
// CHECK-LABEL: .entry lanes40(
// CHECK-NOT: shfl.sync.bfly
// CHECK: shfl.sync.down.b32 {{.*}}, 16, 31, [[MASK:%r[0-9]+]];
// CHECK: bar.sync 0
// CHECK: shfl.sync.down.b32 {{.*}}, 16, 31, [[MASK]];
// CHECK-NOT: shfl.sync.bfly
// CHECK: ret;
loop.kernel @lanes40(%x: !loop.buffer<40xf32, global>, %out: !loop.buffer<40xf32, global>) attributes {block = [40 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<40xf32, global>
  %s = loop.block_reduce %v {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<40xf32, global>
  loop.return
}

// -----

// A block sized at launch: every warp counts its lanes from %ntid.
// CHECK-LABEL: .entry dynamic_block(
// CHECK: %ntid.x
// CHECK: shfl.sync.down.b32 {{.*}}, 16, 31, [[MASK:%r[0-9]+]];
// CHECK: shfl.sync.idx.b32 {{.*}}, 0, 31, [[MASK]];
// CHECK-NOT: shfl.sync.bfly
// CHECK: ret;
loop.kernel @dynamic_block(%x: !loop.buffer<?xf32, global>, %out: !loop.buffer<?xf32, global>, %n: index) attributes {block = ["arg2", 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<?xf32, global>
  %s = loop.warp_reduce %v {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<?xf32, global>
  loop.return
}
