//! The loop dialect's op interfaces: [`MemoryAccess`] (which buffer element an op reads or
//! writes) and the loop ops' implementations of the core interfaces
//! ([`dlc_ir::MemoryEffects`], [`dlc_ir::LoopLike`]).
//!
//! Passes, interpreters and backends ask these instead of naming `loop.load` and
//! `loop.store`: an op that reads a buffer element (a downstream dialect's own load) works
//! with every pass that reads its [`Access`] once it implements [`MemoryAccess`].

use dlc_ir::{Block, Context, Effect, EffectKind, LoopLike, MemoryEffects, Op, Value};

/// What an access does to the element it names.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AccessKind {
    /// Reads the element (or vector); the op's result is the value read.
    Read,
    /// Writes the element (or vector) with a value operand.
    Write,
    /// Announces a read soon (`loop.prefetch`): touches no data, but is ordered as a read.
    Prefetch,
}

/// One access to a buffer: which buffer, at which indices, and how many lanes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Access<'a> {
    pub kind: AccessKind,
    /// The buffer accessed.
    pub buffer: Value,
    /// One index per buffer dim; the last is the first lane's for a vector access.
    pub indices: &'a [Value],
    /// The value read (the op's result) or written (its operand); `None` for a prefetch.
    pub value: Option<Value>,
    /// Contiguous elements along the last dim: 1 for a scalar access.
    pub lanes: u32,
    /// The value a padded read (`loop.load_padded`, `loop.vload_padded`) gives for an
    /// element whose indices fall outside the buffer, where no memory is read. `None` for
    /// every other access, whose indices must be in bounds.
    pub padding: Option<Value>,
}

/// An op that reads or writes elements of a buffer at indices (MLIR's affine
/// `AffineReadOpInterface` / `AffineWriteOpInterface` in one).
pub trait MemoryAccess: Sync {
    /// The access `op` makes, or `None` when the op is malformed (too few operands): the
    /// answer is only trusted on verified IR, but asking never panics.
    fn access<'a>(&self, ctx: &'a Context, op: Op) -> Option<Access<'a>>;
}

/// The access `op` makes, if it implements [`MemoryAccess`].
pub fn access(ctx: &Context, op: Op) -> Option<Access<'_>> {
    ctx.interface::<dyn MemoryAccess>(op)?.access(ctx, op)
}

/// The access of the loop dialect's load, store and prefetch ops: the buffer is operand
/// `buffer_at`, the indices follow it, a write's value is operand 0; a padded read's padding
/// value is its last operand.
pub(crate) struct BufferAccess {
    kind: AccessKind,
    buffer_at: usize,
    padded: bool,
}

pub(crate) const LOAD: BufferAccess = BufferAccess {
    kind: AccessKind::Read,
    buffer_at: 0,
    padded: false,
};
pub(crate) const PADDED_LOAD: BufferAccess = BufferAccess {
    kind: AccessKind::Read,
    buffer_at: 0,
    padded: true,
};
pub(crate) const VLOAD: BufferAccess = LOAD;
pub(crate) const STORE: BufferAccess = BufferAccess {
    kind: AccessKind::Write,
    buffer_at: 1,
    padded: false,
};
pub(crate) const VSTORE: BufferAccess = STORE;
pub(crate) const PREFETCH: BufferAccess = BufferAccess {
    kind: AccessKind::Prefetch,
    buffer_at: 0,
    padded: false,
};

impl MemoryAccess for BufferAccess {
    fn access<'a>(&self, ctx: &'a Context, op: Op) -> Option<Access<'a>> {
        let operands = ctx.operands(op);
        let value = match self.kind {
            AccessKind::Read => ctx.results(op).next(),
            AccessKind::Write => operands.first().copied(),
            AccessKind::Prefetch => None,
        };
        let lanes = value
            .and_then(|v| ctx.shape(ctx.value_type(v)))
            .and_then(|shape| shape.first().copied())
            .map_or(1, |n| u32::try_from(n).unwrap_or(1));
        let (indices, padding) = if self.padded {
            let (padding, rest) = operands.split_last()?;
            (rest.get(self.buffer_at + 1..)?, Some(*padding))
        } else {
            (operands.get(self.buffer_at + 1..)?, None)
        };
        Some(Access {
            kind: self.kind,
            buffer: *operands.get(self.buffer_at)?,
            indices,
            value,
            lanes,
            padding,
        })
    }
}

impl MemoryEffects for BufferAccess {
    fn effects(&self, ctx: &Context, op: Op, out: &mut Vec<Effect>) {
        let kind = match self.kind {
            AccessKind::Write => EffectKind::Write,
            // A prefetch reads nothing, but ordering it as a read keeps it where it was put.
            AccessKind::Read | AccessKind::Prefetch => EffectKind::Read,
        };
        // A malformed op (no buffer operand) may touch anything.
        out.push(Effect {
            kind,
            on: ctx.operands(op).get(self.buffer_at).copied(),
        });
    }
}

/// No memory effect of the op itself: structured control flow (its nested ops report their
/// own) and collectives that only exchange registers.
pub(crate) struct NoEffects;

impl MemoryEffects for NoEffects {
    fn effects(&self, _: &Context, _: Op, _: &mut Vec<Effect>) {}
}

/// `loop.alloc`: creates the buffer it returns.
pub(crate) struct Allocates;

impl MemoryEffects for Allocates {
    fn effects(&self, ctx: &Context, op: Op, out: &mut Vec<Effect>) {
        out.push(Effect {
            kind: EffectKind::Allocate,
            on: ctx.results(op).next(),
        });
    }
}

/// `loop.read_size`: reads its one operand, a buffer a kernel wrote, so it stays after that
/// kernel's launch and is not merged with another read across one.
pub(crate) struct ReadsOperand;

impl MemoryEffects for ReadsOperand {
    fn effects(&self, ctx: &Context, op: Op, out: &mut Vec<Effect>) {
        // A malformed op (no operand) may read anything.
        out.push(Effect {
            kind: EffectKind::Read,
            on: ctx.operands(op).first().copied(),
        });
    }
}

/// `loop.barrier`: makes every thread's writes visible, so it orders like a read and a write
/// of any memory.
pub(crate) struct Synchronizes;

impl MemoryEffects for Synchronizes {
    fn effects(&self, _: &Context, _: Op, out: &mut Vec<Effect>) {
        out.extend([EffectKind::Read, EffectKind::Write].map(|kind| Effect { kind, on: None }));
    }
}

/// `loop.for` as a [`LoopLike`]: operands lower, upper, step; the body's one argument is the
/// induction variable.
pub(crate) struct ForLoop;

impl LoopLike for ForLoop {
    // Only asked of verified loops, whose body and operands the verifier checked.
    fn induction_var(&self, ctx: &Context, op: Op) -> Value {
        ctx.block_args(self.body(ctx, op))[0]
    }

    fn bounds(&self, ctx: &Context, op: Op) -> [Value; 3] {
        [0, 1, 2].map(|i| ctx.operand(op, i))
    }

    fn body(&self, ctx: &Context, op: Op) -> Block {
        ctx.blocks(ctx.regions(op)[0])[0]
    }
}
