//! Erases private symbols (functions, globals) of a module that no live op references.
//!
//! # Applies when
//! A module carries helpers nobody calls any more: functions whose every call was inlined,
//! specializations replaced by others, library declarations pulled in wholesale. Removing them
//! shrinks the module every later pass walks and the code that is finally emitted.
//!
//! # Changes to the IR
//! Runs on a `builtin.module` and follows MLIR's `symbol-dce`, nested symbol tables included:
//! - A symbol table is *hidden* when nothing outside it can name its symbols: the module the
//!   pass runs on (unless it is nested in another op and not private: under
//!   `builtin.module(builtin.module(symbol-dce))` a public or `nested` module keeps its `nested`
//!   symbols), and a nested table that is in a hidden one or is private. Modules count as
//!   symbols (an anonymous one is public).
//! - In each table, roots are the ops that are not symbols (ops with the `SYMBOL` trait and a
//!   `sym_name`) and the symbols that may not be discarded: public ones (no `sym_visibility`, or
//!   `"public"`), those of `"nested"` visibility in a table that is not hidden, and symbols with
//!   results.
//! - A symbol is live if it is a root or a live op references it: any symbol-reference attribute
//!   of the op or of an op nested in it (not looking into nested symbol tables, whose liveness
//!   is computed in their own scope once they are live, nor at their own attributes), also
//!   inside array, dictionary and dialect attributes. A reference resolves in the symbol table directly around the op;
//!   `@a::@b` makes `@a` and `@b` in it live. A reference to an unknown name is ignored.
//! - Every symbol that is not live, in the module or in a table nested in it, is erased.
//!   Liveness is a fixpoint, so a private function called only from a dead private function
//!   goes too, and so does a private nested module with everything in it.
//!
//! # Risks and limitations
//! - An op of an unregistered dialect with one region, in a live op or at top level, may be a
//!   symbol table whose uses cannot be known: the pass fails with MLIR's error ("operation
//!   contains potentially unknown symbol table, ...") rather than guess.
//! - As in MLIR, a reference to a symbol of an enclosing table from inside a nested table
//!   resolves only in the nested table and does not keep the outer symbol alive.

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
//! 3. `func.func @f()` in `module @m` (public) stays: public symbols of a public nested module
//!    can be named from outside (test/mlir-compat/symbol-dce-nested.mlir).

use dlc_ir::builtin::ModuleOp;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::symbol::{referenced_symbols, SymbolTables};
use dlc_ir::{Attribute, Context, Diagnostic, Ident, Op, Traits};
use rustc_hash::FxHashSet;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "symbol-dce",
    summary: "Erases private symbols (functions, globals) of a module that no live op references.",
    anchor: Anchor::op::<ModuleOp>(),
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
        let hidden = !run.is_nested() || visibility(ctx, module) == Some("private");
        let mut live = FxHashSet::default();
        compute_liveness(ctx, &mut SymbolTables::new(), module, hidden, &mut live)?;
        let mut tables = Vec::new();
        ctx.for_each_op(module, &mut |op| {
            if ctx.has_trait(op, Traits::SYMBOL_TABLE) {
                tables.push(op);
            }
        });
        let mut erased = 0;
        for table in tables {
            if !ctx.is_alive(table) {
                continue;
            }
            for op in body(ctx, table) {
                if is_symbol(ctx, op) && !live.contains(&op) {
                    ctx.erase_op(op);
                    erased += 1;
                }
            }
        }
        run.add_stat("num-dce", erased);
        if erased == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The ops directly in the regions of `op`.
fn body(ctx: &Context, op: Op) -> Vec<Op> {
    ctx.regions(op)
        .iter()
        .flat_map(|r| ctx.blocks(*r))
        .flat_map(|b| ctx.block_ops(*b))
        .collect()
}

/// Adds the live symbols of symbol table `table` (and of the tables nested in it that are
/// live) to `live`. `hidden`: nothing outside `table` can name its symbols. An error when a
/// live op holds an op of an unregistered dialect with one region, which may be a symbol table
/// whose uses cannot be known (MLIR's message, spelling included).
fn compute_liveness(
    ctx: &Context,
    tables: &mut SymbolTables,
    table: Op,
    hidden: bool,
    live: &mut FxHashSet<Op>,
) -> Result<(), Diagnostic> {
    let mut worklist = Vec::new();
    for op in body(ctx, table) {
        // Non-symbols are roots; symbols that may not be discarded are live roots.
        let root = !is_symbol(ctx, op) || (!is_discardable(ctx, op, hidden) && live.insert(op));
        if root {
            worklist.push(op);
        }
    }
    let mut refs = Vec::new();
    let mut seen_attrs = FxHashSet::default();
    while let Some(op) = worklist.pop() {
        if ctx.has_trait(op, Traits::SYMBOL_TABLE) {
            let private = visibility(ctx, op) == Some("private");
            let inner_hidden = hidden || !is_symbol(ctx, op) || private;
            compute_liveness(ctx, tables, op, inner_hidden, live)?;
        } else {
            for inner in body(ctx, op) {
                if !ctx.regions(inner).is_empty() {
                    worklist.push(inner);
                }
            }
        }
        let Some(parent) = ctx
            .parent_op(op)
            .filter(|&p| ctx.has_trait(p, Traits::SYMBOL_TABLE))
        else {
            continue;
        };
        symbol_uses(ctx, op, &mut seen_attrs, &mut refs).map_err(|unknown| {
            Diagnostic::error(
                ctx.op_loc(unknown),
                "operation contains potentially unknown symbol table, meaning that we can't \
                 reliable compute symbol uses",
            )
        })?;
        for path in refs.drain(..) {
            for symbol in resolve(ctx, tables, parent, &path) {
                if live.insert(symbol) {
                    worklist.push(symbol);
                }
            }
        }
    }
    Ok(())
}

/// The symbol references held by `op` and the ops nested in it, as MLIR collects them: a
/// symbol table (and everything in it, its own attributes included) opens a new scope and
/// holds none. `Err` names an op of an unregistered dialect with one region: it may be a symbol
/// table, so the uses cannot be known.
fn symbol_uses(
    ctx: &Context,
    op: Op,
    seen: &mut FxHashSet<Attribute>,
    out: &mut Vec<Vec<Ident>>,
) -> Result<(), Op> {
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        if ctx.has_trait(o, Traits::SYMBOL_TABLE) {
            continue;
        }
        if ctx.op_def(o).is_none() && ctx.regions(o).len() == 1 {
            return Err(o);
        }
        for a in ctx.attrs(o) {
            referenced_symbols(ctx, a.value, seen, out);
        }
        stack.extend(body(ctx, o));
    }
    Ok(())
}

/// The symbols reference `path` names, resolved in `table`: the root, then each nested name
/// inside the previous symbol. Empty when a name is unknown.
fn resolve(ctx: &Context, tables: &mut SymbolTables, table: Op, path: &[Ident]) -> Vec<Op> {
    let mut found = Vec::new();
    let mut scope = table;
    for &name in path {
        let Some(symbol) = tables
            .lookup(ctx, scope, name)
            .filter(|&op| is_symbol(ctx, op))
        else {
            return Vec::new();
        };
        found.push(symbol);
        scope = symbol;
    }
    found
}

/// True if `op` is a symbol this pass may erase: an op with the `SYMBOL` trait, or a module
/// (MLIR's modules are symbols whose name is optional; an anonymous one is public).
fn is_symbol(ctx: &Context, op: Op) -> bool {
    ctx.has_trait(op, Traits::SYMBOL) || ctx.view::<ModuleOp>(op).is_some()
}

/// The `sym_visibility` of `op`, if it has one.
fn visibility(ctx: &Context, op: Op) -> Option<&str> {
    ctx.attr(op, "sym_visibility")
        .and_then(|a| ctx.attr_as_str(a))
}

/// True if symbol `op` may go when nothing references it: private, or `nested` in a hidden
/// table (nothing outside can name it), and without results.
fn is_discardable(ctx: &Context, op: Op, table_hidden: bool) -> bool {
    let discardable = match visibility(ctx, op) {
        Some("private") => true,
        Some("nested") => table_hidden,
        _ => false,
    };
    discardable && ctx.num_results(op) == 0
}
