//! Dialect conversion for lowering passes: which ops must go ([`ConversionTarget`]), how types
//! map ([`TypeConverter`]), and a driver that rewrites every illegal op with patterns
//! ([`apply_conversion`]).
//!
//! This is MLIR's *partial* conversion without rollback, in the spirit of pliron's simpler
//! driver: ops are visited in program order, definitions before uses, so a pattern sees its
//! operands already converted; an illegal op is rewritten by the first pattern (best benefit
//! first) that succeeds, and ops the patterns create are legalized in turn. Ops the target does
//! not mention are left alone. Any illegal op left at the end is an error at its location
//! (`failed to legalize operation 'toy.mul'`). There are no materializations: a pattern that
//! changes a result type must make sure the users can take the new type (usually because they
//! are converted too).

use super::pattern::PatternSet;
use super::rewriter::{RewriteListener, Rewriter};
use crate::diagnostics::Diagnostic;
use crate::ir::{Block, InsertPoint, Op};
use crate::types::Type;
use crate::Context;
use rustc_hash::FxHashMap;

/// A type conversion rule: `Some(new)` converts, `None` leaves the type to the next rule.
type TypeRule = Box<dyn Fn(&mut Context, Type) -> Option<Type> + Send + Sync>;

/// Maps the types of the source dialects to those of the target.
#[derive(Default)]
pub struct TypeConverter {
    rules: Vec<TypeRule>,
}

impl TypeConverter {
    /// A converter with no rules (it converts nothing).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a rule. Rules are tried from the last added to the first, as in MLIR, so a later,
    /// more specific rule overrides a general one (add `|_, t| Some(t)` first to keep every
    /// type no other rule handles).
    pub fn add_rule(
        &mut self,
        rule: impl Fn(&mut Context, Type) -> Option<Type> + Send + Sync + 'static,
    ) {
        self.rules.push(Box::new(rule));
    }

    /// The converted type, or `None` if no rule handles `ty`.
    pub fn convert_type(&self, ctx: &mut Context, ty: Type) -> Option<Type> {
        self.rules.iter().rev().find_map(|rule| rule(ctx, ty))
    }

    /// True if `ty` converts to itself.
    pub fn is_legal(&self, ctx: &mut Context, ty: Type) -> bool {
        self.convert_type(ctx, ty) == Some(ty)
    }

    /// Converts the argument types of `block` in place; on failure, returns the first type no
    /// rule handles (the arguments before it are already converted).
    pub fn convert_block_args(&self, ctx: &mut Context, block: Block) -> Result<(), Type> {
        for i in 0..ctx.block_args(block).len() {
            let arg = ctx.block_args(block)[i];
            let ty = ctx.value_type(arg);
            let new = self.convert_type(ctx, ty).ok_or(ty)?;
            ctx.set_value_type(arg, new);
        }
        Ok(())
    }
}

/// Whether an op may stay.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Legality {
    /// It may stay.
    Legal,
    /// It must be converted; the error says it was explicitly marked illegal.
    Illegal,
    /// A dynamic legality callback rejected it: it must be converted.
    DynamicallyIllegal,
    /// The target does not mention it: it is left alone.
    Unknown,
}

/// A legality callback: true if the op may stay.
type LegalityFn = Box<dyn Fn(&Context, Op) -> bool + Send + Sync>;

enum Action {
    Legal,
    Illegal,
    Dynamic(LegalityFn),
}

/// Which ops are legal after a conversion: by op name or by dialect, statically or through a
/// callback. An entry for an op name overrides the entry for its dialect.
#[derive(Default)]
pub struct ConversionTarget {
    ops: FxHashMap<String, Action>,
    dialects: FxHashMap<String, Action>,
}

impl ConversionTarget {
    /// A target with no entries (every op is of unknown legality, so left alone).
    pub fn new() -> Self {
        Self::default()
    }

    /// `name` (`"lo.add"`) may stay.
    pub fn add_legal_op(&mut self, name: &str) {
        self.ops.insert(name.to_string(), Action::Legal);
    }

    /// `name` must be converted.
    pub fn add_illegal_op(&mut self, name: &str) {
        self.ops.insert(name.to_string(), Action::Illegal);
    }

    /// `name` may stay when `legal` says so.
    pub fn add_dynamically_legal_op(
        &mut self,
        name: &str,
        legal: impl Fn(&Context, Op) -> bool + Send + Sync + 'static,
    ) {
        self.ops
            .insert(name.to_string(), Action::Dynamic(Box::new(legal)));
    }

    /// Every op of dialect `dialect` (`"lo"`) may stay.
    pub fn add_legal_dialect(&mut self, dialect: &str) {
        self.dialects.insert(dialect.to_string(), Action::Legal);
    }

    /// Every op of dialect `dialect` must be converted.
    pub fn add_illegal_dialect(&mut self, dialect: &str) {
        self.dialects.insert(dialect.to_string(), Action::Illegal);
    }

    /// Ops of dialect `dialect` may stay when `legal` says so.
    pub fn add_dynamically_legal_dialect(
        &mut self,
        dialect: &str,
        legal: impl Fn(&Context, Op) -> bool + Send + Sync + 'static,
    ) {
        self.dialects
            .insert(dialect.to_string(), Action::Dynamic(Box::new(legal)));
    }

    /// The legality of `op`.
    pub fn legality(&self, ctx: &Context, op: Op) -> Legality {
        let name = ctx.op_name(op);
        let dialect = name.split_once('.').map_or(name, |(d, _)| d);
        let action = self.ops.get(name).or_else(|| self.dialects.get(dialect));
        match action {
            None => Legality::Unknown,
            Some(Action::Legal) => Legality::Legal,
            Some(Action::Illegal) => Legality::Illegal,
            Some(Action::Dynamic(legal)) if legal(ctx, op) => Legality::Legal,
            Some(Action::Dynamic(_)) => Legality::DynamicallyIllegal,
        }
    }

    fn must_convert(&self, ctx: &Context, op: Op) -> bool {
        matches!(
            self.legality(ctx, op),
            Legality::Illegal | Legality::DynamicallyIllegal
        )
    }
}

/// Records the ops a pattern creates so they are legalized too.
#[derive(Default)]
struct Created(Vec<Op>);

impl RewriteListener for Created {
    fn op_inserted(&mut self, _: &Context, op: Op) {
        self.0.push(op);
    }
}

/// Rewrites every illegal op nested in `root` (not `root` itself) with `patterns`; fails at the
/// first illegal op left, in program order. Patterns reach `converter` through
/// [`Rewriter::type_converter`] and [`Rewriter::convert_type`]. Returns how many ops a pattern
/// rewrote (for a pass's statistics).
pub fn apply_conversion(
    ctx: &mut Context,
    root: Op,
    target: &ConversionTarget,
    patterns: &PatternSet,
    converter: &TypeConverter,
) -> Result<usize, Diagnostic> {
    let mut pending = Vec::new();
    ctx.for_each_op(root, &mut |o| {
        if o != root {
            pending.push(o)
        }
    });
    // A pattern set that keeps producing illegal ops would never finish; this bound is far
    // above what any real lowering needs (a few new ops per converted op).
    let budget = 16 * (pending.len() + 16);
    let (mut i, mut rewritten) = (0, 0);
    while i < pending.len() {
        let op = pending[i];
        i += 1;
        if !ctx.is_alive(op) || !target.must_convert(ctx, op) {
            continue;
        }
        if pending.len() > budget {
            return Err(Diagnostic::error(
                ctx.op_loc(op),
                format!(
                    "conversion did not terminate: patterns keep producing illegal ops ('{}')",
                    ctx.op_name(op)
                ),
            ));
        }
        let mut created = Created::default();
        let mut rewriter = Rewriter::with_listener(ctx, &mut created);
        rewriter.set_type_converter(converter);
        for pattern in patterns.for_op_name(rewriter.ctx().op_name(op)) {
            rewriter.set_insertion_point(InsertPoint::Before(op));
            if pattern.match_and_rewrite(op, &mut rewriter) {
                rewritten += 1;
                break;
            }
            if !rewriter.ctx().is_alive(op) {
                break;
            }
        }
        pending.extend(created.0);
    }
    let mut failure = None;
    ctx.for_each_op(root, &mut |op| {
        if failure.is_none() && op != root {
            match target.legality(ctx, op) {
                Legality::Illegal => failure = Some((op, " that was explicitly marked illegal")),
                Legality::DynamicallyIllegal => failure = Some((op, "")),
                Legality::Legal | Legality::Unknown => {}
            }
        }
    });
    match failure {
        Some((op, why)) => Err(Diagnostic::error(
            ctx.op_loc(op),
            format!("failed to legalize operation '{}'{why}", ctx.op_name(op)),
        )),
        None => Ok(rewritten),
    }
}
