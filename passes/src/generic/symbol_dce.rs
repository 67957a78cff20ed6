//! Erases private symbols (functions, globals) of a module that no live op references.
//!
//! # Applies when
//! A module carries helpers nobody calls any more: functions whose every call was inlined,
//! specializations replaced by others, library declarations pulled in wholesale. Removing them
//! shrinks the module every later pass walks and the code that is finally emitted.
//!
//! # Changes to the IR
//! Runs on a `builtin.module` and looks at the symbols directly in its body (ops with the
//! `SYMBOL` trait and a `sym_name`):
//! - Roots are the public symbols (no `sym_visibility`, or `"public"`), every op of the body that
//!   is not a symbol, and, when the module is nested in another op, symbols of `"nested"`
//!   visibility, which the enclosing symbol table may reference.
//! - A symbol is live if it is a root or a live op references it: any symbol-reference attribute
//!   (`@f`, or `@f::@g`, which makes `@f` live) of the op or of an op nested in it, also inside
//!   array, dictionary and dialect attributes.
//! - Every symbol that is not live is erased. Liveness is a fixpoint, so a private function
//!   called only from a dead private function goes too.
//!
//! # Risks and limitations
//! - References are matched by name against the module's own symbols, whatever symbol table
//!   they resolve in; a reference inside a nested module to a name the nested module also
//!   defines keeps the outer symbol alive too (conservative).
//! - Private symbols of nested symbol tables (a module inside the module) are not removed; run
//!   the pass on them with a nested pipeline.
//!
//! # Examples
//! 1. A private function only a dead private function calls:
//!    ```text
//!    func.func @main(%a: i32) -> i32 {
//!      return %a : i32
//!    }
//!    func.func private @dead(%a: i32) -> i32 {
//!      %0 = func.call @also_dead(%a) : (i32) -> i32
//!      return %0 : i32
//!    }
//!    func.func private @also_dead(%a: i32) -> i32 {
//!      return %a : i32
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @main(%arg0: i32) -> i32 {
//!      return %arg0 : i32
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. `func.func @api()` stays although nothing calls it: it is public, so code outside the
//!    module may.
//! 2. `func.func private @helper()` stays when a live op names it, even from an attribute of an
//!    unregistered op: `"t.op"() {fns = [@helper]} : () -> ()`.

use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::symbol::symbol_name;
use dlc_ir::{AttrKind, Attribute, Context, Diagnostic, Ident, Op, Traits};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "symbol-dce",
    summary: "Erases private symbols (functions, globals) of a module that no live op references.",
    anchor: Anchor::Op("builtin.module"),
    options: &[],
    statistics: &[("num-dce", "Number of symbols DCE'd")],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(SymbolDce))
}

struct SymbolDce;

impl Pass for SymbolDce {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let top_level: Vec<Op> = ctx
            .regions(module)
            .iter()
            .flat_map(|r| ctx.blocks(*r))
            .flat_map(|b| ctx.block_ops(*b))
            .collect();
        let live = live_symbols(ctx, module, &top_level);
        let mut erased = 0;
        for op in top_level {
            if is_symbol(ctx, op) && !live.contains(&op) {
                ctx.erase_op(op);
                erased += 1;
            }
        }
        run.add_stat("num-dce", erased);
        if erased == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The ops of the module body that must stay: roots and the symbols live ops reference.
fn live_symbols(ctx: &Context, module: Op, top_level: &[Op]) -> FxHashSet<Op> {
    let nested = ctx.parent_op(module).is_some();
    let mut by_name: FxHashMap<Ident, Op> = FxHashMap::default();
    let mut live = FxHashSet::default();
    let mut worklist = Vec::new();
    for &op in top_level {
        if is_symbol(ctx, op) {
            if let Some(name) = symbol_name(ctx, op).and_then(|n| ctx.find_ident(n)) {
                by_name.entry(name).or_insert(op);
            }
            if !is_discardable(ctx, op, nested) {
                live.insert(op);
                worklist.push(op);
            }
        } else {
            worklist.push(op);
        }
    }
    let mut refs = Vec::new();
    let mut seen_attrs = FxHashSet::default();
    while let Some(op) = worklist.pop() {
        ctx.for_each_op(op, &mut |o| {
            for a in ctx.attrs(o) {
                referenced_symbols(ctx, a.value, &mut seen_attrs, &mut refs);
            }
        });
        for name in refs.drain(..) {
            if let Some(&symbol) = by_name.get(&name) {
                if live.insert(symbol) {
                    worklist.push(symbol);
                }
            }
        }
    }
    live
}

/// True if `op` defines a symbol this pass may erase.
fn is_symbol(ctx: &Context, op: Op) -> bool {
    ctx.has_trait(op, Traits::SYMBOL) && symbol_name(ctx, op).is_some()
}

/// True if nothing outside the module can reference symbol `op`, so it may go when unused:
/// private, or `nested` in a top-level module (there is no enclosing table to see it).
fn is_discardable(ctx: &Context, op: Op, module_is_nested: bool) -> bool {
    let visibility = ctx
        .attr(op, "sym_visibility")
        .and_then(|a| ctx.attr_as_str(a));
    let hidden = match visibility {
        Some("private") => true,
        Some("nested") => !module_is_nested,
        _ => false,
    };
    hidden && ctx.num_results(op) == 0
}

/// Adds the root names of the symbol references in `attr` (recursively) to `out`. Containers
/// already searched are skipped: interned attributes are shared, and a large array referenced by
/// many ops is searched once.
fn referenced_symbols(
    ctx: &Context,
    attr: Attribute,
    seen: &mut FxHashSet<Attribute>,
    out: &mut Vec<Ident>,
) {
    match ctx.attr_kind(attr) {
        AttrKind::SymbolRef(path) => out.extend(path.first().copied()),
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
