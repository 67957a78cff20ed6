//! Running functions in the interpreter: results, and runtime errors, which must come back as
//! diagnostics at the failing op, never as panics. (The tensors it computes on are tested in
//! compiler/tensor.)

use dlc_graph::interp::interpret;
use dlc_ir::{parse_source, Context, Location, Op};
use dlc_tensor::{DType, Literal};

/// Parses `src` (generic form, unregistered dialects allowed) and returns the context and @main.
fn load(src: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let module = parse_source(&mut ctx, src, "t.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {}", d.message));
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let main = ctx
        .block_ops(body)
        .find(|op| dlc_ir::symbol::symbol_name(&ctx, *op) == Some("main"))
        .expect("@main");
    (ctx, main)
}

/// A function `@main(args) -> result` whose body is `ops` followed by returning `%0`.
fn function(args: &[&str], result: &str, ops: &[&str]) -> String {
    let params: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%arg{i}: {t}"))
        .collect();
    let mut src = format!("\"func.func\"() ({{\n^bb0({}):\n", params.join(", "));
    for op in ops {
        src.push_str(&format!("  {op}\n"));
    }
    src.push_str(&format!("  \"func.return\"(%0) : ({result}) -> ()\n"));
    src.push_str(&format!(
        "}}) {{function_type = ({}) -> {result}, sym_name = \"main\"}} : () -> ()\n",
        args.join(", ")
    ));
    src
}

/// Runs `src` on `inputs` and returns the error message and its line (the run must fail).
fn error_of(src: &str, inputs: &[Literal]) -> (String, u32) {
    let (ctx, main) = load(src);
    match interpret(&ctx, main, inputs) {
        Ok(r) => panic!("expected an error, got {r:?}"),
        Err(d) => {
            let line = match d.location {
                Location::FileLineCol { line, .. } => line,
                _ => 0,
            };
            (d.message, line)
        }
    }
}

fn f32s(shape: &[usize], values: &[f64]) -> Literal {
    Literal::from_f64(DType::F32, shape, values)
}

fn i32s(shape: &[usize], values: &[i64]) -> Literal {
    Literal::from_i64(DType::I32, shape, values)
}

#[test]
fn runs_a_simple_function() {
    let src = function(
        &["tensor<2xi32>", "tensor<2xi32>"],
        "tensor<2xi32>",
        &[r#"%0 = "graph.div"(%arg0, %arg1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>"#],
    );
    let (ctx, main) = load(&src);
    let out = interpret(&ctx, main, &[i32s(&[2], &[-7, 7]), i32s(&[2], &[2, -2])]).expect("runs");
    assert_eq!(out, vec![i32s(&[2], &[-3, -3])]);
}

#[test]
fn runtime_errors_are_diagnostics_at_the_op() {
    let div = function(
        &["tensor<2xi32>", "tensor<2xi32>"],
        "tensor<2xi32>",
        &[r#"%0 = "graph.div"(%arg0, %arg1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>"#],
    );
    let (msg, line) = error_of(&div, &[i32s(&[2], &[1, 2]), i32s(&[2], &[1, 0])]);
    assert_eq!(msg, "'graph.div' op integer division by zero");
    assert_eq!(line, 3);

    let rem = div.replace("graph.div", "graph.rem");
    let (msg, _) = error_of(&rem, &[i32s(&[2], &[1, 2]), i32s(&[2], &[0, 1])]);
    assert_eq!(msg, "'graph.rem' op integer division by zero");

    let gather = function(
        &["tensor<3xf32>", "tensor<2xi64>"],
        "tensor<2xf32>",
        &[
            r#"%0 = "graph.gather"(%arg0, %arg1) {axis = 0 : i64} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>"#,
        ],
    );
    let idx = Literal::from_i64(DType::I64, &[2], &[0, 3]);
    let (msg, line) = error_of(&gather, &[f32s(&[3], &[1.0, 2.0, 3.0]), idx]);
    assert_eq!(
        msg,
        "'graph.gather' op index 3 is out of range for axis 0 of size 3"
    );
    assert_eq!(line, 3);
    let idx = Literal::from_i64(DType::I64, &[2], &[-4, 0]);
    assert!(error_of(&gather, &[f32s(&[3], &[1.0, 2.0, 3.0]), idx])
        .0
        .contains("index -4"));

    // Two `?` dims the op requires equal (broadcast) are checked when the sizes are known.
    let add = function(
        &["tensor<?xf32>", "tensor<?xf32>"],
        "tensor<?xf32>",
        &[r#"%0 = "graph.add"(%arg0, %arg1) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>"#],
    );
    let (msg, _) = error_of(
        &add,
        &[f32s(&[2], &[1.0, 2.0]), f32s(&[3], &[1.0, 2.0, 3.0])],
    );
    assert_eq!(msg, "'graph.add' op shapes [2] and [3] do not broadcast");
    let matmul = function(
        &["tensor<2x?xf32>", "tensor<?x2xf32>"],
        "tensor<2x2xf32>",
        &[
            r#"%0 = "graph.matmul"(%arg0, %arg1) : (tensor<2x?xf32>, tensor<?x2xf32>) -> tensor<2x2xf32>"#,
        ],
    );
    let (msg, _) = error_of(
        &matmul,
        &[f32s(&[2, 3], &[0.0; 6]), f32s(&[2, 2], &[0.0; 4])],
    );
    assert!(msg.contains("inner dims differ"), "{msg}");

    let unknown = function(
        &["tensor<2xf32>"],
        "tensor<2xf32>",
        &[r#"%0 = "graph.frobnicate"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>"#],
    );
    let (msg, line) = error_of(&unknown, &[f32s(&[2], &[1.0, 2.0])]);
    assert_eq!(
        msg,
        "'graph.frobnicate' op is not supported by the interpreter"
    );
    assert_eq!(line, 3);
    let foreign = unknown.replace("graph.frobnicate", "test.op");
    assert!(error_of(&foreign, &[f32s(&[2], &[1.0, 2.0])])
        .0
        .contains("not supported"));
}

#[test]
fn malformed_ops_are_diagnostics() {
    let one = |op: &str, arg: &str, result: &str, input: Literal| -> String {
        error_of(&function(&[arg], result, &[op]), &[input]).0
    };
    let x = || f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let t = "tensor<2x2xf32>";
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"%0 = "graph.exp"(%arg0, %arg0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "expects 1 operands, got 2",
        ),
        (
            r#"%0 = "graph.reduce_sum"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "requires attribute 'axes'",
        ),
        (
            r#"%0 = "graph.reduce_sum"(%arg0) {axes = array<i64: 5>} : (tensor<2x2xf32>) -> tensor<2xf32>"#,
            "tensor<2xf32>",
            "axis 5 is out of range for rank 2",
        ),
        (
            r#"%0 = "graph.reduce_sum"(%arg0) {axes = "x"} : (tensor<2x2xf32>) -> tensor<2xf32>"#,
            "tensor<2xf32>",
            "must be an array",
        ),
        (
            r#"%0 = "graph.transpose"(%arg0) {perm = array<i64: 0, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "is not a permutation",
        ),
        (
            r#"%0 = "graph.reshape"(%arg0) {shape = array<i64: 3, -1>} : (tensor<2x2xf32>) -> tensor<3x1xf32>"#,
            "tensor<3x1xf32>",
            "cannot reshape",
        ),
        (
            r#"%0 = "graph.reshape"(%arg0) {shape = array<i64: 1, 4>} : (tensor<2x2xf32>) -> tensor<4x1xf32>"#,
            "tensor<4x1xf32>",
            "does not match its type",
        ),
        (
            r#"%0 = "graph.slice"(%arg0) {starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, steps = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "must be positive",
        ),
        (
            r#"%0 = "graph.pad"(%arg0) {low = array<i64: -1, 0>, high = array<i64: 0, 0>} : (tensor<2x2xf32>) -> tensor<1x2xf32>"#,
            "tensor<1x2xf32>",
            "negative padding",
        ),
        (
            r#"%0 = "graph.broadcast_to"(%arg0) {shape = array<i64: 3, 2>} : (tensor<2x2xf32>) -> tensor<3x2xf32>"#,
            "tensor<3x2xf32>",
            "cannot broadcast",
        ),
        (
            r#"%0 = "graph.not"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "is not defined on f32",
        ),
        (
            r#"%0 = "graph.cmp"(%arg0, %arg0) {predicate = "xx"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>"#,
            "tensor<2x2xi1>",
            "unknown predicate 'xx'",
        ),
        (
            r#"%0 = "graph.gelu"(%arg0) {approximate = "fast"} : (tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "unknown approximation",
        ),
        (
            r#"%0 = "graph.conv2d"(%arg0, %arg0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "must have rank 4",
        ),
        (
            r#"%0 = "graph.max_pool2d"(%arg0) {kernel = array<i64: 2, 2>} : (tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "must have rank 4",
        ),
        (
            r#"%0 = "graph.constant"() : () -> tensor<2x2xf32>"#,
            t,
            "requires attribute 'value'",
        ),
        (
            r#"%0 = "graph.iota"() {axis = 0 : i64} : () -> tensor<?x2xf32>"#,
            "tensor<?x2xf32>",
            "expects one index operand per dynamic dim",
        ),
        (
            r#"%0 = "graph.dim"(%arg0) {axis = 0 : i64} : (tensor<2x2xf32>) -> index"#,
            "index",
            "returns an index value",
        ),
        (
            r#"%0 = "graph.fill"() {value = 1.0 : f32} : () -> tensor<?xf32>"#,
            "tensor<?xf32>",
            "one index operand per dynamic dim",
        ),
        (
            r#"%0 = "graph.matmul"(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>"#,
            t,
            "expects an operand #1",
        ),
        // Hostile sizes are reported, not overflowed or allocated.
        (
            r#"%0 = "graph.pad"(%arg0) {low = array<i64: 9223372036854775807, 0>, high = array<i64: 9223372036854775807, 0>} : (tensor<2x2xf32>) -> tensor<?x2xf32>"#,
            "tensor<?x2xf32>",
            "too large",
        ),
        (
            r#"%0 = "graph.broadcast_to"(%arg0) {shape = array<i64: 4294967296, 4294967296, 2, 2>} : (tensor<2x2xf32>) -> tensor<?x?x2x2xf32>"#,
            "tensor<?x?x2x2xf32>",
            "exceeds the interpreter's limit",
        ),
        (
            r#"%0 = "graph.iota"() {axis = 0 : i64} : () -> tensor<100000x100000xf32>"#,
            "tensor<100000x100000xf32>",
            "exceeds the interpreter's limit",
        ),
        (
            r#"%0 = "graph.reshape"(%arg0) {shape = array<i64: 4294967296, 4294967296, -1>} : (tensor<2x2xf32>) -> tensor<?x?x?xf32>"#,
            "tensor<?x?x?xf32>",
            "cannot reshape",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(op, result, want)| {
            let got = one(op, t, result, x());
            (!got.contains(want)).then(|| format!("{op}\n  got:  {got}\n  want: …{want}…"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    let ints = |op: &str| {
        let src = function(&["tensor<2xi32>"], "tensor<2xi32>", &[op]);
        error_of(&src, &[i32s(&[2], &[2, 3])]).0
    };
    let neg = r#"%c = "graph.constant"() {value = dense<-1> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "graph.pow"(%arg0, %c) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>"#;
    assert!(ints(neg).contains("negative exponent"));
    assert!(
        ints(r#"%0 = "graph.exp"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>"#)
            .contains("floats only")
    );
    assert!(ints(
        r#"%0 = "graph.softmax"(%arg0) {axis = 0 : i64} : (tensor<2xi32>) -> tensor<2xi32>"#
    )
    .contains("floats only"));
}

#[test]
fn signature_and_call_errors() {
    let identity = function(
        &["tensor<2x?xf32>"],
        "tensor<2x?xf32>",
        &[r#"%0 = "graph.neg"(%arg0) : (tensor<2x?xf32>) -> tensor<2x?xf32>"#],
    );
    let (ctx, main) = load(&identity);
    // `?` accepts any size.
    assert!(interpret(&ctx, main, &[f32s(&[2, 5], &[0.0; 10])]).is_ok());
    let msg = |inputs: &[Literal]| interpret(&ctx, main, inputs).unwrap_err().message;
    assert_eq!(msg(&[]), "'func.func' op expects 1 inputs, got 0");
    assert!(msg(&[f32s(&[3, 5], &[0.0; 15])])
        .contains("input #0: a f32 tensor of shape [3, 5] is not a tensor<2x?xf32>"));
    assert!(msg(&[Literal::from_f64(DType::F64, &[2, 1], &[0.0; 2])]).contains("input #0"));
    assert!(msg(&[f32s(&[2], &[0.0; 2])]).contains("input #0"));
    let (ctx2, _) = load(&identity);
    let module_op = ctx2.parent_op(main).expect("module");
    assert!(interpret(&ctx2, module_op, &[])
        .unwrap_err()
        .message
        .contains("is not a func.func"));

    let missing = function(
        &["tensor<2xf32>"],
        "tensor<2xf32>",
        &[r#"%0 = "func.call"(%arg0) {callee = @nowhere} : (tensor<2xf32>) -> tensor<2xf32>"#],
    );
    assert!(error_of(&missing, &[f32s(&[2], &[0.0; 2])])
        .0
        .contains("calls @nowhere, which is not defined"));

    let recursive = function(
        &["tensor<2xf32>"],
        "tensor<2xf32>",
        &[r#"%0 = "func.call"(%arg0) {callee = @main} : (tensor<2xf32>) -> tensor<2xf32>"#],
    );
    assert!(error_of(&recursive, &[f32s(&[2], &[0.0; 2])])
        .0
        .contains("calls nest deeper than"));
}

#[test]
fn index_arithmetic_feeds_fill() {
    let src = function(
        &["tensor<?xf32>"],
        "tensor<?x2xi32>",
        &[
            r#"%d = "graph.dim"(%arg0) {axis = 0 : i64} : (tensor<?xf32>) -> index"#,
            r#"%c = "arith.constant"() {value = 1 : index} : () -> index"#,
            r#"%n = "arith.addi"(%d, %c) : (index, index) -> index"#,
            r#"%0 = "graph.fill"(%n) {value = 3 : i32} : (index) -> tensor<?x2xi32>"#,
        ],
    );
    let (ctx, main) = load(&src);
    let out = interpret(&ctx, main, &[f32s(&[2], &[0.0; 2])]).expect("runs");
    assert_eq!(out, vec![i32s(&[3, 2], &[3; 6])]);
}

#[test]
fn hostile_attributes_do_not_panic() {
    let x = f32s(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let t = "tensor<1x1x2x2xf32>";
    let run = |op: &str, result: &str| {
        let (ctx, main) = load(&function(&[t], result, &[op]));
        interpret(&ctx, main, std::slice::from_ref(&x)).map(|_| ())
    };
    let slice = r#"%0 = "graph.slice"(%arg0) {starts = array<i64: -9223372036854775808, 0, 0, 0>, ends = array<i64: 9223372036854775807, 1, 2, 2>, steps = array<i64: 9223372036854775807, 1, 1, 1>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>"#;
    assert!(run(slice, t).is_ok());
    let conv = r#"%0 = "graph.conv2d"(%arg0, %arg0) {dilations = array<i64: 9223372036854775807, 1>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>"#;
    assert!(run(conv, "tensor<1x1x1x1xf32>").is_err());
    let pool = r#"%0 = "graph.avg_pool2d"(%arg0) {kernel = array<i64: 2, 2>, padding = array<i64: 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32>"#;
    assert!(run(pool, "tensor<1x1x1x1xf32>").is_err());
    let gather = r#"%i = "graph.constant"() {value = dense<-9223372036854775808> : tensor<1xi64>} : () -> tensor<1xi64>
  %0 = "graph.gather"(%arg0, %i) {axis = 3 : i64} : (tensor<1x1x2x2xf32>, tensor<1xi64>) -> tensor<1x1x2x1xf32>"#;
    assert!(run(gather, "tensor<1x1x2x1xf32>").is_err());
}
