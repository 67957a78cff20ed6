//! Interning: each distinct value is stored once and named by a dense id.
//!
//! Types, attributes, identifiers and composite locations are interned, so equality is an id
//! compare and a type costs four bytes wherever it is stored. The tables are shared by every
//! context forked from one another (see [`Context::fork`](crate::Context::fork)), so ids mean the
//! same thing on every thread of a parallel pipeline: values live in an append-only vector whose
//! elements never move (reads take no lock), and a mutex guards only the hash index used to
//! find an existing value when interning.

use rustc_hash::FxHasher;
use smallvec::SmallVec;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

/// A set of unique values addressed by insertion index, safe to share between threads.
pub(crate) struct Interner<T> {
    items: boxcar::Vec<T>,
    /// Hash of a value → indices of the values with that hash.
    index: Mutex<rustc_hash::FxHashMap<u64, SmallVec<[u32; 1]>>>,
}

fn hash_of<Q: Hash + ?Sized>(value: &Q) -> u64 {
    let mut h = FxHasher::default();
    value.hash(&mut h);
    h.finish()
}

impl<T: Hash + Eq> Interner<T> {
    pub(crate) fn new() -> Self {
        Interner {
            items: boxcar::Vec::new(),
            index: Mutex::new(Default::default()),
        }
    }

    /// Returns the index of `value`, inserting it first if it is new.
    pub(crate) fn intern(&self, value: T) -> usize {
        let h = hash_of(&value);
        // A poisoned lock means a panic elsewhere mid-insert; the index is still consistent
        // (entries are pushed before they are indexed), so keep going.
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let ids = index.entry(h).or_default();
        if let Some(&id) = ids.iter().find(|&&id| self.items[id as usize] == value) {
            return id as usize;
        }
        let id = self.items.push(value);
        ids.push(id as u32);
        id
    }

    /// Returns the index of a value equal to `key` without inserting. `key` must hash like the
    /// stored type (as `str` does for `Box<str>`).
    pub(crate) fn find<Q>(&self, key: &Q) -> Option<usize>
    where
        Q: ?Sized + Hash,
        T: std::borrow::Borrow<Q>,
        Q: Eq,
    {
        let h = hash_of(key);
        let index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let ids = index.get(&h)?;
        ids.iter()
            .map(|id| *id as usize)
            .find(|&id| self.items[id].borrow() == key)
    }

    #[inline]
    pub(crate) fn get(&self, index: usize) -> &T {
        &self.items[index]
    }
}

crate::entity::entity!(
    /// An interned string: op names, attribute names, symbol names, file names.
    Ident
);

impl Interner<Box<str>> {
    pub(crate) fn intern_str(&self, s: &str) -> Ident {
        if let Some(i) = self.find(s) {
            return Ident::from_index(i);
        }
        Ident::from_index(self.intern(s.into()))
    }
}
