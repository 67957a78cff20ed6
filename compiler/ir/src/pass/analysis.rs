//! Analyses and their cache: computed on demand, reused by later passes, and dropped when a pass
//! does not declare them preserved.

use super::definition::Preserved;
use crate::ir::Op;
use crate::Context;
use rustc_hash::FxHashMap;
use std::any::{Any, TypeId};

/// A fact about an op computed from the IR (dominance, liveness, ...).
pub trait Analysis: Any + Send + Sync {
    /// Computes the analysis of `op`.
    fn compute(ctx: &Context, op: Op) -> Self
    where
        Self: Sized;
}

/// Caches analyses per (analysis type, op).
#[derive(Default)]
pub struct AnalysisManager {
    cache: FxHashMap<(TypeId, Op), Box<dyn Any + Send + Sync>>,
}

impl AnalysisManager {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The analysis `A` of `op`, computed if not cached.
    pub fn get<A: Analysis>(&mut self, ctx: &Context, op: Op) -> &A {
        let entry = self
            .cache
            .entry((TypeId::of::<A>(), op))
            .or_insert_with(|| Box::new(A::compute(ctx, op)));
        entry
            .downcast_ref::<A>()
            .expect("the cache maps each TypeId to its own type")
    }

    /// True if `A` of `op` is cached.
    pub fn is_cached<A: Analysis>(&self, op: Op) -> bool {
        self.cache.contains_key(&(TypeId::of::<A>(), op))
    }

    /// Drops every cached analysis not in `preserved`.
    pub(crate) fn invalidate(&mut self, preserved: &Preserved) {
        match preserved {
            Preserved::All => {}
            Preserved::None => self.cache.clear(),
            Preserved::Some(keep) => self.cache.retain(|(ty, _), _| keep.contains(ty)),
        }
    }
}
