//! A string-keyed table for the parser's hot lookups: SSA names in a region scope, op names.
//!
//! Parsing a large function is dominated by name lookups, and a `&str`-keyed hash map compares
//! keys by reading the source text they point into: a cache miss per lookup. Two layouts avoid
//! that:
//! - Names that are a prefix plus a decimal number (`%0`, `%arg3`, `%v123456` — what printers,
//!   mlir-opt included, produce) live in a dense vector per prefix, indexed by the number. Numbers
//!   come in order, so inserts append and lookups of recent values hit cache.
//! - Other names of up to 15 bytes are packed with their length into a `u128` key, so hashing
//!   and comparing stay inside the table; longer names use a plain `&str` map.

use rustc_hash::FxHashMap;

/// A map from names (`%x`, `arith.addi`) to `V`.
pub(crate) struct NameTable<'a, V> {
    /// Per packed prefix, values by number.
    numbered: Vec<(u128, Vec<Option<V>>)>,
    short: FxHashMap<u128, V>,
    long: FxHashMap<&'a str, V>,
    /// How many prefix-plus-number names were too sparse for `numbered` and went to `short`.
    spilled_numbered: usize,
}

/// How far past the end of a prefix's vector a number may land before the name is stored in the
/// hash map instead (keeps `%999999999` from allocating gigabytes).
const MAX_GAP: usize = 4096;

fn short_key(name: &str) -> Option<u128> {
    let b = name.as_bytes();
    if b.len() > 15 {
        return None;
    }
    let mut raw = [0u8; 16];
    raw[..b.len()].copy_from_slice(b);
    raw[15] = b.len() as u8;
    Some(u128::from_le_bytes(raw))
}

/// Splits `%v123` into the packed prefix `%v` and 123; `None` for other shapes (no digits,
/// leading zeros, more than 9 digits).
fn split_numbered(name: &str) -> Option<(u128, usize)> {
    let b = name.as_bytes();
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 9 || (digits > 1 && b[b.len() - digits] == b'0') {
        return None;
    }
    let number = b[b.len() - digits..]
        .iter()
        .fold(0usize, |n, d| n * 10 + (d - b'0') as usize);
    Some((short_key(&name[..name.len() - digits])?, number))
}

impl<'a, V: Copy> NameTable<'a, V> {
    pub(crate) fn new() -> Self {
        NameTable {
            numbered: Vec::new(),
            short: FxHashMap::default(),
            long: FxHashMap::default(),
            spilled_numbered: 0,
        }
    }

    fn prefix_slots(&mut self, prefix: u128) -> &mut Vec<Option<V>> {
        let i = match self.numbered.iter().position(|(p, _)| *p == prefix) {
            Some(i) => i,
            None => {
                self.numbered.push((prefix, Vec::new()));
                self.numbered.len() - 1
            }
        };
        &mut self.numbered[i].1
    }

    pub(crate) fn get(&self, name: &str) -> Option<V> {
        if let Some((prefix, n)) = split_numbered(name) {
            let slots = self
                .numbered
                .iter()
                .find(|(p, _)| *p == prefix)
                .map(|(_, s)| s);
            if let Some(v) = slots.and_then(|s| s.get(n).copied().flatten()) {
                return Some(v);
            }
            if self.spilled_numbered == 0 {
                return None;
            }
        }
        match short_key(name) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(name).copied(),
        }
    }

    /// Inserts `name`, returning the previous value.
    pub(crate) fn insert(&mut self, name: &'a str, v: V) -> Option<V> {
        if let Some((prefix, n)) = split_numbered(name) {
            let spilled = self.spilled_numbered;
            let slots = self.prefix_slots(prefix);
            if n < slots.len() + MAX_GAP {
                if n >= slots.len() {
                    slots.resize(n + 1, None);
                }
                let previous = slots[n].replace(v);
                if previous.is_some() || spilled == 0 {
                    return previous;
                }
                return short_key(name).and_then(|k| self.short.get(&k).copied());
            }
            self.spilled_numbered += 1;
        }
        match short_key(name) {
            Some(k) => self.short.insert(k, v),
            None => self.long.insert(name, v),
        }
    }
}
