//! Op interfaces, as in MLIR: a named set of questions a pass asks of an op without knowing
//! which op it is, answered by an implementation the op's dialect (or any other crate)
//! registers for that op.
//!
//! An interface is a Rust trait (`Sync`, with methods taking the context and the op); an
//! implementation is usually a unit struct. A dialect attaches it where it defines the op
//! (`interfaces = [dyn MemoryEffects => LoadEffects];` in [`define_op!`](crate::define_op)), or
//! a downstream crate attaches one to an op it does not own with
//! [`Context::register_interface`] (MLIR's external models). A pass asks
//! `ctx.interface::<dyn LoopLike>(op)`.
//!
//! The core defines the interfaces every level shares: [`MemoryEffects`] (what an op reads,
//! writes or allocates) and [`LoopLike`] (induction variable, bounds, step, body). Dialects
//! define their own the same way (the loop dialect's `MemoryAccess`, the graph dialect's
//! `InferShapes`).

use crate::ir::{Block, Op, Value};
use crate::Context;
use crate::Traits;
use std::any::{Any, TypeId};
use std::sync::Arc;

/// The interface implementations attached to one op definition.
#[derive(Clone, Default)]
pub struct Interfaces(Vec<(TypeId, Arc<dyn Any + Send + Sync>)>);

impl Interfaces {
    /// No interfaces.
    pub const fn new() -> Self {
        Interfaces(Vec::new())
    }

    /// Attaches `imp` as the op's implementation of interface `I` (replacing an earlier one).
    pub fn add<I: ?Sized + Sync + 'static>(&mut self, imp: &'static I) {
        let id = TypeId::of::<I>();
        self.0.retain(|(t, _)| *t != id);
        self.0.push((id, Arc::new(imp)));
    }

    /// The implementation of interface `I`, if attached.
    pub fn get<I: ?Sized + Sync + 'static>(&self) -> Option<&'static I> {
        let id = TypeId::of::<I>();
        let (_, imp) = self.0.iter().find(|(t, _)| *t == id)?;
        imp.downcast_ref::<&'static I>().copied()
    }
}

impl Context {
    /// The implementation of interface `I` registered for `op`'s definition, if any:
    /// `ctx.interface::<dyn LoopLike>(op).map(|l| l.induction_var(ctx, op))`.
    pub fn interface<I: ?Sized + Sync + 'static>(&self, op: Op) -> Option<&'static I> {
        self.op_def(op)?.interfaces.get::<I>()
    }

    /// Attaches `imp` as the implementation of interface `I` for the registered op `op_name`
    /// (an external model: the op's dialect need not know the interface). Fails when no such
    /// op is registered.
    pub fn register_interface<I: ?Sized + Sync + 'static>(
        &mut self,
        op_name: &str,
        imp: &'static I,
    ) -> Result<(), String> {
        let def = self
            .op_def_mut_by_name(op_name)
            .ok_or_else(|| format!("no registered op '{op_name}' to attach an interface to"))?;
        def.interfaces.add(imp);
        Ok(())
    }

    /// What `op` itself does to memory (not the ops nested in its regions): `Some(empty)` for
    /// a pure op, the [`MemoryEffects`] it reports, or `None` when unknown (an op without the
    /// interface may read or write anything).
    pub fn memory_effects(&self, op: Op) -> Option<Vec<Effect>> {
        if self.has_trait(op, Traits::PURE) {
            return Some(Vec::new());
        }
        let iface = self.interface::<dyn MemoryEffects>(op)?;
        let mut effects = Vec::new();
        iface.effects(self, op, &mut effects);
        Some(effects)
    }
}

/// What an effect does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EffectKind {
    /// Reads memory.
    Read,
    /// Writes memory.
    Write,
    /// Creates the memory a value names (it aliases nothing that existed before).
    Allocate,
}

/// One memory effect of an op.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Effect {
    pub kind: EffectKind,
    /// The memory it acts on: a buffer value, or `None` for any memory (a barrier).
    pub on: Option<Value>,
}

/// The memory effects of an op itself, MLIR's `MemoryEffectOpInterface`. Ops nested in its
/// regions report their own; an op with no effects of its own (a loop, a collective that only
/// exchanges registers) reports none.
pub trait MemoryEffects: Sync {
    /// Appends the effects of `op` to `out`.
    fn effects(&self, ctx: &Context, op: Op, out: &mut Vec<Effect>);
}

/// A loop with one induction variable stepping from a lower to an upper bound, MLIR's
/// `LoopLikeOpInterface`.
pub trait LoopLike: Sync {
    /// The induction variable (an argument of the body block).
    fn induction_var(&self, ctx: &Context, op: Op) -> Value;
    /// Lower bound, upper bound (exclusive) and step.
    fn bounds(&self, ctx: &Context, op: Op) -> [Value; 3];
    /// The block the loop runs once per iteration.
    fn body(&self, ctx: &Context, op: Op) -> Block;
}
