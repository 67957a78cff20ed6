//! `graph.if` and `graph.loop`: the custom syntax round-trips, the verifier accepts what the
//! module docs of `dlc_graph::control` allow, and the interpreter runs them with ONNX's
//! semantics (the branch taken by a run-time condition, trip counts and conditions decided at
//! run time, carried values, stacked scan outputs, zero trips).

use dlc_graph::interp::interpret;
use dlc_ir::{parse_source, verify, Context, Op, PrintOptions};
use dlc_tensor::{DType, Literal};

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_graph::dialect());
    ctx
}

/// Parses and verifies `src`; returns the module and its first function.
fn parse(ctx: &mut Context, src: &str) -> (Op, Op) {
    let module = parse_source(ctx, src, "test.mlir", 1).expect("parses");
    verify(ctx, module).expect("verifies");
    let body = ctx.blocks(ctx.region(module, 0))[0];
    (module, ctx.first_op(body).expect("a function"))
}

const PROGRAM: &str = r#"
func.func @main(%c: tensor<i1>, %x: tensor<4xf32>, %m: tensor<i64>) -> (tensor<?xf32>, tensor<4xf32>, tensor<?x4xf32>) {
  %r = graph.if %c : tensor<i1> -> tensor<?xf32> {
    %a = graph.neg %x : tensor<4xf32>
    graph.yield %a : tensor<4xf32>
  } else {
    %b = graph.concat %x, %x {axis = 0 : i64} : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
    graph.yield %b : tensor<8xf32>
  }
  %t = graph.constant dense<true> : tensor<i1>
  %y, %s = graph.loop (%m, %t, %x) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?x4xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<4xf32>):
    %f = graph.cast %i : tensor<i64> -> tensor<f32>
    %n = graph.add %v, %f : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    %e = graph.mul %n, %x : tensor<4xf32>
    %three = graph.constant dense<3> : tensor<i64>
    %go = graph.cmp lt, %i, %three : tensor<i64>
    graph.yield %go, %n, %e : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  }
  func.return %r, %y, %s : tensor<?xf32>, tensor<4xf32>, tensor<?x4xf32>
}
"#;

fn inputs(cond: bool, trips: i64) -> Vec<Literal> {
    vec![
        Literal::from_bools(&[], &[cond]),
        Literal::from_f64(DType::F32, &[4], &[1.0, 2.0, 3.0, 4.0]),
        Literal::from_i64(DType::I64, &[], &[trips]),
    ]
}

fn values(t: &Literal) -> Vec<f64> {
    (0..t.len()).map(|i| t.get(i).as_f64()).collect()
}

#[test]
fn custom_syntax_round_trips() {
    let mut ctx = context();
    let (module, _) = parse(&mut ctx, PROGRAM);
    let printed = dlc_ir::print_op(&ctx, module, PrintOptions::default());
    assert!(
        printed.contains("graph.if %arg0 : tensor<i1> -> tensor<?xf32> {"),
        "{printed}"
    );
    assert!(printed.contains("} else {"), "{printed}");
    assert!(printed.contains("graph.loop (%arg2, %"), "{printed}");
    let mut again = context();
    let reparsed = parse_source(&mut again, &printed, "printed.mlir", 1).expect("reparses");
    verify(&again, reparsed).expect("verifies");
    assert_eq!(
        dlc_ir::print_op(&again, reparsed, PrintOptions::default()),
        printed
    );
}

#[test]
fn if_runs_the_branch_the_condition_picks() {
    let mut ctx = context();
    let (_, func) = parse(&mut ctx, PROGRAM);
    let then = interpret(&ctx, func, &inputs(true, 0)).expect("runs");
    assert_eq!(values(&then[0]), [-1.0, -2.0, -3.0, -4.0]);
    let other = interpret(&ctx, func, &inputs(false, 0)).expect("runs");
    assert_eq!(other[0].shape(), [8]);
    assert_eq!(values(&other[0]), [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]);
}

#[test]
fn loop_carries_values_stacks_scans_and_stops_on_its_condition() {
    let mut ctx = context();
    let (_, func) = parse(&mut ctx, PROGRAM);
    // Two trips: v = x + 0 + 1, scans (x + 0)·x and (x + 1)·x.
    let out = interpret(&ctx, func, &inputs(true, 2)).expect("runs");
    assert_eq!(values(&out[1]), [2.0, 3.0, 4.0, 5.0]);
    assert_eq!(out[2].shape(), [2, 4]);
    assert_eq!(values(&out[2]), [1.0, 4.0, 9.0, 16.0, 2.0, 6.0, 12.0, 20.0]);
    // The body's condition turns false after iteration 3: four trips out of a hundred.
    let out = interpret(&ctx, func, &inputs(true, 100)).expect("runs");
    assert_eq!(out[2].shape(), [4, 4]);
    assert_eq!(values(&out[1]), [7.0, 8.0, 9.0, 10.0]);
    // No trip: the initial value, and an empty scan.
    let out = interpret(&ctx, func, &inputs(true, -5)).expect("runs");
    assert_eq!(values(&out[1]), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(out[2].shape(), [0, 4]);
}

#[test]
fn scan_elements_of_different_sizes_are_a_runtime_error() {
    // An `if` inside the body picks a 4- or an 8-element value by the iteration number.
    let src = r#"
func.func @main(%m: tensor<i64>, %x: tensor<4xf32>) -> tensor<?x?xf32> {
  %t = graph.constant dense<true> : tensor<i1>
  %s = graph.loop (%m, %t) : (tensor<i64>, tensor<i1>) -> tensor<?x?xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>):
    %zero = graph.constant dense<0> : tensor<i64>
    %first = graph.cmp eq, %i, %zero : tensor<i64>
    %e = graph.if %first : tensor<i1> -> tensor<?xf32> {
      graph.yield %x : tensor<4xf32>
    } else {
      %b = graph.concat %x, %x {axis = 0 : i64} : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
      graph.yield %b : tensor<8xf32>
    }
    graph.yield %c, %e : tensor<i1>, tensor<?xf32>
  }
  func.return %s : tensor<?x?xf32>
}
"#;
    let mut ctx = context();
    let (_, func) = parse(&mut ctx, src);
    let x = Literal::from_f64(DType::F32, &[4], &[1.0, 2.0, 3.0, 4.0]);
    let one = Literal::from_i64(DType::I64, &[], &[1]);
    let out = interpret(&ctx, func, &[one, x.clone()]).expect("one trip runs");
    assert_eq!(out[0].shape(), [1, 4]);
    let two = Literal::from_i64(DType::I64, &[], &[2]);
    let err = interpret(&ctx, func, &[two, x]).expect_err("the second element is longer");
    assert!(
        err.message
            .contains("scan element #0 has shape [8] in iteration 1, but [4] before"),
        "{}",
        err.message
    );
}

#[test]
fn verifier_rejects_malformed_control_flow() {
    let cases = [
        (
            "%r = graph.if %x : tensor<4xf32> -> tensor<4xf32> { graph.yield %x : tensor<4xf32> } else { graph.yield %x : tensor<4xf32> }",
            "expects an i1 condition of one element",
        ),
        (
            "%r = graph.if %c : tensor<i1> -> tensor<4xf32> { graph.yield %x : tensor<4xf32> } else { %n = graph.constant dense<1.0> : tensor<3xf32>\n graph.yield %n : tensor<3xf32> }",
            "does not fit",
        ),
        (
            "%r = graph.if %c : tensor<i1> -> tensor<4xf32> { graph.yield %x : tensor<4xf32> } else { graph.yield }",
            "yields 0 values",
        ),
        (
            "%r = graph.loop (%m, %c, %x) : (tensor<i64>, tensor<i1>, tensor<4xf32>) -> tensor<4xf32> {\n^bb0(%i: tensor<i64>, %v: tensor<4xf32>):\n graph.yield %c, %v : tensor<i1>, tensor<4xf32> }",
            "expects its body to take (tensor<i64>, tensor<i1>, tensor<4xf32>)",
        ),
        (
            "graph.loop (%x, %c) : (tensor<4xf32>, tensor<i1>) -> () {\n^bb0(%i: tensor<i64>, %k: tensor<i1>):\n graph.yield %k : tensor<i1> }",
            "expects 'max_trip' to be one i64 element",
        ),
        (
            "%r = graph.loop (%m, %c) : (tensor<i64>, tensor<i1>) -> tensor<?x3xf32> {\n^bb0(%i: tensor<i64>, %k: tensor<i1>):\n graph.yield %k, %x : tensor<i1>, tensor<4xf32> }",
            "does not stack scan element #0",
        ),
    ];
    for (body, expected) in cases {
        let src = format!(
            "func.func @main(%c: tensor<i1>, %x: tensor<4xf32>, %m: tensor<i64>) {{\n{body}\nfunc.return\n}}"
        );
        let mut ctx = context();
        let err = match parse_source(&mut ctx, &src, "bad.mlir", 1) {
            Err(d) => d.message,
            Ok(module) => verify(&ctx, module).expect_err(body).message,
        };
        assert!(
            err.contains(expected),
            "{body}\n  gave: {err}\n  wanted: {expected}"
        );
    }
}
