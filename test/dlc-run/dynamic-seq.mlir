// docs/examples/transformer_block_dynamic.mlir (multi-head attention over a `?` sequence
// length) compiles once and runs at S = 1, 7, 128 and 1000 against the interpreter: the later
// runs load every kernel from the cache the first one filled (no compile).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env DLC_CACHE_DIR=%t dlc-run %S/../../docs/examples/transformer_block_dynamic.mlir --dynamic-size 1 --check | FileCheck %s --check-prefixes=FIRST,S1
// RUN: env DLC_CACHE_DIR=%t dlc-run %S/../../docs/examples/transformer_block_dynamic.mlir --dynamic-size 7 --check | FileCheck %s --check-prefixes=CACHED,S7
// RUN: env DLC_CACHE_DIR=%t dlc-run %S/../../docs/examples/transformer_block_dynamic.mlir --dynamic-size 128 --check | FileCheck %s --check-prefixes=CACHED,S128
// RUN: env DLC_CACHE_DIR=%t dlc-run %S/../../docs/examples/transformer_block_dynamic.mlir --dynamic-size 1000 --check | FileCheck %s --check-prefixes=CACHED,S1000

// FIRST: cache: 0 hits, [[N:[0-9]+]] misses
// CACHED: cache: {{[0-9]+}} hits, 0 misses
// S1: output 0: f32 [2, 1, 32]
// S7: output 0: f32 [2, 7, 32]
// S128: output 0: f32 [2, 128, 32]
// S1000: output 0: f32 [2, 1000, 32]
// FIRST: check output 0: {{.*}}: ok
// CACHED: check output 0: {{.*}}: ok
