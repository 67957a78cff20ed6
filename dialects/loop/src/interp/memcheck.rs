//! The shadow state that makes the simulation strict about scratch memory: which elements of a
//! `shared` or `local` buffer have been written (reading one that has not gives [`Poison`],
//! where a GPU would return garbage, and using poison is an error), and, for `shared` buffers,
//! which threads touched each element since the last barrier (two threads touching it, at least
//! one writing, is a data race).
//!
//! A barrier interval is numbered by [`Machine::interval`](super::exec::Machine), which the grid
//! scheduler advances whenever it releases a `loop.barrier` or `loop.block_reduce` (every
//! expansion of a block reduction holds barriers). An element's record belongs to one interval
//! and is forgotten in the next. Accesses of one thread never race with each other; the
//! interpreter's own collectives (warp and block reductions) are not memory accesses here.

use super::exec::{op_err, Machine, Thread};
use crate::MemorySpace;
use dlc_ir::{Diagnostic, Op, Printer};

/// A poison value: one read from a scratch element never written. Reading it is allowed (a GPU
/// returns garbage, which code may discard, as a `arith.select` of it does); pure ops propagate
/// it; any other use — a store, an address, a condition or bound, a collective's operand — is an
/// error there.
#[derive(Clone, Debug)]
pub(crate) struct Poison {
    /// The load that read it.
    load: Op,
    /// The buffer's `loop.alloc`.
    alloc: Op,
    /// "element [i] of the buffer ...", with a hint for shared buffers.
    what: String,
}

/// The shadow state of one scratch buffer (a kernel's `loop.alloc`).
pub(crate) struct Scratch {
    /// The `loop.alloc` that made it.
    alloc: Op,
    /// Whether each element has been written.
    init: Vec<bool>,
    /// `shared` buffers: each element's accesses in its interval (empty for `local` ones).
    touches: Vec<Touches>,
}

/// The accesses of one shared element within one barrier interval: its writer and up to two
/// distinct readers (enough to find a reader other than any given writer), each a thread's
/// linear index and the op.
#[derive(Copy, Clone, Default)]
struct Touches {
    interval: u64,
    writer: Option<(usize, Op)>,
    readers: [Option<(usize, Op)>; 2],
}

impl Scratch {
    /// A buffer of `len` elements, none written yet.
    pub(crate) fn new(alloc: Op, space: MemorySpace, len: usize) -> Self {
        let touches = if space == MemorySpace::Shared {
            vec![Touches::default(); len]
        } else {
            Vec::new()
        };
        Scratch {
            alloc,
            init: vec![false; len],
            touches,
        }
    }
}

impl Machine<'_> {
    /// Checks a read by `th` (at `op`) of element `at` of buffer `id`, and records it. An
    /// element never written gives poison: where it came from, for the error at its first use.
    pub(crate) fn check_read(
        &mut self,
        th: &Thread,
        op: Op,
        id: usize,
        at: usize,
    ) -> Result<Option<Poison>, Diagnostic> {
        let Some(scratch) = id
            .checked_sub(self.n_global)
            .and_then(|i| self.scratch.get(i))
        else {
            return Ok(None);
        };
        let poison = if scratch.init.get(at).copied().unwrap_or(false) {
            None
        } else {
            let why = if scratch.touches.is_empty() {
                ""
            } else {
                " (no thread has written it; another thread's write must come before a 'loop.barrier' that precedes the read)"
            };
            Some(Poison {
                load: op,
                alloc: scratch.alloc,
                what: format!("{}{why}", self.describe(id, at)),
            })
        };
        let Some(t) = self.touches(id, at) else {
            return Ok(poison);
        };
        if let Some((w, wop)) = t.writer.filter(|&(w, _)| w != th.linear) {
            return Err(self.race(th, op, id, at, "reads", (w, wop, "writes")));
        }
        let me = Some((th.linear, op));
        match t.readers {
            [None, _] => t.readers[0] = me,
            [Some((r, _)), None] if r != th.linear => t.readers[1] = me,
            _ => {}
        }
        Ok(poison)
    }

    /// The error for `th` using, at `op`, the poison value `p`.
    pub(crate) fn poison_use(&self, th: &Thread, op: Op, p: &Poison) -> Diagnostic {
        let ctx = self.ctx;
        op_err(
            ctx,
            op,
            format!(
                "thread {:?} uses a value read from uninitialised {}",
                th.tid, p.what
            ),
        )
        .with_note(ctx.op_loc(p.load), "read here")
        .with_note(ctx.op_loc(p.alloc), "the buffer is allocated here")
    }

    /// Checks a write by `th` (at `op`) of element `at` of buffer `id`, and records it.
    pub(crate) fn check_write(
        &mut self,
        th: &Thread,
        op: Op,
        id: usize,
        at: usize,
    ) -> Result<(), Diagnostic> {
        let Some(scratch) = id
            .checked_sub(self.n_global)
            .and_then(|i| self.scratch.get_mut(i))
        else {
            return Ok(());
        };
        if let Some(bit) = scratch.init.get_mut(at) {
            *bit = true;
        }
        let Some(t) = self.touches(id, at) else {
            return Ok(());
        };
        let other = |a: &Option<(usize, Op)>| a.filter(|&(u, _)| u != th.linear);
        if let Some((w, wop)) = other(&t.writer) {
            return Err(self.race(th, op, id, at, "writes", (w, wop, "writes")));
        }
        if let Some((r, rop)) = t.readers.iter().find_map(other) {
            return Err(self.race(th, op, id, at, "writes", (r, rop, "reads")));
        }
        t.writer = Some((th.linear, op));
        Ok(())
    }

    /// The current interval's record of element `at` of shared buffer `id` (`None` for other
    /// buffers), reset when it belongs to an earlier interval.
    fn touches(&mut self, id: usize, at: usize) -> Option<&mut Touches> {
        let interval = self.interval;
        let t = self
            .scratch
            .get_mut(id - self.n_global)?
            .touches
            .get_mut(at)?;
        if t.interval != interval {
            *t = Touches {
                interval,
                ..Touches::default()
            };
        }
        Some(t)
    }

    /// The data race between `th`'s access at `op` and `other` (a thread's linear index, its
    /// op and what it did), reported at `op` with a note at the other access.
    fn race(
        &self,
        th: &Thread,
        op: Op,
        id: usize,
        at: usize,
        does: &str,
        (other, other_op, did): (usize, Op, &str),
    ) -> Diagnostic {
        let what = self.describe(id, at);
        let other_tid = self.thread_id(other);
        op_err(
            self.ctx,
            op,
            format!(
                "data race on {what} in block {:?}: thread {:?} {does} it and thread {other_tid:?} {did} it with no 'loop.barrier' between",
                self.block_id, th.tid
            ),
        )
        .with_note(
            self.ctx.op_loc(other_op),
            format!("thread {other_tid:?} {did} it here"),
        )
    }

    /// "element [i, j] of the shared buffer !loop.buffer<...>".
    fn describe(&self, id: usize, at: usize) -> String {
        let buf = &self.mem[id];
        let mut index = vec![0usize; buf.rank()];
        let mut rest = at;
        for (slot, &n) in index.iter_mut().zip(buf.shape()).rev() {
            *slot = rest % n.max(1);
            rest /= n.max(1);
        }
        let ty = self.scratch.get(id - self.n_global).map(|s| {
            let ty = self.ctx.value_type(self.ctx.result(s.alloc, 0));
            Printer::new(self.ctx).type_to_string(ty)
        });
        format!("element {index:?} of the buffer {}", ty.unwrap_or_default())
    }

    /// The thread id (x, y, z) of the thread with linear index `linear` in the block.
    pub(crate) fn thread_id(&self, linear: usize) -> [i64; 3] {
        let [bx, by, _] = self.launch.block;
        let l = linear as i64;
        [l % bx, (l / bx) % by, l / (bx * by)]
    }
}
