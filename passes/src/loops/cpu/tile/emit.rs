//! The rewrite of a matched nest ([`Tile::rewrite`]): cache blocks of row tiles, each tile's
//! registers, init, reduction and write-back, the packing of `B` ([`Packs`]), `loop.dot4`
//! and `loop.dot2` steps, and the loops for the rows and columns that do not fill a tile.

use super::analysis::{Class, Dot, Nest, Role};
use super::{clone_ops, elem_bytes, Tile};
use crate::loops::cpu::target::ByteDot;
use crate::loops::cpu::util::{
    ceil_div, const_int, const_trip_count, defined_inside, index_binary, index_const, splat,
    whole_groups_end, whole_groups_end_of,
};
use dlc_arith::{
    build_cast, build_cmpi, fastmath_attr, CmpIPredicate, ExtSIOp, ExtUIOp, FastMathFlags,
};
use dlc_ir::{
    Block, Context, DenseValue, EffectKind, InsertPoint, Location, Op, OpSpec, Type, TypeKind,
    Value, ValueMap,
};
use dlc_loop::{
    before_terminator, buffer_type, build_alloc, build_for, build_if, build_load, build_store,
    ForOp, LoopKind, MemorySpace,
};
use rustc_hash::{FxHashMap, FxHashSet};

impl Nest {
    /// Builds at `at` the groups of `group` `k` steps of the block `kc .. kend`: a loop over
    /// its whole groups, up to `min(kend, K - K % group)`, and, when `group` does not divide
    /// the constant `k` range `0 .. K`, a `loop.if` on `kend > K - K % group` (the block that
    /// ends the range) for the last, partial group. `body` builds one group at its insert
    /// point, from its first step and with its number of steps.
    pub(super) fn for_each_group(
        &self,
        ctx: &mut Context,
        at: InsertPoint,
        (kc, kend): (Value, Value),
        group: i64,
        mut body: impl FnMut(&mut Context, InsertPoint, Value, i64),
    ) {
        let loc = ctx.op_loc(self.j_loop);
        let k_ub = const_int(ctx, self.k.ub).expect("a dot product's k range is constant");
        let steps = k_ub % group;
        let tail = (steps != 0).then(|| index_const(ctx, at, k_ub - steps, loc));
        let whole = match tail {
            Some(tail) => index_binary(ctx, at, "arith.minsi", kend, tail, loc),
            None => kend,
        };
        let step = index_const(ctx, at, group, loc);
        let (_, loop_body, k) = build_for(ctx, at, (kc, whole, step), LoopKind::Serial, loc);
        body(ctx, before_terminator(ctx, loop_body), k, group);
        if let Some(tail) = tail {
            let ends = build_cmpi(ctx, at, CmpIPredicate::Sgt, kend, tail, loc);
            let ends = ctx.result(ends, 0);
            let (_, then_block, _) = build_if(ctx, at, ends, false, loc);
            body(ctx, before_terminator(ctx, then_block), tail, steps);
        }
    }

    /// The row of a packed block that `k` reads: `(k - kc) / step`.
    pub(super) fn pack_row(
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

    /// Clones `slice` ([`Nest::index_slice`]) for reduction step `k` and column `col`: the
    /// ops that do not depend on the column at `outer`, before the column loop, the others at
    /// `inner`, in it; returns the map of the block's values to the clones. An im2col table's
    /// row (`k / taps`, `k % taps`) is then computed once per step, not once per column: the
    /// quick tier has no pass that hoists it.
    pub(super) fn clone_per_column(
        &self,
        ctx: &mut Context,
        slice: &[Op],
        (k, col): (Value, Value),
        (outer, inner): (InsertPoint, InsertPoint),
    ) -> ValueMap {
        let args = ctx.block_args(self.body);
        let mut per_column: FxHashSet<Value> = args
            .iter()
            .zip(&self.roles)
            .filter(|(_, role)| matches!(role, Role::Col))
            .map(|(&arg, _)| arg)
            .collect();
        let (mut inside, mut hoisted) = (Vec::new(), Vec::new());
        for &op in slice {
            if ctx.operands(op).iter().any(|v| per_column.contains(v)) {
                per_column.extend(ctx.results(op));
                inside.push(op);
            } else {
                hoisted.push(op);
            }
        }
        let mut map = self.bind(ctx, k, None, None);
        clone_ops(ctx, &hoisted, &mut map, outer);
        let mut with_col = self.bind(ctx, k, Some(col), None);
        for &op in &hoisted {
            for v in ctx.results(op) {
                with_col.map(v, map.lookup(v));
            }
        }
        clone_ops(ctx, &inside, &mut with_col, inner);
        with_col
    }

    /// Copies `n` columns of the gathered load `load` ([`Class::Gather`]) at reduction step
    /// `k`, from column `col0` on, into `buffer` (at `[row, c]`, or `[c]` without a row) by
    /// a loop built at `at` that computes each column's index as the block does; with
    /// `clamp`, only the columns before it, and zeros after them up to `n`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn gather_columns(
        &self,
        ctx: &mut Context,
        at: InsertPoint,
        load: Op,
        (k, col0, clamp): (Value, Value, Option<Value>),
        n: i64,
        (buffer, row): (Value, Option<Value>),
        loc: Location,
    ) {
        let slice = self.index_slice(ctx, load).unwrap_or_default();
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let full = index_const(ctx, at, n, loc);
        let count = match clamp {
            Some(ub) => {
                let count = columns_before(ctx, at, n, col0, Some(ub), loc);
                let (_, z_body, z) = build_for(ctx, at, (count, full, one), LoopKind::Serial, loc);
                let z_at = before_terminator(ctx, z_body);
                let elem = ctx.value_type(ctx.result(load, 0));
                let value = zero_value(ctx, z_at, elem, loc);
                let at_index: Vec<Value> = row.into_iter().chain([z]).collect();
                build_store(ctx, z_at, value, buffer, &at_index, loc);
                count
            }
            None => full,
        };
        let (c_loop, c_body, c) = build_for(ctx, at, (zero, count, one), LoopKind::Serial, loc);
        let c_at = before_terminator(ctx, c_body);
        let col = index_binary(ctx, c_at, "arith.addi", col0, c, loc);
        let outer = InsertPoint::Before(c_loop.0);
        let map = self.clone_per_column(ctx, &slice, (k, col), (outer, c_at));
        let value = load_mapped(ctx, c_at, load, &map, loc);
        let at_index: Vec<Value> = row.into_iter().chain([c]).collect();
        build_store(ctx, c_at, value, buffer, &at_index, loc);
    }
}

impl Tile {
    /// Rewrites the nest.
    pub(super) fn rewrite(&self, ctx: &mut Context, nest: &Nest) -> Rewritten {
        let loc = ctx.op_loc(nest.i_loop);
        let rows = self.rows;
        let hoist = hoist_point(ctx, nest.i_loop, &[nest.i.lb, nest.i.ub]);
        let trips = const_trip_count(ctx, &nest.i);
        let exact = trips.is_some_and(|t| t % rows == 0) && const_int(ctx, nest.i.lb).is_some();
        let (m, threads) = self.row_blocks(ctx, nest, trips);
        // A `loop.dot4` or `loop.dot2` nest that gets no reduction blocks is tiled without them.
        let mut k_block = self.k_block(ctx, nest, m);
        let plain;
        let nest = if nest.dot.is_some() && k_block.is_none() {
            plain = Nest {
                dot: None,
                ..nest.clone()
            };
            k_block = self.k_block(ctx, &plain, m);
            &plain
        } else {
            nest
        };
        let cols = self.vectors * nest.width;
        // Threads share out the column blocks rather than the row tiles when packing `B`
        // gathers it, or when a skinny product streams a large `B`: each thread then gathers
        // or reads only its own columns, once.
        let by_columns = self.column_blocks(ctx, nest, trips, k_block);
        let m = by_columns.map_or(m, |(_, m)| m);
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
        // The cache block `g` of row tiles: `first .. last`, built at `at`.
        let group = |ctx: &mut Context, at: InsertPoint, kind: LoopKind| {
            let zero = index_const(ctx, at, 0, loc);
            let one = index_const(ctx, at, 1, loc);
            let (g_loop, body, g) = build_for(ctx, at, (zero, groups, one), kind, loc);
            let inside = before_terminator(ctx, body);
            let first = index_binary(ctx, inside, "arith.muli", g, block, loc);
            let past = index_binary(ctx, inside, "arith.addi", first, block, loc);
            let last = index_binary(ctx, inside, "arith.minsi", past, tiles, loc);
            (g_loop.0, inside, (first, last))
        };
        // The row tile `b` of the block starts at `i0 = lb + b * R`; it is whole when exact or
        // when `i0 + R <= ub`.
        let row_tile =
            |ctx: &mut Context, at: InsertPoint, (first, last): (Value, Value), with_else: bool| {
                let r = index_const(ctx, at, rows, loc);
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
        // The column block `jb` for the row tiles `first .. last`, its local buffers allocated
        // before `outer`. With `clamp`, the block may pass the last column: it packs and
        // writes back only the columns before `clamp`.
        let column_block = |ctx: &mut Context,
                            (outer, jb_at): (Op, InsertPoint),
                            (jb, clamp): (Value, Option<Value>),
                            span: (Value, Value)| {
            let Some(kc_trips) = k_block else {
                let (tile_at, i0, _, _) = row_tile(ctx, jb_at, span, false);
                self.tile_body(ctx, nest, tile_at, i0, jb, None);
                return;
            };
            // Blocks of the `k` range, each shared by the row tiles of the cache block; the
            // tiles' partial sums wait in `partial[b - first]` between blocks. Three loops over
            // the row tiles (init; per block; write-back) rather than branches on the first and
            // last block, which LLVM would unswitch into four copies.
            let partial_ty = buffer_type(ctx, &[m, rows, cols], nest.elem, MemorySpace::Local);
            let partial = build_alloc(ctx, InsertPoint::Before(outer), partial_ty, &[], loc);
            let tiles = |ctx: &mut Context, at: InsertPoint, stage: Stage| {
                let (tile_at, i0, b, _) = row_tile(ctx, at, span, false);
                let slot = index_binary(ctx, tile_at, "arith.subi", b, span.0, loc);
                self.tile_body(ctx, nest, tile_at, i0, jb, Some((stage, partial, slot)));
            };
            tiles(ctx, jb_at, Stage::Init);
            let kc_step = index_const(ctx, jb_at, kc_trips * nest.k_step, loc);
            let bounds = (nest.k.lb, nest.k.ub, kc_step);
            let (_, kc_body, kc) = build_for(ctx, jb_at, bounds, LoopKind::Serial, loc);
            let kc_at = before_terminator(ctx, kc_body);
            let past = index_binary(ctx, kc_at, "arith.addi", kc, kc_step, loc);
            let kend = index_binary(ctx, kc_at, "arith.minsi", past, nest.k.ub, loc);
            let packs = match nest.dot {
                Some(d) => {
                    let columns = (jb, clamp);
                    let at = (outer, kc_at);
                    Some(self.pack_groups(ctx, nest, d, at, (kc, kend), columns, kc_trips))
                }
                None if m > 1 || nest.gathers() => {
                    let columns = (jb, clamp);
                    self.pack(ctx, nest, (outer, kc_at), (kc, kend), columns, kc_trips)
                }
                None => None,
            };
            tiles(ctx, kc_at, Stage::Block { kc, kend, packs });
            tiles(ctx, jb_at, Stage::WriteBack { clamp });
        };
        let covered = const_trip_count(ctx, &nest.j).is_some_and(|t| t % cols == 0)
            && const_int(ctx, nest.j.lb).is_some();
        let (inside, span, end) = match by_columns {
            Some((blocks, _)) => {
                // Parallel over the column blocks, the last one clamped, each running every
                // cache block of whole row tiles; then, parallel over the cache blocks, the
                // rows left.
                let zero = index_const(ctx, at, 0, loc);
                let one = index_const(ctx, at, 1, loc);
                let count = index_const(ctx, at, blocks, loc);
                let bounds = (zero, count, one);
                let (_, body, jbi) = build_for(ctx, at, bounds, LoopKind::Parallel, loc);
                let body_at = before_terminator(ctx, body);
                let step = index_const(ctx, body_at, cols, loc);
                let offset = index_binary(ctx, body_at, "arith.muli", jbi, step, loc);
                let jb = index_binary(ctx, body_at, "arith.addi", nest.j.lb, offset, loc);
                let (g_loop, g_at, span) = group(ctx, body_at, LoopKind::Serial);
                // Gathered columns clamp the last block; contiguous ones share out only the
                // whole blocks, and the row tiles run the columns after them afterwards.
                let clamped = nest.gathers();
                let clamp = (clamped && !covered).then_some(nest.j.ub);
                column_block(ctx, (g_loop, g_at), (jb, clamp), span);
                let rest_columns = !clamped && !covered;
                if !exact || rest_columns {
                    let end = whole_groups_end(ctx, hoist, &nest.j, 1, cols, loc);
                    let (_, inside, span) = group(ctx, at, LoopKind::Parallel);
                    let (tile_at, i0, _, else_at) = row_tile(ctx, inside, span, true);
                    if rest_columns {
                        self.column_remainder(ctx, nest, tile_at, i0, end);
                    }
                    if let Some(else_at) = else_at {
                        self.last_rows(ctx, nest, else_at, i0, (end, !covered));
                    }
                }
                ctx.erase_op(nest.i_loop);
                return Rewritten {
                    row_remainder: !exact,
                    column_blocks: true,
                };
            }
            None => {
                // The whole column blocks outside, the row tiles of the block inside: each
                // block of `B` columns is reused from the cache by all `m` row tiles.
                let (_, inside, span) = group(ctx, at, LoopKind::Parallel);
                let end = whole_groups_end(ctx, inside, &nest.j, 1, cols, loc);
                let step = index_const(ctx, inside, cols, loc);
                let bounds = (nest.j.lb, end, step);
                let (jb_loop, jb_body, jb) = build_for(ctx, inside, bounds, LoopKind::Serial, loc);
                let jb_at = before_terminator(ctx, jb_body);
                column_block(ctx, (jb_loop.0, jb_at), (jb, None), span);
                (inside, span, end)
            }
        };
        // Per row tile: the columns after the whole blocks, or the last rows.
        if !exact || !covered {
            let (tile_at, i0, _, else_at) = row_tile(ctx, inside, span, true);
            if !covered {
                self.column_remainder(ctx, nest, tile_at, i0, end);
            }
            if let Some(else_at) = else_at {
                self.last_rows(ctx, nest, else_at, i0, (end, !covered));
            }
        }
        ctx.erase_op(nest.i_loop);
        Rewritten {
            row_remainder: !exact,
            column_blocks: false,
        }
    }

    /// The rows from `i0` on, which do not fill a tile, built at `at`: each a one-row tile
    /// over the whole column blocks before `end`, then the columns after them when
    /// `remainder` (the scalar loop would cost as much as all the tiles when `K` and `N` are
    /// large).
    fn last_rows(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        at: InsertPoint,
        i0: Value,
        (end, remainder): (Value, bool),
    ) {
        let loc = ctx.op_loc(nest.i_loop);
        let one_row = Tile {
            rows: 1,
            width: Some(nest.width),
            row_blocks: Some(1),
            k_block: None,
            ..*self
        };
        let step = index_const(ctx, at, 1, loc);
        let (_, rest, ii) = build_for(ctx, at, (i0, nest.i.ub, step), LoopKind::Serial, loc);
        let rest_at = before_terminator(ctx, rest);
        let step = index_const(ctx, rest_at, self.vectors * nest.width, loc);
        let (_, jb_body, jb) =
            build_for(ctx, rest_at, (nest.j.lb, end, step), LoopKind::Serial, loc);
        let jb_at = before_terminator(ctx, jb_body);
        one_row.tile_body(ctx, nest, jb_at, ii, jb, None);
        if remainder {
            one_row.column_remainder(ctx, nest, rest_at, ii, end);
        }
    }

    /// The tile of rows `i0 .. i0 + R` and columns `jb .. jb + V*W`, built at `at`: init, the
    /// reduction, the write-back; with `staged`, only one stage of a blocked reduction, on the
    /// partial sums `partial[slot]`.
    pub(super) fn tile_body(
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
            self.write_back(ctx, nest, at, tile, i0, (jb, None));
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
                match (nest.dot, packs) {
                    (Some(d), Some(packs)) => {
                        self.dot_steps(ctx, nest, d, (at, tile, i0), (kc, kend), &packs);
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
            Stage::WriteBack { clamp } => {
                self.copy_tile(ctx, nest, at, (partial, slot), tile, true);
                self.write_back(ctx, nest, at, tile, i0, (jb, clamp));
            }
        }
    }

    /// An emitter of the block unrolled over the tile `tile` of rows `i0 ..` and columns
    /// `jb ..`, its splat buffers allocated before the tile.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn emitter<'n>(
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
        Emitter {
            cfg: self,
            nest,
            tile_buf: tile,
            rows,
            jb,
            loc,
            packs,
            k: None,
        }
    }

    /// Packs the block `kc .. kend` of each load of `B` the block body makes (contiguous in
    /// `j` or gathered, independent of the row) into a `[Kc, V*W]` buffer allocated before
    /// `jb_loop`, by a loop built at `at`, gathered columns only before `clamp` when given
    /// (the caller's: no contiguous load then); `None` when nothing is packable or the buffers
    /// would pass 256 KiB.
    /// Rows of `B` a power of two apart all fall in a few cache sets, so the row tiles would
    /// read the block from L2 or beyond at every step; packed, they stream it from L1.
    pub(super) fn pack(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        (jb_loop, at): (Op, InsertPoint),
        (kc, kend): (Value, Value),
        (jb, clamp): (Value, Option<Value>),
        kc_trips: i64,
    ) -> Option<Packs> {
        let loc = ctx.op_loc(nest.j_loop);
        let cols = self.vectors * nest.width;
        let elem_bytes = elem_bytes(ctx, nest.elem);
        let loads: Vec<(Op, Vec<Op>)> = ctx
            .block_ops(nest.body)
            .filter(|op| matches!(nest.plan.get(op), Some(Class::VLoad | Class::Gather)))
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
            if nest.plan.get(&load) == Some(&Class::Gather) {
                let to = (buffer, Some(t));
                nest.gather_columns(ctx, body_at, load, (k, jb, clamp), cols, to, loc);
                buffers.insert(load, buffer);
                continue;
            }
            for v in 0..self.vectors {
                let off = index_const(ctx, body_at, v * nest.width, loc);
                let col = index_binary(ctx, body_at, "arith.addi", jb, off, loc);
                let mut map = nest.bind(ctx, k, Some(col), None);
                clone_ops(ctx, &slice, &mut map, body_at);
                let operands = mapped_operands(ctx, load, &map);
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

    /// Packs the block `kc .. kend` of `B` (the load `d.b`) for `loop.dot4` or `loop.dot2`
    /// (groups of `G` = `d.group()` steps) into a `[⌈Kc/G⌉, G*V*W]` buffer allocated before
    /// `jb_loop`, by a loop built at `at`: row `q` holds `k = kc + Gq .. kc + Gq + G - 1`
    /// interleaved, `B[k, jb + c]` at `Gc + (k - kc) % G`, so each 32-bit lane of a vector of
    /// it holds one column's group: its bytes for `loop.dot4`, for `loop.dot2` its two bytes
    /// widened to `i16` (by `B`'s own extension, once here rather than at every row of every
    /// tile). The column loop is scalar with `G` loads of consecutive elements per column;
    /// LLVM's loop vectorizer turns it into vector loads and shuffles. When `G` does not divide
    /// the `k` range, the block that ends it packs its last `K % G` steps as a group whose
    /// other steps are zeros (a `loop.if` on `kend`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pack_groups(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        d: Dot,
        (jb_loop, at): (Op, InsertPoint),
        (kc, kend): (Value, Value),
        (jb, clamp): (Value, Option<Value>),
        kc_trips: i64,
    ) -> Packs {
        let loc = ctx.op_loc(nest.j_loop);
        let cols = self.vectors * nest.width;
        let g = d.group();
        let rows = (kc_trips + g - 1) / g;
        let ty = buffer_type(ctx, &[rows, g * cols], d.packed_type(), MemorySpace::Local);
        let buffer = build_alloc(ctx, InsertPoint::Before(jb_loop), ty, &[], loc);
        nest.for_each_group(ctx, at, (kc, kend), g, |ctx, at, k, steps| {
            self.pack_group_row(ctx, nest, d, at, (k, kc, steps), (jb, clamp), buffer);
        });
        let mut buffers = FxHashMap::default();
        buffers.insert(d.b, buffer);
        Packs { kc, buffers }
    }

    /// The row of [`Tile::pack_groups`]'s `buffer` for the group at `k`, built at `at`: its
    /// first `steps` steps from `B`, zeros after them; zeros for the columns past `clamp`.
    #[allow(clippy::too_many_arguments)]
    fn pack_group_row(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        d: Dot,
        at: InsertPoint,
        (k, kc, steps): (Value, Value, i64),
        (jb, clamp): (Value, Option<Value>),
        buffer: Value,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let cols = self.vectors * nest.width;
        let g = d.group();
        let elem = d.packed_type();
        let slice = nest.index_slice(ctx, d.b).unwrap_or_default();
        let width = columns_before(ctx, at, cols, jb, clamp, loc);
        let group = index_const(ctx, at, g, loc);
        let t = nest.pack_row(ctx, at, k, kc, loc);
        let q = index_binary(ctx, at, "arith.divsi", t, group, loc);
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let (c_loop, c_body, c) = build_for(ctx, at, (zero, width, one), LoopKind::Serial, loc);
        let c_at = before_terminator(ctx, c_body);
        let outer = InsertPoint::Before(c_loop.0);
        let col = index_binary(ctx, c_at, "arith.addi", jb, c, loc);
        let base = index_binary(ctx, c_at, "arith.muli", c, group, loc);
        for step in 0..g {
            let offset = index_const(ctx, outer, step, loc);
            let value = if step < steps {
                let kk = index_binary(ctx, outer, "arith.addi", k, offset, loc);
                let map = nest.clone_per_column(ctx, &slice, (kk, col), (outer, c_at));
                let byte = load_mapped(ctx, c_at, d.b, &map, loc);
                match d.kind {
                    ByteDot::Two => widen(ctx, c_at, byte, elem, d.signed_b, loc),
                    _ => byte,
                }
            } else {
                zero_value(ctx, c_at, elem, loc)
            };
            let at_lane = index_binary(ctx, c_at, "arith.addi", base, offset, loc);
            build_store(ctx, c_at, value, buffer, &[q, at_lane], loc);
        }
        if clamp.is_some() {
            // The columns past the last one: zeros, which the tile's lanes there add up but
            // never write back.
            let all = index_const(ctx, at, g * cols, loc);
            let from = index_binary(ctx, at, "arith.muli", width, group, loc);
            let (_, z_body, z) = build_for(ctx, at, (from, all, one), LoopKind::Serial, loc);
            let z_at = before_terminator(ctx, z_body);
            let value = zero_value(ctx, z_at, elem, loc);
            build_store(ctx, z_at, value, buffer, &[q, z], loc);
        }
    }

    /// The reduction of one tile over `kc .. kend` with `loop.dot4` or `loop.dot2`, a group of
    /// `G` `k` steps at a time ([`Tile::dot_step`]); when `G` does not divide the `k` range,
    /// the block that ends it takes its last `K % G` steps as one more group (a `loop.if` on
    /// `kend`), whose missing steps `B`'s packed row holds as zeros.
    pub(super) fn dot_steps(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        d: Dot,
        (at, tile, i0): (InsertPoint, Value, Value),
        (kc, kend): (Value, Value),
        packs: &Packs,
    ) {
        nest.for_each_group(ctx, at, (kc, kend), d.group(), |ctx, at, k, steps| {
            self.dot_step(ctx, nest, d, (at, tile, i0), (k, kc, steps), packs);
        });
    }

    /// One group of the tile's reduction at `k`, built at `at`: per row the `G` bytes
    /// `A[row, k .. k + G]` (the first `steps` of them and zeros when `steps < G`, through a
    /// local buffer, so no byte past the row is read; widened to `i16` for `loop.dot2`: a
    /// group that the op takes for every lane), per vector a row of the packed `B`, then one
    /// op per accumulator of the tile.
    fn dot_step(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        d: Dot,
        (at, tile, i0): (InsertPoint, Value, Value),
        (k, kc, steps): (Value, Value, i64),
        packs: &Packs,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let lanes = nest.width;
        let g = d.group();
        let elem = d.packed_type();
        let packed_ty = ctx.vector_type(&[g * lanes], elem);
        let bytes_ty = ctx.vector_type(&[g], Type::I8);
        let group_ty = ctx.vector_type(&[g], elem);
        let acc_ty = ctx.vector_type(&[lanes], Type::I32);
        let group = index_const(ctx, at, g, loc);
        let t = nest.pack_row(ctx, at, k, kc, loc);
        let q = index_binary(ctx, at, "arith.divsi", t, group, loc);
        let vload = |ctx: &mut Context, operands: &[Value], ty: Type| {
            let spec = OpSpec::new(ctx, "loop.vload", loc)
                .operands(operands)
                .results(&[ty]);
            let op = ctx.build(at, spec);
            ctx.result(op, 0)
        };
        let vstore = |ctx: &mut Context, operands: &[Value]| {
            let spec = OpSpec::new(ctx, "loop.vstore", loc).operands(operands);
            ctx.build(at, spec);
        };
        let part = (steps < g).then(|| {
            let ty = buffer_type(ctx, &[g], Type::I8, MemorySpace::Local);
            build_alloc(ctx, at, ty, &[], loc)
        });
        let mut a_rows = Vec::with_capacity(self.rows as usize);
        for r in 0..self.rows {
            let off = index_const(ctx, at, r, loc);
            let row = index_binary(ctx, at, "arith.addi", i0, off, loc);
            let mut a = match part {
                None => {
                    let map = nest.bind(ctx, k, None, Some(row));
                    vload(ctx, &mapped_operands(ctx, d.a, &map), bytes_ty)
                }
                Some(part) => {
                    for step in 0..g {
                        let at_step = index_const(ctx, at, step, loc);
                        let byte = if step < steps {
                            let kk = index_binary(ctx, at, "arith.addi", k, at_step, loc);
                            let map = nest.bind(ctx, kk, None, Some(row));
                            load_mapped(ctx, at, d.a, &map, loc)
                        } else {
                            zero_value(ctx, at, Type::I8, loc)
                        };
                        build_store(ctx, at, byte, part, &[at_step], loc);
                    }
                    let zero = index_const(ctx, at, 0, loc);
                    vload(ctx, &[part, zero], bytes_ty)
                }
            };
            if d.kind == ByteDot::Two {
                a = widen(ctx, at, a, group_ty, d.signed_a, loc);
            }
            a_rows.push(a);
        }
        // `loop.dot4`'s first byte operand is the unsigned one; `loop.dot2`'s are both signed,
        // widened already.
        let swap = d.kind == ByteDot::Four && d.signed_a;
        let packed = packs.buffers[&d.b];
        let b_vectors: Vec<Value> = (0..self.vectors)
            .map(|v| {
                let col = index_const(ctx, at, g * v * lanes, loc);
                vload(ctx, &[packed, q, col], packed_ty)
            })
            .collect();
        for (r, &a) in a_rows.iter().enumerate() {
            let row = index_const(ctx, at, r as i64, loc);
            for (v, &b) in b_vectors.iter().enumerate() {
                let col = index_const(ctx, at, v as i64 * lanes, loc);
                let acc = vload(ctx, &[tile, row, col], acc_ty);
                let (first, second) = if swap { (b, a) } else { (a, b) };
                let spec = OpSpec::new(ctx, d.op_name(), loc)
                    .operands(&[acc, first, second])
                    .results(&[acc_ty]);
                let dot = ctx.build(at, spec);
                let sum = ctx.result(dot, 0);
                vstore(ctx, &[sum, tile, row, col]);
            }
        }
    }

    /// Copies the register tile from (`load`) or to the partial sums `partial[slot]`, one
    /// vector per row and vector, at constant tile indices (so the tile stays in registers).
    pub(super) fn copy_tile(
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
    pub(super) fn column_remainder(
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
    /// load the element into a fresh accumulator and run the original epilogue on it; only
    /// over the columns before `clamp` when given.
    pub(super) fn write_back(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        at: InsertPoint,
        tile: Value,
        i0: Value,
        (jb, clamp): (Value, Option<Value>),
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let mut map = ValueMap::new();
        let acc = ctx.clone_op(nest.acc_alloc, &mut map);
        ctx.insert_op(at, acc);
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let rows = index_const(ctx, at, self.rows, loc);
        let cols = columns_before(ctx, at, self.vectors * nest.width, jb, clamp, loc);
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

/// How many of the `n` columns from `first` on lie before `clamp`, built at `at`: `min(n,
/// clamp - first)`, or `n` without a clamp.
fn columns_before(
    ctx: &mut Context,
    at: InsertPoint,
    n: i64,
    first: Value,
    clamp: Option<Value>,
    loc: Location,
) -> Value {
    let all = index_const(ctx, at, n, loc);
    match clamp {
        Some(ub) => {
            let left = index_binary(ctx, at, "arith.subi", ub, first, loc);
            index_binary(ctx, at, "arith.minsi", all, left, loc)
        }
        None => all,
    }
}

/// The zero of the integer or float type `ty`, an `arith.constant` built at `at`.
fn zero_value(ctx: &mut Context, at: InsertPoint, ty: Type, loc: Location) -> Value {
    let zero = match ctx.type_kind(ty) {
        TypeKind::Float(_) => DenseValue::Float(0.0),
        _ => DenseValue::Int(0),
    };
    let attr = dlc_arith::splat_attr(ctx, ty, zero).expect("a numeric element type");
    let op = dlc_arith::build_constant(ctx, at, attr, ty, loc);
    ctx.result(op, 0)
}

/// The operands of `op` through `map` (the values a clone of its operands' computation gave).
fn mapped_operands(ctx: &Context, op: Op, map: &ValueMap) -> Vec<Value> {
    ctx.operands(op).iter().map(|&x| map.lookup(x)).collect()
}

/// A copy at `at` of the scalar load `load`, its buffer and indices through `map`.
fn load_mapped(
    ctx: &mut Context,
    at: InsertPoint,
    load: Op,
    map: &ValueMap,
    loc: Location,
) -> Value {
    let operands = mapped_operands(ctx, load, map);
    let (&buffer, indices) = operands.split_first().expect("a load has a buffer");
    build_load(ctx, at, buffer, indices, loc)
}

/// `value` (integers, or a vector of them) extended to `to`, sign-extended when `signed`, by
/// an op built at `at`.
fn widen(
    ctx: &mut Context,
    at: InsertPoint,
    value: Value,
    to: Type,
    signed: bool,
    loc: Location,
) -> Value {
    let op = if signed {
        build_cast::<ExtSIOp>(ctx, at, value, to, loc)
    } else {
        build_cast::<ExtUIOp>(ctx, at, value, to, loc)
    };
    ctx.result(op, 0)
}

/// Before the outermost loop around `op` (or `op` itself) outside which all of `values` are
/// defined, so that a parallel nest around `op` keeps a body of one loop.
pub(super) fn hoist_point(ctx: &Context, op: Op, values: &[Value]) -> InsertPoint {
    let mut cur = op;
    while let Some(p) = ctx.parent_op(cur) {
        if ctx.view::<ForOp>(p).is_none() || values.iter().any(|&v| defined_inside(ctx, p, v)) {
            break;
        }
        cur = p;
    }
    InsertPoint::Before(cur)
}

/// What [`Tile::rewrite`] built besides the tiles, for the pass's statistics.
pub(super) struct Rewritten {
    /// A path for the last rows, which do not fill a tile.
    pub(super) row_remainder: bool,
    /// Threads share out column blocks ([`Tile::column_blocks`]).
    pub(super) column_blocks: bool,
}

/// What one tile emission does when the reduction is blocked ([`Tile::k_block`]).
pub(super) enum Stage {
    /// The init, into the partial sums.
    Init,
    /// The `k` block `kc .. kend`, from and back to the partial sums, reading `B` from
    /// `packs` where it was packed.
    Block {
        kc: Value,
        kend: Value,
        packs: Option<Packs>,
    },
    /// The epilogue, from the partial sums, for the columns before `clamp` when given.
    WriteBack { clamp: Option<Value> },
}

/// The packed copies of the block of `B` the row tiles of a cache block share: for each load
/// contiguous in `j` that does not depend on the row, a `[Kc, V*W]` local buffer holding what
/// it loads for `k = kc + t * step` at row `t`.
pub(super) struct Packs {
    pub(super) kc: Value,
    pub(super) buffers: FxHashMap<Op, Value>,
}

/// Emits the schedule block's init or body unrolled over the tile.
pub(super) struct Emitter<'n> {
    pub(super) cfg: &'n Tile,
    pub(super) nest: &'n Nest,
    /// The local tile buffer.
    pub(super) tile_buf: Value,
    /// The row index of each tile row.
    pub(super) rows: Vec<Value>,
    /// The first column of the tile.
    pub(super) jb: Value,
    pub(super) loc: Location,
    /// Packed blocks of `B`, read instead of the loads they copy.
    pub(super) packs: Option<Packs>,
    /// The reduce iter var's value in the block being emitted.
    pub(super) k: Option<Value>,
}

/// The values of one row (scalars) and one vector (vectors, column indices).
pub(super) struct Maps {
    pub(super) scalar: ValueMap,
    pub(super) vector: FxHashMap<Value, Value>,
    /// Splats of scalars, shared by the vectors of a row.
    pub(super) splats: FxHashMap<Value, Value>,
}

impl Maps {
    pub(super) fn get(&self, v: Value) -> Value {
        self.vector
            .get(&v)
            .copied()
            .unwrap_or_else(|| self.scalar.lookup(v))
    }
}

impl Emitter<'_> {
    /// Emits `block` (init or body) at `at` for every row and vector, with the reduce iter var
    /// bound to `k`.
    pub(super) fn block(&mut self, ctx: &mut Context, block: Block, k: Value, at: InsertPoint) {
        let nest = self.nest;
        self.k = Some(k);
        let width = self.nest.width;
        let ops: Vec<Op> = ctx.block_ops(block).collect();
        let args = ctx.block_args(block).to_vec();
        // A load that does not depend on the row reads the same vector for every row: the
        // first row's load serves the others. Loaded again by each row, it cost every later
        // pass and the quick tier's instruction selection four loads where one does (LLVM's
        // GVN merged them in optimized code only).
        let row_free = self.row_free_loads(ctx, block, &ops);
        let mut shared: FxHashMap<(Op, i64), Value> = FxHashMap::default();
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
                    if row_free.contains(&op) {
                        let result = ctx.result(op, 0);
                        if let Some(&value) = shared.get(&(op, v)) {
                            maps.vector.insert(result, value);
                            continue;
                        }
                        self.op(ctx, op, v, &mut maps, at, [row_index, tile_col]);
                        shared.insert((op, v), maps.get(result));
                        continue;
                    }
                    self.op(ctx, op, v, &mut maps, at, [row_index, tile_col]);
                }
            }
        }
    }

    /// The vector loads (`Class::VLoad`) of `ops`, the ops of `block`, that read the same
    /// vector for every row of the tile: loads of the body whose operands do not depend on the
    /// row ([`Nest::index_slice`], what packing `B` asks too), of a buffer no op of the block
    /// may write (an op with regions, or one whose effects are unknown, may write anything).
    /// The init block's loads are not shared.
    fn row_free_loads(&self, ctx: &Context, block: Block, ops: &[Op]) -> FxHashSet<Op> {
        if block != self.nest.body {
            return FxHashSet::default();
        }
        let mut written = FxHashSet::default();
        for &op in ops {
            match ctx.memory_effects(op) {
                Some(effects) if ctx.regions(op).is_empty() => {
                    for effect in effects.iter().filter(|e| e.kind == EffectKind::Write) {
                        match effect.on {
                            Some(buffer) => {
                                written.insert(buffer);
                            }
                            None => return FxHashSet::default(),
                        }
                    }
                }
                _ => return FxHashSet::default(),
            }
        }
        ops.iter()
            .copied()
            .filter(|op| matches!(self.nest.plan.get(op), Some(Class::VLoad | Class::Gather)))
            .filter(|&op| {
                self.nest.index_slice(ctx, op).is_some()
                    && ctx
                        .operands(op)
                        .first()
                        .is_some_and(|b| !written.contains(b))
            })
            .collect()
    }

    /// Emits one op for row map `maps` and vector `v`; `tile_at` indexes the tile.
    pub(super) fn op(
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
            Class::Skip | Class::GatherIndex => {}
            Class::Gather if !self.packed(op) => {
                // Column by column into a vector's worth of local memory, then one vector.
                let k = self.k.expect("a gather is in the block body");
                let elem = ctx.value_type(ctx.result(op, 0));
                let width = self.nest.width;
                let ty = buffer_type(ctx, &[width], elem, MemorySpace::Local);
                let lanes = build_alloc(ctx, at, ty, &[], loc);
                let off = index_const(ctx, at, v * width, loc);
                let col0 = index_binary(ctx, at, "arith.addi", self.jb, off, loc);
                let to = (lanes, None);
                self.nest
                    .gather_columns(ctx, at, op, (k, col0, None), width, to, loc);
                let zero = index_const(ctx, at, 0, loc);
                let value = self.vload(ctx, op, &[lanes, zero], at);
                maps.vector.insert(ctx.result(op, 0), value);
            }
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
            Class::VLoad | Class::Gather => {
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

    /// Whether load `op` reads a packed copy.
    fn packed(&self, op: Op) -> bool {
        self.packs
            .as_ref()
            .is_some_and(|p| p.buffers.contains_key(&op))
    }

    pub(super) fn vector_type(&self, ctx: &mut Context, elem: Type) -> Type {
        ctx.vector_type(&[self.nest.width], elem)
    }

    /// A `loop.vload` of the element type of load `op`, from `operands` (buffer, indices).
    pub(super) fn vload(
        &self,
        ctx: &mut Context,
        op: Op,
        operands: &[Value],
        at: InsertPoint,
    ) -> Value {
        let ty = self.vector_type(ctx, ctx.value_type(ctx.result(op, 0)));
        let spec = OpSpec::new(ctx, "loop.vload", ctx.op_loc(op))
            .operands(operands)
            .results(&[ty]);
        let new = ctx.build(at, spec);
        ctx.result(new, 0)
    }

    /// The vector of original value `v`: its vector form, or a splat of its scalar clone.
    pub(super) fn vector_of(
        &self,
        ctx: &mut Context,
        v: Value,
        maps: &mut Maps,
        at: InsertPoint,
    ) -> Value {
        if let Some(&vec) = maps.vector.get(&v).or_else(|| maps.splats.get(&v)) {
            return vec;
        }
        let scalar = maps.scalar.lookup(v);
        let elem = ctx.value_type(scalar);
        let ty = self.vector_type(ctx, elem);
        let splat = splat(ctx, scalar, ty, at, self.loc);
        maps.splats.insert(v, splat);
        splat
    }
}
