//! The rewriter (`dlc_ir::rewrite::Rewriter`): the order of its listener's notifications, the
//! order of ops created at one insertion point, and erasing nested ops before their parent.

use dlc_ir::rewrite::{RewriteListener, Rewriter};
use dlc_ir::{Block, Context, InsertPoint, Location, Op, OpSpec, Type, Value};

/// Records every notification as text.
#[derive(Default)]
struct Log(Vec<String>);

impl RewriteListener for Log {
    fn op_inserted(&mut self, ctx: &Context, op: Op) {
        self.0.push(format!("inserted {}", ctx.op_name(op)));
    }
    fn op_modified(&mut self, ctx: &Context, op: Op) {
        self.0.push(format!("modified {}", ctx.op_name(op)));
    }
    fn op_replaced(&mut self, ctx: &Context, op: Op, with: &[Value]) {
        self.0
            .push(format!("replaced {} by {}", ctx.op_name(op), with.len()));
    }
    fn op_erased(&mut self, ctx: &Context, op: Op) {
        self.0.push(format!("erased {}", ctx.op_name(op)));
    }
}

fn op(ctx: &mut Context, name: &str, operands: &[Value], results: usize) -> OpSpec {
    OpSpec::new(ctx, name, Location::Unknown)
        .operands(operands)
        .results(&vec![Type::I32; results])
}

fn names(ctx: &Context, block: Block) -> Vec<String> {
    ctx.block_ops(block)
        .map(|o| ctx.op_name(o).to_string())
        .collect()
}

#[test]
fn edits_are_reported_in_order() {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let block = ctx.create_block(&[Type::I32]);
    let arg = ctx.block_args(block)[0];
    let spec = op(&mut ctx, "t.def", &[arg], 1);
    let def = ctx.build(InsertPoint::End(block), spec);
    let v = ctx.result(def, 0);
    let spec = op(&mut ctx, "t.use", &[v, v], 0);
    let user = ctx.build(InsertPoint::End(block), spec);

    let mut log = Log::default();
    let new = {
        let mut rw = Rewriter::with_listener(&mut ctx, &mut log);
        let spec = op(rw.ctx_mut(), "t.new", &[arg], 1);
        let new = rw.replace_op_with_new(def, spec);
        rw.modify_in_place(user, |ctx| ctx.set_op_loc(user, Location::Unknown));
        new
    };
    let new_v = ctx.result(new, 0);
    assert_eq!(ctx.operands(user), &[new_v, new_v]);
    assert_eq!(
        log.0,
        [
            "inserted t.new",
            "replaced t.def by 1",
            "modified t.use",
            "modified t.use",
            "erased t.def",
            "modified t.use",
        ]
    );
    assert!(!ctx.is_alive(def));
    assert_eq!(names(&ctx, block), ["t.new", "t.use"]);
}

#[test]
fn consecutive_creations_keep_their_order() {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let block = ctx.create_block(&[]);
    let spec = op(&mut ctx, "t.anchor", &[], 0);
    let anchor = ctx.build(InsertPoint::End(block), spec);
    let mut rw = Rewriter::new(&mut ctx);
    for (at, tag) in [
        (InsertPoint::Start(block), "s"),
        (InsertPoint::Before(anchor), "b"),
        (InsertPoint::After(anchor), "a"),
        (InsertPoint::End(block), "e"),
    ] {
        rw.set_insertion_point(at);
        for i in 0..2 {
            let spec = op(rw.ctx_mut(), &format!("t.{tag}{i}"), &[], 0);
            rw.create(spec);
        }
    }
    assert_eq!(
        names(&ctx, block),
        ["t.s0", "t.s1", "t.b0", "t.b1", "t.anchor", "t.a0", "t.a1", "t.e0", "t.e1"]
    );
}

#[test]
fn erasing_reports_nested_ops_first() {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let outer_block = ctx.create_block(&[]);
    let (region, inner) = ctx.create_region_with_block(&[]);
    let spec = op(&mut ctx, "t.inner", &[], 0);
    ctx.build(InsertPoint::End(inner), spec);
    let spec = OpSpec::new(&mut ctx, "t.outer", Location::Unknown).region(region);
    let outer = ctx.build(InsertPoint::End(outer_block), spec);
    let mut log = Log::default();
    Rewriter::with_listener(&mut ctx, &mut log).erase_op(outer);
    assert_eq!(log.0, ["erased t.inner", "erased t.outer"]);
    assert_eq!(ctx.first_op(outer_block), None);
}
