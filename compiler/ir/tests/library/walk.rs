//! Walking nested ops (`Context::walk`): the visited op may be erased during the walk.

use dlc_ir::{Context, InsertPoint, Location, OpSpec, WalkOrder, WalkResult};

#[test]
fn walk_tolerates_erasing_the_visited_op() {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let (region, block) = ctx.create_region_with_block(&[]);
    let spec = OpSpec::new(&mut ctx, "t.root", Location::Unknown).region(region);
    let root = ctx.create_op(spec);
    for name in ["t.keep", "t.drop", "t.keep", "t.drop"] {
        let spec = OpSpec::new(&mut ctx, name, Location::Unknown);
        ctx.build(InsertPoint::End(block), spec);
    }
    let mut seen = 0;
    ctx.walk(root, WalkOrder::PostOrder, &mut |ctx, op| {
        seen += 1;
        if ctx.op_name(op) == "t.drop" {
            ctx.erase_op(op);
        }
        WalkResult::Advance
    });
    assert_eq!(seen, 5);
    let left: Vec<_> = ctx
        .block_ops(block)
        .map(|o| ctx.op_name(o).to_string())
        .collect();
    assert_eq!(left, ["t.keep", "t.keep"]);
}
