//! The buffers each schedule block reads and writes (`src/regions.rs`), on the row softmax of
//! docs/examples: each access once, with its indices over the block's iter vars, bounded by
//! the ranges of those.

use dlc_ir::pass::Analysis;
use dlc_ir::Context;
use dlc_loop::index_expr::{Bounds, IndexExpr, Symbol};
use dlc_loop::regions::ScheduleBlockAccesses;
use dlc_loop::ScheduleBlockOp;

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    ctx.register_dialect(dlc_loop::math_dialect());
    ctx
}

#[test]
fn row_softmax_blocks_read_and_write_what_their_bodies_access() {
    let mut ctx = context();
    let src = include_str!("../../../../docs/examples/loop_row_softmax.mlir");
    let module = dlc_ir::parse_source(&mut ctx, src, "softmax.mlir", 1).expect("parses");
    let analysis = ScheduleBlockAccesses::compute(&ctx, module);
    let mut blocks = Vec::new();
    ctx.for_each_op(module, &mut |o| {
        if ctx.view::<ScheduleBlockOp>(o).is_some() {
            blocks.push(o);
        }
    });
    assert_eq!(blocks.len(), 3, "row_max, row_sum_exp, normalize");
    let row_max = analysis.of(blocks[0]).expect("analysed");
    // Reads x[i0, k0] and max[0]; writes max[0] (in the init region and the body, once).
    assert_eq!(row_max.reads.len(), 2);
    assert_eq!(row_max.writes.len(), 1);
    let x_read = &row_max.reads[0];
    assert_eq!(x_read.indices.len(), 2);
    let body = ctx.blocks(ctx.region(blocks[0], 0))[0];
    let k0 = ctx.block_args(body)[1];
    assert_eq!(x_read.indices[1], IndexExpr::symbol(Symbol::Value(k0)));
    let mut bounds = Bounds::new();
    bounds.insert(Symbol::Value(ctx.block_args(body)[0]), 0, 7);
    bounds.insert(Symbol::Value(k0), 0, 127);
    assert_eq!(x_read.ranges(&bounds), vec![(0, 7), (0, 127)]);
    assert_eq!(row_max.writes[0].ranges(&bounds), vec![(0, 0)]);
}
