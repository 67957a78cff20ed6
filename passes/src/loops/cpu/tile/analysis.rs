//! Which nests `tile` rewrites: [`Tile::analyze`] matches a contraction nest ([`Nest`]: the
//! row, column and reduction loops, the accumulator, the schedule block and its epilogue) and
//! classifies every op of the block for emission ([`Class`]); [`Tile::dot_of`] finds the
//! 8-bit products that `loop.dot4` or `loop.dot2` compute a group of reduction steps at a
//! time.

use super::{elem_bytes, Tile, MIN_SHORT_NEST_WORK};
use crate::loops::cpu::target::ByteDot;
use crate::loops::cpu::util::{const_int, const_trip_count, defined_inside, is_scalar_compute};
use dlc_arith::{AddFOp, AddIOp, ExtSIOp, ExtUIOp, MulFOp, MulIOp};
use dlc_ir::{Block, Context, Op, OpView, Traits, Type, TypeKind, Value, ValueMap};
use dlc_loop::analysis::loops::{loop_parts, LoopParts};
use dlc_loop::{
    buffer_parts, AccessKind, AllocOp, ForOp, IterKind, LoadOp, LoopKind, LoopOps, MemorySpace,
    ScheduleBlockOp,
};
use rustc_hash::{FxHashMap, FxHashSet};

impl Nest {
    /// Whether the block gathers a load through indices that depend on `j`
    /// ([`Class::Gather`]).
    pub(super) fn gathers(&self) -> bool {
        self.plan.values().any(|&c| c == Class::Gather)
    }

    /// A map from the block's iter vars to what they are bound to in a copy of the block: the
    /// reduce one to `k`, the column and row ones to `col` and `row` (when given), the fixed
    /// ones to their values.
    pub(super) fn bind(
        &self,
        ctx: &Context,
        k: Value,
        col: Option<Value>,
        row: Option<Value>,
    ) -> ValueMap {
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
    pub(super) fn index_slice(&self, ctx: &Context, load: Op) -> Option<Vec<Op>> {
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
            if !matches!(
                self.plan.get(&def),
                Some(Class::Scalar | Class::ColIndex | Class::GatherIndex)
            ) {
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
}

/// A matched reduction nest.
#[derive(Clone)]
pub(super) struct Nest {
    pub(super) i_loop: Op,
    pub(super) i: LoopParts,
    pub(super) j_loop: Op,
    pub(super) j: LoopParts,
    pub(super) k: LoopParts,
    /// The rank-0 accumulator and the op that allocates it.
    pub(super) acc: Value,
    pub(super) acc_alloc: Op,
    /// What each iter var of the schedule block stands for, in order.
    pub(super) roles: Vec<Role>,
    /// The init and body blocks of the schedule block.
    pub(super) init: Block,
    pub(super) body: Block,
    /// How each op of `init` and `body` is emitted.
    pub(super) plan: FxHashMap<Op, Class>,
    /// The `j` body's other allocs, then its ops after the `k` loop (without the terminator).
    pub(super) epilogue: Vec<Op>,
    /// The accumulator's element type.
    pub(super) elem: Type,
    /// Lanes per vector (W).
    pub(super) width: i64,
    /// The `k` loop's constant step.
    pub(super) k_step: i64,
    /// The 8-bit product `loop.dot4` or `loop.dot2` computes, when one applies.
    pub(super) dot: Option<Dot>,
}

/// The loads of an 8-bit integer product `acc += extui(A[.., k]) · extsi(B[k, j])` (or
/// `extsi(A) · extui(B)`; for `loop.dot2` either extension of either) into an `i32`
/// accumulator: `loop.dot4` takes four `k` steps at
/// once, four bytes of a row of `A` broadcast to every lane and `B` packed so that each lane's
/// four bytes are consecutive; `loop.dot2` takes two, `A`'s two bytes and `B`'s packed
/// elements widened to `i16` (each by its own extension).
#[derive(Copy, Clone)]
pub(super) struct Dot {
    pub(super) a: Op,
    pub(super) b: Op,
    /// `A` is sign-extended (for `loop.dot4` the signed operand, as in an im2col convolution's
    /// `i8` weights times `ui8` columns: the vector of `B` is then its unsigned operand).
    pub(super) signed_a: bool,
    /// `B` is sign-extended (for `loop.dot4`, exactly when `A` is not).
    pub(super) signed_b: bool,
    /// [`ByteDot::Four`] (`loop.dot4`) or [`ByteDot::Two`] (`loop.dot2`).
    pub(super) kind: ByteDot,
}

impl Dot {
    /// The `k` steps one op takes.
    pub(super) fn group(self) -> i64 {
        self.kind.group()
    }

    /// The element type of `B`'s packed block and of `A`'s group: bytes for `loop.dot4`,
    /// `i16` for `loop.dot2`.
    pub(super) fn packed_type(self) -> Type {
        match self.kind {
            ByteDot::Four => Type::I8,
            _ => Type::I16,
        }
    }

    /// The op computing a group: `loop.dot4` or `loop.dot2`.
    pub(super) fn op_name(self) -> &'static str {
        match self.kind {
            ByteDot::Four => "loop.dot4",
            _ => "loop.dot2",
        }
    }
}

/// What an iter var of the schedule block is bound to.
#[derive(Copy, Clone)]
pub(super) enum Role {
    Row,
    Col,
    Reduce,
    Fixed(Value),
}

/// How one op of the schedule block is emitted in the tile.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Class {
    /// Cloned once per row.
    Scalar,
    /// Index arithmetic on `j`: cloned once per vector.
    ColIndex,
    /// A load contiguous in `j`: `loop.vload` per vector.
    VLoad,
    /// Part of the index of a [`Class::Gather`] load that depends on `j` (a load of a
    /// constant window table contiguous in `j`, its cast to `index`): computed per column in
    /// the gather's own copy loop only, never as a vector.
    GatherIndex,
    /// A load whose index depends on `j` through a [`Class::GatherIndex`] value (an im2col
    /// convolution's columns read through their window table): each vector is gathered
    /// column by column into a local buffer, or read from the packed copy of `B`.
    Gather,
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
pub(super) fn body_ops(ctx: &Context, block: Block) -> Vec<Op> {
    ctx.block_ops(block)
        .filter(|&op| !ctx.has_trait(op, Traits::TERMINATOR))
        .collect()
}

/// Whether `ty` is an element type the tile holds in vector registers: a float or an integer
/// (not `index`).
pub(super) fn is_numeric(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::Float(_) | TypeKind::Integer { .. }
    )
}

pub(super) fn is_loop(ctx: &Context, op: Op, kind: LoopKind) -> bool {
    ctx.view::<ForOp>(op)
        .is_some_and(|f| f.loop_kind(ctx) == Some(kind))
}

impl Tile {
    /// The nest rooted at the parallel loop `i_loop`, when it has the shape the pass tiles.
    pub(super) fn analyze(&self, ctx: &Context, i_loop: Op) -> Option<Nest> {
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
        // Fewer rows than a tile: worth the code only for a large product.
        if let Some(rows) = const_trip_count(ctx, &i).filter(|&t| t < self.rows) {
            let work = const_trip_count(ctx, &j).zip(const_trip_count(ctx, &k));
            let small = |(n, kk): (i64, i64)| rows.saturating_mul(n).saturating_mul(kk);
            if work.is_none_or(|w| small(w) < MIN_SHORT_NEST_WORK) {
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
            gather_index: FxHashSet::default(),
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
            dot: None,
        };
        // A gathered load is copied column by column for all the rows of a tile at once.
        let per_row = body_ops(ctx, body).into_iter().any(|op| {
            nest.plan.get(&op) == Some(&Class::Gather) && nest.index_slice(ctx, op).is_none()
        });
        if per_row {
            return None;
        }
        nest.dot = self.dot_of(ctx, &nest);
        Some(nest)
    }

    /// The [`Dot`] of `nest`, when the `dot` option (by default the CPU's: 4 with AVX-512
    /// VNNI, 2 on other x86 CPUs) is not `none`, the accumulator is `i32`, the block body is
    /// exactly `acc += ext(a) · ext(b)` (either order of either op) for an `i8` load `a`
    /// of a row whose last index is `k` (its other indices free of `k`) and an `i8` load `b`
    /// contiguous in `j` or gathered through a table contiguous in `j`, besides index
    /// arithmetic, and the `k` range is a constant from 0 in steps of 1, at least a group (a
    /// last group of fewer steps is padded with zeros). The op is the one
    /// [`ByteDot::for_product`] chooses for the extensions and vector width.
    pub(super) fn dot_of(&self, ctx: &Context, nest: &Nest) -> Option<Dot> {
        let trips = const_trip_count(ctx, &nest.k)?;
        if self.dot == ByteDot::Widen
            || nest.elem != Type::I32
            || nest.k_step != 1
            || const_int(ctx, nest.k.lb) != Some(0)
        {
            return None;
        }
        let ops = body_ops(ctx, nest.body);
        let class = |op: Op| nest.plan.get(&op).copied();
        let count = |c: Class| ops.iter().filter(|&&op| class(op) == Some(c)).count();
        let columns = count(Class::VLoad) + count(Class::Gather);
        if count(Class::AccStore) != 1 || columns != 1 || count(Class::Vector) != 3 {
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
        // Each factor extends a load of bytes: the scalar load is `A`'s, the vector load `B`'s.
        let byte_load = |v: Value| {
            let (ext, signed) = match (def::<ExtUIOp>(ctx, nest, v), def::<ExtSIOp>(ctx, nest, v)) {
                (Some(u), _) => (u, false),
                (_, Some(s)) => (s, true),
                _ => return None,
            };
            let bytes = ctx.operand(ext, 0);
            let load = def::<LoadOp>(ctx, nest, bytes)?;
            (ctx.value_type(bytes) == Type::I8).then_some((load, signed))
        };
        let (x, y) = (byte_load(m0)?, byte_load(m1)?);
        let column = |c: Option<Class>| matches!(c, Some(Class::VLoad | Class::Gather));
        let ((a, signed_a), (b, signed_b)) = match (class(x.0), class(y.0)) {
            (Some(Class::Scalar), c) if column(c) => (x, y),
            (c, Some(Class::Scalar)) if column(c) => (y, x),
            _ => return None,
        };
        let kind = self.dot.for_product(signed_a, signed_b, nest.width);
        // A range shorter than a group leaves the integer tile: the group's vectors would not
        // fit `A`'s row.
        if trips < kind.group() {
            return None;
        }
        // No other load: the block reads `A`, `B` (through its window table when gathered)
        // and the accumulator only.
        let is_load = |op: &Op| ctx.view::<LoadOp>(*op).is_some();
        let b_slice = nest.index_slice(ctx, b)?;
        let loads = ops.iter().filter(|op| is_load(op)).count();
        if loads != 3 + b_slice.iter().filter(|op| is_load(op)).count() {
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
        Some(Dot {
            a,
            b,
            signed_a,
            signed_b,
            kind,
        })
    }
}

/// Classifies the ops of the schedule block.
pub(super) struct Analyzer<'a> {
    pub(super) ctx: &'a Context,
    pub(super) acc: Value,
    pub(super) width: i64,
    pub(super) fma: bool,
    /// Index values that depend on `j` (the lane-0 column plus an offset).
    pub(super) col: FxHashSet<Value>,
    /// Values that become vectors.
    pub(super) vector: FxHashSet<Value>,
    /// `index` values that depend on `j` through a load ([`Class::GatherIndex`]).
    pub(super) gather_index: FxHashSet<Value>,
    pub(super) plan: FxHashMap<Op, Class>,
    /// The buffers the block reads, the accumulator aside.
    pub(super) reads: FxHashSet<Value>,
}

impl Analyzer<'_> {
    pub(super) fn block(&mut self, block: Block) -> Option<()> {
        for op in self.ctx.block_ops(block) {
            let class = self.op(op)?;
            self.plan.insert(op, class);
        }
        // A vector load that only feeds gather indices (a window table) is read column by
        // column where the gather is, not as a vector.
        let ctx = self.ctx;
        for op in ctx.block_ops(block) {
            let only_indices = |op: Op| {
                let uses = ctx.uses(ctx.result(op, 0));
                !uses.is_empty()
                    && uses
                        .iter()
                        .all(|u| self.plan.get(&u.user) == Some(&Class::GatherIndex))
            };
            if self.plan.get(&op) == Some(&Class::VLoad) && only_indices(op) {
                self.plan.insert(op, Class::GatherIndex);
            }
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

    pub(super) fn op(&mut self, op: Op) -> Option<Class> {
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
        let varies = |v: &Value| self.vector.contains(v) || self.gather_index.contains(v);
        if ctx.value_type(r) == Type::INDEX && operands.iter().any(varies) {
            // An index that depends on `j` through a load: a gather's.
            self.gather_index.insert(r);
            return Some(Class::GatherIndex);
        }
        if operands.iter().any(|v| self.gather_index.contains(v)) {
            return None;
        }
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

    /// A `loop.load` of the block: of the accumulator, of a row of `B` along `j`, of `B`
    /// gathered at indices that depend on `j` through a load, or of a value that does not
    /// depend on `j`.
    pub(super) fn load(&mut self, op: Op) -> Option<Class> {
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
        if indices.iter().any(|v| self.gather_index.contains(v)) {
            if indices.iter().any(|v| self.col.contains(v)) {
                return None;
            }
            self.vector.insert(ctx.result(op, 0));
            return Some(Class::Gather);
        }
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
