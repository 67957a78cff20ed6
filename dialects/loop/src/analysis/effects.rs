//! Memory effects as passes that move or remove ops need them: how one op touches memory
//! ([`Touch`], summed up from the op's own [`Context::memory_effects`]), which buffers may be
//! the same memory, and whether a region of IR writes a buffer, stores to global memory or
//! synchronizes threads.

use super::access::stored_buffer;
use crate::{buffer_parts, AllocOp, BarrierOp, MemorySpace};
use dlc_ir::{Context, EffectKind, Op, Value};

/// How an op touches memory: one buffer read or written, nothing, or anything.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Touch {
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

/// How `op` alone (not the ops nested in it) touches memory, from its memory effects. An
/// allocation creates memory nothing else names yet, so it counts as no access.
pub fn touch(ctx: &Context, op: Op) -> Touch {
    let Some(effects) = ctx.memory_effects(op) else {
        return Touch::Opaque;
    };
    let mut touches = effects.iter().filter(|e| e.kind != EffectKind::Allocate);
    match (touches.next(), touches.next()) {
        (None, _) => Touch::None,
        // A prefetch reports a read: ordering it as one keeps it where it was put.
        (Some(effect), None) => match (effect.kind, effect.on) {
            (EffectKind::Read, Some(buffer)) => Touch::Read(buffer),
            (EffectKind::Write, Some(buffer)) => Touch::Write(buffer),
            _ => Touch::Opaque,
        },
        _ => Touch::Opaque,
    }
}

/// Whether `buffer` is scratch memory the kernel allocated itself (`loop.alloc`, local or
/// shared): such a buffer is distinct from every other buffer and is dead at the kernel's end.
pub fn is_kernel_scratch(ctx: &Context, buffer: Value) -> bool {
    let Some(def) = ctx.defining_op(buffer) else {
        return false;
    };
    ctx.view::<AllocOp>(def).is_some()
        && matches!(
            buffer_parts(ctx, ctx.value_type(buffer)),
            Some((_, _, MemorySpace::Local | MemorySpace::Shared))
        )
}

/// Whether `a` and `b` may name overlapping memory: the same value, or two buffers that are
/// not both distinct allocations (kernel arguments may be the same buffer passed twice).
pub fn may_alias(ctx: &Context, a: Value, b: Value) -> bool {
    a == b || !(is_kernel_scratch(ctx, a) || is_kernel_scratch(ctx, b))
}

/// Whether `op` or an op nested in it may write memory that `buffer` names, or has an opaque
/// effect (a barrier makes other threads' writes visible).
pub fn may_write(ctx: &Context, op: Op, buffer: Value) -> bool {
    let mut hit = false;
    ctx.for_each_op(op, &mut |o| {
        if hit {
            return;
        }
        hit = match touch(ctx, o) {
            Touch::Write(b) => may_alias(ctx, b, buffer),
            Touch::Opaque => true,
            Touch::Read(_) | Touch::None => false,
        };
    });
    hit
}

/// Whether `op` (or an op nested in it) stores to a global buffer whose element type is `elem`
/// (any element type when `None`): such a buffer may be the same memory as another global
/// kernel argument of that type, since a launch may pass one buffer twice.
pub fn stores_global(ctx: &Context, op: Op, elem: Option<dlc_ir::Type>) -> bool {
    let mut found = false;
    ctx.for_each_op(op, &mut |o| {
        let Some(buf) = stored_buffer(ctx, o) else {
            return;
        };
        if let Some((_, e, MemorySpace::Global)) = buffer_parts(ctx, ctx.value_type(buf)) {
            found |= elem.is_none_or(|want| want == e);
        }
    });
    found
}

/// Whether `op` is or contains a `loop.barrier`.
pub fn has_barrier(ctx: &Context, op: Op) -> bool {
    let mut found = false;
    ctx.for_each_op(op, &mut |o| found |= ctx.view::<BarrierOp>(o).is_some());
    found
}
