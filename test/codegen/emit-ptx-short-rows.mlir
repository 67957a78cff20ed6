// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{target=gpu},gpu-default' | FileCheck %s --check-prefix=LOOP
// RUN: dlc-opt %s --pipeline='decompose,fuse,lower{target=gpu},gpu-default' --emit=ptx | FileCheck %s

// A sum over rows of 10: gpu-default gives each row a block of 16 threads, one warp with lanes
// 16-31 absent. Its warp reduction must shuffle among lanes 0-15 only (mask 0xffff).
// LOOP: block = [16 : index, 1 : index, 1 : index]
// LOOP: loop.warp_reduce
// CHECK: .entry row_sum_0_reduce_sum(
// CHECK-NOT: shfl.sync.bfly.b32 {{.*}}, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 8, 31, 65535;
// CHECK-NOT: shfl.sync.bfly.b32 {{.*}}, -1;
// CHECK: ret;
func.func @row_sum(%x: tensor<4x10xf32>) -> tensor<4xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<4x10xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
