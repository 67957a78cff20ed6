//! Prefetches the next row of a row-wise kernel while the current row computes.
//!
//! # Applies when
//! A CPU kernel's `parallel` row loop (step 1) holds, directly in its body, two or more loops
//! that read the same row of a global buffer with vector loads: a softmax reads its row for the
//! max, again for `exp` and the sum; a layer or RMS norm for its statistics, again to
//! normalize. The first loop fetches the row from memory while it does almost nothing else; the
//! later ones read it from the L1 cache while they compute, and the memory bus idles. Fetching
//! the next row during the second loop overlaps the two.
//!
//! # Changes to the IR
//! Run after `vectorize`. For a `parallel` loop over `i` with constant step 1 and a global
//! buffer `B`, a *row read* is a `loop.vload` of `B`, directly in the body of a loop `L` that is
//! itself directly in the row loop's body (or in a schedule block directly in `L`'s body, its
//! iter vars read through their bindings), whose indices are `i` at one position, `L`'s
//! induction variable last, and values defined outside `L` elsewhere. In the second loop of the
//! row loop's body that has row reads of `B`, each row read gets, just before it (before its
//! schedule block), `loop.prefetch B[...]` with the same indices but `min(i + rows-ahead, ub -
//! 1)` for `i` (the row `rows-ahead` rows on, or the last one: a prefetch's indices are in
//! bounds). `min` and the sum are computed once, at the start of the row loop's body.
//! `rows-ahead=0` turns the pass off. The pass counts the prefetches it inserted.
//!
//! # Performance impact
//! A row is 16 KiB in the 4096² benchmarks, so each vector load of the `exp` loop is paired
//! with the prefetch (into L2) of one cache line of the next row. Measured with `dlc-run
//! --bench 30`, three interleaved pairs, 2 threads of an "Intel(R) Xeon(R) Processor"
//! (AVX-512): softmax 4096² 10.0-10.5 → 6.7-7.2 ms, layer_norm 4096² 6.9-7.8 → 5.3-6.6 ms.
//! A runtime that took the prefetch for a write (and copied the input before every run, as it
//! does for kernel arguments that are written) made the same kernels twice as slow; a kernel
//! argument only loaded and prefetched is read-only.
//!
//! # Risks and limitations
//! - The next row is only useful to the thread that computes it: the pass assumes the runtime
//!   hands each thread a contiguous range of rows (it does: `dlc_parallel_for` splits the range
//!   into contiguous chunks).
//! - Rows much longer than the caches gain nothing: the prefetched start of the next row is
//!   evicted before it is read.
//! - With vectors narrower than a cache line, several prefetches touch one line; they cost an
//!   issue slot each and nothing else.
//!
//! # Examples
//! 1. A row max, then a second pass over the row (rows of 64, vectors of 16):
//!    ```text
//!    loop.for parallel %i = %c0 to %c8 step %c1 {
//!      loop.for vectorize(16) %j = %c0 to %c64 step %c16 {
//!        %v = loop.vload %x[%i, %j] : !loop.buffer<8x64xf32, global> -> vector<16xf32>
//!        ...
//!      }
//!      loop.for vectorize(16) %j = %c0 to %c64 step %c16 {
//!        %v = loop.vload %x[%i, %j] : !loop.buffer<8x64xf32, global> -> vector<16xf32>
//!        ...
//!      }
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.for parallel %i = %c0 to %c8 step %c1 {
//!      %n = arith.addi %i, %c1 : index
//!      %next = arith.minsi %n, %c7 : index
//!      loop.for vectorize(16) %j = %c0 to %c64 step %c16 { ... }
//!      loop.for vectorize(16) %j = %c0 to %c64 step %c16 {
//!        loop.prefetch %x[%next, %j] : !loop.buffer<8x64xf32, global>
//!        %v = loop.vload %x[%i, %j] : !loop.buffer<8x64xf32, global> -> vector<16xf32>
//!        ...
//!      }
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. An elementwise kernel (one loop over the row): every row is read once, and the hardware
//!    prefetcher already streams it; nothing is inserted.

use super::util::{const_int, index_binary, index_const};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Block, Context, Diagnostic, InsertPoint, Op, Value};
use dlc_loop::analysis::loops::{loop_parts, LoopParts};
use dlc_loop::{
    buffer_parts, build_prefetch, is_gpu_kernel, ForOp, KernelOp, LoopKind, LoopOps, MemorySpace,
    VLoadOp,
};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "prefetch",
    summary: "Prefetches the next row of a row-wise kernel while the current row computes.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[OptionSpec::new(
        "rows-ahead",
        OptionKind::Int,
        "1",
        "How many rows ahead to prefetch (0 turns the pass off)",
    )],
    statistics: &[("prefetches", "Number of loop.prefetch ops inserted")],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let rows_ahead = options.int("rows-ahead");
    if rows_ahead < 0 {
        return Err(format!(
            "option 'rows-ahead' must not be negative, got {rows_ahead}"
        ));
    }
    Ok(Box::new(Prefetch { rows_ahead }))
}

struct Prefetch {
    rows_ahead: i64,
}

/// A row read: a vector load of a global buffer, where its indices resolve to outside values.
struct RowRead {
    /// The op the prefetch goes before: the load, or the schedule block holding it.
    at: Op,
    buffer: Value,
    /// The load's indices, read through the schedule block's bindings.
    indices: Vec<Value>,
    /// Which index is the row.
    row: usize,
}

impl Pass for Prefetch {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if self.rows_ahead == 0 || is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        let mut row_loops = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            if ctx
                .view::<ForOp>(op)
                .is_some_and(|f| f.loop_kind(ctx) == Some(LoopKind::Parallel))
            {
                row_loops.push(op);
            }
        });
        let mut inserted = 0;
        for row_loop in row_loops {
            inserted += self.prefetch_rows(ctx, row_loop);
        }
        run.add_stat("prefetches", inserted as u64);
        if inserted == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

impl Prefetch {
    /// Inserts the prefetches of one row loop; returns how many.
    fn prefetch_rows(&self, ctx: &mut Context, row_loop: Op) -> i64 {
        let Some(rows) = loop_parts(ctx, row_loop) else {
            return 0;
        };
        if const_int(ctx, rows.step) != Some(1) {
            return 0;
        }
        let loops: Vec<Op> = ctx
            .block_ops(rows.body)
            .filter(|&op| ctx.view::<ForOp>(op).is_some())
            .collect();
        // Per loop, its row reads; a buffer's second reading loop gets the prefetches.
        let reads: Vec<Vec<RowRead>> = loops.iter().map(|&l| row_reads(ctx, l, rows.iv)).collect();
        let mut targets: Vec<&RowRead> = Vec::new();
        let mut seen: Vec<(Value, usize)> = Vec::new();
        for loop_reads in &reads {
            let mut buffers: Vec<Value> = loop_reads.iter().map(|r| r.buffer).collect();
            buffers.dedup();
            for b in buffers {
                match seen.iter_mut().find(|(s, _)| *s == b) {
                    Some((_, n)) => {
                        *n += 1;
                        if *n == 2 {
                            targets.extend(loop_reads.iter().filter(|r| r.buffer == b));
                        }
                    }
                    None => seen.push((b, 1)),
                }
            }
        }
        if targets.is_empty() {
            return 0;
        }
        let next = self.next_row(ctx, row_loop, &rows);
        let loc = ctx.op_loc(row_loop);
        let plans: Vec<(Op, Value, Vec<Value>)> = targets
            .iter()
            .map(|r| {
                let mut indices = r.indices.clone();
                indices[r.row] = next;
                (r.at, r.buffer, indices)
            })
            .collect();
        for (at, buffer, indices) in &plans {
            build_prefetch(ctx, InsertPoint::Before(*at), *buffer, indices, loc);
        }
        plans.len() as i64
    }

    /// `min(i + rows-ahead, ub - 1)` at the start of the row loop's body.
    fn next_row(&self, ctx: &mut Context, row_loop: Op, rows: &LoopParts) -> Value {
        let loc = ctx.op_loc(row_loop);
        let at = InsertPoint::Start(rows.body);
        let ahead = index_const(ctx, at, self.rows_ahead, loc);
        let at = InsertPoint::After(ctx.defining_op(ahead).expect("a constant op"));
        let one = index_const(ctx, at, 1, loc);
        let at = InsertPoint::After(ctx.defining_op(one).expect("a constant op"));
        let last = index_binary(ctx, at, "arith.subi", rows.ub, one, loc);
        let at = InsertPoint::After(ctx.defining_op(last).expect("an index op"));
        let on = index_binary(ctx, at, "arith.addi", rows.iv, ahead, loc);
        let at = InsertPoint::After(ctx.defining_op(on).expect("an index op"));
        index_binary(ctx, at, "arith.minsi", on, last, loc)
    }
}

/// The row reads of loop `l` (see the module doc) for row variable `row_iv`.
fn row_reads(ctx: &Context, l: Op, row_iv: Value) -> Vec<RowRead> {
    let Some(parts) = loop_parts(ctx, l) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for op in ctx.block_ops(parts.body) {
        match LoopOps::of(ctx, op) {
            Some(LoopOps::VLoadOp(load)) => {
                out.extend(row_read(ctx, load, op, None, &parts, row_iv));
            }
            Some(LoopOps::ScheduleBlockOp(block)) => {
                let Some(body) = block.body(ctx) else {
                    continue;
                };
                for inner in ctx.block_ops(body) {
                    if let Some(load) = ctx.view::<VLoadOp>(inner) {
                        out.extend(row_read(ctx, load, op, Some(body), &parts, row_iv));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `load` as a row read, its iter vars resolved through `block` (the schedule block body it is
/// in, whose op is `at`). Every value the indices resolve to is visible just before `at`.
fn row_read(
    ctx: &Context,
    load: VLoadOp,
    at: Op,
    block: Option<Block>,
    l: &LoopParts,
    row_iv: Value,
) -> Option<RowRead> {
    let buffer = load.buffer(ctx);
    let (_, _, space) = buffer_parts(ctx, ctx.value_type(buffer))?;
    if space != MemorySpace::Global {
        return None;
    }
    let resolve = |v: Value| -> Option<Value> {
        let Some(b) = block else {
            return Some(v);
        };
        match ctx.block_args(b).iter().position(|&a| a == v) {
            Some(k) => ctx.operands(at).get(k).copied(),
            // Computed in the block: not visible before it.
            None if ctx.defining_op(v).is_some_and(|d| ctx.is_ancestor(at, d)) => None,
            None => Some(v),
        }
    };
    let indices: Vec<Value> = load
        .indices(ctx)
        .iter()
        .map(|&v| resolve(v))
        .collect::<Option<_>>()?;
    let (&last, _) = indices.split_last()?;
    let mut rows = indices.iter().enumerate().filter(|(_, &v)| v == row_iv);
    let (Some((row, _)), None) = (rows.next(), rows.next()) else {
        return None;
    };
    (last == l.iv).then_some(RowRead {
        at,
        buffer,
        indices,
        row,
    })
}
