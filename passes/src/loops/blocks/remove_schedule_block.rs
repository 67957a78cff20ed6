//! Replaces every schedule block of a kernel by its body spliced in place, with the iter vars
//! replaced by the iter values and the init region guarded by a `loop.if`.
//!
//! # Applies when
//! Late in a pipeline, once nothing needs block-level information any more: code generation
//! and the last clean-ups (if folding, simplification across former block boundaries) see plain
//! loops over loads and stores. Every kernel `lower` produces is made of schedule blocks. CINN
//! runs the same step (`RemoveScheduleBlockPass`) after vectorization, just before `IfFold`.
//!
//! # Changes to the IR
//! For each `loop.schedule_block` nested in the kernel:
//! - every use of an iter var (the argument of the body and of the init block) is replaced by
//!   the iter value bound to it;
//! - if the block has a non-empty init region and reduce iter vars, the init ops are moved into
//!   a new `loop.if` built just before the block, whose condition is that every reduce iter value
//!   is 0: one `arith.cmpi eq, %value, %c0 : index` per reduce iter value that is not a
//!   constant, joined by `arith.andi` (`%c0` is an `arith.constant 0 : index` at the start of
//!   the kernel, reused when the entry block already has one). A reduce iter value that is the
//!   constant 0 needs no test (with no test left the init ops are spliced unguarded); one that
//!   is a non-zero constant means the init never runs, and it is dropped. An init without reduce
//!   iter vars never runs either, and is dropped (this is the interpreter's rule);
//! - the body ops (without the terminator) are moved before the block, which is then erased.
//!
//! The pass counts the blocks it removed.
//!
//! # Risks and limitations
//! - Everything that keys on schedule blocks (`schedule-block-dce`, the block access analysis,
//!   cross-thread reduction) has nothing left to work on: run it last.
//! - The guard is evaluated at every iteration of the enclosing loops. Each block gets its own
//!   compare (`cse` merges equal ones); the guards of sibling reductions are separated by the
//!   first one's body, so `if-fusion` cannot merge them.
//! - A block whose iter vars, iter values and `iter_kinds` do not match in number (invalid IR)
//!   is left alone.
//!
//! # Examples
//! 1. A reduction with an init:
//!    ```text
//!    loop.kernel @row_sum(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c8 = arith.constant 8 : index
//!      loop.for serial %i = %c0 to %c4 step %c1 {
//!        loop.for serial %k = %c0 to %c8 step %c1 {
//!          loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init {
//!            %z = arith.constant 0.0 : f32
//!            loop.store %z, %y[%i0] : !loop.buffer<4xf32, global>
//!            loop.yield
//!          } {
//!            %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
//!            %a = loop.load %y[%i0] : !loop.buffer<4xf32, global>
//!            %s = arith.addf %a, %v : f32
//!            loop.store %s, %y[%i0] : !loop.buffer<4xf32, global>
//!            loop.yield
//!          }
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @row_sum(%arg0: !loop.buffer<4x8xf32, global>, %arg1: !loop.buffer<4xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c8 = arith.constant 8 : index
//!      loop.for serial %arg2 = %c0 to %c4 step %c1 {
//!        loop.for serial %arg3 = %c0 to %c8 step %c1 {
//!          %0 = arith.cmpi eq, %arg3, %c0 : index
//!          loop.if %0 {
//!            %cst = arith.constant 0.000000e+00 : f32
//!            loop.store %cst, %arg1[%arg2] : !loop.buffer<4xf32, global>
//!            loop.yield
//!          }
//!          %1 = loop.load %arg0[%arg2, %arg3] : !loop.buffer<4x8xf32, global>
//!          %2 = loop.load %arg1[%arg2] : !loop.buffer<4xf32, global>
//!          %3 = arith.addf %2, %1 : f32
//!          loop.store %3, %arg1[%arg2] : !loop.buffer<4xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//! 2. A spatial block becomes its body: `loop.schedule_block "out" (%i0 = %i) { ...%x[%i0]... }`
//!    becomes the same loads and stores indexed by `%i` directly.

use dlc_arith::{build_binary, build_cmpi, build_index_constant, AndIOp, CmpIPredicate};
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Block, Context, Diagnostic, InsertPoint, Location, Op, Traits, Type, Value};
use dlc_loop::ops::{before_terminator, build_if, IterKind, ScheduleBlockOp};
use dlc_loop::KernelOp;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "remove-schedule-block",
    summary: "Replaces every schedule block of a kernel by its body spliced in place, with the \
              iter vars replaced by the iter values and the init region guarded by a `loop.if`.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[],
    statistics: &[(
        "blocks-removed",
        "Number of schedule blocks replaced by their bodies",
    )],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(RemoveScheduleBlock))
}

struct RemoveScheduleBlock;

impl Pass for RemoveScheduleBlock {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let Some(entry) = ctx
            .regions(kernel)
            .first()
            .and_then(|&r| ctx.blocks(r).first().copied())
        else {
            run.preserve_all();
            return Ok(());
        };
        let mut blocks = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            blocks.extend(ctx.view::<ScheduleBlockOp>(op))
        });
        let mut zero = None;
        let mut removed = 0;
        for block in blocks {
            if remove(ctx, entry, block, &mut zero) {
                removed += 1;
            }
        }
        run.add_stat("blocks-removed", removed);
        if removed == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// Splices `block` in place; false (and nothing changed) when its shape is unexpected.
fn remove(
    ctx: &mut Context,
    entry: Block,
    block: ScheduleBlockOp,
    zero: &mut Option<Value>,
) -> bool {
    let op = block.0;
    let Some(body) = block.body(ctx) else {
        return false;
    };
    let values = block.iter_values(ctx).to_vec();
    let init = block.init_block(ctx);
    let regions_ok = [Some(body), init]
        .iter()
        .flatten()
        .all(|&b| ctx.block_args(b).len() == values.len());
    let kinds = block.iter_kind_list(ctx);
    if ctx.op_block(op).is_none() || !regions_ok || kinds.len() != values.len() {
        return false;
    }
    for b in [Some(body), init].into_iter().flatten() {
        for (arg, value) in ctx.block_args(b).to_vec().into_iter().zip(&values) {
            ctx.replace_all_uses(arg, *value);
        }
    }
    let loc = ctx.op_loc(op);
    if let Some(init) = init {
        // The reduce iter values that still need a run-time test; `None` when the init never runs.
        let reduce: Vec<Value> = values
            .iter()
            .zip(&kinds)
            .filter(|(_, k)| **k == IterKind::Reduce)
            .map(|(v, _)| *v)
            .collect();
        let mut tests = Some(Vec::new());
        if reduce.is_empty() {
            tests = None;
        }
        for &v in &reduce {
            match dlc_arith::constant_int(ctx, v) {
                Some(0) => {}
                Some(_) => tests = None,
                None => {
                    if let Some(t) = tests.as_mut() {
                        t.push(v);
                    }
                }
            }
        }
        match tests {
            None => {}
            Some(tests) if tests.is_empty() => splice(ctx, init, InsertPoint::Before(op)),
            Some(tests) => {
                let c0 = match *zero {
                    Some(c0) => c0,
                    None => {
                        let c0 = kernel_zero(ctx, entry);
                        *zero = Some(c0);
                        c0
                    }
                };
                let at = InsertPoint::Before(op);
                let mut cond = None;
                for v in tests {
                    let cmp = build_cmpi(ctx, at, CmpIPredicate::Eq, v, c0, loc);
                    let cmp = ctx.result(cmp, 0);
                    cond = Some(match cond {
                        None => cmp,
                        Some(c) => {
                            let and = build_binary::<AndIOp>(ctx, at, c, cmp, loc);
                            ctx.result(and, 0)
                        }
                    });
                }
                if let Some(cond) = cond {
                    let (_, then_block, _) = build_if(ctx, at, cond, false, loc);
                    let dest = before_terminator(ctx, then_block);
                    splice(ctx, init, dest);
                }
            }
        }
    }
    splice(ctx, body, InsertPoint::Before(op));
    ctx.erase_op(op);
    true
}

/// Moves the ops of `from`, except its terminator, to `at`, in order.
fn splice(ctx: &mut Context, from: Block, at: InsertPoint) {
    let ops: Vec<Op> = ctx
        .block_ops(from)
        .filter(|&o| !ctx.has_trait(o, Traits::TERMINATOR))
        .collect();
    for o in ops {
        ctx.move_op(o, at);
    }
}

/// An `arith.constant 0 : index` at the start of the kernel's entry block, so it dominates
/// every op of the kernel: an existing one moved there, or a new one.
fn kernel_zero(ctx: &mut Context, entry: Block) -> Value {
    let existing = ctx.block_ops(entry).find(|&o| {
        ctx.num_results(o) == 1
            && ctx.value_type(ctx.result(o, 0)) == Type::INDEX
            && dlc_arith::constant_int(ctx, ctx.result(o, 0)) == Some(0)
    });
    let op = match existing {
        Some(op) => {
            if ctx.first_op(entry) != Some(op) {
                ctx.move_op(op, InsertPoint::Start(entry));
            }
            op
        }
        None => {
            let loc = ctx
                .block_parent_op(entry)
                .map_or(Location::Unknown, |k| ctx.op_loc(k));
            build_index_constant(ctx, InsertPoint::Start(entry), 0, loc)
        }
    };
    ctx.result(op, 0)
}
