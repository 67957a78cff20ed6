//! The rewriter: structural edits that report themselves.
//!
//! A [`Rewriter`] borrows the context for the length of one rewrite and performs the edits a
//! pattern needs (create, replace, erase, modify in place), telling an optional
//! [`RewriteListener`] about each one. Drivers listen to keep their worklists current: the
//! greedy driver re-queues the users of a replaced value and the producers of an erased op's
//! operands, so it never has to rescan the IR to find what a rewrite may have enabled.
//!
//! Direct edits through [`Rewriter::ctx_mut`] are not reported; patterns use it to build types
//! and attributes, and for IR edits only on ops they created and have not inserted yet.

use crate::ir::{InsertPoint, Op, OpSpec, Value};
use crate::rewrite::conversion::TypeConverter;
use crate::Context;
use smallvec::SmallVec;

/// Hears about every edit made through a [`Rewriter`].
///
/// Each call happens while the IR is still intact enough to inspect: `op_erased` comes before
/// the op is destroyed, `op_replaced` before its uses are moved.
pub trait RewriteListener {
    /// `op` was inserted into a block (newly created, or moved).
    fn op_inserted(&mut self, _ctx: &Context, _op: Op) {}
    /// `op` changed in place (operands, attributes, location).
    fn op_modified(&mut self, _ctx: &Context, _op: Op) {}
    /// The results of `op` are about to be replaced by `with`; `op` will then be erased.
    fn op_replaced(&mut self, _ctx: &Context, _op: Op, _with: &[Value]) {}
    /// `op` is about to be erased. Ops nested in it are reported first.
    fn op_erased(&mut self, _ctx: &Context, _op: Op) {}
}

/// Edits the IR at an insertion point and reports every edit to its listener.
pub struct Rewriter<'a> {
    ctx: &'a mut Context,
    insertion: Option<InsertPoint>,
    listener: Option<&'a mut dyn RewriteListener>,
    type_converter: Option<&'a TypeConverter>,
}

impl<'a> Rewriter<'a> {
    /// A rewriter with no listener and no insertion point.
    pub fn new(ctx: &'a mut Context) -> Self {
        Rewriter {
            ctx,
            insertion: None,
            listener: None,
            type_converter: None,
        }
    }

    /// A rewriter reporting to `listener`.
    pub fn with_listener(ctx: &'a mut Context, listener: &'a mut dyn RewriteListener) -> Self {
        Rewriter {
            listener: Some(listener),
            ..Self::new(ctx)
        }
    }

    /// Makes `converter` available to patterns (used by [`super::apply_conversion`]).
    pub fn set_type_converter(&mut self, converter: &'a TypeConverter) {
        self.type_converter = Some(converter);
    }

    /// The type converter of the conversion this rewriter serves, if any.
    pub fn type_converter(&self) -> Option<&'a TypeConverter> {
        self.type_converter
    }

    /// Converts `ty` with the conversion's type converter; `None` without a converter or when
    /// no rule converts it.
    pub fn convert_type(&mut self, ty: crate::Type) -> Option<crate::Type> {
        self.type_converter?.convert_type(self.ctx, ty)
    }

    /// The context, for reading the IR.
    #[inline]
    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// The context, for interning types and attributes. IR edits made through it are not
    /// reported to the listener.
    #[inline]
    pub fn ctx_mut(&mut self) -> &mut Context {
        self.ctx
    }

    /// Where [`Rewriter::create`] puts new ops.
    pub fn set_insertion_point(&mut self, at: InsertPoint) {
        self.insertion = Some(at);
    }

    /// The current insertion point.
    pub fn insertion_point(&self) -> Option<InsertPoint> {
        self.insertion
    }

    /// Creates an op from `spec` at the insertion point. Consecutive creations come out in
    /// order, whatever kind of insertion point was set.
    ///
    /// Panics if no insertion point is set: that is a bug in the pattern.
    pub fn create(&mut self, spec: OpSpec) -> Op {
        let op = self.ctx.create_op(spec);
        self.insert(op);
        op
    }

    /// Inserts the detached `op` at the insertion point (see [`Rewriter::create`]).
    pub fn insert(&mut self, op: Op) {
        let at = self
            .insertion
            .expect("Rewriter::insert: no insertion point set");
        self.ctx.insert_op(at, op);
        // After an op or at a block's start, the next op goes after this one.
        match at {
            InsertPoint::After(_) | InsertPoint::Start(_) => {
                self.insertion = Some(InsertPoint::After(op))
            }
            InsertPoint::Before(_) | InsertPoint::End(_) => {}
        }
        self.notify_inserted(op);
    }

    /// Moves `op` to `at` (reported as an insertion).
    pub fn move_op(&mut self, op: Op, at: InsertPoint) {
        self.ctx.move_op(op, at);
        self.notify_inserted(op);
    }

    /// Makes every use of `old` a use of `new`, reporting each user as modified.
    pub fn replace_all_uses(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        // Newest use first, the order MLIR's use lists give (drivers see the same sequence).
        let users: SmallVec<[Op; 8]> = self.ctx.uses(old).iter().rev().map(|u| u.user).collect();
        self.ctx.replace_all_uses(old, new);
        if let Some(listener) = self.listener.as_deref_mut() {
            for user in users {
                listener.op_modified(self.ctx, user);
            }
        }
    }

    /// Replaces each result of `op` with the matching value of `with`, then erases `op`.
    ///
    /// Panics if the counts differ: that is a bug in the pattern.
    pub fn replace_op(&mut self, op: Op, with: &[Value]) {
        assert_eq!(
            self.ctx.num_results(op),
            with.len(),
            "replace_op: {} has {} results, {} replacements given",
            self.ctx.op_name(op),
            self.ctx.num_results(op),
            with.len()
        );
        if let Some(listener) = self.listener.as_deref_mut() {
            listener.op_replaced(self.ctx, op, with);
        }
        for (i, new) in with.iter().enumerate() {
            let old = self.ctx.result(op, i);
            self.replace_all_uses(old, *new);
        }
        self.erase_op(op);
    }

    /// Builds `spec` just before `op` and replaces `op` with the new op's results.
    pub fn replace_op_with_new(&mut self, op: Op, spec: OpSpec) -> Op {
        let saved = self.insertion.replace(InsertPoint::Before(op));
        let new = self.create(spec);
        self.insertion = saved;
        let results: SmallVec<[Value; 2]> = self.ctx.results(new).collect();
        self.replace_op(op, &results);
        new
    }

    /// Erases `op` and everything nested in it. Its results must be unused.
    pub fn erase_op(&mut self, op: Op) {
        if let Some(listener) = self.listener.as_deref_mut() {
            let ctx: &Context = self.ctx;
            if ctx.regions(op).is_empty() {
                listener.op_erased(ctx, op);
            } else {
                // Nested ops first, then `op`: post-order, as they are destroyed.
                let mut nested = Vec::new();
                ctx.for_each_op(op, &mut |o| nested.push(o));
                for o in nested.into_iter().rev() {
                    listener.op_erased(ctx, o);
                }
            }
        }
        self.ctx.erase_op(op);
    }

    /// Runs `edit` on the context and reports `op` as modified (for operand, attribute and
    /// location changes).
    pub fn modify_in_place<R>(&mut self, op: Op, edit: impl FnOnce(&mut Context) -> R) -> R {
        let r = edit(self.ctx);
        if let Some(listener) = self.listener.as_deref_mut() {
            listener.op_modified(self.ctx, op);
        }
        r
    }

    fn notify_inserted(&mut self, op: Op) {
        if let Some(listener) = self.listener.as_deref_mut() {
            listener.op_inserted(self.ctx, op);
        }
    }
}
