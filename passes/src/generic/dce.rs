//! Erases pure ops whose results are unused, and blocks that cannot be reached from their
//! region's entry.
//!
//! # Applies when
//! Other rewrites leave dead code behind: a folded or CSE'd op's operands may lose their last
//! user, inlining copies a callee's whole body although the caller uses one result, lowering
//! materializes constants and index arithmetic that end up unused, and branch folding leaves
//! blocks nothing jumps to. Dead ops cost compile time in every later pass and, if they survive
//! to code generation, run time.
//!
//! # Changes to the IR
//! - Every block of a multi-block region that is not reachable from the entry block through
//!   successor edges is erased with everything in it (uses between unreachable blocks are dropped
//!   first).
//! - An op is erased when it has no side effects (it and every op nested in it are `PURE`), all
//!   its results are unused, and it is not a terminator. Erasing it may leave its operands'
//!   producers unused; they are revisited, so chains of dead ops go in one run (a worklist, linear
//!   in the size of the IR).
//!
//! Ops with side effects (`func.call`, unregistered ops) and terminators are never erased, and
//! nothing else changes: block arguments, successors and live ops stay as they are.
//!
//! # Risks and limitations
//! - Dead block arguments are kept, and so are the values that feed them through branches: a
//!   loop-carried value nobody reads survives (MLIR's region simplification in `canonicalize`
//!   removes it; this pass does not change block signatures).
//! - An op with regions counts as side-effect free only if every nested op is `PURE`; an
//!   unregistered terminator inside keeps it.
//!
//! # Examples
//! 1. A chain of unused arithmetic:
//!    ```text
//!    func.func @chain(%a: i32) -> i32 {
//!      %0 = arith.addi %a, %a : i32
//!      %1 = arith.muli %0, %0 : i32
//!      return %a : i32
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @chain(%arg0: i32) -> i32 {
//!      return %arg0 : i32
//!    }
//!    ```
//! 2. An unreachable block:
//!    ```text
//!    func.func @unreachable(%a: i32) -> i32 {
//!      "t.br"()[^bb2] : () -> ()
//!    ^bb1:
//!      "t.side_effect"() : () -> ()
//!      "t.br"()[^bb2] : () -> ()
//!    ^bb2:
//!      return %a : i32
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @unreachable(%arg0: i32) -> i32 {
//!      "t.br"()[^bb1] : () -> ()
//!    ^bb1:  // pred: ^bb0
//!      return %arg0 : i32
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. `%r = func.call @f(%a) : (i32) -> i32` with `%r` unused stays: the callee may have side
//!    effects, and a call is not `PURE`.
//! 2. `"t.op"() : () -> ()` stays: an unregistered op may do anything.

use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Block, Context, Diagnostic, Op, Region, Traits};
use rustc_hash::FxHashSet;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "dce",
    summary: "Erases pure ops whose results are unused, and blocks that cannot be reached from \
              their region's entry.",
    anchor: Anchor::Any,
    options: &[],
    statistics: &[
        ("ops-erased", "Number of dead operations erased"),
        ("blocks-erased", "Number of unreachable blocks erased"),
    ],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(Dce))
}

struct Dce;

impl Pass for Dce {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let root = run.op();
        let blocks = erase_unreachable_blocks(ctx, root);
        let ops = erase_dead_ops(ctx, root);
        run.add_stat("blocks-erased", blocks);
        run.add_stat("ops-erased", ops);
        if blocks == 0 && ops == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// Erases the unreachable blocks of every multi-block region in `op`, outer regions first (so
/// regions inside erased blocks are not visited). Returns how many blocks went.
fn erase_unreachable_blocks(ctx: &mut Context, op: Op) -> u64 {
    let mut erased = 0;
    for region in ctx.regions(op).to_vec() {
        if ctx.blocks(region).len() > 1 {
            erased += erase_unreachable_in(ctx, region);
        }
        for block in ctx.blocks(region).to_vec() {
            let mut cur = ctx.first_op(block);
            while let Some(inner) = cur {
                cur = ctx.next_op(inner);
                if !ctx.regions(inner).is_empty() {
                    erased += erase_unreachable_blocks(ctx, inner);
                }
            }
        }
    }
    erased
}

/// Erases the blocks of `region` not reachable from its entry.
fn erase_unreachable_in(ctx: &mut Context, region: Region) -> u64 {
    let blocks = ctx.blocks(region).to_vec();
    let reachable = reachable_blocks(ctx, blocks[0]);
    let dead: Vec<Block> = blocks
        .into_iter()
        .filter(|b| !reachable.contains(b))
        .collect();
    if dead.is_empty() {
        return 0;
    }
    // Values of one dead block may be used in another: drop every use inside dead blocks before
    // erasing any of them.
    let mut dead_ops = Vec::new();
    for &b in &dead {
        for op in ctx.block_ops(b) {
            ctx.for_each_op(op, &mut |o| dead_ops.push(o));
        }
    }
    for &op in &dead_ops {
        ctx.set_operands(op, &[]);
    }
    // Valid IR has no other uses (a dead block dominates nothing reachable); if some remain, the
    // blocks stay rather than leave dangling uses.
    let used_outside = dead_ops
        .iter()
        .any(|&op| ctx.results(op).any(|v| !ctx.is_unused(v)))
        || dead
            .iter()
            .any(|&b| ctx.block_args(b).iter().any(|v| !ctx.is_unused(*v)));
    if used_outside {
        return 0;
    }
    for &b in &dead {
        ctx.erase_block(b);
    }
    dead.len() as u64
}

/// The blocks reachable from `entry` through successor edges.
fn reachable_blocks(ctx: &Context, entry: Block) -> FxHashSet<Block> {
    let mut seen = FxHashSet::default();
    seen.insert(entry);
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        if let Some(term) = ctx.last_op(b) {
            for &s in ctx.successors(term) {
                if seen.insert(s) {
                    stack.push(s);
                }
            }
        }
    }
    seen
}

/// Erases trivially dead ops in `root` until none is left. Returns how many went (ops nested in
/// an erased op are not counted).
fn erase_dead_ops(ctx: &mut Context, root: Op) -> u64 {
    // Pre-order, popped from the back: users (later ops, nested ops) come off before the ops
    // that define their operands.
    let mut worklist = Vec::new();
    ctx.for_each_op(root, &mut |op| {
        if op != root {
            worklist.push(op);
        }
    });
    let mut erased = 0;
    let mut producers = Vec::new();
    while let Some(op) = worklist.pop() {
        if !ctx.is_alive(op) || !is_trivially_dead(ctx, op) {
            continue;
        }
        // Every value the op (or an op inside it) reads may lose its last use.
        ctx.for_each_op(op, &mut |o| {
            producers.extend(ctx.operands(o).iter().filter_map(|v| ctx.defining_op(*v)));
        });
        ctx.erase_op(op);
        erased += 1;
        for p in producers.drain(..) {
            if p != root && ctx.is_alive(p) && ctx.is_ancestor(root, p) {
                worklist.push(p);
            }
        }
    }
    erased
}

/// True if `op` can be erased without changing what the program does: it is not a terminator,
/// its results are unused, and it has no side effects (MLIR's `isOpTriviallyDead`).
pub(crate) fn is_trivially_dead(ctx: &Context, op: Op) -> bool {
    !ctx.has_trait(op, Traits::TERMINATOR)
        && ctx.results(op).all(|v| ctx.is_unused(v))
        && is_side_effect_free(ctx, op)
}

/// True if `op` and every op nested in it are `PURE` (unregistered ops never are).
pub(crate) fn is_side_effect_free(ctx: &Context, op: Op) -> bool {
    if !ctx.has_trait(op, Traits::PURE) {
        return false;
    }
    ctx.regions(op).iter().all(|&r| {
        ctx.blocks(r)
            .iter()
            .all(|&b| ctx.block_ops(b).all(|o| is_side_effect_free(ctx, o)))
    })
}
