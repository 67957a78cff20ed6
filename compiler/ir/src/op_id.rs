//! Process-wide ids of op names, so that a view ([`Context::view`](crate::Context::view)) or an
//! op set (`op_set!`) recognises an op by comparing two integers rather than two strings, as
//! MLIR's `isa<>` compares `TypeID`s.
//!
//! An id is handed out for the name of every registered op (when its dialect is registered)
//! and of every view type (when it is first asked for); names of unregistered ops that no view
//! names are never added, so text with arbitrary op names grows no table. An op whose name had
//! no id when it was created carries [`OpNameId::UNKNOWN`], and views compare its name as a
//! string, so which one came first never changes an answer.

use rustc_hash::FxHashMap;
use std::sync::{OnceLock, RwLock};

/// The id of an op name, the same in every context of the process.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct OpNameId(u32);

impl OpNameId {
    /// The id of an op whose name had none when the op was created.
    pub const UNKNOWN: OpNameId = OpNameId(u32::MAX);

    /// The id as a dense index (ids count up from 0).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of `name`, given one now if it has none.
    pub fn intern(name: &'static str) -> OpNameId {
        if let Some(id) = OpNameId::find(name) {
            return id;
        }
        let mut names = table().write().unwrap_or_else(|e| e.into_inner());
        let next = OpNameId(names.len() as u32);
        *names.entry(name).or_insert(next)
    }

    /// The id of `name` if it has one.
    pub fn find(name: &str) -> Option<OpNameId> {
        let names = table().read().unwrap_or_else(|e| e.into_inner());
        names.get(name).copied()
    }
}

fn table() -> &'static RwLock<FxHashMap<&'static str, OpNameId>> {
    static NAMES: OnceLock<RwLock<FxHashMap<&'static str, OpNameId>>> = OnceLock::new();
    NAMES.get_or_init(Default::default)
}
