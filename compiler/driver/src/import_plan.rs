//! What an ONNX import learned about a model, kept in the model cache so that a warm compile
//! loads the lowered module without importing the model again.
//!
//! The model cache's key for an import is the model file's hash and the import options,
//! including the values of the graph inputs the import had to specialize (`onnx.rs`). Which
//! inputs those are is known only after an import; so is how the function's arguments map to
//! the graph inputs, and the import's notes for the user. An [`ImportPlan`] holds them under a
//! key made without the specialized values ([`crate::model_cache::facts_key`]): a warm compile
//! reads the plan, takes the specialized inputs' values from the given inputs, and asks the
//! model cache for the module that key names.
//!
//! The payload is little-endian and length-prefixed: a format number, then the fields in the
//! order of [`ImportPlan`]'s, each string as a `u32` byte count and UTF-8, each list as a `u32`
//! count and its items. A payload that does not decode (a dlc bug, or a file edited by hand) is
//! reported, deleted and rebuilt by the next import.

use crate::byte_reader::Reader;
use dlc_codegen::{EntryKind, KernelCache, Key, Lookup};

/// Bumped when the payload's layout changes.
const PLAN_FORMAT: u32 = 2;

/// What an import of one model under one set of options learned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ImportPlan {
    /// The function the compiled model runs.
    pub entry: String,
    /// Whether the imported module is graph-level (it picks the default pipeline).
    pub graph_level: bool,
    /// The graph inputs the import specialized on their given values, in the import's order.
    pub specialized: Vec<String>,
    /// For each argument of the function, the index of its ONNX graph input.
    pub arguments: Vec<usize>,
    /// The ONNX graph inputs, in order.
    pub graph_inputs: Vec<String>,
    /// The ONNX graph outputs, in order.
    pub graph_outputs: Vec<String>,
    /// The import's notes for the user.
    pub notes: Vec<String>,
}

impl ImportPlan {
    /// The plan stored under `key`; `None` on a miss. A corrupted or undecodable entry is
    /// deleted and reported in `notes`.
    pub fn load(cache: &KernelCache, key: &Key, notes: &mut Vec<String>) -> Option<ImportPlan> {
        let bytes = match cache.get(EntryKind::Model, key) {
            Lookup::Hit(bytes) => bytes,
            Lookup::Miss => return None,
            Lookup::Corrupt(why) => {
                notes.push(format!("discarded a corrupted import entry: {why}"));
                return None;
            }
        };
        let plan = ImportPlan::decode(&bytes);
        if plan.is_none() {
            cache.remove(EntryKind::Model, key);
            notes.push(format!(
                "discarded an import entry that does not decode: {}",
                cache.entry_path(EntryKind::Model, key).display()
            ));
        }
        plan
    }

    /// Stores the plan under `key`; a failure is reported in `notes`.
    pub fn store(&self, cache: &KernelCache, key: &Key, notes: &mut Vec<String>) {
        if let Err(e) = cache.put(EntryKind::Model, key, &self.encode()) {
            notes.push(format!("could not store the import entry: {e}"));
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = PLAN_FORMAT.to_le_bytes().to_vec();
        put_str(&mut out, &self.entry);
        out.push(u8::from(self.graph_level));
        put_strs(&mut out, &self.specialized);
        put_len(&mut out, self.arguments.len());
        for &a in &self.arguments {
            put_len(&mut out, a);
        }
        put_strs(&mut out, &self.graph_inputs);
        put_strs(&mut out, &self.graph_outputs);
        put_strs(&mut out, &self.notes);
        out
    }

    fn decode(bytes: &[u8]) -> Option<ImportPlan> {
        let mut r = Reader(bytes);
        if r.u32()? != PLAN_FORMAT {
            return None;
        }
        let entry = r.string()?;
        let graph_level = match r.take(1)? {
            [0] => false,
            [1] => true,
            _ => return None,
        };
        let specialized = r.strings()?;
        let arguments = (0..r.u32()?)
            .map(|_| r.u32().map(|a| a as usize))
            .collect::<Option<Vec<_>>>()?;
        let graph_inputs = r.strings()?;
        let graph_outputs = r.strings()?;
        let notes = r.strings()?;
        let plan = ImportPlan {
            entry,
            graph_level,
            specialized,
            arguments,
            graph_inputs,
            graph_outputs,
            notes,
        };
        let inputs = plan.graph_inputs.len();
        let consistent = r.is_empty()
            && plan.arguments.iter().all(|&a| a < inputs)
            && plan
                .specialized
                .iter()
                .all(|s| plan.graph_inputs.contains(s));
        consistent.then_some(plan)
    }
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    // Lengths past u32 cannot occur: names, notes and input counts of one ONNX model.
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_strs(out: &mut Vec<u8>, items: &[String]) {
    put_len(out, items.len());
    for s in items {
        put_str(out, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> ImportPlan {
        ImportPlan {
            entry: "main".into(),
            graph_level: true,
            specialized: vec!["shape".into()],
            arguments: vec![0, 2],
            graph_inputs: vec!["x".into(), "shape".into(), "y".into()],
            graph_outputs: vec!["out".into()],
            notes: vec!["specialized input 'shape'\non its value".into()],
        }
    }

    #[test]
    fn round_trips() {
        assert_eq!(ImportPlan::decode(&plan().encode()), Some(plan()));
    }

    #[test]
    fn rejects_every_truncation_and_trailing_bytes() {
        let bytes = plan().encode();
        for n in 0..bytes.len() {
            assert_eq!(ImportPlan::decode(&bytes[..n]), None, "truncated to {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(ImportPlan::decode(&longer), None);
    }

    #[test]
    fn rejects_arguments_past_the_graph_inputs() {
        let mut bad = plan();
        bad.arguments.push(3);
        assert_eq!(ImportPlan::decode(&bad.encode()), None);
        let mut bad = plan();
        bad.specialized.push("z".into());
        assert_eq!(ImportPlan::decode(&bad.encode()), None);
    }

    #[test]
    fn loads_what_it_stored_and_deletes_what_does_not_decode() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let cache = KernelCache::new(dir.path());
        let key = dlc_codegen::KeyHasher::new().field("t", b"plan").finish();
        let mut notes = Vec::new();
        assert_eq!(ImportPlan::load(&cache, &key, &mut notes), None);
        plan().store(&cache, &key, &mut notes);
        assert_eq!(ImportPlan::load(&cache, &key, &mut notes), Some(plan()));
        cache
            .put(EntryKind::Model, &key, b"not a plan")
            .expect("stored");
        assert_eq!(ImportPlan::load(&cache, &key, &mut notes), None);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(matches!(cache.get(EntryKind::Model, &key), Lookup::Miss));
    }
}
