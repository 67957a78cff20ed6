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
//!   depend on `j` (`B[k, j]`: consecutive elements), the only store is to `%acc`, and the other
//!   ops are loads and `arith`/`math` ops;
//! - no buffer the block reads is stored by the epilogue;
//! - the `j` trip count is at least `width` when constant (a constant `i` trip count below
//!   `rows` makes the tile that many rows high, when the constant `j` and `k` trip counts
//!   multiply to at least 2^16: a matrix-vector product is a one-row tile).
//!
//! Without the pass the `k` loop is innermost: one scalar multiply-add per element of `B`
//! loaded with a stride of a whole row, which runs at about 1 GFLOP/s.
//!
//! # The target
//! `R`, `V`, `W` and the cache blocks come from the CPU (`passes/src/loops/cpu/target.rs`): the
//! `cpu` option, else the kernel's `dlc.target_cpu` attribute (`dlc-run --cpu`, `dlc-opt
//! --target`), else the host. `W` is one register of the element type (16 f32 lanes with
//! AVX-512, 8 with AVX2); `R x V` fits the register file with `V` registers of `B` and one
//! broadcast of `A`: 4x4 with 32 registers (21 used), 6x2 with 16 (15 used). Options override
//! each (`rows`, `vectors`, `width`, `row-blocks`, `k-block`); `fma` applies only where the CPU
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
//!   convolution's output rows, have one task each) and at most 64. Over a symbolic row count
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
//!   `loop.vload` at `j` = `jb + v*W`, loads and stores of `%acc` as `loop.vload` /
//!   `loop.vstore` of `tile[r, v*W]`, the other `arith`/`math` ops on vectors (scalar operands
//!   splat through a `W`-element local buffer, constants as dense splats); with `fma`, an
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
//! - **8-bit products** (`vnni`, on by default where the CPU has AVX-512 VNNI): a block body
//!   `acc += extui(A[.., k]) · extsi(B[k, j])` (or `extsi(A) · extui(B)`, an im2col
//!   convolution's weights times its columns) of `i8` loads into an `i32` accumulator with
//!   16 lanes, over a constant `k` range from 0 that 4 divides (MatMulInteger after import),
//!   always takes reduction blocks (the whole `k` range when it is short) and takes four `k`
//!   steps per `loop.dot4`: per block, `B` is packed into a local `[Kc/4, 4*V*W]` `i8`
//!   buffer whose row `q` holds, for each column, its bytes of `k = kc + 4q .. kc + 4q + 3`
//!   side by side (a scalar copy loop LLVM vectorizes); per step, each row's four bytes of
//!   `A` are broadcast to the 64 bytes of a vector (16 `loop.vstore`s of `vector<4xi8>` into a
//!   local buffer and one `loop.vload`, which LLVM turns into a broadcast), each vector of
//!   the packed row is loaded once, and each accumulator of the tile gets one `loop.dot4`.
//!   Remainder rows and columns keep the integer tile.
//!
//! The pass counts the nests it tiled and the row-remainder paths it kept.
//!
//! # Performance impact
//! Each `k` step loads `R` elements of `A` and `V` vectors of `B` for `R*V` vector FMAs, all
//! accumulators staying in registers (LLVM's SROA promotes the tile and turns the splat
//! buffers into broadcasts). Measured with `dlc-run --bench 15` (best of 3) on 2 cores of an
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
//! Processor" with AVX-512 VNNI).
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
//! - `m` is sized for the threads of the machine that compiles (the JIT's own).
//!
//! # TODO
//! - 8-bit products on AVX2 and AVX-VNNI (256-bit `vpdpbusd`, or `vpmaddubsw`/`vpmaddwd`
//!   pairs), and with AMX tiles where the CPU has them; `B` packed once when it is a constant.
//! - Reduction blocks and packing for symbolic `k` ranges; masked vectors for the last
//!   columns; packing `A` for strided rows.
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
//!    block (a splat buffer per row, the tile), and a `k` loop of 4x2 vector FMAs:
//!    ```text
//!    loop.for parallel %arg3 = %c0_1 to %c3_0 step %c1_2 {
//!      %0 = arith.muli %arg3, %c1_3 : index
//!      %1 = arith.addi %0, %c1_3 : index
//!      %2 = arith.minsi %1, %c3 : index
//!      loop.for serial %arg4 = %c0 to %c32_4 step %c32_5 {
//!        loop.for serial %arg5 = %0 to %2 step %c1_6 {
//!          %3 = arith.muli %arg5, %c4 : index
//!          %4 = arith.addi %c0, %3 : index
//!          %5 = loop.alloc : !loop.buffer<16xf32, local>
//!          ...
//!          %9 = loop.alloc : !loop.buffer<4x32xf32, local>
//!          ...
//!          loop.for serial %arg6 = %c0 to %c64 step %c1 {
//!            %18 = loop.load %arg0[%4, %arg6] : !loop.buffer<12x64xf32, global>
//!            %19 = loop.vload %arg1[%arg6, %arg4] : !loop.buffer<64x32xf32, global> -> vector<16xf32>
//!            %20 = loop.vload %9[%c0_36, %c0_37] : !loop.buffer<4x32xf32, local> -> vector<16xf32>
//!            ...
//!            %21 = loop.vload %5[%c0_44] : !loop.buffer<16xf32, local> -> vector<16xf32>
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
//!
//! # Counter-examples
//! 1. A reduction along the last index (`acc += x[i, k]`, a row sum) has no `j` loop over
//!    consecutive elements, so nothing is tiled.
//! 2. `B` read as `b[j, k]` (a transposed operand): `j` is not the last index, the loads are
//!    strided, so the nest is left alone.

use super::util::{
    ceil_div, const_int, const_trip_count, constant_splat, defined_inside, index_binary,
    index_const, is_scalar_compute, whole_groups_end, whole_groups_end_of,
};
use dlc_arith::{
    build_cmpi, fastmath_attr, AddFOp, AddIOp, CmpIPredicate, ExtSIOp, ExtUIOp, FastMathFlags,
    MulFOp, MulIOp,
};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{
    Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, OpView, Traits, Type, TypeKind,
    Value, ValueMap,
};
use dlc_loop::analysis::loops::{loop_parts, LoopParts};
use dlc_loop::{
    before_terminator, buffer_parts, buffer_type, build_alloc, build_for, build_if, build_load,
    build_store, elem_size_bytes, is_gpu_kernel, AccessKind, AllocOp, ForOp, IterKind, KernelOp,
    LoadOp, LoopKind, LoopOps, MemorySpace, ScheduleBlockOp,
};
use rustc_hash::{FxHashMap, FxHashSet};

use super::target::CpuInfo;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "tile",
    summary: "Register-tiles matmul-like reductions on the CPU, with the tile, the cache blocks \
              and the packing sized for the target: an `R x (V*W)` block of outputs is \
              accumulated in vector registers while the reduction loop runs innermost over it.",
    anchor: Anchor::Op(KernelOp::NAME),
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
            "Reduction iterations per cache block (0: from the target's L2 size)",
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
            "vnni",
            OptionKind::Str,
            "",
            "Compute 8-bit integer products four k steps at a time with loop.dot4: true, \
             false, or empty (where the CPU has AVX-512 VNNI)",
        ),
    ],
    statistics: &[
        ("nests-tiled", "Number of reduction nests register-tiled"),
        (
            "row-remainders",
            "Number of tiled nests that keep a path for the last rows",
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
    let vnni = match options.str("vnni") {
        "" => None,
        "true" => Some(true),
        "false" => Some(false),
        other => return Err(format!("vnni must be true, false or empty, not '{other}'")),
    };
    Ok(Box::new(TilePass {
        vnni,
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
    vnni: Option<bool>,
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
    /// Lanes per vector (W) when given; else one register of the element type.
    width: Option<i64>,
    /// Row tiles per cache block when given; else from the L2 size.
    row_blocks: Option<i64>,
    /// Reduction iterations per cache block when given; else from the L2 size.
    k_block: Option<i64>,
    cpu: CpuInfo,
    /// Whether `addf(mulf(a, b), c)` becomes `math.fma`.
    fma: bool,
    /// Whether 8-bit integer products use `loop.dot4`.
    vnni: bool,
}

impl Pass for TilePass {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let cpu = CpuInfo::for_op(ctx, kernel, &self.cpu)
            .map_err(|e| Diagnostic::error(ctx.op_loc(kernel), e))?;
        let (rows, vectors) = cpu.register_tile();
        let positive = |v: i64| (v > 0).then_some(v);
        let tile = Tile {
            rows: positive(self.rows).unwrap_or(rows),
            vectors: positive(self.vectors).unwrap_or(vectors),
            width: positive(self.width),
            row_blocks: positive(self.row_blocks),
            k_block: positive(self.k_block),
            cpu,
            fma: self.fma && cpu.fma,
            vnni: self.vnni.unwrap_or(cpu.vnni),
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
        let (mut tiled, mut remainders) = (0, 0);
        for nest in nests {
            if self.fitted(ctx, &nest).rewrite(ctx, &nest) {
                remainders += 1;
            }
            tiled += 1;
        }
        run.add_stat("nests-tiled", tiled);
        run.add_stat("row-remainders", remainders);
        if tiled == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The columns times reduction steps from which a nest with fewer rows than a tile is tiled
/// (a 1x1 convolution over a 1x1 map, 1280 by 512, is; the small products of generated test
/// programs are not worth their code size and compile time).
const MIN_SHORT_NEST_WORK: i64 = 1 << 16;

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

impl Nest {
    /// A map from the block's iter vars to what they are bound to in a copy of the block: the
    /// reduce one to `k`, the column and row ones to `col` and `row` (when given), the fixed
    /// ones to their values.
    fn bind(&self, ctx: &Context, k: Value, col: Option<Value>, row: Option<Value>) -> ValueMap {
        let mut map = ValueMap::new();
        for (&arg, role) in ctx.block_args(self.body).iter().zip(&self.roles) {
            let to = match role {
                Role::Reduce => Some(k),
                Role::Col => col,
                Role::Row => row,
                Role::Fixed(value) => Some(*value),
            };
            if let Some(to) = to {
                map.map(arg, to);
            }
        }
        map
    }

    /// The ops of the block body that the operands of `load` are computed by, in order, when
    /// none of them depends on the row or loads the accumulator (so the load reads the same
    /// for every row of a tile).
    fn index_slice(&self, ctx: &Context, load: Op) -> Option<Vec<Op>> {
        let args = ctx.block_args(self.body);
        let mut needed: FxHashSet<Op> = FxHashSet::default();
        let mut work: Vec<Value> = ctx.operands(load).to_vec();
        while let Some(v) = work.pop() {
            if let Some(pos) = args.iter().position(|&a| a == v) {
                if matches!(self.roles.get(pos), Some(Role::Row)) {
                    return None;
                }
                continue;
            }
            let Some(def) = ctx.defining_op(v) else {
                continue;
            };
            if ctx.op_block(def) != Some(self.body) || !needed.insert(def) {
                continue;
            }
            if !matches!(self.plan.get(&def), Some(Class::Scalar | Class::ColIndex)) {
                return None;
            }
            work.extend_from_slice(ctx.operands(def));
        }
        Some(
            ctx.block_ops(self.body)
                .filter(|op| needed.contains(op))
                .collect(),
        )
    }

    /// The row of a packed block that `k` reads: `(k - kc) / step`.
    fn pack_row(
        &self,
        ctx: &mut Context,
        at: InsertPoint,
        k: Value,
        kc: Value,
        loc: Location,
    ) -> Value {
        let t = index_binary(ctx, at, "arith.subi", k, kc, loc);
        if self.k_step == 1 {
            return t;
        }
        let step = index_const(ctx, at, self.k_step, loc);
        index_binary(ctx, at, "arith.divsi", t, step, loc)
    }
}

/// A matched reduction nest.
#[derive(Clone)]
struct Nest {
    i_loop: Op,
    i: LoopParts,
    j_loop: Op,
    j: LoopParts,
    k: LoopParts,
    /// The rank-0 accumulator and the op that allocates it.
    acc: Value,
    acc_alloc: Op,
    /// What each iter var of the schedule block stands for, in order.
    roles: Vec<Role>,
    /// The init and body blocks of the schedule block.
    init: Block,
    body: Block,
    /// How each op of `init` and `body` is emitted.
    plan: FxHashMap<Op, Class>,
    /// The `j` body's other allocs, then its ops after the `k` loop (without the terminator).
    epilogue: Vec<Op>,
    /// The accumulator's element type.
    elem: Type,
    /// Lanes per vector (W).
    width: i64,
    /// The `k` loop's constant step.
    k_step: i64,
    /// The 8-bit product `loop.dot4` computes, when it applies.
    dot4: Option<Dot4>,
}

/// The loads of an 8-bit integer product `acc += extui(A[.., k]) · extsi(B[k, j])` (or
/// `extsi(A) · extui(B)`) into an `i32` accumulator: `loop.dot4` takes four `k` steps at
/// once, four bytes of a row of `A` broadcast to every lane and `B` packed so that each lane's
/// four bytes are consecutive.
#[derive(Copy, Clone)]
struct Dot4 {
    a: Op,
    b: Op,
    /// `A` is the signed operand (an im2col convolution: `i8` weights times `ui8` columns),
    /// so the vector of `B` is `loop.dot4`'s unsigned operand.
    signed_a: bool,
}

/// What an iter var of the schedule block is bound to.
#[derive(Copy, Clone)]
enum Role {
    Row,
    Col,
    Reduce,
    Fixed(Value),
}

/// How one op of the schedule block is emitted in the tile.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Class {
    /// Cloned once per row.
    Scalar,
    /// Index arithmetic on `j`: cloned once per vector.
    ColIndex,
    /// A load contiguous in `j`: `loop.vload` per vector.
    VLoad,
    /// A load of the accumulator: `loop.vload` of the tile.
    AccLoad,
    /// A store to the accumulator: `loop.vstore` to the tile.
    AccStore,
    /// An `arith`/`math` op on vectors.
    Vector,
    /// An `arith.addf` fused with the `arith.mulf` that feeds it.
    Fma(Op),
    /// Not emitted: the terminator, or a multiply folded into an `Fma`.
    Skip,
}

/// The ops of `block` but its terminator.
fn body_ops(ctx: &Context, block: Block) -> Vec<Op> {
    ctx.block_ops(block)
        .filter(|&op| !ctx.has_trait(op, Traits::TERMINATOR))
        .collect()
}

/// Whether `ty` is an element type the tile holds in vector registers: a float or an integer
/// (not `index`).
fn is_numeric(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::Float(_) | TypeKind::Integer { .. }
    )
}

fn is_loop(ctx: &Context, op: Op, kind: LoopKind) -> bool {
    ctx.view::<ForOp>(op)
        .is_some_and(|f| f.loop_kind(ctx) == Some(kind))
}

impl Tile {
    /// The nest rooted at the parallel loop `i_loop`, when it has the shape the pass tiles.
    fn analyze(&self, ctx: &Context, i_loop: Op) -> Option<Nest> {
        let i = loop_parts(ctx, i_loop)?;
        let &[j_loop] = &body_ops(ctx, i.body)[..] else {
            return None;
        };
        if !is_loop(ctx, j_loop, LoopKind::Serial) || const_int(ctx, i.step) != Some(1) {
            return None;
        }
        let j = loop_parts(ctx, j_loop)?;
        // The `j` body: allocs, a prologue (elementwise blocks a fusion put before the
        // reduction, such as an attention mask the epilogue adds), the `k` loop, the epilogue.
        let j_ops = body_ops(ctx, j.body);
        let k_at = j_ops
            .iter()
            .position(|&op| ctx.view::<ForOp>(op).is_some())?;
        let (head, rest) = j_ops.split_at(k_at);
        let (&k_loop, tail) = rest.split_first()?;
        let is_alloc = |op: &&Op| ctx.view::<AllocOp>(**op).is_some();
        let allocs: Vec<Op> = head.iter().filter(is_alloc).copied().collect();
        let prologue: Vec<Op> = head.iter().filter(|op| !is_alloc(op)).copied().collect();
        let feeds_k = |op: &Op| {
            ctx.results(*op)
                .any(|v| ctx.uses(v).iter().any(|u| ctx.is_ancestor(k_loop, u.user)))
        };
        if prologue.iter().any(feeds_k) {
            return None;
        }
        // The accumulator is the one alloc the reduction uses; the others belong to the epilogue.
        let used_in_k = |op: Op| {
            ctx.uses(ctx.result(op, 0))
                .iter()
                .any(|u| ctx.is_ancestor(k_loop, u.user))
        };
        let mut in_k = allocs.iter().copied().filter(|&op| used_in_k(op));
        let (Some(acc_alloc), None) = (in_k.next(), in_k.next()) else {
            return None;
        };
        // The prologue moves after the reduction, into the epilogue: it may not feed the
        // reduction (nothing it defines or stores is used in the `k` loop, checked below with
        // the epilogue's stores) and keeps its order before the original epilogue.
        let epilogue: Vec<Op> = allocs
            .iter()
            .copied()
            .filter(|&op| op != acc_alloc)
            .chain(prologue)
            .chain(tail.iter().copied())
            .collect();
        if const_int(ctx, j.step) != Some(1) || !is_loop(ctx, k_loop, LoopKind::Serial) {
            return None;
        }
        let k = loop_parts(ctx, k_loop)?;
        if const_int(ctx, k.lb) != Some(0) || const_int(ctx, k.step).is_none_or(|s| s <= 0) {
            return None;
        }
        let outside = [j.lb, j.ub, k.lb, k.ub, k.step];
        if outside.iter().any(|&v| defined_inside(ctx, i_loop, v)) {
            return None;
        }
        // Fewer rows than a tile: worth the code only for a large product per row.
        if const_trip_count(ctx, &i).is_some_and(|t| t < self.rows) {
            let work = const_trip_count(ctx, &j).zip(const_trip_count(ctx, &k));
            if work.is_none_or(|(n, kk)| n.saturating_mul(kk) < MIN_SHORT_NEST_WORK) {
                return None;
            }
        }
        // The accumulator: a rank-0 local buffer of floats or integers.
        if !ctx.operands(acc_alloc).is_empty() {
            return None;
        }
        let acc = ctx.result(acc_alloc, 0);
        let (dims, elem, space) = buffer_parts(ctx, ctx.value_type(acc))?;
        if !dims.is_empty() || space != MemorySpace::Local || !is_numeric(ctx, elem) {
            return None;
        }
        let width = self
            .width
            .unwrap_or_else(|| self.cpu.lanes(8 * elem_bytes(ctx, elem) as u32));
        if const_trip_count(ctx, &i).is_some_and(|t| t < 1)
            || const_trip_count(ctx, &j).is_some_and(|t| t < width)
        {
            return None;
        }
        // The schedule block.
        let &[block] = &body_ops(ctx, k.body)[..] else {
            return None;
        };
        let sb = ctx.view::<ScheduleBlockOp>(block)?;
        let kinds = sb.iter_kind_list(ctx);
        let values = ctx.operands(block).to_vec();
        if kinds.len() != values.len() {
            return None;
        }
        let mut roles = Vec::with_capacity(values.len());
        for (&v, kind) in values.iter().zip(&kinds) {
            let role = match (*kind, v) {
                (IterKind::Reduce, v) if v == k.iv => Role::Reduce,
                (IterKind::Spatial, v) if v == i.iv => Role::Row,
                (IterKind::Spatial, v) if v == j.iv => Role::Col,
                (IterKind::Spatial, v) if !defined_inside(ctx, i_loop, v) => Role::Fixed(v),
                _ => return None,
            };
            roles.push(role);
        }
        if roles.iter().filter(|r| matches!(r, Role::Reduce)).count() != 1
            || !roles.iter().any(|r| matches!(r, Role::Col))
        {
            return None;
        }
        let init = sb.init_block(ctx)?;
        let body = sb.body(ctx)?;
        let mut analyzer = Analyzer {
            ctx,
            acc,
            width,
            fma: self.fma,
            col: FxHashSet::default(),
            vector: FxHashSet::default(),
            plan: FxHashMap::default(),
            reads: FxHashSet::default(),
        };
        for b in [init, body] {
            let args = ctx.block_args(b);
            if args.len() != roles.len() {
                return None;
            }
            for (&arg, role) in args.iter().zip(&roles) {
                if matches!(role, Role::Col) {
                    analyzer.col.insert(arg);
                }
            }
            analyzer.block(b)?;
        }
        // The accumulator is used by the block and the epilogue only.
        let users_ok = ctx.uses(acc).iter().all(|u| {
            ctx.is_ancestor(block, u.user) || epilogue.iter().any(|&e| ctx.is_ancestor(e, u.user))
        });
        // The epilogue runs later than before relative to the reduction of other columns: it
        // must not store what the reduction reads.
        let mut clash = false;
        for &e in &epilogue {
            ctx.for_each_op(e, &mut |op| {
                clash |= dlc_loop::access(ctx, op).is_some_and(|a| {
                    a.kind == AccessKind::Write && analyzer.reads.contains(&a.buffer)
                });
            });
        }
        if !users_ok || clash {
            return None;
        }
        let plan = analyzer.plan;
        let k_step = const_int(ctx, k.step)?;
        let mut nest = Nest {
            i_loop,
            i,
            j_loop,
            j,
            k,
            acc,
            acc_alloc,
            roles,
            init,
            body,
            plan,
            epilogue,
            elem,
            width,
            k_step,
            dot4: None,
        };
        nest.dot4 = self.dot4_of(ctx, &nest);
        Some(nest)
    }

    /// The [`Dot4`] of `nest`, when `vnni` is on, the accumulator is `i32` in vectors of 16,
    /// the `k` range a constant multiple of 4 from 0 in steps of 1, and the block body is
    /// exactly `acc += extui(a) · extsi(b)` (either order of either op) for an `i8` load `a`
    /// of a row whose last index is `k` (its other indices free of `k`) and an `i8` load `b`
    /// contiguous in `j`, besides index arithmetic.
    fn dot4_of(&self, ctx: &Context, nest: &Nest) -> Option<Dot4> {
        let trips = const_trip_count(ctx, &nest.k)?;
        if !self.vnni
            || nest.elem != Type::I32
            || nest.width != 16
            || nest.k_step != 1
            || const_int(ctx, nest.k.lb) != Some(0)
            || trips % 4 != 0
        {
            return None;
        }
        let ops = body_ops(ctx, nest.body);
        let class = |op: Op| nest.plan.get(&op).copied();
        let count = |c: Class| ops.iter().filter(|&&op| class(op) == Some(c)).count();
        if count(Class::AccStore) != 1 || count(Class::VLoad) != 1 || count(Class::Vector) != 3 {
            return None;
        }
        let store = *ops.iter().find(|&&op| class(op) == Some(Class::AccStore))?;
        // The op of the block defining `v`, as an `O`.
        fn def<O: OpView>(ctx: &Context, nest: &Nest, v: Value) -> Option<Op> {
            ctx.defining_op(v)
                .filter(|&d| ctx.view::<O>(d).is_some() && ctx.op_block(d) == Some(nest.body))
        }
        let add = def::<AddIOp>(ctx, nest, ctx.operand(store, 0))?;
        let (x, y) = (ctx.operand(add, 0), ctx.operand(add, 1));
        let acc_load = |v: Value| ctx.defining_op(v).and_then(class) == Some(Class::AccLoad);
        let product = if acc_load(x) { y } else { x };
        let mul = def::<MulIOp>(ctx, nest, product)?;
        let (m0, m1) = (ctx.operand(mul, 0), ctx.operand(mul, 1));
        // One factor zero-extends and the other sign-extends, each a load of bytes: the
        // scalar load is `A`'s, the vector load `B`'s.
        let (unsigned, signed) =
            match (def::<ExtUIOp>(ctx, nest, m0), def::<ExtSIOp>(ctx, nest, m1)) {
                (Some(u), Some(s)) => (u, s),
                _ => (
                    def::<ExtUIOp>(ctx, nest, m1)?,
                    def::<ExtSIOp>(ctx, nest, m0)?,
                ),
            };
        let byte_load = |ext: Op| {
            let v = ctx.operand(ext, 0);
            let load = def::<LoadOp>(ctx, nest, v)?;
            (ctx.value_type(v) == Type::I8).then_some(load)
        };
        let (u, s) = (byte_load(unsigned)?, byte_load(signed)?);
        let (a, b, signed_a) = match (class(u), class(s)) {
            (Some(Class::Scalar), Some(Class::VLoad)) => (u, s, false),
            (Some(Class::VLoad), Some(Class::Scalar)) => (s, u, true),
            _ => return None,
        };
        // No other load: the block reads `A`, `B` and the accumulator only.
        let loads = ops
            .iter()
            .filter(|&&op| ctx.view::<LoadOp>(op).is_some())
            .count();
        if loads != 3 {
            return None;
        }
        let args = ctx.block_args(nest.body);
        let k_arg = args[nest.roles.iter().position(|r| matches!(r, Role::Reduce))?];
        let (last, rest) = ctx.operands(a)[1..].split_last()?;
        let free = |v: &Value| {
            *v != k_arg
                && ctx
                    .defining_op(*v)
                    .is_none_or(|d| ctx.op_block(d) != Some(nest.body))
        };
        if *last != k_arg || !rest.iter().all(free) {
            return None;
        }
        nest.index_slice(ctx, b)?;
        Some(Dot4 { a, b, signed_a })
    }
}

/// Classifies the ops of the schedule block.
struct Analyzer<'a> {
    ctx: &'a Context,
    acc: Value,
    width: i64,
    fma: bool,
    /// Index values that depend on `j` (the lane-0 column plus an offset).
    col: FxHashSet<Value>,
    /// Values that become vectors.
    vector: FxHashSet<Value>,
    plan: FxHashMap<Op, Class>,
    /// The buffers the block reads, the accumulator aside.
    reads: FxHashSet<Value>,
}

impl Analyzer<'_> {
    fn block(&mut self, block: Block) -> Option<()> {
        for op in self.ctx.block_ops(block) {
            let class = self.op(op)?;
            self.plan.insert(op, class);
        }
        // Contract `addf(mulf(a, b), c)` on vectors.
        if self.fma {
            let ctx = self.ctx;
            for op in ctx.block_ops(block) {
                if ctx.view::<AddFOp>(op).is_none() || self.plan.get(&op) != Some(&Class::Vector) {
                    continue;
                }
                let mul = ctx.operands(op).iter().find_map(|&v| {
                    let def = ctx.defining_op(v)?;
                    (ctx.view::<MulFOp>(def).is_some()
                        && self.plan.get(&def) == Some(&Class::Vector)
                        && ctx.uses(v).len() == 1
                        && ctx.op_block(def) == Some(block))
                    .then_some(def)
                });
                if let Some(mul) = mul {
                    self.plan.insert(mul, Class::Skip);
                    self.plan.insert(op, Class::Fma(mul));
                }
            }
        }
        Some(())
    }

    fn op(&mut self, op: Op) -> Option<Class> {
        let ctx = self.ctx;
        let operands = ctx.operands(op);
        let kind = LoopOps::of(ctx, op);
        let col_add = ctx.view::<AddIOp>(op).is_some();
        if operands.iter().any(|v| self.col.contains(v))
            && !col_add
            && !matches!(kind, Some(LoopOps::LoadOp(_)))
        {
            return None;
        }
        match kind {
            Some(LoopOps::YieldOp(_)) => return Some(Class::Skip),
            Some(LoopOps::LoadOp(_)) => return self.load(op),
            Some(LoopOps::StoreOp(_)) => {
                let &[value, buffer] = operands else {
                    return None;
                };
                return (buffer == self.acc && ctx.value_type(value) != Type::INDEX)
                    .then_some(Class::AccStore);
            }
            Some(_) => return None,
            None => {}
        }
        if col_add && operands.iter().any(|v| self.col.contains(v)) {
            let &[a, b] = operands else {
                return None;
            };
            // `j + x` with `x` independent of `j`.
            if (self.col.contains(&a) && self.col.contains(&b))
                || self.vector.contains(&a)
                || self.vector.contains(&b)
            {
                return None;
            }
            self.col.insert(ctx.result(op, 0));
            return Some(Class::ColIndex);
        }
        if !is_scalar_compute(ctx, op) {
            return None;
        }
        let r = ctx.result(op, 0);
        if operands.iter().any(|v| self.vector.contains(v)) {
            if !is_numeric(ctx, ctx.value_type(r)) {
                return None;
            }
            self.vector.insert(r);
            Some(Class::Vector)
        } else {
            Some(Class::Scalar)
        }
    }

    /// A `loop.load` of the block: of the accumulator, of a row of `B` along `j`, or of a
    /// value that does not depend on `j`.
    fn load(&mut self, op: Op) -> Option<Class> {
        let ctx = self.ctx;
        let (&buffer, indices) = ctx.operands(op).split_first()?;
        if buffer == self.acc {
            self.vector.insert(ctx.result(op, 0));
            return Some(Class::AccLoad);
        }
        if indices.iter().any(|v| self.vector.contains(v)) {
            return None;
        }
        self.reads.insert(buffer);
        let (last, rest) = indices.split_last()?;
        if rest.iter().any(|v| self.col.contains(v)) {
            return None;
        }
        if !self.col.contains(last) {
            return Some(Class::Scalar);
        }
        let fits = buffer_parts(ctx, ctx.value_type(buffer))
            .and_then(|(dims, _, _)| dims.last().copied())
            .is_some_and(|d| d < 0 || d >= self.width);
        if !fits {
            return None;
        }
        self.vector.insert(ctx.result(op, 0));
        Some(Class::VLoad)
    }
}

impl Tile {
    /// This tiling with no more vectors per row than the columns of `nest` fill and no more
    /// rows than it has, when their counts are constants (a convolution's 56-wide output rows
    /// take 3 of 4 vectors of 16; a matrix-vector product takes one row).
    fn fitted(&self, ctx: &Context, nest: &Nest) -> Tile {
        let vectors = const_trip_count(ctx, &nest.j)
            .map_or(self.vectors, |t| self.vectors.min(t / nest.width).max(1));
        let rows = const_trip_count(ctx, &nest.i).map_or(self.rows, |t| self.rows.min(t).max(1));
        Tile {
            vectors,
            rows,
            ..*self
        }
    }

    /// Rewrites the nest; returns true when a path for the last rows was kept.
    fn rewrite(&self, ctx: &mut Context, nest: &Nest) -> bool {
        let loc = ctx.op_loc(nest.i_loop);
        let rows = self.rows;
        let hoist = hoist_point(ctx, nest.i_loop, &[nest.i.lb, nest.i.ub]);
        let trips = const_trip_count(ctx, &nest.i);
        let exact = trips.is_some_and(|t| t % rows == 0) && const_int(ctx, nest.i.lb).is_some();
        let (m, threads) = self.row_blocks(ctx, nest, trips);
        // A `loop.dot4` nest that gets no reduction blocks is tiled without `loop.dot4`.
        let mut k_block = self.k_block(ctx, nest, m);
        let plain;
        let nest = if nest.dot4.is_some() && k_block.is_none() {
            plain = Nest {
                dot4: None,
                ..nest.clone()
            };
            k_block = self.k_block(ctx, &plain, m);
            &plain
        } else {
            nest
        };
        // Row tiles, and cache blocks of `m` row tiles. Over a symbolic row count the blocks'
        // size is chosen at run time: the row tiles per thread, at most `m` (which sizes the
        // partial sums), so 160 rows still make a block per thread, not one block of 64 tiles.
        let (tiles, groups, block) = match trips {
            Some(t) => {
                let tiles = (t + rows - 1) / rows;
                (
                    index_const(ctx, hoist, tiles, loc),
                    index_const(ctx, hoist, (tiles + m - 1) / m, loc),
                    index_const(ctx, hoist, m, loc),
                )
            }
            None => {
                let zero = index_const(ctx, hoist, 0, loc);
                let diff = index_binary(ctx, hoist, "arith.subi", nest.i.ub, nest.i.lb, loc);
                let n = index_binary(ctx, hoist, "arith.maxsi", diff, zero, loc);
                let tiles = ceil_div(ctx, hoist, n, rows, loc);
                let block = match threads {
                    Some(threads) if m > 1 => {
                        let per_thread = ceil_div(ctx, hoist, tiles, threads, loc);
                        let one = index_const(ctx, hoist, 1, loc);
                        let at_least =
                            index_binary(ctx, hoist, "arith.maxsi", per_thread, one, loc);
                        let cap = index_const(ctx, hoist, m, loc);
                        index_binary(ctx, hoist, "arith.minsi", at_least, cap, loc)
                    }
                    _ => index_const(ctx, hoist, m, loc),
                };
                let one = index_const(ctx, hoist, 1, loc);
                let bump = index_binary(ctx, hoist, "arith.subi", block, one, loc);
                let up = index_binary(ctx, hoist, "arith.addi", tiles, bump, loc);
                let groups = index_binary(ctx, hoist, "arith.divsi", up, block, loc);
                (tiles, groups, block)
            }
        };
        let at = InsertPoint::Before(nest.i_loop);
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let (_, body, g) = build_for(ctx, at, (zero, groups, one), LoopKind::Parallel, loc);
        let inside = before_terminator(ctx, body);
        let first = index_binary(ctx, inside, "arith.muli", g, block, loc);
        let past = index_binary(ctx, inside, "arith.addi", first, block, loc);
        let last = index_binary(ctx, inside, "arith.minsi", past, tiles, loc);
        let r = index_const(ctx, inside, rows, loc);
        // The row tile `b` of the block starts at `i0 = lb + b * R`; it is whole when exact or
        // when `i0 + R <= ub`.
        let row_tile = |ctx: &mut Context, at: InsertPoint, with_else: bool| {
            let one = index_const(ctx, at, 1, loc);
            let (_, b_body, b) = build_for(ctx, at, (first, last, one), LoopKind::Serial, loc);
            let b_at = before_terminator(ctx, b_body);
            let offset = index_binary(ctx, b_at, "arith.muli", b, r, loc);
            let i0 = index_binary(ctx, b_at, "arith.addi", nest.i.lb, offset, loc);
            if exact {
                return (b_at, i0, b, None);
            }
            let i1 = index_binary(ctx, b_at, "arith.addi", i0, r, loc);
            let cmp = build_cmpi(ctx, b_at, CmpIPredicate::Sle, i1, nest.i.ub, loc);
            let full = ctx.result(cmp, 0);
            let (_, then_block, else_block) = build_if(ctx, b_at, full, with_else, loc);
            let else_at = else_block.map(|b| before_terminator(ctx, b));
            (before_terminator(ctx, then_block), i0, b, else_at)
        };
        // The whole column blocks outside, the row tiles of the block inside: each block of
        // `B` columns is reused from the cache by all `m` row tiles.
        let cols = self.vectors * nest.width;
        let end = whole_groups_end(ctx, inside, &nest.j, 1, cols, loc);
        let step = index_const(ctx, inside, cols, loc);
        let (jb_loop, jb_body, jb) =
            build_for(ctx, inside, (nest.j.lb, end, step), LoopKind::Serial, loc);
        let jb_at = before_terminator(ctx, jb_body);
        match k_block {
            None => {
                let (tile_at, i0, _, _) = row_tile(ctx, jb_at, false);
                self.tile_body(ctx, nest, tile_at, i0, jb, None);
            }
            Some(kc_trips) => {
                // Blocks of the `k` range, each shared by the row tiles of the cache block;
                // the tiles' partial sums wait in `partial[b - first]` between blocks. Three
                // loops over the row tiles (init; per block; write-back) rather than branches
                // on the first and last block, which LLVM would unswitch into four copies.
                let elem_ty = nest.elem;
                let partial_ty = buffer_type(ctx, &[m, rows, cols], elem_ty, MemorySpace::Local);
                let partial =
                    build_alloc(ctx, InsertPoint::Before(jb_loop.0), partial_ty, &[], loc);
                let tiles = |ctx: &mut Context, at: InsertPoint, stage: Stage| {
                    let (tile_at, i0, b, _) = row_tile(ctx, at, false);
                    let slot = index_binary(ctx, tile_at, "arith.subi", b, first, loc);
                    self.tile_body(ctx, nest, tile_at, i0, jb, Some((stage, partial, slot)));
                };
                tiles(ctx, jb_at, Stage::Init);
                let kc_step = index_const(ctx, jb_at, kc_trips * nest.k_step, loc);
                let (_, kc_body, kc) = build_for(
                    ctx,
                    jb_at,
                    (nest.k.lb, nest.k.ub, kc_step),
                    LoopKind::Serial,
                    loc,
                );
                let kc_at = before_terminator(ctx, kc_body);
                let past = index_binary(ctx, kc_at, "arith.addi", kc, kc_step, loc);
                let kend = index_binary(ctx, kc_at, "arith.minsi", past, nest.k.ub, loc);
                let packs = match nest.dot4 {
                    Some(d) => {
                        Some(self.pack4(ctx, nest, d, (jb_loop.0, kc_at), (kc, kend), jb, kc_trips))
                    }
                    None if m > 1 => {
                        self.pack(ctx, nest, (jb_loop.0, kc_at), (kc, kend), jb, kc_trips)
                    }
                    None => None,
                };
                tiles(ctx, kc_at, Stage::Block { kc, kend, packs });
                tiles(ctx, jb_at, Stage::WriteBack);
            }
        }
        // Per row tile: the columns after the whole blocks, or the last rows.
        let covered = const_trip_count(ctx, &nest.j).is_some_and(|t| t % cols == 0)
            && const_int(ctx, nest.j.lb).is_some();
        if !exact || !covered {
            let (tile_at, i0, _, else_at) = row_tile(ctx, inside, true);
            if !covered {
                self.column_remainder(ctx, nest, tile_at, i0, end);
            }
            if let Some(else_at) = else_at {
                // The last rows, each a one-row tile (the scalar loop would cost as much as
                // all the tiles when `K` and `N` are large).
                let one_row = Tile {
                    rows: 1,
                    width: Some(nest.width),
                    row_blocks: Some(1),
                    k_block: None,
                    ..*self
                };
                let step = index_const(ctx, else_at, 1, loc);
                let (_, rest, ii) =
                    build_for(ctx, else_at, (i0, nest.i.ub, step), LoopKind::Serial, loc);
                let rest_at = before_terminator(ctx, rest);
                let step = index_const(ctx, rest_at, cols, loc);
                let (_, jb_body, jb) =
                    build_for(ctx, rest_at, (nest.j.lb, end, step), LoopKind::Serial, loc);
                let jb_at = before_terminator(ctx, jb_body);
                one_row.tile_body(ctx, nest, jb_at, ii, jb, None);
                if !covered {
                    one_row.column_remainder(ctx, nest, rest_at, ii, end);
                }
            }
        }
        ctx.erase_op(nest.i_loop);
        !exact
    }

    /// Row tiles per cache block: the option, else as many as keep the rows of `A` one block
    /// of the reduction reads (`m * R * Kc` elements, `Kc` the `k` block or the whole `k`
    /// range) within a quarter of the L2 cache, leaving the rest to the block of `B` they
    /// share; at most the row tiles per thread of this machine (the threads the parallel loops
    /// around the nest do not already occupy), so the parallel loops have work for every
    /// thread, and at most 64. Also those threads, by which a symbolic row count is divided at
    /// run time (`None` when the option fixes the blocks).
    fn row_blocks(&self, ctx: &Context, nest: &Nest, trips: Option<i64>) -> (i64, Option<i64>) {
        if let Some(m) = self.row_blocks {
            return (m, None);
        }
        let elem_bytes = elem_bytes(ctx, nest.elem);
        let k = self
            .k_block_size(ctx, nest)
            .or_else(|| const_trip_count(ctx, &nest.k))
            .unwrap_or(1024)
            .max(1);
        let budget = i64::try_from(self.cpu.l2_bytes / 4).unwrap_or(i64::MAX);
        let by_cache = budget / (self.rows * k * elem_bytes).max(1);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get() as i64);
        // The parallel loops around the nest (a convolution's output rows) share the work out
        // too: only the tasks they do not make need row blocks of their own.
        let mut outer_tasks = 1i64;
        let mut at = ctx.parent_op(nest.i_loop);
        while let Some(op) = at {
            if is_loop(ctx, op, LoopKind::Parallel) {
                let trips = loop_parts(ctx, op).and_then(|p| const_trip_count(ctx, &p));
                outer_tasks = outer_tasks.saturating_mul(trips.unwrap_or(1));
            }
            at = ctx.parent_op(op);
        }
        let threads = (threads + outer_tasks - 1) / outer_tasks;
        // Rounded up, so the blocks split evenly over the threads (100 rows in tiles of 4 on 2
        // threads: 2 blocks of 13 tiles, not 3 of 12, one thread doing two).
        let by_threads = trips.map_or(i64::MAX, |t| {
            let tiles = (t + self.rows - 1) / self.rows;
            (tiles + threads - 1) / threads.max(1)
        });
        (by_cache.min(by_threads).clamp(1, 64), Some(threads.max(1)))
    }

    /// The `k` iterations per block when the reduction is blocked: a constant `k` range longer
    /// than what keeps a block of `B` (`Kc x V*W` elements, its rows a whole row of `B` apart)
    /// in a 32nd of the L2 cache; power-of-two row strides use only some of the cache's sets,
    /// and a 32nd still fits then on a 16-way L2. A power of two from 64 to 512 (to 2048 for
    /// `loop.dot4`, whose `B` is bytes: 1024x1024x1024 took 4.4 ms with blocks of 1024 against
    /// 6.3 ms with 256); the `k-block` option overrides it.
    fn k_block_size(&self, ctx: &Context, nest: &Nest) -> Option<i64> {
        let trips = const_trip_count(ctx, &nest.k)?;
        let cols = self.vectors * nest.width;
        let budget = i64::try_from(self.cpu.l2_bytes / 32).unwrap_or(i64::MAX);
        let b_bytes = if nest.dot4.is_some() {
            1
        } else {
            elem_bytes(ctx, nest.elem)
        };
        let fit = (budget / (cols * b_bytes).max(1)).clamp(64, 2048 / b_bytes);
        let kc = self.k_block.unwrap_or(1i64 << (63 - fit.leading_zeros()));
        (trips > kc).then_some(kc)
    }

    /// [`Tile::k_block_size`] when the partial sums of a cache block of `m` row tiles stay
    /// small (at most 64 KiB of local memory).
    fn k_block(&self, ctx: &Context, nest: &Nest, m: i64) -> Option<i64> {
        let cols = self.vectors * nest.width;
        let partial_bytes = m * self.rows * cols * elem_bytes(ctx, nest.elem);
        if partial_bytes > 64 * 1024 {
            return None;
        }
        match nest.dot4 {
            None => self.k_block_size(ctx, nest),
            // `loop.dot4` reads `B` packed, so its nests always take blocks (the whole `k`
            // range when it is short), of a multiple of 4 iterations.
            Some(_) => self
                .k_block_size(ctx, nest)
                .or_else(|| const_trip_count(ctx, &nest.k))
                .filter(|kc| kc % 4 == 0),
        }
    }

    /// The tile of rows `i0 .. i0 + R` and columns `jb .. jb + V*W`, built at `at`: init, the
    /// reduction, the write-back; with `staged`, only one stage of a blocked reduction, on the
    /// partial sums `partial[slot]`.
    fn tile_body(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        at: InsertPoint,
        i0: Value,
        jb: Value,
        staged: Option<(Stage, Value, Value)>,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let cols = self.vectors * nest.width;
        let tile_ty = buffer_type(ctx, &[self.rows, cols], nest.elem, MemorySpace::Local);
        let tile = build_alloc(ctx, at, tile_ty, &[], loc);
        let Some((stage, partial, slot)) = staged else {
            let mut emitter = self.emitter(ctx, nest, at, tile, i0, jb, None);
            // Init (the reduce iter var is 0 there), then the reduction over the tile.
            let k0 = index_const(ctx, at, 0, loc);
            emitter.block(ctx, nest.init, k0, at);
            let (_, k_body, k) = build_for(
                ctx,
                at,
                (nest.k.lb, nest.k.ub, nest.k.step),
                LoopKind::Serial,
                loc,
            );
            emitter.block(ctx, nest.body, k, before_terminator(ctx, k_body));
            self.write_back(ctx, nest, at, tile, i0, jb);
            return;
        };
        match stage {
            Stage::Init => {
                let mut emitter = self.emitter(ctx, nest, at, tile, i0, jb, None);
                let k0 = index_const(ctx, at, 0, loc);
                emitter.block(ctx, nest.init, k0, at);
                self.copy_tile(ctx, nest, at, (partial, slot), tile, false);
            }
            Stage::Block { kc, kend, packs } => {
                self.copy_tile(ctx, nest, at, (partial, slot), tile, true);
                match (nest.dot4, packs) {
                    (Some(d), Some(packs)) => {
                        self.dot4_steps(ctx, nest, d, (at, tile, i0), (kc, kend), &packs);
                    }
                    (_, packs) => {
                        let mut emitter = self.emitter(ctx, nest, at, tile, i0, jb, packs);
                        let (_, k_body, k) =
                            build_for(ctx, at, (kc, kend, nest.k.step), LoopKind::Serial, loc);
                        emitter.block(ctx, nest.body, k, before_terminator(ctx, k_body));
                    }
                }
                self.copy_tile(ctx, nest, at, (partial, slot), tile, false);
            }
            Stage::WriteBack => {
                self.copy_tile(ctx, nest, at, (partial, slot), tile, true);
                self.write_back(ctx, nest, at, tile, i0, jb);
            }
        }
    }

    /// An emitter of the block unrolled over the tile `tile` of rows `i0 ..` and columns
    /// `jb ..`, its splat buffers allocated before the tile.
    #[allow(clippy::too_many_arguments)]
    fn emitter<'n>(
        &'n self,
        ctx: &mut Context,
        nest: &'n Nest,
        at: InsertPoint,
        tile: Value,
        i0: Value,
        jb: Value,
        packs: Option<Packs>,
    ) -> Emitter<'n> {
        let loc = ctx.op_loc(nest.j_loop);
        let mut rows = vec![i0];
        for r in 1..self.rows {
            let c = index_const(ctx, at, r, loc);
            rows.push(index_binary(ctx, at, "arith.addi", i0, c, loc));
        }
        let splat_at = match ctx.defining_op(tile) {
            Some(op) => InsertPoint::Before(op),
            None => at,
        };
        Emitter {
            cfg: self,
            nest,
            tile_buf: tile,
            splat_at,
            rows,
            jb,
            loc,
            packs,
            k: None,
        }
    }

    /// Packs the block `kc .. kend` of each load of `B` the block body makes (contiguous in
    /// `j`, independent of the row) into a `[Kc, V*W]` buffer allocated before `jb_loop`, by a
    /// loop built at `at`; `None` when nothing is packable or the buffers would pass 256 KiB.
    /// Rows of `B` a power of two apart all fall in a few cache sets, so the row tiles would
    /// read the block from L2 or beyond at every step; packed, they stream it from L1.
    fn pack(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        (jb_loop, at): (Op, InsertPoint),
        (kc, kend): (Value, Value),
        jb: Value,
        kc_trips: i64,
    ) -> Option<Packs> {
        let loc = ctx.op_loc(nest.j_loop);
        let cols = self.vectors * nest.width;
        let elem_bytes = elem_bytes(ctx, nest.elem);
        let loads: Vec<(Op, Vec<Op>)> = ctx
            .block_ops(nest.body)
            .filter(|op| nest.plan.get(op) == Some(&Class::VLoad))
            .filter_map(|op| Some((op, nest.index_slice(ctx, op)?)))
            .collect();
        let bytes = loads.len() as i64 * kc_trips * cols * elem_bytes;
        if loads.is_empty() || bytes > 256 * 1024 {
            return None;
        }
        let step = index_const(ctx, at, nest.k_step, loc);
        let (_, body, k) = build_for(ctx, at, (kc, kend, step), LoopKind::Serial, loc);
        let body_at = before_terminator(ctx, body);
        let t = nest.pack_row(ctx, body_at, k, kc, loc);
        let mut buffers = FxHashMap::default();
        for (load, slice) in loads {
            let elem = ctx.value_type(ctx.result(load, 0));
            let ty = buffer_type(ctx, &[kc_trips, cols], elem, MemorySpace::Local);
            let buffer = build_alloc(ctx, InsertPoint::Before(jb_loop), ty, &[], loc);
            for v in 0..self.vectors {
                let off = index_const(ctx, body_at, v * nest.width, loc);
                let col = index_binary(ctx, body_at, "arith.addi", jb, off, loc);
                let mut map = nest.bind(ctx, k, Some(col), None);
                clone_ops(ctx, &slice, &mut map, body_at);
                let operands: Vec<Value> =
                    ctx.operands(load).iter().map(|&x| map.lookup(x)).collect();
                let vty = ctx.vector_type(&[nest.width], elem);
                let spec = OpSpec::new(ctx, "loop.vload", loc)
                    .operands(&operands)
                    .results(&[vty]);
                let vload = ctx.build(body_at, spec);
                let value = ctx.result(vload, 0);
                let spec = OpSpec::new(ctx, "loop.vstore", loc).operands(&[value, buffer, t, off]);
                ctx.build(body_at, spec);
            }
            buffers.insert(load, buffer);
        }
        Some(Packs { kc, buffers })
    }

    /// Packs the block `kc .. kend` of `B` (the load `d.b`) for `loop.dot4` into a
    /// `[Kc/4, 4*V*W]` `i8` buffer allocated before `jb_loop`, by a loop built at `at`: row
    /// `q` holds `k = kc + 4q .. kc + 4q + 3` interleaved, `B[k, jb + c]` at `4c + (k - kc) % 4`,
    /// so each 32-bit lane of a vector of it holds one column's four bytes. The column loop
    /// is scalar with four loads of consecutive elements per column; LLVM's loop vectorizer
    /// turns it into vector loads and shuffles.
    #[allow(clippy::too_many_arguments)]
    fn pack4(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        d: Dot4,
        (jb_loop, at): (Op, InsertPoint),
        (kc, kend): (Value, Value),
        jb: Value,
        kc_trips: i64,
    ) -> Packs {
        let loc = ctx.op_loc(nest.j_loop);
        let cols = self.vectors * nest.width;
        let ty = buffer_type(ctx, &[kc_trips / 4, 4 * cols], Type::I8, MemorySpace::Local);
        let buffer = build_alloc(ctx, InsertPoint::Before(jb_loop), ty, &[], loc);
        let slice = nest.index_slice(ctx, d.b).unwrap_or_default();
        let four = index_const(ctx, at, 4, loc);
        let (_, q_body, k) = build_for(ctx, at, (kc, kend, four), LoopKind::Serial, loc);
        let q_at = before_terminator(ctx, q_body);
        let t = nest.pack_row(ctx, q_at, k, kc, loc);
        let q = index_binary(ctx, q_at, "arith.divsi", t, four, loc);
        let zero = index_const(ctx, q_at, 0, loc);
        let one = index_const(ctx, q_at, 1, loc);
        let width = index_const(ctx, q_at, cols, loc);
        let (_, c_body, c) = build_for(ctx, q_at, (zero, width, one), LoopKind::Serial, loc);
        let c_at = before_terminator(ctx, c_body);
        let col = index_binary(ctx, c_at, "arith.addi", jb, c, loc);
        let base = index_binary(ctx, c_at, "arith.muli", c, four, loc);
        for step in 0..4 {
            let offset = index_const(ctx, c_at, step, loc);
            let kk = index_binary(ctx, c_at, "arith.addi", k, offset, loc);
            let mut map = nest.bind(ctx, kk, Some(col), None);
            clone_ops(ctx, &slice, &mut map, c_at);
            let operands: Vec<Value> = ctx.operands(d.b).iter().map(|&x| map.lookup(x)).collect();
            let (&b_buf, b_idx) = operands.split_first().expect("a load has a buffer");
            let byte = build_load(ctx, c_at, b_buf, b_idx, loc);
            let at_lane = index_binary(ctx, c_at, "arith.addi", base, offset, loc);
            build_store(ctx, c_at, byte, buffer, &[q, at_lane], loc);
        }
        let mut buffers = FxHashMap::default();
        buffers.insert(d.b, buffer);
        Packs { kc, buffers }
    }

    /// The reduction of one tile over `kc .. kend` with `loop.dot4`, four `k` steps at a time:
    /// per row the four bytes `A[row, k .. k + 4]` broadcast to every lane (through a local
    /// buffer LLVM turns into a broadcast), per vector a row of the packed `B`, then one
    /// `loop.dot4` per accumulator of the tile.
    fn dot4_steps(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        d: Dot4,
        (at, tile, i0): (InsertPoint, Value, Value),
        (kc, kend): (Value, Value),
        packs: &Packs,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let lanes = nest.width;
        let bytes_ty = ctx.vector_type(&[4 * lanes], Type::I8);
        let quad_ty = ctx.vector_type(&[4], Type::I8);
        let acc_ty = ctx.vector_type(&[lanes], Type::I32);
        let splat_at = ctx.defining_op(tile).map_or(at, InsertPoint::Before);
        let splat_ty = buffer_type(ctx, &[4 * lanes], Type::I8, MemorySpace::Local);
        let splats: Vec<Value> = (0..self.rows)
            .map(|_| build_alloc(ctx, splat_at, splat_ty, &[], loc))
            .collect();
        let four = index_const(ctx, at, 4, loc);
        let (_, k_body, k) = build_for(ctx, at, (kc, kend, four), LoopKind::Serial, loc);
        let k_at = before_terminator(ctx, k_body);
        let t = nest.pack_row(ctx, k_at, k, kc, loc);
        let q = index_binary(ctx, k_at, "arith.divsi", t, four, loc);
        let vload = |ctx: &mut Context, operands: &[Value], ty: Type| {
            let spec = OpSpec::new(ctx, "loop.vload", loc)
                .operands(operands)
                .results(&[ty]);
            let op = ctx.build(k_at, spec);
            ctx.result(op, 0)
        };
        let vstore = |ctx: &mut Context, operands: &[Value]| {
            let spec = OpSpec::new(ctx, "loop.vstore", loc).operands(operands);
            ctx.build(k_at, spec);
        };
        let mut a_rows = Vec::with_capacity(self.rows as usize);
        for (r, &splat) in splats.iter().enumerate() {
            let off = index_const(ctx, k_at, r as i64, loc);
            let row = index_binary(ctx, k_at, "arith.addi", i0, off, loc);
            let map = nest.bind(ctx, k, None, Some(row));
            let operands: Vec<Value> = ctx.operands(d.a).iter().map(|&x| map.lookup(x)).collect();
            let quad = vload(ctx, &operands, quad_ty);
            for lane in 0..lanes {
                let at_lane = index_const(ctx, k_at, 4 * lane, loc);
                vstore(ctx, &[quad, splat, at_lane]);
            }
            let zero = index_const(ctx, k_at, 0, loc);
            a_rows.push(vload(ctx, &[splat, zero], bytes_ty));
        }
        let packed = packs.buffers[&d.b];
        let b_vectors: Vec<Value> = (0..self.vectors)
            .map(|v| {
                let col = index_const(ctx, k_at, 4 * v * lanes, loc);
                vload(ctx, &[packed, q, col], bytes_ty)
            })
            .collect();
        for (r, &a) in a_rows.iter().enumerate() {
            let row = index_const(ctx, k_at, r as i64, loc);
            for (v, &b) in b_vectors.iter().enumerate() {
                let col = index_const(ctx, k_at, v as i64 * lanes, loc);
                let acc = vload(ctx, &[tile, row, col], acc_ty);
                let (unsigned, signed) = if d.signed_a { (b, a) } else { (a, b) };
                let spec = OpSpec::new(ctx, "loop.dot4", loc)
                    .operands(&[acc, unsigned, signed])
                    .results(&[acc_ty]);
                let dot = ctx.build(k_at, spec);
                let sum = ctx.result(dot, 0);
                vstore(ctx, &[sum, tile, row, col]);
            }
        }
    }

    /// Copies the register tile from (`load`) or to the partial sums `partial[slot]`, one
    /// vector per row and vector, at constant tile indices (so the tile stays in registers).
    fn copy_tile(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        at: InsertPoint,
        (partial, slot): (Value, Value),
        tile: Value,
        load: bool,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let ty = ctx.vector_type(&[nest.width], nest.elem);
        for r in 0..self.rows {
            let row = index_const(ctx, at, r, loc);
            for v in 0..self.vectors {
                let col = index_const(ctx, at, v * nest.width, loc);
                let (from, to): (Vec<Value>, Vec<Value>) = if load {
                    (vec![partial, slot, row, col], vec![tile, row, col])
                } else {
                    (vec![tile, row, col], vec![partial, slot, row, col])
                };
                let spec = OpSpec::new(ctx, "loop.vload", loc)
                    .operands(&from)
                    .results(&[ty]);
                let vload = ctx.build(at, spec);
                let value = ctx.result(vload, 0);
                let mut operands = vec![value];
                operands.extend(to);
                let spec = OpSpec::new(ctx, "loop.vstore", loc).operands(&operands);
                ctx.build(at, spec);
            }
        }
    }

    /// The columns from `end` on for the rows `i0 .. i0 + R`: tiles one vector wide while a
    /// whole vector of columns is left (a 480-wide matmul has 32 columns after its 7 blocks of
    /// 64), then the rest row by row, as before.
    fn column_remainder(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        at: InsertPoint,
        i0: Value,
        end: Value,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        // Tiles over the whole vectors left, of half as many vectors as the whole blocks,
        // then half that, down to one (each runs at most once: 40 columns after blocks of
        // four 16-lane vectors are one tile of two vectors, 8 accumulators, and 8 columns),
        // then of half as many lanes down to one (the last 2 of 10 columns run as one
        // 2-lane vector per row, the rows' chains of multiply-adds side by side, not as
        // scalar reductions one after another).
        let mut shapes = Vec::new();
        let mut vectors = self.vectors / 2;
        while vectors >= 1 {
            shapes.push((vectors, nest.width));
            vectors /= 2;
        }
        let mut width = nest.width;
        while width % 2 == 0 {
            width /= 2;
            shapes.push((1, width));
        }
        let mut end = end;
        for (vectors, width) in shapes {
            let cols = vectors * width;
            let end2 = whole_groups_end_of(ctx, at, (end, nest.j.ub), 1, cols, loc);
            if const_int(ctx, end).is_some() && const_int(ctx, end) == const_int(ctx, end2) {
                continue;
            }
            let narrow = Tile {
                vectors,
                width: Some(width),
                row_blocks: Some(1),
                k_block: None,
                ..*self
            };
            let narrow_nest = Nest {
                width,
                ..nest.clone()
            };
            let step = index_const(ctx, at, cols, loc);
            let (_, jb_body, jb) = build_for(ctx, at, (end, end2, step), LoopKind::Serial, loc);
            let jb_at = before_terminator(ctx, jb_body);
            narrow.tile_body(ctx, &narrow_nest, jb_at, i0, jb, None);
            end = end2;
        }
        if width == 1 {
            return; // the one-lane tiles took every column left
        }
        let zero = index_const(ctx, at, 0, loc);
        let rows = index_const(ctx, at, self.rows, loc);
        let one = index_const(ctx, at, 1, loc);
        let (_, r_body, r) = build_for(ctx, at, (zero, rows, one), LoopKind::Serial, loc);
        let r_at = before_terminator(ctx, r_body);
        let ii = index_binary(ctx, r_at, "arith.addi", i0, r, loc);
        let mut map = ValueMap::new();
        map.map(nest.i.iv, ii);
        let copy = ctx.clone_op(nest.j_loop, &mut map);
        ctx.insert_op(r_at, copy);
        ctx.set_operand(copy, 0, end);
    }

    /// The epilogue for every element of the tile: `serial` loops over rows and columns that
    /// load the element into a fresh accumulator and run the original epilogue on it.
    fn write_back(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        at: InsertPoint,
        tile: Value,
        i0: Value,
        jb: Value,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let mut map = ValueMap::new();
        let acc = ctx.clone_op(nest.acc_alloc, &mut map);
        ctx.insert_op(at, acc);
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let rows = index_const(ctx, at, self.rows, loc);
        let cols = index_const(ctx, at, self.vectors * nest.width, loc);
        let (_, r_body, r) = build_for(ctx, at, (zero, rows, one), LoopKind::Serial, loc);
        let r_at = before_terminator(ctx, r_body);
        let ii = index_binary(ctx, r_at, "arith.addi", i0, r, loc);
        let (_, c_body, c) = build_for(ctx, r_at, (zero, cols, one), LoopKind::Serial, loc);
        let c_at = before_terminator(ctx, c_body);
        let jj = index_binary(ctx, c_at, "arith.addi", jb, c, loc);
        let value = build_load(ctx, c_at, tile, &[r, c], loc);
        let acc = ctx.result(acc, 0);
        build_store(ctx, c_at, value, acc, &[], loc);
        map.map(nest.acc, acc);
        map.map(nest.i.iv, ii);
        map.map(nest.j.iv, jj);
        for &op in &nest.epilogue {
            let copy = ctx.clone_op(op, &mut map);
            ctx.insert_op(c_at, copy);
        }
    }
}

/// Bytes of one element of the accumulator's float type (`dlc_loop::elem_size_bytes`).
fn elem_bytes(ctx: &Context, elem: Type) -> i64 {
    elem_size_bytes(ctx, elem).map_or(4, |b| b as i64)
}

/// Before the outermost loop around `op` (or `op` itself) outside which all of `values` are
/// defined, so that a parallel nest around `op` keeps a body of one loop.
fn hoist_point(ctx: &Context, op: Op, values: &[Value]) -> InsertPoint {
    let mut cur = op;
    while let Some(p) = ctx.parent_op(cur) {
        if ctx.view::<ForOp>(p).is_none() || values.iter().any(|&v| defined_inside(ctx, p, v)) {
            break;
        }
        cur = p;
    }
    InsertPoint::Before(cur)
}

/// What one tile emission does when the reduction is blocked ([`Tile::k_block`]).
enum Stage {
    /// The init, into the partial sums.
    Init,
    /// The `k` block `kc .. kend`, from and back to the partial sums, reading `B` from
    /// `packs` where it was packed.
    Block {
        kc: Value,
        kend: Value,
        packs: Option<Packs>,
    },
    /// The epilogue, from the partial sums.
    WriteBack,
}

/// The packed copies of the block of `B` the row tiles of a cache block share: for each load
/// contiguous in `j` that does not depend on the row, a `[Kc, V*W]` local buffer holding what
/// it loads for `k = kc + t * step` at row `t`.
struct Packs {
    kc: Value,
    buffers: FxHashMap<Op, Value>,
}

/// Emits the schedule block's init or body unrolled over the tile.
struct Emitter<'n> {
    cfg: &'n Tile,
    nest: &'n Nest,
    /// The local tile buffer.
    tile_buf: Value,
    /// Where splat buffers are allocated (outside the reduction loop).
    splat_at: InsertPoint,
    /// The row index of each tile row.
    rows: Vec<Value>,
    /// The first column of the tile.
    jb: Value,
    loc: Location,
    /// Packed blocks of `B`, read instead of the loads they copy.
    packs: Option<Packs>,
    /// The reduce iter var's value in the block being emitted.
    k: Option<Value>,
}

/// The values of one row (scalars) and one vector (vectors, column indices).
struct Maps {
    scalar: ValueMap,
    vector: FxHashMap<Value, Value>,
    /// Splats of scalars, shared by the vectors of a row.
    splats: FxHashMap<Value, Value>,
}

impl Maps {
    fn get(&self, v: Value) -> Value {
        self.vector
            .get(&v)
            .copied()
            .unwrap_or_else(|| self.scalar.lookup(v))
    }
}

impl Emitter<'_> {
    /// Emits `block` (init or body) at `at` for every row and vector, with the reduce iter var
    /// bound to `k`.
    fn block(&mut self, ctx: &mut Context, block: Block, k: Value, at: InsertPoint) {
        let nest = self.nest;
        self.k = Some(k);
        let width = self.nest.width;
        let ops: Vec<Op> = ctx.block_ops(block).collect();
        let args = ctx.block_args(block).to_vec();
        for r in 0..self.cfg.rows {
            let mut maps = Maps {
                scalar: ValueMap::new(),
                vector: FxHashMap::default(),
                splats: FxHashMap::default(),
            };
            let row = self.rows[r as usize];
            for (&arg, role) in args.iter().zip(&nest.roles) {
                match role {
                    Role::Row => maps.scalar.map(arg, row),
                    Role::Reduce => maps.scalar.map(arg, k),
                    Role::Fixed(v) => maps.scalar.map(arg, *v),
                    Role::Col => {}
                }
            }
            let row_index = index_const(ctx, at, r, self.loc);
            for v in 0..self.cfg.vectors {
                let col = if v == 0 {
                    self.jb
                } else {
                    let off = index_const(ctx, at, v * width, self.loc);
                    index_binary(ctx, at, "arith.addi", self.jb, off, self.loc)
                };
                maps.vector.clear();
                for (&arg, role) in args.iter().zip(&nest.roles) {
                    if matches!(role, Role::Col) {
                        maps.vector.insert(arg, col);
                    }
                }
                let tile_col = index_const(ctx, at, v * width, self.loc);
                for &op in &ops {
                    self.op(ctx, op, v, &mut maps, at, [row_index, tile_col]);
                }
            }
        }
    }

    /// Emits one op for row map `maps` and vector `v`; `tile_at` indexes the tile.
    fn op(
        &mut self,
        ctx: &mut Context,
        op: Op,
        v: i64,
        maps: &mut Maps,
        at: InsertPoint,
        tile_at: [Value; 2],
    ) {
        let loc = ctx.op_loc(op);
        let class = self.nest.plan.get(&op).copied().unwrap_or(Class::Skip);
        match class {
            Class::Skip => {}
            Class::Scalar => {
                if v == 0 {
                    let copy = ctx.clone_op(op, &mut maps.scalar);
                    ctx.insert_op(at, copy);
                }
            }
            Class::ColIndex => {
                let operands: Vec<Value> = ctx.operands(op).iter().map(|&x| maps.get(x)).collect();
                let spec = OpSpec::with_name(ctx.op_name_id(op), loc)
                    .operands(&operands)
                    .results(&[Type::INDEX]);
                let new = ctx.build(at, spec);
                maps.vector.insert(ctx.result(op, 0), ctx.result(new, 0));
            }
            Class::VLoad => {
                let packed = self.packs.as_ref().and_then(|p| {
                    let buffer = *p.buffers.get(&op)?;
                    Some((buffer, p.kc, self.k?))
                });
                let operands: Vec<Value> = match packed {
                    Some((buffer, kc, k)) => {
                        let t = self.nest.pack_row(ctx, at, k, kc, loc);
                        let col = index_const(ctx, at, v * self.nest.width, loc);
                        vec![buffer, t, col]
                    }
                    None => ctx.operands(op).iter().map(|&x| maps.get(x)).collect(),
                };
                let value = self.vload(ctx, op, &operands, at);
                maps.vector.insert(ctx.result(op, 0), value);
            }
            Class::AccLoad => {
                let value = self.vload(ctx, op, &[self.tile_buf, tile_at[0], tile_at[1]], at);
                maps.vector.insert(ctx.result(op, 0), value);
            }
            Class::AccStore => {
                let value = self.vector_of(ctx, ctx.operands(op)[0], maps, at);
                let spec = OpSpec::new(ctx, "loop.vstore", loc).operands(&[
                    value,
                    self.tile_buf,
                    tile_at[0],
                    tile_at[1],
                ]);
                ctx.build(at, spec);
            }
            Class::Vector => {
                let operands: Vec<Value> = ctx
                    .operands(op)
                    .to_vec()
                    .into_iter()
                    .map(|x| self.vector_of(ctx, x, maps, at))
                    .collect();
                let ty = self.vector_type(ctx, ctx.value_type(ctx.result(op, 0)));
                let mut spec = OpSpec::with_name(ctx.op_name_id(op), loc)
                    .operands(&operands)
                    .results(&[ty]);
                spec.attrs = ctx.attrs(op).to_vec();
                let new = ctx.build(at, spec);
                maps.vector.insert(ctx.result(op, 0), ctx.result(new, 0));
            }
            Class::Fma(mul) => {
                let product = ctx.result(mul, 0);
                let addend = ctx
                    .operands(op)
                    .iter()
                    .copied()
                    .find(|&x| x != product)
                    .unwrap_or(product);
                let mut factors = ctx.operands(mul).to_vec();
                factors.push(addend);
                let operands: Vec<Value> = factors
                    .into_iter()
                    .map(|x| self.vector_of(ctx, x, maps, at))
                    .collect();
                let ty = self.vector_type(ctx, ctx.value_type(ctx.result(op, 0)));
                let flags = fastmath_attr(ctx, FastMathFlags::empty());
                let spec = OpSpec::new(ctx, "math.fma", loc)
                    .operands(&operands)
                    .results(&[ty])
                    .attr(ctx, "fastmath", flags);
                let new = ctx.build(at, spec);
                maps.vector.insert(ctx.result(op, 0), ctx.result(new, 0));
            }
        }
    }

    fn vector_type(&self, ctx: &mut Context, elem: Type) -> Type {
        ctx.vector_type(&[self.nest.width], elem)
    }

    /// A `loop.vload` of the element type of load `op`, from `operands` (buffer, indices).
    fn vload(&self, ctx: &mut Context, op: Op, operands: &[Value], at: InsertPoint) -> Value {
        let ty = self.vector_type(ctx, ctx.value_type(ctx.result(op, 0)));
        let spec = OpSpec::new(ctx, "loop.vload", ctx.op_loc(op))
            .operands(operands)
            .results(&[ty]);
        let new = ctx.build(at, spec);
        ctx.result(new, 0)
    }

    /// The vector of original value `v`: its vector form, or a splat of its scalar clone.
    fn vector_of(&self, ctx: &mut Context, v: Value, maps: &mut Maps, at: InsertPoint) -> Value {
        if let Some(&vec) = maps.vector.get(&v).or_else(|| maps.splats.get(&v)) {
            return vec;
        }
        let scalar = maps.scalar.lookup(v);
        let elem = ctx.value_type(scalar);
        let ty = self.vector_type(ctx, elem);
        let splat = if let Some(attr) = constant_splat(ctx, scalar, ty) {
            let spec = dlc_arith::constant_spec(ctx, attr, ty, self.loc);
            let op = ctx.build(at, spec);
            ctx.result(op, 0)
        } else {
            // No broadcast op: the scalar goes to every lane of a local buffer, read back as one
            // vector (LLVM turns this into a broadcast).
            let buf_ty = buffer_type(ctx, &[self.nest.width], elem, MemorySpace::Local);
            let buf = build_alloc(ctx, self.splat_at, buf_ty, &[], self.loc);
            for lane in 0..self.nest.width {
                let i = index_const(ctx, at, lane, self.loc);
                build_store(ctx, at, scalar, buf, &[i], self.loc);
            }
            let zero = index_const(ctx, at, 0, self.loc);
            let spec = OpSpec::new(ctx, "loop.vload", self.loc)
                .operands(&[buf, zero])
                .results(&[ty]);
            let op = ctx.build(at, spec);
            ctx.result(op, 0)
        };
        maps.splats.insert(v, splat);
        splat
    }
}
