//! Structural equivalence of ops, regions included: MLIR's `OperationEquivalence` with
//! `IgnoreLocations`, for whole ops such as functions and kernels.
//!
//! Two ops are equivalent when they have the same name, attributes (by interned id, so equal
//! dictionaries compare equal), result types, successors and regions, and their operands
//! correspond: a value defined inside one op (a block argument or a result of a nested op)
//! corresponds to the value defined at the same place inside the other; a value defined outside
//! both corresponds only to itself. Locations and value names are not part of it. The attributes
//! named in `ignored` are left out at the top op only (a symbol's `sym_name`, say), never in
//! the ops nested in it. [`structural_hash`] agrees with [`equivalent`]: equivalent ops hash
//! alike, so a hash map of hashes finds the candidates and [`equivalent`] confirms them.

use crate::{Block, Context, Ident, Op, Value};
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};

/// A hash of `op` that every op [`equivalent`] to it shares; the attributes named in `ignored`
/// are left out of `op`'s own (not of the ops nested in it).
pub fn structural_hash(ctx: &Context, op: Op, ignored: &[Ident]) -> u64 {
    let mut hasher = StructuralHasher {
        ctx,
        numbers: FxHashMap::default(),
        blocks: FxHashMap::default(),
        state: FxHasher::default(),
    };
    hasher.op(op, ignored);
    hasher.state.finish()
}

/// Whether `a` and `b` are the same op up to locations and the identity of the values and
/// blocks they define; the attributes named in `ignored` are left out of `a`'s and `b`'s own.
pub fn equivalent(ctx: &Context, a: Op, b: Op, ignored: &[Ident]) -> bool {
    let mut matcher = Matcher {
        ctx,
        values: FxHashMap::default(),
        blocks: FxHashMap::default(),
    };
    matcher.ops(a, b, ignored)
}

/// The attributes of `op` without those named in `ignored`.
fn kept_attrs<'c>(
    ctx: &'c Context,
    op: Op,
    ignored: &'c [Ident],
) -> impl Iterator<Item = &'c crate::NamedAttr> + 'c {
    ctx.attrs(op).iter().filter(|a| !ignored.contains(&a.name))
}

/// Hashes an op in walk order, numbering the values and blocks it defines as they appear.
struct StructuralHasher<'c> {
    ctx: &'c Context,
    numbers: FxHashMap<Value, u32>,
    blocks: FxHashMap<Block, u32>,
    state: FxHasher,
}

impl StructuralHasher<'_> {
    fn op(&mut self, op: Op, ignored: &[Ident]) {
        let ctx = self.ctx;
        ctx.op_name_id(op).hash(&mut self.state);
        for a in kept_attrs(ctx, op, ignored) {
            a.hash(&mut self.state);
        }
        for &v in ctx.operands(op) {
            match self.numbers.get(&v) {
                Some(n) => (0u8, *n).hash(&mut self.state),
                None => (1u8, v).hash(&mut self.state),
            }
        }
        for &s in ctx.successors(op) {
            self.blocks.get(&s).hash(&mut self.state);
        }
        for v in ctx.results(op) {
            ctx.value_type(v).hash(&mut self.state);
            self.number(v);
        }
        ctx.regions(op).len().hash(&mut self.state);
        for &region in ctx.regions(op) {
            let blocks = ctx.blocks(region);
            blocks.len().hash(&mut self.state);
            for &block in blocks {
                let n = self.blocks.len() as u32;
                self.blocks.insert(block, n);
            }
            for &block in blocks {
                ctx.block_args(block).len().hash(&mut self.state);
                for &arg in ctx.block_args(block) {
                    ctx.value_type(arg).hash(&mut self.state);
                    self.number(arg);
                }
                for inner in ctx.block_ops(block) {
                    self.op(inner, &[]);
                }
                // Separates the ops of consecutive blocks.
                u8::MAX.hash(&mut self.state);
            }
        }
    }

    fn number(&mut self, v: Value) {
        let n = self.numbers.len() as u32;
        self.numbers.insert(v, n);
    }
}

/// Walks two ops in lockstep, mapping what `a` defines to what `b` defines.
struct Matcher<'c> {
    ctx: &'c Context,
    values: FxHashMap<Value, Value>,
    blocks: FxHashMap<Block, Block>,
}

impl Matcher<'_> {
    fn ops(&mut self, a: Op, b: Op, ignored: &[Ident]) -> bool {
        let ctx = self.ctx;
        if ctx.op_name_id(a) != ctx.op_name_id(b)
            || !kept_attrs(ctx, a, ignored).eq(kept_attrs(ctx, b, ignored))
            || ctx.operands(a).len() != ctx.operands(b).len()
            || ctx.num_results(a) != ctx.num_results(b)
            || ctx.successors(a).len() != ctx.successors(b).len()
            || ctx.regions(a).len() != ctx.regions(b).len()
        {
            return false;
        }
        let operands_match = ctx
            .operands(a)
            .iter()
            .zip(ctx.operands(b))
            .all(|(x, y)| self.values.get(x).map_or(x == y, |mapped| mapped == y));
        let successors_match = ctx
            .successors(a)
            .iter()
            .zip(ctx.successors(b))
            .all(|(x, y)| self.blocks.get(x) == Some(y));
        if !operands_match || !successors_match {
            return false;
        }
        for (x, y) in ctx.results(a).zip(ctx.results(b)) {
            if ctx.value_type(x) != ctx.value_type(y) {
                return false;
            }
            self.values.insert(x, y);
        }
        for (&ra, &rb) in ctx.regions(a).iter().zip(ctx.regions(b)) {
            let (blocks_a, blocks_b) = (ctx.blocks(ra), ctx.blocks(rb));
            if blocks_a.len() != blocks_b.len() {
                return false;
            }
            self.blocks
                .extend(blocks_a.iter().copied().zip(blocks_b.iter().copied()));
            for (&ba, &bb) in blocks_a.iter().zip(blocks_b) {
                if !self.blocks_match(ba, bb) {
                    return false;
                }
            }
        }
        true
    }

    fn blocks_match(&mut self, a: Block, b: Block) -> bool {
        let ctx = self.ctx;
        let (args_a, args_b) = (ctx.block_args(a), ctx.block_args(b));
        if args_a.len() != args_b.len() {
            return false;
        }
        for (&x, &y) in args_a.iter().zip(args_b) {
            if ctx.value_type(x) != ctx.value_type(y) {
                return false;
            }
            self.values.insert(x, y);
        }
        let (mut ops_a, mut ops_b) = (ctx.block_ops(a), ctx.block_ops(b));
        loop {
            match (ops_a.next(), ops_b.next()) {
                (None, None) => return true,
                (Some(x), Some(y)) if self.ops(x, y, &[]) => {}
                _ => return false,
            }
        }
    }
}
