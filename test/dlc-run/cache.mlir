// The cache of dlc-run: misses, then hits (the lowered model and its kernels) with the same
// results; --no-cache and DLC_CACHE=0 neither read nor write it; a bad DLC_CACHE is an error;
// truncated entries of either kind are discarded with a warning, rebuilt, and the results stay
// right (a model entry whose kernel objects are gone is discarded and rebuilt too); another LLVM
// configuration is another model entry, since an entry names the kernel objects of one. A cold compile runs
// quick code first and caches the optimized code the background makes (the tiers); a warm one
// runs optimized code from the first run; --no-tiers compiles optimized code only.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env DLC_CACHE_DIR=%t/c dlc-run %s --check | FileCheck %s --check-prefix=COLD
// RUN: env DLC_CACHE_DIR=%t/c dlc-run %s --check | FileCheck %s --check-prefix=WARM
// RUN: env DLC_CACHE_DIR=%t/c dlc-run %s --no-cache | FileCheck %s --check-prefix=OFF
// RUN: env DLC_CACHE_DIR=%t/d DLC_CACHE=0 dlc-run %s | FileCheck %s --check-prefix=OFF
// RUN: not ls %t/d
// RUN: not env DLC_CACHE_DIR=%t/c DLC_CACHE=maybe dlc-run %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: truncate -s 90 %t/c/*.dlco
// RUN: env DLC_CACHE_DIR=%t/c dlc-run %s --check 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: truncate -s 90 %t/c/*.dlcm
// RUN: env DLC_CACHE_DIR=%t/c dlc-run %s --check 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: env DLC_CACHE_DIR=%t/c dlc-run %s --check --llvm-opt=O1 | FileCheck %s --check-prefix=O1
// RUN: env DLC_CACHE_DIR=%t/e dlc-run %s --check --no-tiers | FileCheck %s --check-prefix=FULL

// COLD: 1 kernels (1 launches), compiled in {{.*}}, passes {{[0-9.]+}} ms, LLVM {{.*}}; cache: 0 hits, 1 misses)
// COLD-NEXT: 1 kernels compiled quick (1 LLVM modules), their optimized code (lean) follows in the background
// COLD-NEXT: first result {{[0-9.]+}} ms after start ({{[01]}} of 1 kernels optimized)
// COLD: check output 0: {{.*}}: ok
// COLD: tier-up: 1 kernels optimized in the background
// WARM: 1 kernels (1 launches), compiled in {{.*}}, passes {{[0-9.]+}} ms (cached), LLVM {{.*}}; cache: 1 hits, 0 misses)
// WARM-NEXT: first result {{[0-9.]+}} ms after start (1 of 1 kernels optimized)
// WARM: check output 0: {{.*}}: ok
// WARM-NOT: tier-up
// OFF: compiled in
// OFF-NOT: cache:
// OFF: output 0: f32 [4, 8]
// BAD: invalid DLC_CACHE='maybe' (expected 0/off/false or 1/on/true)
// CORRUPT: cache: 0 hits, 1 misses)
// CORRUPT: warning: kernel cache: discarded a model entry whose kernels do not load: {{.*}}discarded a corrupted entry: {{.*}}.dlco: truncated entry
// CORRUPT: check output 0: {{.*}}: ok
// MODEL: passes {{[0-9.]+}} ms, LLVM {{.*}}; cache: 1 hits, 0 misses)
// MODEL: warning: kernel cache: discarded a corrupted model entry: {{.*}}.dlcm: truncated entry
// MODEL: check output 0: {{.*}}: ok
// O1: passes {{[0-9.]+}} ms, LLVM {{.*}}; cache: 0 hits, 1 misses)
// O1: check output 0: {{.*}}: ok
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = graph.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
// FULL: cache: 0 hits, 1 misses)
// FULL-NEXT: first result {{[0-9.]+}} ms after start (1 of 1 kernels optimized)
// FULL-NOT: tier-up
