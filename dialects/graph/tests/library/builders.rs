//! The Rust builders (`src/builders.rs`): they infer result types, report shape errors as
//! diagnostics, build ops that verify, and what they build folds through `ctx.fold`.

use dlc_graph::{
    build_binary, build_cast, build_matmul, build_reduce, build_splat, build_transpose,
};
use dlc_ir::{Context, DenseValue, FoldResult, InsertPoint, Location, Type, DYNAMIC};

#[test]
fn builders_infer_types_and_report_shape_errors() {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_graph::dialect());
    let a_ty = ctx.tensor_type(&[4, 1], Type::F32);
    let b_ty = ctx.tensor_type(&[DYNAMIC, 8], Type::F32);
    let block = ctx.create_block(&[a_ty, b_ty]);
    let (a, b) = (ctx.block_args(block)[0], ctx.block_args(block)[1]);
    let at = InsertPoint::End(block);
    let loc = Location::Unknown;
    let sum = build_binary(&mut ctx, at, "graph.add", a, b, loc).unwrap();
    assert_eq!(ctx.shape(ctx.value_type(sum)), Some(&[4, 8][..]));
    let t = build_transpose(&mut ctx, at, sum, &[1, 0], loc).unwrap();
    let r = build_reduce(&mut ctx, at, "graph.reduce_sum", t, &[1], true, loc).unwrap();
    assert_eq!(ctx.shape(ctx.value_type(r)), Some(&[8, 1][..]));
    let c = build_cast(&mut ctx, at, r, Type::I32, loc);
    assert_eq!(ctx.element_type(ctx.value_type(c)), Type::I32);
    let err = build_matmul(&mut ctx, at, a, a, loc).unwrap_err();
    assert!(
        err.message.contains("inner dims do not match"),
        "{}",
        err.message
    );
    for op in ctx.block_ops(block) {
        let check = ctx.op_def(op).and_then(|d| d.verify).unwrap();
        check(&ctx, op).unwrap();
    }
}

#[test]
fn folding_through_ctx_fold() {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_graph::dialect());
    let ty = ctx.tensor_type(&[2], Type::I32);
    let block = ctx.create_block(&[ty]);
    let x = ctx.block_args(block)[0];
    let at = InsertPoint::End(block);
    let loc = Location::Unknown;
    let one = build_splat(&mut ctx, at, ty, DenseValue::Int(1), loc);
    let prod = build_binary(&mut ctx, at, "graph.mul", x, one, loc).unwrap();
    let op = ctx.defining_op(prod).unwrap();
    assert_eq!(ctx.fold(op).unwrap()[..], [FoldResult::Value(x)]);
    let two = build_binary(&mut ctx, at, "graph.add", one, one, loc).unwrap();
    let folded = ctx.fold(ctx.defining_op(two).unwrap()).unwrap();
    let FoldResult::Constant(attr) = folded[0] else {
        panic!("expected a constant");
    };
    assert_eq!(attr, ctx.dense_attr(ty, &[DenseValue::Int(2)]));
}
