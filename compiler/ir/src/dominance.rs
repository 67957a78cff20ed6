//! Dominance: which blocks (and so which ops) are guaranteed to run before others.
//!
//! The verifier checks SSA dominance with it, and passes such as CSE use [`DominanceInfo`] as a
//! cached analysis to know whether an earlier op's result is available at a later op.

use crate::ir::{Block, Op, Region};
use crate::pass::Analysis;
use crate::Context;
use rustc_hash::{FxHashMap, FxHashSet};

/// Dominance facts for every region nested in an op, computed up front.
pub struct DominanceInfo {
    regions: FxHashMap<Region, RegionDominators>,
    /// Position of each op in its block (by op index), for same-block queries; ops created
    /// after the analysis have none.
    position: Vec<u32>,
}

impl Analysis for DominanceInfo {
    fn compute(ctx: &Context, op: Op) -> Self {
        let mut regions = FxHashMap::default();
        let mut position = vec![u32::MAX; ctx.ops.len()];
        ctx.for_each_op(op, &mut |o| {
            for &r in ctx.regions(o) {
                if ctx.blocks(r).len() > 1 {
                    regions.insert(r, RegionDominators::compute(ctx, r));
                }
                for &b in ctx.blocks(r) {
                    for (i, inner) in ctx.block_ops(b).enumerate() {
                        position[inner.index()] = i as u32;
                    }
                }
            }
        });
        DominanceInfo { regions, position }
    }
}

impl DominanceInfo {
    /// True if `a` runs before `b` on every path, with both in the same region's blocks or `b`
    /// nested below that region; an op does not properly dominate itself.
    pub fn properly_dominates(&self, ctx: &Context, a: Op, mut b: Op) -> bool {
        let Some(a_block) = ctx.op_block(a) else {
            return false;
        };
        loop {
            let Some(b_block) = ctx.op_block(b) else {
                return false;
            };
            if b_block == a_block {
                let (pa, pb) = (self.position.get(a.index()), self.position.get(b.index()));
                return a != b && pa.is_some_and(|pa| *pa != u32::MAX && Some(pa) < pb);
            }
            let same_region = ctx.block_parent(a_block).is_some()
                && ctx.block_parent(a_block) == ctx.block_parent(b_block);
            if same_region {
                let region = ctx.block_parent(a_block).expect("checked above");
                return self
                    .regions
                    .get(&region)
                    .is_some_and(|d| d.dominates(a_block, b_block));
            }
            match ctx.parent_op(b) {
                Some(p) => b = p,
                None => return false,
            }
        }
    }

    /// The dominator tree of a multi-block region (`None` for single-block regions).
    pub fn region(&self, region: Region) -> Option<&RegionDominators> {
        self.regions.get(&region)
    }
}

/// Immediate dominators of the blocks of one region (Cooper, Harvey and Kennedy's algorithm).
pub struct RegionDominators {
    /// The blocks reachable from the entry, in reverse postorder (the entry first).
    order: Vec<Block>,
    index: FxHashMap<Block, usize>,
    /// Immediate dominator by reverse-postorder index; `usize::MAX` for unreachable blocks.
    idom: Vec<usize>,
}

impl RegionDominators {
    /// Computes the dominator tree of `region`'s blocks.
    pub fn compute(ctx: &Context, region: Region) -> Self {
        let blocks = ctx.blocks(region);
        let succs = |b: Block| {
            ctx.last_op(b)
                .map(|t| ctx.successors(t).to_vec())
                .unwrap_or_default()
        };
        // Reverse postorder from the entry block.
        let mut order = Vec::new();
        let mut visited = FxHashSet::default();
        let mut stack = vec![(blocks[0], 0usize)];
        visited.insert(blocks[0]);
        while let Some((b, k)) = stack.pop() {
            let s = succs(b);
            if k < s.len() {
                stack.push((b, k + 1));
                if visited.insert(s[k]) {
                    stack.push((s[k], 0));
                }
            } else {
                order.push(b);
            }
        }
        order.reverse();
        let index: FxHashMap<Block, usize> =
            order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); order.len()];
        for (i, b) in order.iter().enumerate() {
            for s in succs(*b) {
                if let Some(&j) = index.get(&s) {
                    preds[j].push(i);
                }
            }
        }
        let mut idom = vec![usize::MAX; order.len()];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..order.len() {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, p, new)
                    };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        RegionDominators { order, index, idom }
    }

    /// The blocks reachable from the entry block, in reverse postorder: the entry first, and
    /// every block after its immediate dominator. Blocks not listed are unreachable.
    pub fn reverse_postorder(&self) -> &[Block] {
        &self.order
    }

    /// The immediate dominator of `b`; `None` for the entry block and unreachable blocks.
    pub fn immediate_dominator(&self, b: Block) -> Option<Block> {
        let i = *self.index.get(&b)?;
        (i != 0).then(|| self.order[self.idom[i]])
    }

    /// True if block `a` dominates block `b` (every block dominates itself; uses in blocks
    /// unreachable from the entry are not constrained).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (Some(&ai), Some(&bi)) = (self.index.get(&a), self.index.get(&b)) else {
            // Uses in unreachable blocks are not checked, as in MLIR.
            return !self.index.contains_key(&b);
        };
        let mut cur = bi;
        loop {
            if cur == ai {
                return true;
            }
            if cur == 0 || self.idom[cur] == usize::MAX {
                return false;
            }
            cur = self.idom[cur];
        }
    }
}

fn intersect(idom: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = idom[a];
        }
        while b > a {
            b = idom[b];
        }
    }
    a
}
