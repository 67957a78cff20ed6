//! Memory effects as passes that move or remove ops need them: how one op touches memory
//! ([`Touch`], summed up from the op's own [`Context::memory_effects`]), which buffers may be
//! the same memory (kernel scratch and `loop.noalias` arguments are apart from the rest), and
//! whether a region of IR writes a buffer, stores to global memory a load may read, or
//! synchronizes threads.

use super::access::stored_buffer;
use crate::{buffer_parts, AllocOp, BarrierOp, KernelOp, MemorySpace};
use dlc_ir::{Context, EffectKind, Op, Value, ValueDef};

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

/// Whether `buffer` is an argument of its `loop.kernel` marked [`crate::NOALIAS`]: no other
/// argument of a launch shares its memory.
pub fn is_noalias_arg(ctx: &Context, buffer: Value) -> bool {
    let ValueDef::BlockArg { block, index } = ctx.value_def(buffer) else {
        return false;
    };
    ctx.block_parent_op(block)
        .and_then(|k| ctx.view::<KernelOp>(k))
        .is_some_and(|k| k.is_noalias(ctx, index as usize))
}

/// Whether `a` and `b` may name overlapping memory: the same value, or two buffers that are
/// neither a distinct allocation (kernel scratch) nor two arguments of the kernel of which one
/// is `loop.noalias` (without it a launch may pass one buffer for both).
pub fn may_alias(ctx: &Context, a: Value, b: Value) -> bool {
    if a == b {
        return true;
    }
    let noalias_args = is_kernel_arg(ctx, a)
        && is_kernel_arg(ctx, b)
        && (is_noalias_arg(ctx, a) || is_noalias_arg(ctx, b));
    !(is_kernel_scratch(ctx, a) || is_kernel_scratch(ctx, b) || noalias_args)
}

/// Whether `v` is an argument of a `loop.kernel` (an argument of its entry block).
fn is_kernel_arg(ctx: &Context, v: Value) -> bool {
    let ValueDef::BlockArg { block, .. } = ctx.value_def(v) else {
        return false;
    };
    ctx.block_parent_op(block)
        .is_some_and(|k| ctx.view::<KernelOp>(k).is_some())
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

/// Whether a store to the global buffer `stored` may change what a load of the global buffer
/// `loaded` reads: they [`may_alias`] and have one element type (a launch passes one buffer
/// only for arguments of its element type).
pub fn may_clobber(ctx: &Context, stored: Value, loaded: Value) -> bool {
    let elem = |b: Value| match buffer_parts(ctx, ctx.value_type(b)) {
        Some((_, e, MemorySpace::Global)) => Some(e),
        _ => None,
    };
    match (elem(stored), elem(loaded)) {
        (Some(s), Some(l)) => s == l && may_alias(ctx, stored, loaded),
        _ => false,
    }
}

/// The global buffers `op` or an op nested in it stores to, each once, in program order.
pub fn stored_globals(ctx: &Context, op: Op) -> Vec<Value> {
    let mut out = Vec::new();
    ctx.for_each_op(op, &mut |o| {
        let Some(buf) = stored_buffer(ctx, o) else {
            return;
        };
        let global = matches!(
            buffer_parts(ctx, ctx.value_type(buf)),
            Some((_, _, MemorySpace::Global))
        );
        if global && !out.contains(&buf) {
            out.push(buf);
        }
    });
    out
}

/// Whether `op` (or an op nested in it) stores to a global buffer that [`may_clobber`] the
/// global buffer `loaded`.
pub fn stores_global(ctx: &Context, op: Op, loaded: Value) -> bool {
    stored_globals(ctx, op)
        .into_iter()
        .any(|s| may_clobber(ctx, s, loaded))
}

/// Whether `op` is or contains a `loop.barrier`.
pub fn has_barrier(ctx: &Context, op: Op) -> bool {
    let mut found = false;
    ctx.for_each_op(op, &mut |o| found |= ctx.view::<BarrierOp>(o).is_some());
    found
}
