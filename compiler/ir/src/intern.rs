//! Interning: each distinct value is stored once and named by a dense id.
//!
//! Types, attributes, identifiers and complex locations are interned, so equality is an id
//! compare and a type costs four bytes wherever it is stored. `IndexSet` gives both directions at
//! once: value → id by hashing, id → value by indexing.

use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;
use std::hash::Hash;

/// A set of unique values addressed by insertion index.
pub(crate) struct Interner<T> {
    set: IndexSet<T, FxBuildHasher>,
}

impl<T: Hash + Eq> Interner<T> {
    pub(crate) fn new() -> Self {
        Self {
            set: IndexSet::with_hasher(FxBuildHasher),
        }
    }

    /// Returns the index of `value`, inserting it first if it is new.
    pub(crate) fn intern(&mut self, value: T) -> usize {
        self.set.insert_full(value).0
    }

    /// Returns the index of a value equal to `key` without inserting.
    pub(crate) fn find<Q>(&self, key: &Q) -> Option<usize>
    where
        Q: ?Sized + Hash + indexmap::Equivalent<T>,
    {
        self.set.get_index_of(key)
    }

    pub(crate) fn get(&self, index: usize) -> &T {
        &self.set[index]
    }
}

crate::entity::entity!(
    /// An interned string: op names, attribute names, symbol names, file names.
    Ident
);

impl Interner<Box<str>> {
    pub(crate) fn intern_str(&mut self, s: &str) -> Ident {
        if let Some(i) = self.find(s) {
            return Ident::from_index(i);
        }
        Ident::from_index(self.intern(s.into()))
    }
}
