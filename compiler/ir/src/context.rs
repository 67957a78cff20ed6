//! The context: owner of all IR storage and of the interners and dialect registry.
//!
//! Every entity lives in a dense arena here and is named by a `Copy` id, so passes hold ids rather
//! than references and the borrow checker never stands between a pass and the IR it rewrites.
//! Program order (which op follows which in a block) is an intrusive list inside the op records,
//! so inserting, erasing and moving an op is O(1).
//!
//! The interned tables and the dialect registry are shared (`Arc`) between a context and the
//! contexts [`Context::fork`]ed from it, which is how a pipeline runs functions on several
//! threads: each thread gets its own arenas, and types and attributes mean the same everywhere.

use crate::attributes::AttrKind;
use crate::dialect::Registry;
use crate::intern::{Ident, Interner};
use crate::ir::{BlockData, OpData, RegionData, ValueData};
use crate::location::CompositeLocKind;
use crate::types::{TypeKind, PREINTERNED};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The interned tables shared by a context and its forks.
pub(crate) struct Interned {
    pub(crate) idents: Interner<Box<str>>,
    pub(crate) types: Interner<TypeKind>,
    pub(crate) attrs: Interner<AttrKind>,
    pub(crate) locs: Interner<CompositeLocKind>,
    /// Set once an `affine_map` or `affine_set` attribute is interned: only then does the
    /// printer look for the attributes it names with aliases (`#map`).
    pub(crate) has_affine: std::sync::atomic::AtomicBool,
    /// The blobs of the builtin dialect's resources (`dense_resource<name>`), by name.
    pub(crate) resources: std::sync::Mutex<FxHashMap<Box<str>, std::sync::Arc<[u8]>>>,
}

/// Owns the IR; shares the interned types and attributes and the registered dialects with its
/// forks.
pub struct Context {
    pub(crate) interned: Arc<Interned>,
    pub(crate) ops: Vec<OpData>,
    pub(crate) blocks: Vec<BlockData>,
    pub(crate) regions: Vec<RegionData>,
    pub(crate) values: Vec<ValueData>,
    pub(crate) registry: Arc<Registry>,
    /// Lock-free front caches of the shared tables for this context's thread: strings and small
    /// attributes interned here before.
    ident_cache: FxHashMap<Box<str>, Ident>,
    pub(crate) attr_cache: FxHashMap<AttrKind, crate::Attribute>,
    /// Accept ops, types and attributes of dialects that are not registered (MLIR's
    /// `--allow-unregistered-dialect`).
    pub allow_unregistered: bool,
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl Context {
    /// A context with only the builtin dialect registered.
    pub fn new() -> Self {
        let interned = Interned {
            idents: Interner::new(),
            types: Interner::new(),
            attrs: Interner::new(),
            locs: Interner::new(),
            has_affine: Default::default(),
            resources: Default::default(),
        };
        for kind in PREINTERNED {
            interned.types.intern(kind);
        }
        let mut ctx = Context {
            interned: Arc::new(interned),
            ops: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
            values: Vec::new(),
            registry: Arc::new(Registry::default()),
            ident_cache: FxHashMap::default(),
            attr_cache: FxHashMap::default(),
            allow_unregistered: false,
        };
        ctx.register_dialect(crate::builtin::dialect());
        ctx
    }

    /// Interns a string.
    pub fn ident(&mut self, s: &str) -> Ident {
        if let Some(id) = self.ident_cache.get(s) {
            return *id;
        }
        let id = self.interned.idents.intern_str(s);
        self.ident_cache.insert(s.into(), id);
        id
    }

    /// The identifier for `s` if it was ever interned (never interns).
    pub fn find_ident(&self, s: &str) -> Option<Ident> {
        self.interned.idents.find(s).map(Ident::from_index)
    }

    /// The text of an identifier.
    #[inline]
    pub fn ident_str(&self, id: Ident) -> &str {
        self.interned.idents.get(id.index())
    }

    /// An empty context sharing this one's interned tables and registered dialects: IR built in
    /// it can be moved back with [`Context::transplant_op`], ids of types and attributes intact.
    pub fn fork(&self) -> Context {
        Context {
            interned: Arc::clone(&self.interned),
            ops: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
            values: Vec::new(),
            registry: Arc::clone(&self.registry),
            ident_cache: FxHashMap::default(),
            attr_cache: FxHashMap::default(),
            allow_unregistered: self.allow_unregistered,
        }
    }

    /// Reserves arena space for about `ops` more operations (and as many values).
    pub fn reserve(&mut self, ops: usize) {
        self.ops.reserve(ops);
        self.values.reserve(ops);
    }
}
