//! The greedy pattern rewrite driver: folds, erases dead ops and applies patterns until nothing
//! changes (MLIR's `applyPatternsGreedily`, which `canonicalize` runs).
//!
//! Each iteration seeds a worklist with every op nested in the root — in program order
//! (`top_down`) or reversed — showing constants to the constant table on the way, which hoists
//! them and merges duplicates. Then it pops ops until the list is empty: an op that is trivially
//! dead is erased; otherwise its folder runs, and if it declines, the patterns for its name are
//! tried best first. Every edit goes through the [`Rewriter`], whose listener (the worklist)
//! re-queues exactly the ops an edit may have enabled: the users of replaced values, the
//! producers of an erased op's operands, new and modified ops and their ancestors. An iteration
//! that changed something is followed by another, up to `max_iterations`; the driver has
//! converged when one changes nothing.
//!
//! The cost of an iteration is linear in the number of ops plus the edits made: worklist
//! membership is a flag per op index, erased ops are skipped when popped (never searched for),
//! and patterns are found by one hash lookup on the op's interned name.

use super::constants::{ConstantTable, Known};
use super::fold::{dead_with, fold_with_def, FoldOutcome};
use super::pattern::PatternSet;
use super::rewriter::{RewriteListener, Rewriter};
use crate::diagnostics::Diagnostic;
use crate::dialect::Traits;
use crate::intern::Ident;
use crate::ir::{InsertPoint, Op, Region, Value};
use crate::location::Location;
use crate::Context;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// How the greedy driver runs (MLIR's `GreedyRewriteConfig`).
#[derive(Copy, Clone, Debug)]
pub struct GreedyConfig {
    /// Seed the worklist so ops are visited in program order (true), or from the last op
    /// backwards.
    pub top_down: bool,
    /// Iterations before giving up; -1 for no limit.
    pub max_iterations: i64,
    /// Pattern rewrites allowed per iteration; -1 for no limit.
    pub max_num_rewrites: i64,
    /// Fold ops with their dialect's folders.
    pub fold: bool,
    /// Hoist constants to their region's entry block and merge equal ones.
    pub cse_constants: bool,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        GreedyConfig {
            top_down: true,
            max_iterations: 10,
            max_num_rewrites: -1,
            fold: true,
            cse_constants: true,
        }
    }
}

/// What a greedy run did.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct GreedyStats {
    /// Iterations run (the last one changed nothing if the run converged).
    pub iterations: u64,
    /// Ops replaced or changed in place by their folder.
    pub folded: u64,
    /// Trivially dead ops erased.
    pub erased: u64,
    /// Successful pattern rewrites.
    pub patterns_applied: u64,
    /// Constants replaced by an equal one in the same region.
    pub constants_deduplicated: u64,
    /// True if the IR changed at all (constants moved or merged included).
    pub changed: bool,
    /// True if the last iteration changed nothing.
    pub converged: bool,
    /// Where the last iteration first changed something (for non-convergence errors).
    pub last_change: Option<Location>,
}

impl GreedyStats {
    /// The error for a run that did not converge: `"<what> did not converge after N
    /// iterations"`, at the first op the last iteration still changed (else at `fallback`).
    pub fn not_converged_error(&self, what: &str, fallback: Location) -> Diagnostic {
        let n = self.iterations;
        Diagnostic::error(
            self.last_change.unwrap_or(fallback),
            format!(
                "{what} did not converge after {n} iteration{}",
                if n == 1 { "" } else { "s" }
            ),
        )
    }
}

/// What the driver rewrites: the regions of an op (not the op itself), or one region.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum RewriteRoot {
    Op(Op),
    Region(Region),
}

impl From<Op> for RewriteRoot {
    fn from(op: Op) -> Self {
        RewriteRoot::Op(op)
    }
}

impl From<Region> for RewriteRoot {
    fn from(region: Region) -> Self {
        RewriteRoot::Region(region)
    }
}

impl RewriteRoot {
    fn regions(self, ctx: &Context) -> SmallVec<[Region; 2]> {
        match self {
            RewriteRoot::Op(op) => ctx.regions(op).into(),
            RewriteRoot::Region(r) => smallvec::smallvec![r],
        }
    }

    fn location(self, ctx: &Context) -> Location {
        match self {
            RewriteRoot::Op(op) => ctx.op_loc(op),
            RewriteRoot::Region(r) => ctx
                .region_parent(r)
                .map_or(Location::Unknown, |op| ctx.op_loc(op)),
        }
    }
}

/// Runs the greedy driver; an error if it did not converge within `config.max_iterations`
/// (the IR is still valid then, just not at a fixpoint).
pub fn apply_patterns_greedily(
    ctx: &mut Context,
    root: impl Into<RewriteRoot>,
    patterns: &PatternSet,
    config: GreedyConfig,
) -> Result<GreedyStats, Diagnostic> {
    let root = root.into();
    let stats = greedy_rewrite(ctx, root, patterns, config);
    if stats.converged {
        Ok(stats)
    } else {
        Err(stats.not_converged_error("greedy pattern rewriting", root.location(ctx)))
    }
}

/// Runs the greedy driver as a best effort: the stats say whether it converged.
pub fn greedy_rewrite(
    ctx: &mut Context,
    root: impl Into<RewriteRoot>,
    patterns: &PatternSet,
    config: GreedyConfig,
) -> GreedyStats {
    let root = root.into();
    let value_name = Some(ctx.ident("value"));
    let mut driver = Driver {
        worklist: Worklist {
            list: Vec::new(),
            queued: Vec::new(),
            scope: root.regions(ctx),
        },
        constants: ConstantTable::new(value_name),
        rules: Rules {
            index: PatternIndex::new(ctx, patterns),
            patterns,
            fold: config.fold,
            value_name,
        },
        config,
        stats: GreedyStats::default(),
    };
    let mut changed = false;
    loop {
        if config.max_iterations >= 0 && driver.stats.iterations >= config.max_iterations as u64 {
            break;
        }
        driver.stats.iterations += 1;
        driver.stats.last_change = None;
        driver.seed(ctx);
        changed = driver.process(ctx);
        driver.stats.changed |= changed;
        if !changed {
            break;
        }
    }
    driver.stats.converged = !changed;
    let constants = &driver.constants;
    driver.stats.constants_deduplicated = constants.deduplicated;
    // Moving and merging constants changes the IR without counting as an iteration's change.
    driver.stats.changed |= constants.deduplicated + constants.hoisted > 0;
    driver.stats
}

/// The patterns for each op name, looked up by interned name.
struct PatternIndex<'p> {
    by_name: FxHashMap<Ident, &'p [u32]>,
    any: &'p [u32],
}

impl<'p> PatternIndex<'p> {
    fn new(ctx: &mut Context, patterns: &'p PatternSet) -> Self {
        let mut by_name = FxHashMap::default();
        for root in patterns.roots() {
            by_name.insert(ctx.ident(root), patterns.indices_for(root));
        }
        PatternIndex {
            by_name,
            any: patterns.any_op_indices(),
        }
    }

    #[inline]
    fn get(&self, name: Ident) -> &'p [u32] {
        self.by_name.get(&name).copied().unwrap_or(self.any)
    }
}

struct Driver<'p> {
    worklist: Worklist,
    constants: ConstantTable,
    rules: Rules<'p>,
    config: GreedyConfig,
    stats: GreedyStats,
}

/// What the driver does to one op: folding and the patterns.
struct Rules<'p> {
    index: PatternIndex<'p>,
    patterns: &'p PatternSet,
    fold: bool,
    value_name: Option<Ident>,
}

impl Driver<'_> {
    /// Fills the worklist with every op in scope, uniquing constants on the way.
    fn seed(&mut self, ctx: &mut Context) {
        // A run stopped by `max_num_rewrites` leaves ops queued; forget them.
        while self.worklist.pop().is_some() {}
        self.constants.clear();
        for region in self.worklist.scope.clone() {
            self.seed_region(ctx, region);
        }
        if self.config.top_down {
            // Pre-order, reversed: popping from the back visits ops in program order.
            self.worklist.list.reverse();
        }
    }

    fn seed_region(&mut self, ctx: &mut Context, region: Region) {
        for i in 0..ctx.blocks(region).len() {
            let block = ctx.blocks(region)[i];
            let mut cur = ctx.first_op(block);
            while let Some(op) = cur {
                // Read the next op first: the constant table may move or erase this one.
                cur = ctx.next_op(op);
                self.seed_op(ctx, op);
            }
        }
    }

    fn seed_op(&mut self, ctx: &mut Context, op: Op) {
        let known = if self.config.cse_constants {
            let mut rewriter = Rewriter::with_listener(ctx, &mut self.worklist);
            self.constants.insert(&mut rewriter, op)
        } else {
            Known::NotConstant
        };
        if known == Known::Replaced {
            return;
        }
        if self.config.top_down {
            // In pre-order the ancestors are queued already: no need to climb to them.
            self.worklist.push_one(op);
        }
        for i in 0..ctx.regions(op).len() {
            let region = ctx.regions(op)[i];
            self.seed_region(ctx, region);
        }
        if !self.config.top_down {
            self.worklist.push(ctx, op);
        }
    }

    /// Pops ops until the worklist is empty; true if the IR changed.
    fn process(&mut self, ctx: &mut Context) -> bool {
        let mut changed = false;
        let mut rewrites: i64 = 0;
        let max_rewrites = self.config.max_num_rewrites;
        while max_rewrites < 0 || rewrites < max_rewrites {
            let Some(op) = self.worklist.pop() else { break };
            if !ctx.is_alive(op) {
                continue;
            }
            let loc = self.stats.last_change.is_none().then(|| ctx.op_loc(op));
            let mut rewriter = Rewriter::with_listener(ctx, &mut self.worklist);
            let step = self.rules.visit(&mut rewriter, op, &mut self.stats);
            if step != Step::Unchanged {
                changed = true;
                if let Some(loc) = loc {
                    self.stats.last_change = Some(loc);
                }
            }
            if step == Step::Rewritten {
                rewrites += 1;
            }
        }
        changed
    }
}

impl Rules<'_> {
    /// Erases, folds or rewrites `op`.
    fn visit(&self, rewriter: &mut Rewriter<'_>, op: Op, stats: &mut GreedyStats) -> Step {
        let ctx = rewriter.ctx();
        let (traits, fold) = ctx
            .op_def(op)
            .map_or((Traits::empty(), None), |d| (d.traits, d.fold));
        if dead_with(ctx, op, traits) {
            rewriter.erase_op(op);
            stats.erased += 1;
            return Step::Erased;
        }
        if self.fold
            && fold_with_def(rewriter, op, traits, fold, self.value_name) != FoldOutcome::Unchanged
        {
            stats.folded += 1;
            return Step::Folded;
        }
        for &i in self.index.get(rewriter.ctx().op_name_id(op)) {
            rewriter.set_insertion_point(InsertPoint::Before(op));
            if self.patterns.get(i).match_and_rewrite(op, rewriter) {
                stats.patterns_applied += 1;
                return Step::Rewritten;
            }
            if !rewriter.ctx().is_alive(op) {
                debug_assert!(false, "a pattern erased an op and reported no change");
                return Step::Rewritten;
            }
        }
        Step::Unchanged
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Step {
    Unchanged,
    Erased,
    Folded,
    Rewritten,
}

/// The ops still to visit, with a membership flag per op index.
struct Worklist {
    list: Vec<Op>,
    queued: Vec<bool>,
    /// The regions being rewritten; ops outside them are never queued.
    scope: SmallVec<[Region; 2]>,
}

impl Worklist {
    /// Queues `op` and its ancestors up to the scope (a change to an op may enable a rewrite of
    /// the ops around it). Ops outside the scope are ignored.
    fn push(&mut self, ctx: &Context, op: Op) {
        let mut chain: SmallVec<[Op; 4]> = SmallVec::new();
        let mut cur = op;
        loop {
            chain.push(cur);
            let Some(region) = ctx.op_block(cur).and_then(|b| ctx.block_parent(b)) else {
                return;
            };
            if self.scope.contains(&region) {
                break;
            }
            match ctx.region_parent(region) {
                Some(parent) => cur = parent,
                None => return,
            }
        }
        for op in chain {
            self.push_one(op);
        }
    }

    #[inline]
    fn push_one(&mut self, op: Op) {
        let i = op.index();
        if i >= self.queued.len() {
            self.queued
                .resize((i + 1).max(self.queued.len() * 2), false);
        }
        if !self.queued[i] {
            self.queued[i] = true;
            self.list.push(op);
        }
    }

    fn pop(&mut self) -> Option<Op> {
        let op = self.list.pop()?;
        self.queued[op.index()] = false;
        Some(op)
    }

    /// Queues the producers of `op`'s operands that will have at most one other user once
    /// `op` is gone: they may now be dead, or foldable into their last user.
    fn push_operand_producers(&mut self, ctx: &Context, op: Op) {
        for &v in ctx.operands(op) {
            let Some(def) = ctx.defining_op(v) else {
                continue;
            };
            if at_most_one_other_user(ctx, v, op) {
                self.push(ctx, def);
            }
        }
    }
}

/// True if the users of `v` other than `op` are at most one op.
fn at_most_one_other_user(ctx: &Context, v: Value, op: Op) -> bool {
    let mut other = None;
    for u in ctx.uses(v) {
        if u.user == op || Some(u.user) == other {
            continue;
        }
        if other.is_some() {
            return false;
        }
        other = Some(u.user);
    }
    true
}

impl RewriteListener for Worklist {
    fn op_inserted(&mut self, ctx: &Context, op: Op) {
        self.push(ctx, op);
    }

    fn op_modified(&mut self, ctx: &Context, op: Op) {
        self.push(ctx, op);
    }

    fn op_erased(&mut self, ctx: &Context, op: Op) {
        // The op itself stays in the list if queued; it is skipped when popped.
        self.push_operand_producers(ctx, op);
    }
}
