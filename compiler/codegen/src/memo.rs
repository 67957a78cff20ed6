//! Index arithmetic emitted once: a scoped table of the address computations a function has
//! already emitted where they dominate the builder's position.
//!
//! Every `loop.load` and `loop.store` linearizes its indices (`(i·D1 + j)·D2 + k`), and an
//! unrolled window or register tile repeats most of that arithmetic from one access to the next:
//! ppocr_det's quick modules held 13k index multiplications and additions among 46k
//! instructions, most of them recomputing a value of the line before. LLVM's `instcombine` then
//! spent its time merging them (the quick tier runs no CSE pass), and the first tier's machine
//! code recomputed what was left. [`Memo`] hands back the value already emitted instead.
//!
//! Reuse must respect dominance. The code generator emits structured control flow, so the table
//! is scoped like the regions it walks: a loop body or a branch of an `if` opens a scope
//! ([`Memo::open`]), and closing it forgets what was emitted inside, which does not dominate
//! the code after the loop or the `if`. What was emitted before the region in an enclosing
//! scope dominates everything inside it.

use inkwell::values::AsValueRef;
use inkwell::values::BasicValueEnum;
use rustc_hash::FxHashMap;

/// An emitted computation: the operation and its operands' LLVM values (as raw pointers, which
/// identify them within one function).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Key {
    /// `a · b` (`nsw`), operands ordered.
    Mul(usize, usize),
    /// `a + b` (`nsw`), operands ordered.
    Add(usize, usize),
    /// `sext x to i64`.
    Sext(usize),
    /// The address of element `linear` of elements of type `storage` at `base`.
    Element {
        base: usize,
        storage: usize,
        linear: usize,
    },
    /// The lanes of a padded vector load from column `last` inside a row of `dim` elements.
    ColumnMask { last: usize, dim: usize, lanes: u32 },
}

impl Key {
    /// The key of the commutative `a · b`.
    pub(crate) fn mul(a: &impl AsValueRef, b: &impl AsValueRef) -> Key {
        let (a, b) = ordered(a, b);
        Key::Mul(a, b)
    }

    /// The key of the commutative `a + b`.
    pub(crate) fn add(a: &impl AsValueRef, b: &impl AsValueRef) -> Key {
        let (a, b) = ordered(a, b);
        Key::Add(a, b)
    }
}

/// The raw address of a value, its identity in [`Key`].
pub(crate) fn id(v: &impl AsValueRef) -> usize {
    v.as_value_ref() as usize
}

fn ordered(a: &impl AsValueRef, b: &impl AsValueRef) -> (usize, usize) {
    let (a, b) = (id(a), id(b));
    (a.min(b), a.max(b))
}

/// The table: what each [`Key`] was emitted as, and the keys each open scope added.
#[derive(Default)]
pub(crate) struct Memo<'ctx> {
    values: FxHashMap<Key, BasicValueEnum<'ctx>>,
    /// Keys in the order they were added, so a closing scope removes its own.
    added: Vec<Key>,
    /// The length of `added` when each open scope began.
    scopes: Vec<usize>,
}

impl<'ctx> Memo<'ctx> {
    /// The value emitted for `key` where it dominates the current position, if any.
    pub(crate) fn get(&self, key: Key) -> Option<BasicValueEnum<'ctx>> {
        self.values.get(&key).copied()
    }

    /// Records that `key` was emitted as `value` at the current position.
    pub(crate) fn insert(&mut self, key: Key, value: BasicValueEnum<'ctx>) {
        if self.values.insert(key, value).is_none() {
            self.added.push(key);
        }
    }

    /// Opens a scope: a region whose code does not dominate what follows it.
    pub(crate) fn open(&mut self) {
        self.scopes.push(self.added.len());
    }

    /// Closes the innermost scope, forgetting what was emitted in it.
    pub(crate) fn close(&mut self) {
        let start = self.scopes.pop().unwrap_or(0);
        for key in self.added.drain(start..) {
            self.values.remove(&key);
        }
    }
}
