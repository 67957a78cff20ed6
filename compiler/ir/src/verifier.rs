//! The verifier: structural rules every op obeys, then each op's own rules.
//!
//! Structural rules: registered ops only (unless allowed), operand/result/region counts, trait
//! rules (terminators last, same-type ops, parents, single blocks, symbols), successors in the
//! same region, SSA dominance in SSACFG regions, isolation from above, unique symbols, and
//! symbol uses. Ops are stamped in visiting order as the walk reaches them, so dominance inside a block is an
//! integer compare, and dominator trees are only built for regions with cross-block uses.

use crate::diagnostics::Diagnostic;
use crate::dialect::{Arity, OpDef, Traits};
use crate::dominance::RegionDominators;
use crate::ir::{Block, Op, Region, Value, ValueDef};
use crate::symbol::{symbol_name, SymbolTables};
use crate::Context;
use rustc_hash::FxHashMap;

/// Checks `root` and everything nested in it; returns the first violation.
pub fn verify(ctx: &Context, root: Op) -> Result<(), Diagnostic> {
    let mut v = Verifier {
        ctx,
        position: vec![u32::MAX; ctx.ops.len()],
        next_stamp: 0,
        doms: FxHashMap::default(),
        symbol_users: Vec::new(),
        symbol_tables_entered: 0,
    };
    v.verify_op(root)?;
    let mut tables = SymbolTables::new();
    for op in std::mem::take(&mut v.symbol_users) {
        if let Some(check) = ctx.op_def(op).and_then(|d| d.verify_symbols) {
            check(ctx, op, &mut tables)?;
        }
    }
    Ok(())
}

/// An error about `op`, phrased as MLIR does: `'name' op message`.
pub fn op_error(ctx: &Context, op: Op, message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::error(
        ctx.op_loc(op),
        format!("'{}' op {message}", ctx.op_name(op)),
    )
}

struct Verifier<'a> {
    ctx: &'a Context,
    /// Visiting order of each op (`u32::MAX` until the walk reaches it): within one block an
    /// op reached earlier comes earlier, so a definition dominates a same-block use exactly when
    /// its stamp is smaller.
    position: Vec<u32>,
    next_stamp: u32,
    doms: FxHashMap<Region, RegionDominators>,
    symbol_users: Vec<Op>,
    /// Symbol-table ops (modules) enclosing the op being verified, within the verified root.
    /// Symbol uses are checked only under one, as MLIR checks them from the module: a function
    /// verified on its own (in a forked context) cannot see its callees.
    symbol_tables_entered: u32,
}

fn count_text(arity: Arity, what: &str) -> String {
    match arity {
        Arity::Exact(n) => format!("{n} {what}{}", if n == 1 { "" } else { "s" }),
        Arity::AtLeast(n) => format!("at least {n} {what}s"),
    }
}

impl<'a> Verifier<'a> {
    fn verify_op(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        self.position[op.index()] = self.next_stamp;
        self.next_stamp += 1;
        let def = ctx.op_def(op);
        match def {
            None if !ctx.allow_unregistered => {
                return Err(Diagnostic::error(
                    ctx.op_loc(op),
                    format!("unregistered operation '{}'", ctx.op_name(op)),
                ));
            }
            None => {}
            Some(def) => {
                let (n_operands, n_results, n_regions) = (
                    ctx.operands(op).len(),
                    ctx.num_results(op),
                    ctx.regions(op).len(),
                );
                if !def.operands.accepts(n_operands) {
                    return Err(op_error(
                        ctx,
                        op,
                        format!(
                            "expected {}, but found {n_operands}",
                            count_text(def.operands, "operand")
                        ),
                    ));
                }
                if !def.results.accepts(n_results) {
                    return Err(op_error(
                        ctx,
                        op,
                        format!(
                            "expected {}, but found {n_results}",
                            count_text(def.results, "result")
                        ),
                    ));
                }
                if !def.regions.accepts(n_regions) {
                    return Err(op_error(
                        ctx,
                        op,
                        format!(
                            "expected {}, but found {n_regions}",
                            count_text(def.regions, "region")
                        ),
                    ));
                }
                self.verify_traits(op, def.traits, def.parents)?;
                if def.verify_symbols.is_some() && self.symbol_tables_entered > 0 {
                    self.symbol_users.push(op);
                }
            }
        }
        for (i, &v) in ctx.operands(op).iter().enumerate() {
            self.verify_operand(op, i, v)?;
        }
        let parent_region = ctx.op_block(op).and_then(|b| ctx.block_parent(b));
        for &succ in ctx.successors(op) {
            if ctx.block_parent(succ).is_none() || ctx.block_parent(succ) != parent_region {
                return Err(op_error(
                    ctx,
                    op,
                    "reference to block defined in another region",
                ));
            }
        }
        let traits = ctx.traits(op);
        let table = u32::from(traits.contains(Traits::SYMBOL_TABLE));
        self.symbol_tables_entered += table;
        for &region in ctx.regions(op) {
            self.verify_region(op, region, traits, def.is_some())?;
        }
        self.symbol_tables_entered -= table;
        if let Some(def) = def {
            verify_typed_attrs(ctx, op, def)?;
        }
        if let Some(verify) = def.and_then(|d| d.verify) {
            verify(ctx, op)?;
        }
        if traits.contains(Traits::SYMBOL_TABLE) {
            self.verify_unique_symbols(op)?;
        }
        Ok(())
    }

    fn verify_traits(&self, op: Op, traits: Traits, parents: &[&str]) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        if traits.contains(Traits::SAME_OPERANDS_AND_RESULT_TYPE) {
            let mut types = ctx
                .operands(op)
                .iter()
                .map(|v| ctx.value_type(*v))
                .chain(ctx.results(op).map(|v| ctx.value_type(v)));
            if let Some(first) = types.next() {
                if types.any(|t| t != first) {
                    return Err(op_error(
                        ctx,
                        op,
                        "requires the same type for all operands and results",
                    ));
                }
            }
        }
        if traits.contains(Traits::TERMINATOR)
            && ctx.op_block(op).is_some()
            && ctx.next_op(op).is_some()
        {
            return Err(op_error(
                ctx,
                op,
                "must be the last operation in the parent block",
            ));
        }
        // A root (an op with no parent, such as a function being transformed in a forked
        // context) has no parent to check.
        if !parents.is_empty() && ctx.parent_op(op).is_some() {
            let parent = ctx.parent_op(op).map(|p| ctx.op_name(p));
            if !parent.is_some_and(|p| parents.contains(&p)) {
                let list = parents
                    .iter()
                    .map(|p| format!("'{p}'"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let msg = if parents.len() == 1 {
                    format!("expects parent op {list}")
                } else {
                    format!("expects parent op to be one of {list}")
                };
                return Err(op_error(ctx, op, msg));
            }
        }
        if traits.contains(Traits::SYMBOL) && symbol_name(ctx, op).is_none() {
            return Err(op_error(ctx, op, "requires string attribute 'sym_name'"));
        }
        if traits.contains(Traits::SINGLE_BLOCK) {
            for (i, r) in ctx.regions(op).iter().enumerate() {
                if ctx.blocks(*r).len() > 1 {
                    return Err(op_error(
                        ctx,
                        op,
                        format!("expects region #{i} to have 0 or 1 blocks"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn verify_region(
        &mut self,
        op: Op,
        region: Region,
        traits: Traits,
        registered: bool,
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let blocks = ctx.blocks(region);
        if let Some(&entry) = blocks.first() {
            if traits.contains(Traits::ISOLATED_FROM_ABOVE) || !registered {
                // Entry blocks may have arguments; nothing may branch to them.
            }
            for &b in blocks {
                for op2 in ctx.block_ops(b) {
                    if ctx.successors(op2).contains(&entry) {
                        return Err(op_error(
                            ctx,
                            op2,
                            "entry block of a region may not be a successor",
                        ));
                    }
                }
            }
        }
        // MLIR's order: an empty block is reported on entry, the ops of a block are verified
        // before its missing terminator is reported.
        let needs_terminator = registered && !traits.contains(Traits::NO_TERMINATOR);
        for &block in blocks {
            let Some(last) = ctx.last_op(block) else {
                if needs_terminator {
                    return Err(Diagnostic::error(
                        ctx.op_loc(op),
                        "empty block: expect at least a terminator",
                    ));
                }
                continue;
            };
            for o in ctx.block_ops(block) {
                self.verify_op(o)?;
            }
            if needs_terminator
                && ctx.op_def(last).is_some()
                && !ctx.has_trait(last, Traits::TERMINATOR)
            {
                return Err(Diagnostic::error(
                    ctx.op_loc(last),
                    format!("block with no terminator, has '{}'", ctx.op_name(last)),
                ));
            }
        }
        Ok(())
    }

    /// Checks that operand `i` of `user` is visible and dominates it.
    fn verify_operand(&mut self, user: Op, i: usize, v: Value) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let def_block = match ctx.value_def(v) {
            ValueDef::Placeholder => {
                return Err(op_error(
                    ctx,
                    user,
                    format!("operand #{i} is an unresolved forward reference"),
                ))
            }
            ValueDef::Result { op, .. } if !ctx.is_alive(op) => {
                return Err(op_error(
                    ctx,
                    user,
                    format!("operand #{i} uses a value of an erased op"),
                ));
            }
            _ => ctx.value_block(v),
        };
        let Some(def_block) = def_block else {
            return Err(op_error(
                ctx,
                user,
                format!("operand #{i} is defined by a detached op"),
            ));
        };
        // Walk up from the user until we reach the block that defines the value.
        let mut cur = user;
        loop {
            let Some(block) = ctx.op_block(cur) else {
                return Err(self.dominance_error(user, i, v));
            };
            if block == def_block {
                return self.check_order(user, i, v, cur);
            }
            let region = ctx.block_parent(block);
            if let Some(region) = region.filter(|r| ctx.block_parent(def_block) == Some(*r)) {
                // Same region, different blocks: CFG dominance.
                if self.region_is_graph(region) || self.dominates(region, def_block, block) {
                    return Ok(());
                }
                return Err(self.dominance_error(user, i, v));
            }
            let Some(parent) = ctx.parent_op(cur) else {
                return Err(self.dominance_error(user, i, v));
            };
            if ctx.has_trait(parent, Traits::ISOLATED_FROM_ABOVE) {
                let mut d = op_error(ctx, user, "using value defined outside the region")
                    .with_note(
                        ctx.op_loc(parent),
                        "required by region isolation constraints",
                    );
                if let Some(def) = ctx.defining_op(v) {
                    d = d.with_note(ctx.op_loc(def), "value defined here");
                }
                return Err(d);
            }
            cur = parent;
        }
    }

    /// `anchor` (the user or its ancestor) is in the same block as `v`'s definition.
    fn check_order(&self, user: Op, i: usize, v: Value, anchor: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let Some(def) = ctx.defining_op(v) else {
            return Ok(());
        };
        let block = ctx.op_block(anchor).expect("anchor is in a block");
        let graph = ctx
            .block_parent(block)
            .is_some_and(|r| self.region_is_graph(r));
        if graph || self.position[def.index()] < self.position[anchor.index()] {
            return Ok(());
        }
        if def == anchor && anchor != user {
            // A value used inside the regions of its own defining op.
            return Err(self.dominance_error(user, i, v));
        }
        Err(self.dominance_error(user, i, v))
    }

    fn dominance_error(&self, user: Op, i: usize, v: Value) -> Diagnostic {
        let ctx = self.ctx;
        let d = op_error(
            ctx,
            user,
            format!("operand #{i} does not dominate this use"),
        );
        let Some(def) = ctx.defining_op(v) else {
            return d;
        };
        // Where the definition sits relative to the user, worded as MLIR's note does.
        let (use_block, def_block) = (ctx.op_block(user), ctx.op_block(def));
        let (use_region, def_region) = (
            use_block.and_then(|b| ctx.block_parent(b)),
            def_block.and_then(|b| ctx.block_parent(b)),
        );
        let place = if use_block == def_block {
            "op in the same block"
        } else if use_region == def_region {
            "op in the same region"
        } else if def_region.is_some_and(|r| self.region_encloses(r, user)) {
            "op in a parent region"
        } else if use_region.is_some_and(|r| self.region_encloses(r, def)) {
            "op in a child region"
        } else {
            "op is neither in a parent nor in a child region"
        };
        d.with_note(ctx.op_loc(def), format!("operand defined here ({place})"))
    }

    /// True if `op` is nested (at any depth) in `region`.
    fn region_encloses(&self, region: Region, op: Op) -> bool {
        let ctx = self.ctx;
        let mut cur = Some(op);
        while let Some(o) = cur {
            if ctx.op_block(o).and_then(|b| ctx.block_parent(b)) == Some(region) {
                return true;
            }
            cur = ctx.parent_op(o);
        }
        false
    }

    fn region_is_graph(&self, region: Region) -> bool {
        self.ctx
            .region_parent(region)
            .is_some_and(|p| self.ctx.has_trait(p, Traits::GRAPH_REGION))
    }

    fn dominates(&mut self, region: Region, a: Block, b: Block) -> bool {
        let ctx = self.ctx;
        self.doms
            .entry(region)
            .or_insert_with(|| RegionDominators::compute(ctx, region))
            .dominates(a, b)
    }

    fn verify_unique_symbols(&self, table: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let mut seen: FxHashMap<&str, Op> = FxHashMap::default();
        for &region in ctx.regions(table) {
            for &block in ctx.blocks(region) {
                for op in ctx.block_ops(block) {
                    let Some(name) = symbol_name(ctx, op) else {
                        continue;
                    };
                    if let Some(prev) = seen.insert(name, op) {
                        return Err(Diagnostic::error(
                            ctx.op_loc(op),
                            format!("redefinition of symbol named '{name}'"),
                        )
                        .with_note(ctx.op_loc(prev), "see existing symbol definition here"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Every inherent attribute declared with a Rust type (`attributes = [axis: i64]` in
/// [`define_op!`](crate::define_op)) is present and of that kind, in the form its syntax writes
/// (an `f64` attribute for an `f64`), as MLIR's ODS attribute constraints are checked before an
/// op's own verifier.
fn verify_typed_attrs(ctx: &Context, op: Op, def: &OpDef) -> Result<(), Diagnostic> {
    for (name, syntax) in def.inherent_attrs.iter().zip(def.attr_syntax) {
        let Some(syntax) = syntax else { continue };
        if !ctx.attr(op, name).is_some_and(|a| (syntax.accepts)(ctx, a)) {
            let what = syntax.description;
            return Err(op_error(
                ctx,
                op,
                format!("requires {what} attribute '{name}'"),
            ));
        }
    }
    Ok(())
}
