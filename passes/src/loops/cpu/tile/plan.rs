//! How large the tiling of one nest is: the tile fitted to the nest's constant extents
//! ([`Tile::fitted`]), the row tiles per cache block ([`Tile::row_blocks`]), the reduction
//! block ([`Tile::k_block`]), sized from the target's caches and threads, and whether the
//! threads share out column blocks instead ([`Tile::column_blocks`]).

use super::analysis::{is_loop, Class, Nest};
use super::{elem_bytes, Tile};
use crate::loops::cpu::target::ByteDot;
use crate::loops::cpu::util::{const_int, const_trip_count};
use dlc_ir::Context;
use dlc_loop::analysis::loops::loop_parts;
use dlc_loop::LoopKind;

impl Tile {
    /// This tiling (its pair tile for a nest that takes `loop.dot2`) with no more vectors per
    /// row than the columns of `nest` fill and no more rows than it has, when their counts are
    /// constants (a convolution's 56-wide output rows take 3 of 4 vectors of 16; a
    /// matrix-vector product takes one row). With gathered
    /// columns, the tallest tile down to half the height that divides a constant row count:
    /// the rows after the last whole tile would gather their own columns, unpacked, at every
    /// step (AVX2's 6-row tiles over 16 or 32 output channels made nudenet_320n's products
    /// 25% slower than the gather kernels they replaced; 4-row tiles, as fast or faster).
    pub(super) fn fitted(&self, ctx: &Context, nest: &Nest) -> Tile {
        let (rows, vectors) = match nest.dot {
            Some(d) if d.kind == ByteDot::Two => self.pair_tile,
            _ => (self.rows, self.vectors),
        };
        let vectors =
            const_trip_count(ctx, &nest.j).map_or(vectors, |t| vectors.min(t / nest.width).max(1));
        let mut rows = const_trip_count(ctx, &nest.i).map_or(rows, |t| rows.min(t).max(1));
        // Gathered columns are packed for whole row tiles only: the rows left over would
        // gather their own, so a tile height down to half that divides the rows is taken.
        if let Some(t) = const_trip_count(ctx, &nest.i).filter(|_| nest.gathers()) {
            if let Some(r) = (rows / 2..=rows).rev().find(|&r| r > 0 && t % r == 0) {
                rows = r;
            }
        }
        Tile {
            vectors,
            rows,
            ..*self
        }
    }

    /// Row tiles per cache block: the option, else as many as keep the rows of `A` one block
    /// of the reduction reads (`m * R * Kc` elements, `Kc` the `k` block or the whole `k`
    /// range) within a quarter of the L2 cache, leaving the rest to the block of `B` they
    /// share; at most the row tiles per thread of this machine (the threads the parallel loops
    /// around the nest do not already occupy), so the parallel loops have work for every
    /// thread, and at most 64. Also those threads, by which a symbolic row count is divided at
    /// run time (`None` when the option fixes the blocks).
    pub(super) fn row_blocks(
        &self,
        ctx: &Context,
        nest: &Nest,
        trips: Option<i64>,
    ) -> (i64, Option<i64>) {
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
        let threads = machine_threads();
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
        // Each of their tasks splits into as many blocks as make all the tasks share out
        // evenly when they would not within 10% (3 batches on 2 threads as 6 blocks, not 2 + 1
        // batches: a 3x256x512 by 512x512 product 1.45 -> 1.2 ms); a smaller imbalance is left
        // (25 rows on 2 threads: 13 against 12.5), as each block packs its own `B`, and so is
        // a task of less than [`SPLIT_WORK`] multiply-adds (PaddleOCR's small convolutions).
        let outer_tasks = outer_tasks.max(1);
        let rest = outer_tasks % threads;
        let work = [
            trips,
            const_trip_count(ctx, &nest.j),
            const_trip_count(ctx, &nest.k),
        ]
        .into_iter()
        .try_fold(1i64, |w, t| t.map(|t| w.saturating_mul(t)))
        .unwrap_or(i64::MAX);
        let uneven = rest != 0 && 10 * (threads - rest) > outer_tasks;
        let threads = if uneven && work >= SPLIT_WORK {
            threads / gcd(outer_tasks, threads)
        } else {
            (threads - 1) / outer_tasks + 1
        };
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
    /// 6.3 ms with 256; to 1024 for `loop.dot2`'s `i16`); the `k-block` option overrides it.
    pub(super) fn k_block_size(&self, ctx: &Context, nest: &Nest) -> Option<i64> {
        let trips = const_trip_count(ctx, &nest.k)?;
        let cols = self.vectors * nest.width;
        let budget = i64::try_from(self.cpu.l2_bytes / 32).unwrap_or(i64::MAX);
        let b_bytes = match nest.dot {
            Some(d) => elem_bytes(ctx, d.packed_type()),
            None => elem_bytes(ctx, nest.elem),
        };
        let fit = (budget / (cols * b_bytes).max(1)).clamp(64, 2048 / b_bytes);
        let kc = self.k_block.unwrap_or(1i64 << (63 - fit.leading_zeros()));
        (trips > kc).then_some(kc)
    }

    /// [`Tile::k_block_size`] when the partial sums of a cache block of `m` row tiles stay
    /// small (at most 64 KiB of local memory).
    pub(super) fn k_block(&self, ctx: &Context, nest: &Nest, m: i64) -> Option<i64> {
        let cols = self.vectors * nest.width;
        let partial_bytes = m * self.rows * cols * elem_bytes(ctx, nest.elem);
        if partial_bytes > 64 * 1024 {
            return None;
        }
        match nest.dot {
            // Gathered columns are packed, as the tiles cannot load them as vectors: the whole
            // `k` range is one block when it is short.
            None if nest.gathers() => self
                .k_block_size(ctx, nest)
                .or_else(|| const_trip_count(ctx, &nest.k)),
            None => self.k_block_size(ctx, nest),
            // `loop.dot4` and `loop.dot2` read `B` packed, so their nests always take blocks
            // (the whole `k` range when it is short) of whole groups, so that only the block
            // that ends the range may end in a partial one: a `k-block` the group does not
            // divide is rounded down to a multiple of it.
            Some(d) => {
                let (g, trips) = (d.group(), const_trip_count(ctx, &nest.k)?);
                let kc = self
                    .k_block_size(ctx, nest)
                    .map_or(trips, |kc| (kc / g).max(1) * g);
                Some(kc.min(trips))
            }
        }
    }

    /// The column blocks and the row tiles per cache block when the threads share out the
    /// column blocks rather than the row tiles:
    /// - when `B` is gathered ([`Class::Gather`]: an im2col convolution's columns read through
    ///   their window table) and packed per reduction block, so each thread gathers its own
    ///   columns once instead of every thread gathering them all for its rows; the last block
    ///   may then be partial (its packing stops at the last column);
    /// - when `B` is read contiguously and the product is skinny: fewer than [`SKINNY_TILES`]
    ///   row tiles and more of `B` than the L2 cache holds (a classifier's 25 by 1024 by 8210
    ///   Gemm: 33 MB of weights that every thread streamed for its rows); only whole column
    ///   blocks are shared out then, the columns after them run per row tile afterwards.
    ///
    /// The row and column ranges must be constants with at least a column block per thread; a
    /// cache block then holds every row tile its partial sums fit (64 KiB, at most 64 tiles).
    /// `None` otherwise, or when the `row-blocks` option fixes the blocks.
    pub(super) fn column_blocks(
        &self,
        ctx: &Context,
        nest: &Nest,
        trips: Option<i64>,
        k_block: Option<i64>,
    ) -> Option<(i64, i64)> {
        let contiguous = nest.plan.values().any(|&c| c == Class::VLoad);
        // A contiguous load could not be packed past the last column; gathered columns are
        // shared out through their packing, which needs reduction blocks.
        let unpacked = k_block.is_none() && !contiguous;
        if nest.gathers() == contiguous || unpacked || self.row_blocks.is_some() {
            return None;
        }
        let rows = trips?;
        let lb = const_int(ctx, nest.j.lb)?;
        let ub = const_int(ctx, nest.j.ub)?;
        let cols = self.vectors * nest.width;
        let tiles = (rows + self.rows - 1) / self.rows;
        let n = (ub - lb).max(0);
        let blocks = if contiguous {
            // `B`'s elements as its loads read them (bytes for an 8-bit product).
            let width = (nest.plan.iter())
                .filter(|&(_, &c)| c == Class::VLoad)
                .map(|(&op, _)| elem_bytes(ctx, ctx.value_type(ctx.result(op, 0))))
                .max()?;
            let k = const_trip_count(ctx, &nest.k)?;
            let b_bytes = k.saturating_mul(n).saturating_mul(width);
            if tiles >= SKINNY_TILES || u64::try_from(b_bytes).ok()? <= self.cpu.l2_bytes {
                return None;
            }
            n / cols
        } else {
            (n + cols - 1) / cols
        };
        if blocks < machine_threads() {
            return None;
        }
        let per_tile = self.rows * cols * elem_bytes(ctx, nest.elem);
        let m = tiles.min(64).min(64 * 1024 / per_tile.max(1)).max(1);
        Some((blocks, m))
    }
}

/// The row tiles below which a product whose `B` does not fit the L2 cache shares out its
/// column blocks among the threads ([`Tile::column_blocks`]).
const SKINNY_TILES: i64 = 16;

/// The multiply-adds of a task of the parallel loops around a nest from which it splits into
/// blocks to even out the threads' shares ([`Tile::row_blocks`]).
const SPLIT_WORK: i64 = 1 << 20;

/// The greatest common divisor of two positive counts.
fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The threads of the machine that compiles (the JIT's own), which the parallel loops share
/// out.
fn machine_threads() -> i64 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as i64)
}
