//! The symbolic shape analysis (`src/shapes.rs`): which `?` dims symbols carry through
//! elementwise ops, broadcasting, transposes, matmuls and reductions, and the runtime
//! constraints recorded where different symbols meet.

use dlc_graph::shapes::{DimExpr, SymbolOrigin, SymbolicShapes};
use dlc_ir::pass::Analysis;
use dlc_ir::{parse_source, verify, Context, Op};

fn analyse(src: &str) -> (Context, Op, SymbolicShapes) {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_graph::dialect());
    let module = parse_source(&mut ctx, src, "test.mlir", 1).expect("parses");
    verify(&ctx, module).expect("verifies");
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let func = ctx.first_op(body).expect("a function");
    let s = SymbolicShapes::compute(&ctx, func);
    (ctx, func, s)
}

/// The shape of the value returned as result `i`.
fn returned(ctx: &Context, func: Op, s: &SymbolicShapes, i: usize) -> Vec<DimExpr> {
    let entry = ctx.blocks(ctx.region(func, 0))[0];
    let ret = ctx.last_op(entry).unwrap();
    s.shape(ctx.operand(ret, i)).unwrap().to_vec()
}

#[test]
fn symbols_survive_elementwise_broadcast_transpose_and_matmul() {
    let (ctx, func, s) = analyse(
        r#"
func.func @f(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>, %c: tensor<1x4xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<4x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = graph.exp %a : tensor<?x4xf32>
  %1 = graph.add %0, %c : tensor<?x4xf32>, tensor<1x4xf32> -> tensor<?x4xf32>
  %2 = graph.transpose %1 {perm = array<i64: 1, 0>} : tensor<?x4xf32> -> tensor<4x?xf32>
  %3 = graph.matmul %1, %b : tensor<?x4xf32>, tensor<4x?xf32> -> tensor<?x?xf32>
  %4 = graph.mul %3, %3 : tensor<?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<4x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
"#,
    );
    let (a0, b1) = (DimExpr::Symbol(0), DimExpr::Symbol(1));
    assert_eq!(s.origin(0), Some(&SymbolOrigin::Arg { arg: 0, axis: 0 }));
    assert_eq!(s.origin(1), Some(&SymbolOrigin::Arg { arg: 1, axis: 1 }));
    assert_eq!(returned(&ctx, func, &s, 0), [a0, DimExpr::Static(4)]);
    assert_eq!(returned(&ctx, func, &s, 1), [a0, DimExpr::Static(4)]);
    assert_eq!(returned(&ctx, func, &s, 2), [DimExpr::Static(4), a0]);
    assert_eq!(returned(&ctx, func, &s, 3), [a0, b1]);
    let mm = returned(&ctx, func, &s, 4);
    assert!(s.provably_equal(mm[0], returned(&ctx, func, &s, 2)[1]));
    assert!(!s.provably_equal(mm[0], mm[1]));
    assert!(s.constraints().is_empty());
}

#[test]
fn different_symbols_meeting_record_a_constraint() {
    let (ctx, func, s) = analyse(
        r#"
func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>, %m: tensor<2x?xf32>, %n: tensor<?x3xf32>) -> (tensor<?xf32>, tensor<2x3xf32>) {
  %0 = graph.add %a, %b : tensor<?xf32>
  %1 = graph.matmul %m, %n : tensor<2x?xf32>, tensor<?x3xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<?xf32>, tensor<2x3xf32>
}
"#,
    );
    assert_eq!(returned(&ctx, func, &s, 0), [DimExpr::Symbol(0)]);
    assert_eq!(s.constraints(), &[(0, 1), (2, 3)]);
    assert!(s.equal_under_constraints(DimExpr::Symbol(1), DimExpr::Symbol(0)));
    assert!(!s.provably_equal(DimExpr::Symbol(1), DimExpr::Symbol(0)));
}

#[test]
fn broadcasting_static_one_takes_the_symbol_and_reductions_drop_axes() {
    let (ctx, func, s) = analyse(
        r#"
func.func @f(%a: tensor<?x1xf32>, %b: tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x1xf32>) {
  %0 = graph.sub %a, %b : tensor<?x1xf32>, tensor<1x?xf32> -> tensor<?x?xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1>} : tensor<?x?xf32> -> tensor<?xf32>
  %2 = graph.reduce_max %0 {axes = array<i64: 1>, keepdim = true} : tensor<?x?xf32> -> tensor<?x1xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?xf32>, tensor<?x1xf32>
}
"#,
    );
    let (a0, b1) = (DimExpr::Symbol(0), DimExpr::Symbol(1));
    assert_eq!(returned(&ctx, func, &s, 0), [a0, b1]);
    assert_eq!(returned(&ctx, func, &s, 1), [a0]);
    assert_eq!(returned(&ctx, func, &s, 2), [a0, DimExpr::Static(1)]);
}
