//! Removes serial loops whose induction variable is unused and whose body gives the same result
//! however often it runs, keeping one copy of the body.
//!
//! # Applies when
//! A loop over an axis that the body never indexes: a broadcast whose loop nest kept the
//! broadcast axis around a store that does not depend on it (`for j { out[i] = x[i] * 2 }`),
//! or a loop left behind after a pass replaced every use of its variable. Each iteration
//! recomputes and re-stores the same values; one iteration is enough (CINN's
//! `eliminate_invariant_loop`).
//!
//! # Changes to the IR
//! A `loop.for` of kind `serial` is removed when all of these hold:
//! - its induction variable has no uses;
//! - its step is a positive constant;
//! - its body holds no schedule block with a `reduce` iter var, and only ops that are pure,
//!   `loop.load`/`loop.vload`/`loop.store`/`loop.vstore`, `loop.alloc`, `loop.for`, `loop.if`,
//!   spatial `loop.schedule_block` and `loop.yield` (no barrier, no warp or block reduction);
//! - it is idempotent: no buffer is both stored and loaded in the body, except buffers
//!   allocated inside the body (fresh on every iteration), so running it twice stores the same
//!   values as running it once.
//!
//! The loop is then replaced by its body when `lb < ub` is provable (constants, or the
//! index-expression library proves it), erased when `lb >= ub` is provable (it never runs),
//! and otherwise replaced by `loop.if (arith.cmpi slt, lb, ub)` holding the body.
//! Inner loops are visited first, so a nest of invariant loops goes away in one run.
//!
//! # Performance impact
//! The removed loop's trip count divides the work of its body: `for j < 64 { out[i] = ... }`
//! does 64 times fewer loads, multiplies and stores.
//!
//! # Risks and limitations
//! - Buffers are compared by SSA value: two kernel arguments are assumed to be different
//!   memory. A host that passes one buffer as two arguments (an in-place launch) to a kernel
//!   that loads one and stores the other inside such a loop would see a different result.
//! - GPU-bound loops (`block.*`, `thread.*`), `parallel`, `vectorize` and `unroll` loops are
//!   left alone; CINN turns an invariant bound loop into `if (var == 0)`, which is not done.
//!
//! # Examples
//! 1. A broadcast loop whose axis is not used:
//!    ```text
//!    loop.kernel @bcast(%x: !loop.buffer<8xf32, global>, %out: !loop.buffer<8xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c8 = arith.constant 8 : index
//!      %two = arith.constant 2.0 : f32
//!      loop.for parallel %i = %c0 to %c8 step %c1 {
//!        loop.for serial %j = %c0 to %c4 step %c1 {
//!          %v = loop.load %x[%i] : !loop.buffer<8xf32, global>
//!          %m = arith.mulf %v, %two : f32
//!          loop.store %m, %out[%i] : !loop.buffer<8xf32, global>
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.for parallel %arg2 = %c0 to %c8 step %c1 {
//!      %0 = loop.load %arg0[%arg2] : !loop.buffer<8xf32, global>
//!      %1 = arith.mulf %0, %cst : f32
//!      loop.store %1, %arg1[%arg2] : !loop.buffer<8xf32, global>
//!      loop.yield
//!    }
//!    ```
//! 2. A symbolic extent keeps a guard:
//!    ```text
//!    loop.for serial %j = %c0 to %n step %c1 {
//!      %v = loop.load %x[%c0] : !loop.buffer<8xf32, global>
//!      loop.store %v, %out[%c0] : !loop.buffer<8xf32, global>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    %0 = arith.cmpi slt, %c0, %arg2 : index
//!    loop.if %0 {
//!      %1 = loop.load %arg0[%c0] : !loop.buffer<8xf32, global>
//!      loop.store %1, %arg1[%c0] : !loop.buffer<8xf32, global>
//!      loop.yield
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. `for j { out[0] = out[0] + x[j] }` stays: the variable is used, and the body reads what it
//!    writes.
//! 2. `for j { t = out[0]; out[0] = t + 1 }` stays: running it twice adds 2.
//! 3. A loop holding a reduction schedule block stays.

use dlc_arith::{build_cmpi, CmpIPredicate};
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, InsertPoint, Op, Traits};
use dlc_loop::index_expr::{from_ir, prove_le, prove_lt, Bounds};
use dlc_loop::KernelOp;
use dlc_loop::{build_if, AccessKind, ForOp, IterKind, LoopKind, LoopOps};
use std::collections::HashSet;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "invariant-loop-elim",
    summary: "Removes serial loops whose induction variable is unused and whose body gives the \
              same result however often it runs, keeping one copy of the body.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[],
    statistics: &[("loops-removed", "Number of invariant loops removed")],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(InvariantLoopElim))
}

struct InvariantLoopElim;

impl Pass for InvariantLoopElim {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        // Post-order: inner loops first.
        let mut loops = Vec::new();
        collect_loops(ctx, run.op(), &mut loops);
        let mut removed = 0;
        for op in loops {
            if ctx.is_alive(op) && is_invariant(ctx, op) && remove(ctx, op) {
                removed += 1;
            }
        }
        run.add_stat("loops-removed", removed);
        if removed == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

fn collect_loops(ctx: &Context, op: Op, out: &mut Vec<Op>) {
    for &region in ctx.regions(op) {
        for &block in ctx.blocks(region) {
            for inner in ctx.block_ops(block) {
                collect_loops(ctx, inner, out);
            }
        }
    }
    if ctx.view::<ForOp>(op).is_some() {
        out.push(op);
    }
}

/// The conditions of the module docs, except the extent.
fn is_invariant(ctx: &Context, op: Op) -> bool {
    let for_op = ForOp(op);
    if for_op.loop_kind(ctx) != Some(LoopKind::Serial) {
        return false;
    }
    let (Some(iv), Some(body)) = (for_op.induction_var(ctx), for_op.body(ctx)) else {
        return false;
    };
    if !ctx.is_unused(iv) || ctx.operands(op).len() != 3 {
        return false;
    }
    if !matches!(dlc_arith::constant_int(ctx, ctx.operand(op, 2)), Some(s) if s > 0) {
        return false;
    }
    let mut ok = true;
    let mut stored = HashSet::new();
    let mut loaded = HashSet::new();
    let mut local = HashSet::new();
    for inner in ctx.block_ops(body) {
        ctx.for_each_op(inner, &mut |o| {
            if let Some(access) = dlc_loop::access(ctx, o) {
                match access.kind {
                    AccessKind::Read => {
                        loaded.insert(access.buffer);
                    }
                    AccessKind::Write => {
                        stored.insert(access.buffer);
                    }
                    // Not among the ops the module docs allow in the body.
                    AccessKind::Prefetch => ok = false,
                }
                return;
            }
            match LoopOps::of(ctx, o) {
                Some(LoopOps::AllocOp(alloc)) => {
                    local.insert(alloc.result(ctx));
                }
                Some(LoopOps::ForOp(_) | LoopOps::IfOp(_) | LoopOps::YieldOp(_)) => {}
                Some(
                    LoopOps::BarrierOp(_) | LoopOps::WarpReduceOp(_) | LoopOps::BlockReduceOp(_),
                ) => ok = false,
                Some(LoopOps::ScheduleBlockOp(block)) => {
                    if block.iter_kind_list(ctx).contains(&IterKind::Reduce) {
                        ok = false;
                    }
                }
                _ => {
                    let pure = ctx.has_trait(o, Traits::PURE) && ctx.regions(o).is_empty();
                    if !pure {
                        ok = false;
                    }
                }
            }
        });
    }
    ok && stored
        .intersection(&loaded)
        .all(|buffer| local.contains(buffer))
}

/// Replaces the invariant loop `op` by its body, guarded unless it provably runs.
fn remove(ctx: &mut Context, op: Op) -> bool {
    let Some(body) = ForOp(op).body(ctx) else {
        return false;
    };
    let (lb, ub) = (ctx.operand(op, 0), ctx.operand(op, 1));
    let (runs, never) = match (
        dlc_arith::constant_int(ctx, lb),
        dlc_arith::constant_int(ctx, ub),
    ) {
        (Some(l), Some(u)) => (l < u, l >= u),
        _ => {
            let (l, u) = (from_ir(ctx, lb), from_ir(ctx, ub));
            let none = Bounds::new();
            (prove_lt(&l, &u, &none), prove_le(&u, &l, &none))
        }
    };
    if never {
        ctx.erase_op(op);
        return true;
    }
    let loc = ctx.op_loc(op);
    let target = if runs {
        InsertPoint::Before(op)
    } else {
        let cond = build_cmpi(
            ctx,
            InsertPoint::Before(op),
            CmpIPredicate::Slt,
            lb,
            ub,
            loc,
        );
        let cond = ctx.result(cond, 0);
        let (_, then_block, _) = build_if(ctx, InsertPoint::Before(op), cond, false, loc);
        dlc_loop::before_terminator(ctx, then_block)
    };
    let ops: Vec<Op> = ctx.block_ops(body).collect();
    for inner in ops {
        if !ctx.has_trait(inner, Traits::TERMINATOR) {
            ctx.move_op(inner, target);
        }
    }
    ctx.erase_op(op);
    true
}
