//! Parse → print → parse → print is stable for generic-form IR, and errors carry positions.

use dlc_ir::{parse_source, print_op, verify, Context, PrintOptions};

fn roundtrip(src: &str) -> String {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let m = parse_source(&mut ctx, src, "t.mlir", 1).unwrap_or_else(|d| panic!("{}", d.message));
    verify(&ctx, m).unwrap_or_else(|d| panic!("{}", d.message));
    let once = print_op(&ctx, m, PrintOptions::default());
    let mut ctx2 = Context::new();
    ctx2.allow_unregistered = true;
    let m2 = parse_source(&mut ctx2, &once, "t2.mlir", 1)
        .unwrap_or_else(|d| panic!("{}\n{once}", d.message));
    let twice = print_op(&ctx2, m2, PrintOptions::default());
    assert_eq!(once, twice);
    once
}

#[test]
fn generic_ops_round_trip() {
    let out = roundtrip(
        r#"
%0 = "t.a"() {v = 1 : i32, s = "x\n", arr = [1, 2.5, true, @f, unit, i32], d = {b = 1, a = 2}} : () -> i32
%1:2 = "t.b"(%0, %0) : (i32, i32) -> (f32, tensor<4x?xf32>)
"t.c"(%1#1) ({
^bb0(%a: f32):
  "t.br"()[^bb1] : () -> ()
^bb1:
  "t.use"(%a, %0) : (f32, i32) -> ()
}) : (tensor<4x?xf32>) -> ()
%2 = "t.k"() {x = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, y = dense<1.5> : tensor<4xf16>, z = array<i64: 1, -2>, w = 0x7FC00000 : f32} : () -> !t.thing<a, [b]>
"#,
    );
    assert!(out.contains("%1:2 = \"t.b\"(%0, %0)"), "{out}");
    assert!(
        out.contains("dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>"),
        "{out}"
    );
    assert!(out.contains("d = {a = 2 : i64, b = 1 : i64}"), "{out}");
    assert!(out.contains("!t.thing<a, [b]>"), "{out}");
}

#[test]
fn forward_references_resolve() {
    let out = roundtrip(
        r#"
"t.f"() ({
^bb0:
  "t.br"()[^bb2] : () -> ()
^bb1:
  "t.use"(%x) : (i32) -> ()
  "t.br"()[^bb2] : () -> ()
^bb2:
  %x = "t.def"() : () -> i32
  "t.br"()[^bb1] : () -> ()
}) : () -> ()
"#,
    );
    assert!(out.contains("\"t.use\"(%0)"), "{out}");
}

#[test]
fn errors_have_positions() {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let err = parse_source(
        &mut ctx,
        "%0 = \"t.a\"(%nope) : (i32) -> i32\n",
        "e.mlir",
        1,
    )
    .unwrap_err();
    assert!(
        err.message.contains("undeclared SSA value name '%nope'"),
        "{}",
        err.message
    );
    let pos = ctx.file_position(err.location).unwrap();
    assert_eq!((pos.1, pos.2), (1, 12));
}

#[test]
fn nested_ops_and_values_print_with_their_names_in_the_module() {
    use dlc_ir::{print_op_in, value_name, Printer};
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let src = "\"t.f\"() ({\n^bb0(%a: i32):\n  %x = \"t.def\"(%a) : (i32) -> f32\n  \"t.use\"(%x, %a) : (f32, i32) -> ()\n}) : () -> ()\n";
    let m = parse_source(&mut ctx, src, "n.mlir", 1).unwrap_or_else(|d| panic!("{}", d.message));
    let f = ctx.first_op(ctx.blocks(ctx.region(m, 0))[0]).expect("t.f");
    let body = ctx.blocks(ctx.region(f, 0))[0];
    let ops: Vec<_> = ctx.block_ops(body).collect();
    let options = PrintOptions::default();
    assert_eq!(
        print_op_in(&ctx, m, ops[1], options),
        "\"t.use\"(%0, %arg0) : (f32, i32) -> ()"
    );
    assert_eq!(value_name(&ctx, m, ctx.result(ops[0], 0)), "%0");
    assert_eq!(value_name(&ctx, m, ctx.block_args(body)[0]), "%arg0");
    let loc = Printer::new(&ctx).location_to_string(ctx.op_loc(ops[0]));
    assert_eq!(loc, "loc(\"n.mlir\":3:8)");
}
