//! What the passes of this group need to know about memory: which buffer an access touches,
//! which buffers may be the same memory, and which ops have effects beyond their loads and
//! stores.
//!
//! Kept private to the group: the op's own effects come from the dialect
//! ([`Context::memory_effects`]); what is the group's own is how it sums them up (one buffer
//! read or written, or opaque) and when two buffers may alias.

use dlc_ir::{Context, EffectKind, Op, Traits, Value};
use dlc_loop::{AllocOp, MemorySpace};

/// How an op touches memory, as far as these passes care.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Access {
    /// Reads one element (or vector) of `buffer`.
    Read(Value),
    /// Writes one element (or vector) of `buffer`.
    Write(Value),
    /// No memory effect of its own (pure ops, structured control flow, allocations, the
    /// terminators, collective reductions that only exchange registers).
    None,
    /// Unknown or synchronizing (`loop.barrier`, ops of other dialects with effects), or more
    /// than one effect: may read or write anything, or make other threads' writes visible.
    Opaque,
}

/// The memory access of `op` alone (not of the ops nested in it), from its memory effects.
/// An allocation creates memory nothing else names yet, so it counts as no access.
pub(super) fn access(ctx: &Context, op: Op) -> Access {
    let Some(effects) = ctx.memory_effects(op) else {
        return Access::Opaque;
    };
    let mut touches = effects.iter().filter(|e| e.kind != EffectKind::Allocate);
    match (touches.next(), touches.next()) {
        (None, _) => Access::None,
        // A prefetch reports a read: ordering it as one keeps it where it was put.
        (Some(effect), None) => match (effect.kind, effect.on) {
            (EffectKind::Read, Some(buffer)) => Access::Read(buffer),
            (EffectKind::Write, Some(buffer)) => Access::Write(buffer),
            _ => Access::Opaque,
        },
        _ => Access::Opaque,
    }
}

/// Whether `buffer` is scratch memory the kernel allocated itself (`loop.alloc`, local or
/// shared): such a buffer is distinct from every other buffer and is dead at the kernel's end.
pub(super) fn is_kernel_scratch(ctx: &Context, buffer: Value) -> bool {
    let Some(def) = ctx.defining_op(buffer) else {
        return false;
    };
    ctx.view::<AllocOp>(def).is_some()
        && matches!(
            dlc_loop::buffer_parts(ctx, ctx.value_type(buffer)),
            Some((_, _, MemorySpace::Local | MemorySpace::Shared))
        )
}

/// Whether `a` and `b` may name overlapping memory: the same value, or two buffers that are
/// not both distinct allocations (kernel arguments may be the same buffer passed twice).
pub(super) fn may_alias(ctx: &Context, a: Value, b: Value) -> bool {
    a == b || !(is_kernel_scratch(ctx, a) || is_kernel_scratch(ctx, b))
}

/// Whether `op` or an op nested in it may write memory that `buffer` names, or has an opaque
/// effect (a barrier makes other threads' writes visible).
pub(super) fn may_write(ctx: &Context, op: Op, buffer: Value) -> bool {
    let mut hit = false;
    ctx.for_each_op(op, &mut |o| {
        if hit {
            return;
        }
        hit = match access(ctx, o) {
            Access::Write(b) => may_alias(ctx, b, buffer),
            Access::Opaque => true,
            Access::Read(_) | Access::None => false,
        };
    });
    hit
}

/// Whether `block`'s only op is its terminator (or it has none).
pub(super) fn is_empty_block(ctx: &Context, block: dlc_ir::Block) -> bool {
    match ctx.first_op(block) {
        None => true,
        Some(first) => ctx.next_op(first).is_none() && ctx.has_trait(first, Traits::TERMINATOR),
    }
}
