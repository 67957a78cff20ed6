//! The IR's operations and values (`Context`'s op, block and use-list methods): replacing every
//! use of a value, use lists that survive erasing ops in any order, and inserting and moving
//! ops in a block.

use dlc_ir::{Block, Context, InsertPoint, Location, Op, OpSpec, Type};

fn ctx_with_block() -> (Context, Block) {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let b = ctx.create_block(&[Type::I32]);
    (ctx, b)
}

#[test]
fn replace_all_uses_moves_every_use() {
    let (mut ctx, b) = ctx_with_block();
    let arg = ctx.block_args(b)[0];
    let spec = OpSpec::new(&mut ctx, "t.def", Location::Unknown).results(&[Type::I32]);
    let def = ctx.build(InsertPoint::End(b), spec);
    let other = ctx.result(def, 0);
    let mut users = Vec::new();
    for _ in 0..3 {
        let spec = OpSpec::new(&mut ctx, "t.use", Location::Unknown).operands(&[arg, arg]);
        users.push(ctx.build(InsertPoint::End(b), spec));
    }
    assert_eq!(ctx.uses(arg).len(), 6);
    ctx.replace_all_uses(arg, other);
    assert!(ctx.is_unused(arg));
    assert_eq!(ctx.uses(other).len(), 6);
    for u in users {
        assert_eq!(ctx.operands(u), &[other, other]);
    }
}

#[test]
fn use_slots_survive_swap_remove() {
    let (mut ctx, b) = ctx_with_block();
    let arg = ctx.block_args(b)[0];
    let ops: Vec<Op> = (0..4)
        .map(|_| {
            let spec = OpSpec::new(&mut ctx, "t.use", Location::Unknown).operands(&[arg]);
            ctx.build(InsertPoint::End(b), spec)
        })
        .collect();
    ctx.erase_op(ops[0]);
    ctx.erase_op(ops[2]);
    assert_eq!(ctx.uses(arg).len(), 2);
    ctx.erase_op(ops[3]);
    ctx.erase_op(ops[1]);
    assert!(ctx.is_unused(arg));
    assert_eq!(ctx.first_op(b), None);
}

#[test]
fn insert_and_move_keep_order() {
    let (mut ctx, b) = ctx_with_block();
    let mk = |ctx: &mut Context, n: &str| {
        let spec = OpSpec::new(ctx, n, Location::Unknown);
        ctx.create_op(spec)
    };
    let a = mk(&mut ctx, "t.a");
    let c = mk(&mut ctx, "t.c");
    let bb = mk(&mut ctx, "t.b");
    ctx.insert_op(InsertPoint::End(b), a);
    ctx.insert_op(InsertPoint::End(b), c);
    ctx.insert_op(InsertPoint::Before(c), bb);
    let names: Vec<_> = ctx
        .block_ops(b)
        .map(|o| ctx.op_name(o).to_string())
        .collect();
    assert_eq!(names, ["t.a", "t.b", "t.c"]);
    ctx.move_op(a, InsertPoint::After(c));
    let names: Vec<_> = ctx
        .block_ops(b)
        .map(|o| ctx.op_name(o).to_string())
        .collect();
    assert_eq!(names, ["t.b", "t.c", "t.a"]);
    assert_eq!(ctx.last_op(b), Some(a));
}
