//! A simulated thread's values, held in dense slots rather than a hash map.
//!
//! The kernel interpreter reads an operand for nearly every op it runs and writes a result for
//! most, and hashing each `Value` was the largest part of its time. [`Slots`] numbers the values
//! a kernel defines (the arguments of every block in it and the results of every op) once per
//! launch; each thread's [`Env`] then holds its values in a vector indexed by that number,
//! shared numbering and all, so a thread's environment clones as one vector. [`Slots`] also
//! numbers the kernel's ops, for what the interpreter decodes once per op and launch.

use super::scalar::Val;
use dlc_ir::{Context, Op, Value};
use std::rc::Rc;

/// A kernel's numbering of its values: `slot[v.index() - base]` is `v`'s slot, or
/// [`Slots::NONE`] for a value the kernel does not define; and of its ops: op `o` of the kernel
/// is number `o.index() - op_base`, below `ops`.
pub(crate) struct Slots {
    base: usize,
    slot: Vec<u32>,
    len: usize,
    op_base: usize,
    ops: usize,
}

impl Slots {
    const NONE: u32 = u32::MAX;

    /// Numbers the block arguments and op results inside `kernel` (the kernel's own included).
    pub(crate) fn of_kernel(ctx: &Context, kernel: Op) -> Slots {
        let mut values = Vec::new();
        let (mut op_base, mut op_end) = (kernel.index(), kernel.index() + 1);
        ctx.for_each_op(kernel, &mut |op| {
            op_base = op_base.min(op.index());
            op_end = op_end.max(op.index() + 1);
            values.extend(ctx.results(op));
            for &r in ctx.regions(op) {
                for &b in ctx.blocks(r) {
                    values.extend_from_slice(ctx.block_args(b));
                }
            }
        });
        let base = values.iter().map(|v| v.index()).min().unwrap_or(0);
        let end = values.iter().map(|v| v.index() + 1).max().unwrap_or(base);
        let mut slot = vec![Self::NONE; end - base];
        for (n, v) in values.iter().enumerate() {
            slot[v.index() - base] = n as u32;
        }
        Slots {
            base,
            slot,
            len: values.len(),
            op_base,
            ops: op_end - op_base,
        }
    }

    /// The number of ops the kernel's op numbers range over.
    pub(crate) fn ops(&self) -> usize {
        self.ops
    }

    /// `op`'s number, for an op of the kernel.
    #[inline]
    pub(crate) fn op(&self, op: Op) -> Option<usize> {
        op.index()
            .checked_sub(self.op_base)
            .filter(|&n| n < self.ops)
    }

    #[inline]
    fn slot(&self, v: Value) -> Option<usize> {
        let s = *self.slot.get(v.index().checked_sub(self.base)?)?;
        (s != Self::NONE).then_some(s as usize)
    }
}

/// The values one thread holds, in the slots of its kernel's [`Slots`].
#[derive(Clone)]
pub(crate) struct Env {
    slots: Rc<Slots>,
    vals: Vec<Option<Val>>,
}

impl Env {
    /// An environment holding no value yet.
    pub(crate) fn new(slots: Rc<Slots>) -> Env {
        let vals = vec![None; slots.len];
        Env { slots, vals }
    }

    /// `v`'s value, if it has one.
    #[inline]
    pub(crate) fn get(&self, v: Value) -> Option<&Val> {
        self.vals[self.slots.slot(v)?].as_ref()
    }

    /// Gives `v` the value `val`. A value the kernel does not define has no slot and keeps no
    /// value: reading it later is the interpreter's "used before definition" error.
    #[inline]
    pub(crate) fn insert(&mut self, v: Value, val: Val) {
        if let Some(s) = self.slots.slot(v) {
            self.vals[s] = Some(val);
        }
    }

    /// Takes `v`'s value away.
    pub(crate) fn remove(&mut self, v: Value) {
        if let Some(s) = self.slots.slot(v) {
            self.vals[s] = None;
        }
    }
}
