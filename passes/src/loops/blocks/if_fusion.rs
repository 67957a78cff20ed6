//! Merges consecutive `loop.if`s of a block that test the same condition into one.
//!
//! # Applies when
//! Guards repeat: after `remove-schedule-block` every reduction's init sits in its own
//! `loop.if (k == 0)`, bounds checks of a padded or tiled loop guard each statement separately,
//! and several blocks of one fused kernel are predicated on the same thread index. One branch
//! instead of several means fewer compares, fewer branches and straight-line code that later
//! passes can simplify as a whole. CINN runs the same step (`IfFusionPass`) before
//! `RemoveScheduleBlock`.
//!
//! # Changes to the IR
//! In every block of the kernel, for each `loop.if` A, the next `loop.if` B in the same block is
//! merged into A when:
//! - only pure ops (no regions) and loads lie between A and B, and every such load reads a
//!   buffer A cannot write (A's regions store to no buffer that may alias it and contain no
//!   barrier or other opaque op);
//! - B's condition is A's condition: the same SSA value, or a structurally equal computation
//!   (same ops, attributes and result types over equal operands, down to shared values). Two
//!   distinct loads are equal only if they read the same buffer at equal indices, both sit in
//!   this block, and nothing between them (A included) may write that buffer or synchronize —
//!   CINN does not check this, and fuses guards whose input the first body changes.
//!
//! The ops between A and B are moved before A; B's then ops are appended to A's then region and
//! B's else ops to A's else region (created if A had none); B is erased. A is then compared with
//! the next `loop.if`, so a run of equal guards becomes one; afterwards the merged regions are
//! processed the same way, so nested equal guards merge too. The pass counts the ifs it merged
//! away.
//!
//! # Risks and limitations
//! - Only ifs of one block with nothing but pure ops and loads between them are merged; an if
//!   separated by a store or a loop stays on its own.
//! - Kernel arguments may alias each other, so a store to any argument blocks the fusion of a
//!   condition that loads from an argument.
//!
//! # Examples
//! 1. Two stores under one guard:
//!    ```text
//!    loop.kernel @guards(%a: !loop.buffer<16xf32, global>, %b: !loop.buffer<16xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c8 = arith.constant 8 : index
//!      %c16 = arith.constant 16 : index
//!      %one = arith.constant 1.0 : f32
//!      loop.for serial %i = %c0 to %c16 step %c1 {
//!        %p = arith.cmpi ult, %i, %c8 : index
//!        loop.if %p {
//!          loop.store %one, %a[%i] : !loop.buffer<16xf32, global>
//!          loop.yield
//!        }
//!        %q = arith.cmpi ult, %i, %c8 : index
//!        loop.if %q {
//!          loop.store %one, %b[%i] : !loop.buffer<16xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @guards(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c8 = arith.constant 8 : index
//!      %c16 = arith.constant 16 : index
//!      %cst = arith.constant 1.000000e+00 : f32
//!      loop.for serial %arg2 = %c0 to %c16 step %c1 {
//!        %0 = arith.cmpi ult, %arg2, %c8 : index
//!        %1 = arith.cmpi ult, %arg2, %c8 : index
//!        loop.if %0 {
//!          loop.store %cst, %arg0[%arg2] : !loop.buffer<16xf32, global>
//!          loop.store %cst, %arg1[%arg2] : !loop.buffer<16xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. The condition reads memory the first body writes: in
//!    `%f = loop.load %flag[] ; %p = cmpf ... %f ; loop.if %p { loop.store %z, %flag[] } ;
//!    %g = loop.load %flag[] ; %q = cmpf ... %g ; loop.if %q { ... }` the second test sees the
//!    new flag, so the ifs stay apart.

use super::is_empty_block;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Block, Context, Diagnostic, InsertPoint, Op, OpSpec, Traits, Value};
use dlc_loop::analysis::effects::{may_write, touch, Touch};
use dlc_loop::ops::{before_terminator, IfOp};
use dlc_loop::KernelOp;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "if-fusion",
    summary: "Merges consecutive `loop.if`s of a block that test the same condition into one.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[],
    statistics: &[(
        "ifs-fused",
        "Number of loop.if ops merged into a preceding one",
    )],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(IfFusion))
}

struct IfFusion;

/// How deep structural condition comparison goes before giving up.
const MAX_DEPTH: usize = 32;

impl Pass for IfFusion {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let mut fused = 0;
        for region in ctx.regions(kernel).to_vec() {
            for block in ctx.blocks(region).to_vec() {
                fused += fuse_in_block(ctx, block);
            }
        }
        run.add_stat("ifs-fused", fused);
        if fused == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// Merges the runs of equal ifs in `block`, then in the blocks nested in it; returns how many
/// ifs were merged away.
fn fuse_in_block(ctx: &mut Context, block: Block) -> u64 {
    let mut fused = 0;
    let mut cur = ctx.first_op(block);
    while let Some(op) = cur {
        if is_if(ctx, op) {
            while let Some((between, next)) = fusible_successor(ctx, op) {
                for o in between {
                    ctx.move_op(o, InsertPoint::Before(op));
                }
                merge(ctx, op, next);
                fused += 1;
            }
        }
        cur = ctx.next_op(op);
    }
    let ops: Vec<Op> = ctx.block_ops(block).collect();
    for op in ops {
        for region in ctx.regions(op).to_vec() {
            for b in ctx.blocks(region).to_vec() {
                fused += fuse_in_block(ctx, b);
            }
        }
    }
    fused
}

fn is_if(ctx: &Context, op: Op) -> bool {
    ctx.view::<IfOp>(op).is_some() && ctx.regions(op).len() == 2 && ctx.operands(op).len() == 1
}

/// The next `loop.if` after `first` that can merge into it, with the ops between them.
fn fusible_successor(ctx: &Context, first: Op) -> Option<(Vec<Op>, Op)> {
    let mut between = Vec::new();
    let mut cur = ctx.next_op(first);
    while let Some(op) = cur {
        if is_if(ctx, op) {
            let same = equal_values(ctx, ctx.operand(first, 0), ctx.operand(op, 0), MAX_DEPTH);
            return same.then_some((between, op));
        }
        let movable = ctx.regions(op).is_empty()
            && match touch(ctx, op) {
                Touch::None => true,
                Touch::Read(buffer) => !may_write(ctx, first, buffer),
                Touch::Write(_) | Touch::Opaque => false,
            };
        if !movable {
            return None;
        }
        between.push(op);
        cur = ctx.next_op(op);
    }
    None
}

/// Whether `a` and `b` always hold the same value where the second if runs.
fn equal_values(ctx: &Context, a: Value, b: Value, depth: usize) -> bool {
    if a == b {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let (Some(da), Some(db)) = (ctx.defining_op(a), ctx.defining_op(b)) else {
        return false;
    };
    let index = |v: Value, d: Op| ctx.results(d).position(|r| r == v);
    if ctx.op_name_id(da) != ctx.op_name_id(db)
        || index(a, da) != index(b, db)
        || ctx.attrs(da) != ctx.attrs(db)
        || ctx.result_types(da) != ctx.result_types(db)
        || ctx.operands(da).len() != ctx.operands(db).len()
        || !ctx.regions(da).is_empty()
        || !ctx.regions(db).is_empty()
    {
        return false;
    }
    let operands_equal = ctx
        .operands(da)
        .iter()
        .zip(ctx.operands(db))
        .all(|(&x, &y)| equal_values(ctx, x, y, depth - 1));
    if !operands_equal {
        return false;
    }
    match touch(ctx, da) {
        Touch::None => true,
        Touch::Read(buffer) => unchanged_between(ctx, da, db, buffer),
        Touch::Write(_) | Touch::Opaque => false,
    }
}

/// Whether two reads `a` and `b` of `buffer` see the same memory: both in one block, and
/// nothing from `a` to `b` may write `buffer` or synchronize.
fn unchanged_between(ctx: &Context, a: Op, b: Op, buffer: Value) -> bool {
    let (from, to) = match ctx.op_block(a) {
        Some(block) if ctx.op_block(b) == Some(block) => {
            if comes_before(ctx, a, b) {
                (a, b)
            } else {
                (b, a)
            }
        }
        _ => return false,
    };
    let mut cur = ctx.next_op(from);
    while let Some(op) = cur {
        if op == to {
            return true;
        }
        if may_write(ctx, op, buffer) {
            return false;
        }
        cur = ctx.next_op(op);
    }
    false
}

/// Whether `a` comes before `b` in their common block.
fn comes_before(ctx: &Context, a: Op, b: Op) -> bool {
    let mut cur = ctx.next_op(a);
    while let Some(op) = cur {
        if op == b {
            return true;
        }
        cur = ctx.next_op(op);
    }
    false
}

/// Appends `second`'s then and else ops to `first`'s, and erases `second`.
fn merge(ctx: &mut Context, first: Op, second: Op) {
    let (a, b) = (IfOp(first), IfOp(second));
    if let (Some(to), Some(from)) = (a.then_block(ctx), b.then_block(ctx)) {
        append(ctx, from, to);
    }
    if let Some(from) = b.else_block(ctx).filter(|&e| !is_empty_block(ctx, e)) {
        let to = match a.else_block(ctx) {
            Some(to) => to,
            None => {
                let region = ctx.region(first, 1);
                let block = ctx.create_block(&[]);
                ctx.append_block(region, block);
                let yield_op = OpSpec::new(ctx, "loop.yield", ctx.op_loc(first));
                ctx.build(InsertPoint::End(block), yield_op);
                block
            }
        };
        append(ctx, from, to);
    }
    ctx.erase_op(second);
}

/// Moves the ops of `from`, except its terminator, to the end of `to` (before its terminator).
fn append(ctx: &mut Context, from: Block, to: Block) {
    let ops: Vec<Op> = ctx
        .block_ops(from)
        .filter(|&o| !ctx.has_trait(o, Traits::TERMINATOR))
        .collect();
    for o in ops {
        let at = before_terminator(ctx, to);
        ctx.move_op(o, at);
    }
}
