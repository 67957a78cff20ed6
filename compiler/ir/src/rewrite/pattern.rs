//! Rewrite patterns and the set that indexes them by the op they match.
//!
//! A [`RewritePattern`] looks at one op (its root) and, if it matches, rewrites it through the
//! [`Rewriter`]. A [`PatternSet`] keeps, for every root op name, the patterns that can apply to
//! it — its own plus the ones that match any op — already ordered by benefit, so a driver finds
//! the candidates for an op with one hash lookup. Ops declare their canonicalization patterns in
//! [`OpDef::canonicalize`](crate::OpDef::canonicalize); [`PatternSet::from_canonicalizers`]
//! gathers those of every registered op. [`OpPattern`] and [`FnPattern`] make a pattern of a
//! function.

use super::rewriter::Rewriter;
use crate::ir::Op;
use crate::Context;
use crate::OpView;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// A local rewrite: matches an op and rewrites it through the rewriter.
///
/// A pattern that returns `false` must not have changed the IR, and one that returns `true`
/// must have: drivers count on both. A pattern that keeps succeeding on the op it rewrites
/// makes the greedy driver revisit that op forever, as in MLIR; only `max_num_rewrites` bounds
/// it.
pub trait RewritePattern: Send + Sync {
    /// The name users give to `canonicalize{disable-patterns=...}` (MLIR's debug name, e.g.
    /// `AddIAddConstant`).
    fn name(&self) -> &str;

    /// The op name this pattern matches (`"arith.addi"`), or `None` for any op.
    fn root(&self) -> Option<&'static str>;

    /// How much the rewrite is worth; patterns with a higher benefit are tried first.
    fn benefit(&self) -> u16 {
        1
    }

    /// Rewrites `op` if it matches; returns true if the IR changed. The rewriter's insertion
    /// point is just before `op`.
    fn match_and_rewrite(&self, op: Op, rewriter: &mut Rewriter<'_>) -> bool;
}

/// A pattern written as a function of one kind of op, as MLIR's `RewritePatternSet::add`
/// takes a function: `OpPattern::new("ClampOfClamp", clamp_of_clamp)` with
/// `fn clamp_of_clamp(op: ClampOp, rewriter: &mut Rewriter) -> bool`. Its root is `T`'s name.
pub struct OpPattern<T> {
    name: &'static str,
    rewrite: fn(T, &mut Rewriter<'_>) -> bool,
}

impl<T: OpView> OpPattern<T> {
    /// The pattern `name` that runs `rewrite` on every op of kind `T`.
    pub fn new(name: &'static str, rewrite: fn(T, &mut Rewriter<'_>) -> bool) -> Self {
        OpPattern { name, rewrite }
    }
}

impl<T: OpView + Send + Sync> RewritePattern for OpPattern<T> {
    fn name(&self) -> &str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        Some(T::NAME)
    }
    fn match_and_rewrite(&self, op: Op, rewriter: &mut Rewriter<'_>) -> bool {
        let view = rewriter.ctx().view::<T>(op);
        view.is_some_and(|view| (self.rewrite)(view, rewriter))
    }
}

/// A pattern written as a function of any op (its root is `None`): for rewrites that pick
/// their ops themselves, such as a conversion of a whole dialect.
pub struct FnPattern {
    name: &'static str,
    rewrite: fn(Op, &mut Rewriter<'_>) -> bool,
}

impl FnPattern {
    /// The pattern `name` that runs `rewrite` on every op.
    pub fn new(name: &'static str, rewrite: fn(Op, &mut Rewriter<'_>) -> bool) -> Self {
        FnPattern { name, rewrite }
    }
}

impl RewritePattern for FnPattern {
    fn name(&self) -> &str {
        self.name
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, op: Op, rewriter: &mut Rewriter<'_>) -> bool {
        (self.rewrite)(op, rewriter)
    }
}

/// Builds an op's canonicalization patterns (the hook in [`OpDef`](crate::OpDef)).
pub type CanonicalizeFn = fn() -> Vec<Box<dyn RewritePattern>>;

/// Patterns indexed by root op name, each list ordered by decreasing benefit (ties keep the
/// order the patterns were added in).
#[derive(Default)]
pub struct PatternSet {
    patterns: Vec<Box<dyn RewritePattern>>,
    /// Root name → patterns for it, the any-op patterns merged in.
    by_root: FxHashMap<&'static str, SmallVec<[u32; 4]>>,
    /// Patterns that match any op, for names with no pattern of their own.
    any: SmallVec<[u32; 4]>,
}

impl PatternSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The canonicalization patterns of every op registered in `ctx`.
    pub fn from_canonicalizers(ctx: &Context) -> Self {
        let mut set = PatternSet::new();
        for def in ctx.op_defs() {
            if let Some(canonicalize) = def.canonicalize {
                for pattern in canonicalize() {
                    set.add_boxed(pattern);
                }
            }
        }
        set
    }

    /// Adds a pattern.
    pub fn add(&mut self, pattern: impl RewritePattern + 'static) {
        self.add_boxed(Box::new(pattern));
    }

    /// Adds a boxed pattern.
    pub fn add_boxed(&mut self, pattern: Box<dyn RewritePattern>) {
        let index = self.patterns.len() as u32;
        let root = pattern.root();
        self.patterns.push(pattern);
        match root {
            Some(name) => {
                let any = &self.any;
                let list = self.by_root.entry(name).or_insert_with(|| any.clone());
                list.push(index);
                sort_by_benefit(&self.patterns, list);
            }
            None => {
                self.any.push(index);
                sort_by_benefit(&self.patterns, &mut self.any);
                for list in self.by_root.values_mut() {
                    list.push(index);
                    sort_by_benefit(&self.patterns, list);
                }
            }
        }
    }

    /// Keeps only the patterns for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&dyn RewritePattern) -> bool) {
        let patterns = std::mem::take(&mut self.patterns);
        *self = PatternSet::new();
        for p in patterns {
            if keep(p.as_ref()) {
                self.add_boxed(p);
            }
        }
    }

    /// The number of patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// True if the set has no pattern.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Every pattern, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = &dyn RewritePattern> {
        self.patterns.iter().map(|p| p.as_ref())
    }

    /// The patterns that may apply to an op named `name`, best first.
    pub fn for_op_name(&self, name: &str) -> impl Iterator<Item = &dyn RewritePattern> {
        self.indices_for(name)
            .iter()
            .map(|i| self.patterns[*i as usize].as_ref())
    }

    /// Indices (into [`PatternSet::get`]) of the patterns for `name`, best first.
    pub(crate) fn indices_for(&self, name: &str) -> &[u32] {
        self.by_root.get(name).unwrap_or(&self.any)
    }

    /// Indices of the patterns that match any op, best first.
    pub(crate) fn any_op_indices(&self) -> &[u32] {
        &self.any
    }

    /// The pattern at `index`.
    pub(crate) fn get(&self, index: u32) -> &dyn RewritePattern {
        self.patterns[index as usize].as_ref()
    }

    /// The root names that have patterns of their own.
    pub(crate) fn roots(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_root.keys().copied()
    }
}

fn sort_by_benefit(patterns: &[Box<dyn RewritePattern>], list: &mut [u32]) {
    // Indices grow with insertion, so the tie-break keeps insertion order.
    list.sort_by_key(|i| (std::cmp::Reverse(patterns[*i as usize].benefit()), *i));
}
