//! Moving ops between contexts (`Context::fork`, `transplant_op`, `replace_body_from`): a
//! round trip through a forked context leaves the IR text as it was.

use dlc_ir::{parse_source, print_op, verify, Context, PrintOptions};

#[test]
fn transplant_round_trip_preserves_text() {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let src = r#""t.iso"() ({
^bb0(%a: i32):
  %0 = "t.op"(%a) {k = [1, 2]} : (i32) -> f32
  "t.br"()[^bb1] : () -> ()
^bb1:
  "t.use"(%0) : (f32) -> ()
}) : () -> ()
"#;
    let module = parse_source(&mut ctx, src, "t.mlir", 1).expect("parses");
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let iso = ctx.first_op(body).expect("one op");
    let before = print_op(&ctx, module, PrintOptions::default());
    let mut child = ctx.fork();
    let copy = child.transplant_op(&ctx, iso);
    verify(&child, copy).expect("the copy verifies on its own");
    ctx.replace_body_from(iso, &child, copy);
    verify(&ctx, module).expect("still valid");
    assert_eq!(print_op(&ctx, module, PrintOptions::default()), before);
}
