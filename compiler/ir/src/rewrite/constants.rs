//! Constant uniquing for the greedy driver (the part of MLIR's `OperationFolder` it uses).
//!
//! Each time the driver seeds its worklist it walks the IR and shows every constant to a
//! [`ConstantTable`]: the first constant of a given op, value and type in an insertion region is
//! kept and hoisted to the start of that region's entry block; later ones are replaced by it.
//! The insertion region is the nearest enclosing region whose op is isolated from above (or
//! unregistered, or top-level), so constants end up where every op of the function can use
//! them, once each — which is what makes the output of `canonicalize` canonical.
//!
//! Hoisting follows MLIR exactly: a constant is moved to the front of the entry block unless it
//! already is at the front, or directly follows a constant the table kept. So constants that
//! were already grouped at the top stay in order, and MLIR and dlc print the same text.

use super::rewriter::Rewriter;
use crate::attributes::Attribute;
use crate::dialect::Traits;
use crate::intern::Ident;
use crate::ir::{Block, InsertPoint, Op, Region};
use crate::location::Location;
use crate::types::Type;
use crate::Context;
use rustc_hash::{FxHashMap, FxHashSet};

/// What [`ConstantTable::insert`] did with an op.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Known {
    /// Not a constant-like op with a `value`.
    NotConstant,
    /// Kept (and hoisted if needed).
    Kept,
    /// Replaced by an equal constant and erased.
    Replaced,
}

/// The constants kept so far in one seeding walk, by insertion region, op, value and type.
pub(crate) struct ConstantTable {
    kept: FxHashMap<(Region, Ident, Attribute, Type), Op>,
    owned: FxHashSet<Op>,
    value_name: Option<Ident>,
    /// Constants replaced by an equal one, over the table's life.
    pub(crate) deduplicated: u64,
    /// Constants moved to the top of their region, over the table's life.
    pub(crate) hoisted: u64,
}

impl ConstantTable {
    pub(crate) fn new(value_name: Option<Ident>) -> Self {
        ConstantTable {
            kept: FxHashMap::default(),
            owned: FxHashSet::default(),
            value_name,
            deduplicated: 0,
            hoisted: 0,
        }
    }

    /// Forgets every constant (before a new seeding walk).
    pub(crate) fn clear(&mut self) {
        self.kept.clear();
        self.owned.clear();
    }

    /// Keeps and hoists `op` if it is the first constant of its kind in its insertion region,
    /// else replaces it by the one kept.
    pub(crate) fn insert(&mut self, rewriter: &mut Rewriter<'_>, op: Op) -> Known {
        let ctx = rewriter.ctx();
        if !ctx.has_trait(op, Traits::CONSTANT_LIKE) || ctx.num_results(op) != 1 {
            return Known::NotConstant;
        }
        let Some(value) = self.value_name.and_then(|n| ctx.attr_by_id(op, n)) else {
            return Known::NotConstant;
        };
        let Some(block) = ctx.op_block(op) else {
            return Known::NotConstant;
        };
        let Some(region) = insertion_region(ctx, block) else {
            return Known::NotConstant;
        };
        let key = (
            region,
            ctx.op_name_id(op),
            value,
            ctx.value_type(ctx.result(op, 0)),
        );
        let entry = ctx.blocks(region)[0];
        let in_place = block == entry
            && (ctx.first_op(entry) == Some(op)
                || ctx.prev_op(op).is_some_and(|p| self.owned.contains(&p)));
        if let Some(&existing) = self.kept.get(&key) {
            if existing != op && ctx.is_alive(existing) {
                let with = ctx.result(existing, 0);
                rewriter.replace_op(op, &[with]);
                // The survivor now stands for both; neither location is right (MLIR does this).
                rewriter.ctx_mut().set_op_loc(existing, Location::Unknown);
                self.deduplicated += 1;
                return Known::Replaced;
            }
        }
        if !in_place {
            // Not reported as an insertion: the seeding walk queues the op itself.
            rewriter.ctx_mut().move_op(op, InsertPoint::Start(entry));
            self.hoisted += 1;
        }
        self.kept.insert(key, op);
        self.owned.insert(op);
        Known::Kept
    }
}

/// The region whose entry block receives the constants used in `block`.
fn insertion_region(ctx: &Context, block: Block) -> Option<Region> {
    let mut region = ctx.block_parent(block)?;
    loop {
        let Some(parent) = ctx.region_parent(region) else {
            return Some(region);
        };
        let isolated =
            ctx.op_def(parent).is_none() || ctx.has_trait(parent, Traits::ISOLATED_FROM_ABOVE);
        let outer = ctx.op_block(parent).and_then(|b| ctx.block_parent(b));
        match outer {
            Some(outer) if !isolated => region = outer,
            _ => return Some(region),
        }
    }
}
