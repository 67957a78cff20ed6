//! Rewriting: the [`Rewriter`] every IR change in a pattern goes through, [`RewritePattern`]s
//! and the [`PatternSet`] that indexes them, the greedy fixpoint driver behind `canonicalize`
//! ([`apply_patterns_greedily`]), and a small dialect-conversion driver for lowering passes
//! ([`apply_conversion`]).
//!
//! Patterns never edit the [`Context`](crate::Context) behind the driver's back: they go through
//! the rewriter, which tells a [`RewriteListener`] about every op inserted, modified, replaced and
//! erased. That is how the greedy driver keeps its worklist current without rescanning the IR,
//! which keeps a run linear in the size of the IR plus the work the patterns do.

mod constants;
mod conversion;
mod fold;
mod greedy;
mod pattern;
mod rewriter;

pub use conversion::{apply_conversion, ConversionTarget, Legality, TypeConverter};
pub use fold::{fold_op, is_trivially_dead, FoldOutcome};
pub use greedy::{apply_patterns_greedily, greedy_rewrite, GreedyConfig, GreedyStats, RewriteRoot};
pub use pattern::{CanonicalizeFn, FnPattern, OpPattern, PatternSet, RewritePattern};
pub use rewriter::{RewriteListener, Rewriter};
