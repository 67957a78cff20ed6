//! Symbol tables: name → op maps for ops like `builtin.module` that hold named symbols.
//!
//! Symbols are referenced by name (`@f`), not by value, so lookups go through the nearest
//! enclosing symbol table. [`SymbolTables`] caches one map per table op, so verifying a million
//! calls costs a million hash lookups rather than a million scans. [`referenced_symbols`] finds
//! the references an attribute holds, nested ones included.

use crate::attributes::{AttrKind, Attribute};
use crate::dialect::Traits;
use crate::intern::Ident;
use crate::ir::Op;
use crate::Context;
use rustc_hash::{FxHashMap, FxHashSet};

/// A cache of the symbol maps of symbol-table ops.
#[derive(Default)]
pub struct SymbolTables {
    tables: FxHashMap<Op, FxHashMap<Ident, Op>>,
}

impl SymbolTables {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The symbol `name` defined directly in the region of `table`.
    pub fn lookup(&mut self, ctx: &Context, table: Op, name: Ident) -> Option<Op> {
        self.tables
            .entry(table)
            .or_insert_with(|| symbol_map(ctx, table))
            .get(&name)
            .copied()
    }

    /// Resolves a flat reference `name` from `from`: looked up in the nearest enclosing symbol
    /// table only, as in MLIR.
    pub fn resolve(&mut self, ctx: &Context, from: Op, name: Ident) -> Option<Op> {
        let mut cur = ctx.parent_op(from);
        while let Some(op) = cur {
            if ctx.has_trait(op, Traits::SYMBOL_TABLE) {
                return self.lookup(ctx, op, name);
            }
            cur = ctx.parent_op(op);
        }
        None
    }
}

/// The name of a symbol op (its `sym_name` attribute).
pub fn symbol_name(ctx: &Context, op: Op) -> Option<&str> {
    ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a))
}

fn symbol_map(ctx: &Context, table: Op) -> FxHashMap<Ident, Op> {
    let mut map = FxHashMap::default();
    for &region in ctx.regions(table) {
        for &block in ctx.blocks(region) {
            for op in ctx.block_ops(block) {
                if let Some(name) = symbol_name(ctx, op).and_then(|n| ctx.find_ident(n)) {
                    map.entry(name).or_insert(op);
                }
            }
        }
    }
    map
}

/// Adds the symbol references in `attr` (recursively) to `out`, as paths of names. Containers
/// already searched are skipped: interned attributes are shared, and a large array referenced by
/// many ops is searched once.
pub fn referenced_symbols(
    ctx: &Context,
    attr: Attribute,
    seen: &mut FxHashSet<Attribute>,
    out: &mut Vec<Vec<Ident>>,
) {
    match ctx.attr_kind(attr) {
        AttrKind::SymbolRef(path) => out.push(path.to_vec()),
        AttrKind::Array(elements)
        | AttrKind::Dialect {
            params: elements, ..
        } if seen.insert(attr) => {
            for &e in elements.iter() {
                referenced_symbols(ctx, e, seen, out);
            }
        }
        AttrKind::Dict(entries) if seen.insert(attr) => {
            for e in entries.iter() {
                referenced_symbols(ctx, e.value, seen, out);
            }
        }
        _ => {}
    }
}
