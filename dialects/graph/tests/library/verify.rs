//! Shape and dtype inference and the verifier (`src/verify.rs`, on the rules of
//! `src/infer.rs`): a table of ops, operand types and attributes with the result type each
//! infers or the error it gives, every op's `InferShapes` interface agreeing with that rule, and
//! which declared types are compatible with an inferred one.

use dlc_graph::infer::{infer, infer_result_type, slice_size, InferShapes};
use dlc_graph::verify::{types_compatible, TensorType};
use dlc_graph::GraphOps;
use dlc_ir::{parse_source, Context, NamedAttr, Printer, Type, DYNAMIC};

/// The text of `ty`, for comparisons that print well.
fn type_str(ctx: &Context, ty: Type) -> String {
    Printer::new(ctx).type_to_string(ty)
}

/// `tensor<4x?x8xf32>` from `"4x?x8xf32"` (`"f32"` for rank 0).
fn ty(ctx: &mut Context, text: &str) -> Type {
    if text == "index" {
        return Type::INDEX;
    }
    let mut parts: Vec<&str> = text.split('x').collect();
    let elem = match parts.pop().unwrap() {
        "f16" => Type::F16,
        "bf16" => Type::BF16,
        "f32" => Type::F32,
        "f64" => Type::F64,
        "i1" => Type::I1,
        "i8" => Type::I8,
        "ui8" => Type::UI8,
        "i16" => Type::I16,
        "i32" => Type::I32,
        "i64" => Type::I64,
        e => panic!("unknown element {e}"),
    };
    let shape: Vec<i64> = parts
        .iter()
        .map(|d| {
            if *d == "?" {
                DYNAMIC
            } else {
                d.parse().unwrap()
            }
        })
        .collect();
    ctx.tensor_type(&shape, elem)
}

/// The attributes of `{...}` text.
fn attrs(ctx: &mut Context, text: &str) -> Vec<NamedAttr> {
    ctx.allow_unregistered = true;
    let src = format!("\"t.op\"() {text} : () -> ()");
    let module = parse_source(ctx, &src, "attrs", 1).expect("attributes parse");
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let op = ctx.first_op(body).unwrap();
    ctx.attrs(op).to_vec()
}

/// (op, operand types, attributes, `Ok(result)` or `Err(message part)`).
type Case = (
    &'static str,
    &'static [&'static str],
    &'static str,
    Result<&'static str, &'static str>,
);

// One case a line: the table reads as a table.
#[rustfmt::skip]
const CASES: &[Case] = &[
    ("graph.exp", &["4x?xf32"], "{}", Ok("4x?xf32")),
    ("graph.exp", &["4xi32"], "{}", Err("must be a tensor of f16, bf16, f32 or f64")),
    ("graph.neg", &["4xi8"], "{}", Ok("4xi8")),
    ("graph.not", &["4xi1"], "{}", Ok("4xi1")),
    ("graph.add", &["4x1xf32", "1x8xf32"], "{}", Ok("4x8xf32")),
    ("graph.add", &["8xf32", "3x1xf32"], "{}", Ok("3x8xf32")),
    ("graph.add", &["?x1xf32", "1x8xf32"], "{}", Ok("?x8xf32")),
    ("graph.add", &["?xf32", "8xf32"], "{}", Ok("8xf32")),
    ("graph.add", &["?xf32", "1xf32"], "{}", Ok("?xf32")),
    ("graph.add", &["f32", "2x3xf32"], "{}", Ok("2x3xf32")),
    ("graph.add", &["4xf32", "5xf32"], "{}", Err("not broadcast-compatible")),
    ("graph.add", &["4xf32", "4xf64"], "{}", Err("element type")),
    ("graph.and", &["4xi32", "4xi32"], "{}", Ok("4xi32")),
    ("graph.cmp", &["4x1xf32", "3xf32"], "{predicate = \"lt\"}", Ok("4x3xi1")),
    ("graph.cmp", &["4xf32", "4xf32"], "{}", Err("requires string attribute 'predicate'")),
    ("graph.select", &["4x1xi1", "3xf32", "1xf32"], "{}", Ok("4x3xf32")),
    ("graph.select", &["4xf32", "4xf32", "4xf32"], "{}", Err("condition")),
    ("graph.broadcast_to", &["3x1xf32"], "{shape = array<i64: 2, 3, 4>}", Ok("2x3x4xf32")),
    ("graph.broadcast_to", &["?x1xf32"], "{shape = array<i64: -1, 4>}", Ok("?x4xf32")),
    ("graph.broadcast_to", &["5x1xf32"], "{shape = array<i64: -1, -1>}", Ok("5x?xf32")),
    ("graph.broadcast_to", &["3x2xf32"], "{shape = array<i64: 3, 4>}", Err("cannot be broadcast to 4")),
    ("graph.reshape", &["2x3x4xf32"], "{shape = array<i64: 4, -1>}", Ok("4x6xf32")),
    ("graph.reshape", &["2x3x4xf32"], "{shape = array<i64: 24>}", Ok("24xf32")),
    ("graph.reshape", &["?x4xf32"], "{shape = array<i64: -1, 2, 2>}", Ok("?x2x2xf32")),
    ("graph.reshape", &["?x4xf32"], "{shape = array<i64: 8, 2>}", Ok("8x2xf32")),
    ("graph.reshape", &["2x3xf32"], "{shape = array<i64: 4, -1>}", Err("no integer size")),
    ("graph.reshape", &["2x3xf32"], "{shape = array<i64: 7>}", Err("(6 elements) into 7 (7 elements)")),
    ("graph.reshape", &["0x3xf32"], "{shape = array<i64: 0, -1>}", Err("no integer size")),
    ("graph.reshape", &["?x?x32xf32", "index", "index"], "{shape = array<i64: -1, -1, 4, 8>}", Ok("?x?x4x8xf32")),
    ("graph.reshape", &["?x32xf32", "index"], "{shape = array<i64: -1, -1, 8>}", Err("one index operand per -1 entry of 'shape' (2), but has 1")),
    ("graph.reshape", &["?x32xf32", "i64"], "{shape = array<i64: -1, 32>}", Err("operand #1 must be a size of type 'index'")),
    ("graph.reshape", &["6x5xf32", "index"], "{shape = array<i64: -1, 4>}", Err("the -1 entries have no integer sizes")),
    ("graph.transpose", &["2x3x4xf32"], "{perm = array<i64: 1, 2, 0>}", Ok("3x4x2xf32")),
    ("graph.transpose", &["2x3xf32"], "{perm = array<i64: 0>}", Err("has 1 entries")),
    ("graph.slice", &["10xf32"], "{starts = array<i64: 1>, ends = array<i64: 8>, steps = array<i64: 3>}", Ok("3xf32")),
    ("graph.slice", &["10xf32"], "{starts = array<i64: -3>, ends = array<i64: 100>, steps = array<i64: 1>}", Ok("3xf32")),
    ("graph.slice", &["10xf32"], "{starts = array<i64: 8>, ends = array<i64: 2>, steps = array<i64: 1>}", Ok("0xf32")),
    ("graph.slice", &["?xf32"], "{starts = array<i64: 0>, ends = array<i64: 2>, steps = array<i64: 1>}", Ok("?xf32")),
    ("graph.concat", &["2x3xf32", "2x5xf32", "2x1xf32"], "{axis = 1}", Ok("2x9xf32")),
    ("graph.concat", &["?x3xf32", "2x3xf32"], "{axis = 1}", Ok("2x6xf32")),
    ("graph.concat", &["?x3xf32", "2x3xf32"], "{axis = 0}", Ok("?x3xf32")),
    ("graph.concat", &["2x3xf32", "2x3xf32"], "{axis = -1}", Err("axis -1 is out of bounds")),
    ("graph.pad", &["2x?xf32"], "{low = array<i64: 1, 2>, high = array<i64: 3, 4>}", Ok("6x?xf32")),
    ("graph.gather", &["5x6x7xf32"], "{axis = 1}", Err("expected 2 operands")),
    ("graph.gather", &["5x6x7xf32", "2x3xi32"], "{axis = 1}", Ok("5x2x3x7xf32")),
    ("graph.gather", &["5xf32", "i64"], "{axis = 0}", Ok("f32")),
    ("graph.reduce_sum", &["2x3x4xf32"], "{axes = array<i64: 0, 2>}", Ok("3xf32")),
    ("graph.reduce_sum", &["2x3x4xf32"], "{axes = array<i64: 2, 0>, keepdim = true}", Ok("1x3x1xf32")),
    ("graph.reduce_prod", &["2x3xi32"], "{axes = array<i64: 0, 1>}", Ok("i32")),
    ("graph.reduce_sum", &["2x3xf32"], "{axes = array<i64: 0, 0>}", Err("appears twice")),
    ("graph.reduce_sum", &["2x3xf32"], "{}", Err("requires attribute 'axes'")),
    ("graph.argmax", &["2x3xf16"], "{axis = 1}", Ok("2xi64")),
    ("graph.argmin", &["2x3xi8"], "{axis = 0, keepdim = true}", Ok("1x3xi64")),
    ("graph.matmul", &["4x8xf32", "8x5xf32"], "{}", Ok("4x5xf32")),
    ("graph.matmul", &["2x1x4x8xf32", "3x8x5xf32"], "{}", Ok("2x3x4x5xf32")),
    ("graph.matmul", &["?x8xf32", "?x?xf32"], "{}", Ok("?x?xf32")),
    ("graph.matmul", &["8x4xf32", "5x8xf32"], "{transpose_a, transpose_b}", Ok("4x5xf32")),
    ("graph.matmul", &["4x8xf32", "7x5xf32"], "{}", Err("inner dims do not match")),
    ("graph.matmul", &["4x8xui8", "8x5xi8"], "{}", Ok("4x5xi32")),
    ("graph.matmul", &["4x8xi8", "8x5xi8"], "{}", Ok("4x5xi32")),
    ("graph.matmul", &["4x8xi8", "8x5xi32"], "{}", Err("element type")),
    ("graph.softmax", &["2x8xf32"], "{axis = 1}", Ok("2x8xf32")),
    ("graph.softmax", &["2x8xf32"], "{axis = 2}", Err("axis 2 is out of bounds")),
    ("graph.layer_norm", &["2x8x16xf32", "8x16xf32", "8x16xf32"], "{axis = 1, epsilon = 1.0e-5}", Ok("2x8x16xf32")),
    ("graph.layer_norm", &["2x8x16xf32", "16xf32", "8xf32"], "{axis = 2, epsilon = 1.0e-5}", Err("operand #2 (beta)")),
    ("graph.rms_norm", &["2x?xf32", "16xf32"], "{axis = 1, epsilon = 1.0e-6}", Ok("2x?xf32")),
    ("graph.linear", &["3x2x16xf32", "16x32xf32", "32xf32"], "{}", Ok("3x2x32xf32")),
    ("graph.conv2d", &["1x3x32x32xf32", "16x3x3x3xf32"], "{}", Ok("1x16x30x30xf32")),
    ("graph.conv2d", &["1x3x32x32xf32", "16x3x3x3xf32"], "{strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}", Ok("1x16x16x16xf32")),
    ("graph.conv2d", &["1x3x32x32xf32", "16x3x3x3xf32"], "{dilations = array<i64: 2, 2>}", Ok("1x16x28x28xf32")),
    ("graph.conv2d", &["1x6x8x8xf32", "6x2x1x1xf32"], "{groups = 3}", Ok("1x6x8x8xf32")),
    ("graph.conv2d", &["1x6x8x8xf32", "4x2x1x1xf32"], "{groups = 3}", Err("divisible by groups")),
    ("graph.conv2d", &["1x3x2x2xf32", "4x3x3x3xf32"], "{}", Err("larger than the padded input")),
    ("graph.max_pool2d", &["1x4x2x2xf32"], "{kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>}", Ok("1x4x0x0xf32")),
    ("graph.conv2d", &["?x3x?x32xf32", "16x3x3x3xf32"], "{}", Ok("?x16x?x30xf32")),
    ("graph.max_pool2d", &["1x4x7x7xf32"], "{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}", Ok("1x4x3x3xf32")),
    ("graph.avg_pool2d", &["1x4x7x7xf32"], "{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>}", Ok("1x4x4x4xf32")),
    ("graph.avg_pool2d", &["1x4x7x7xi32"], "{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>}", Err("must be a tensor of f16")),
    ("graph.sdpa", &["2x8x16xf32", "2x10x16xf32", "2x10x32xf32"], "{scale = 0.25}", Ok("2x8x32xf32")),
    ("graph.sdpa", &["2x8x16xf32", "1x10x16xf32", "2x10x32xf32", "1x8x10xf32"], "{scale = 0.25}", Ok("2x8x32xf32")),
    ("graph.sdpa", &["2x8x16xf32", "2x10x16xf32", "2x9x32xf32"], "{scale = 0.25}", Err("same sequence length")),
    ("graph.sdpa", &["2x8x16xf32", "2x10x16xf32", "2x10x32xf32"], "{}", Err("requires float attribute 'scale'")),
    ("graph.cast", &["4xf32"], "{}", Err("give the result type")),
];

#[test]
fn inference_table() {
    for (name, operands, attr_text, expected) in CASES {
        let mut ctx = Context::new();
        let types: Vec<Type> = operands.iter().map(|t| ty(&mut ctx, t)).collect();
        let list = attrs(&mut ctx, attr_text);
        let got = infer_result_type(&mut ctx, name, &types, &list);
        let case = format!("{name} {operands:?} {attr_text}");
        match (expected, got) {
            (Ok(want), Ok(got)) => {
                let want = ty(&mut ctx, want);
                assert_eq!(type_str(&ctx, got), type_str(&ctx, want), "{case}");
            }
            (Err(part), Err(msg)) => assert!(msg.contains(part), "{case}: {msg}"),
            (want, got) => panic!("{case}: expected {want:?}, got {got:?}"),
        }
    }
}

/// What the verifier asks, each op's `InferShapes` interface, is the rule the table checks.
#[test]
fn every_op_infers_through_its_interface() {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_graph::dialect());
    let rule = |ctx: &Context, name: &str| {
        ctx.op_def_by_name(name)
            .and_then(|d| d.interfaces.get::<dyn InferShapes>())
    };
    for def in GraphOps::defs() {
        assert!(
            rule(&ctx, def.name).is_some(),
            "{} has no InferShapes",
            def.name
        );
    }
    for (name, operands, attr_text, _) in CASES {
        let types: Vec<Type> = operands.iter().map(|t| ty(&mut ctx, t)).collect();
        let list = attrs(&mut ctx, attr_text);
        let inferred = rule(&ctx, name).map(|r| r.infer(&ctx, &types, &list));
        assert_eq!(inferred, Some(infer(&ctx, name, &types, &list)), "{name}");
    }
}

#[test]
fn compatibility_allows_more_static_results() {
    let a = TensorType {
        shape: vec![4, DYNAMIC],
        element: Type::F32,
    };
    let b = TensorType {
        shape: vec![DYNAMIC, 8],
        element: Type::F32,
    };
    assert!(types_compatible(&a, &b));
    let c = TensorType {
        shape: vec![4],
        element: Type::F32,
    };
    assert!(!types_compatible(&a, &c));
    assert_eq!(slice_size(10, -1, i64::MIN, 1), 0);
    assert_eq!(slice_size(10, i64::MIN, i64::MAX, 4), 3);
}
