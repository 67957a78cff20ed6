//! The loop ops' custom syntax (`src/syntax.rs`): what is printed reads back as it was, for
//! invalid ops too, which diagnostics and dumps print.

use dlc_ir::{print_op, Context, PrintOptions};

fn print_parsed(src: &str) -> String {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    let module = dlc_ir::parse_source(&mut ctx, src, "test.mlir", 1).unwrap();
    print_op(&ctx, module, PrintOptions::default())
}

/// A `loop.call_loop` whose `num_carried` does not fit its operands (invalid, but printed
/// in diagnostics and dumps) keeps the attribute, and reads back as it was.
#[test]
fn call_loop_with_bad_num_carried_round_trips() {
    let text = print_parsed(
        r#"
func.func @bad(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: index) {
  %r:2 = "loop.call_loop"(%m, %c, %x) <{callee = @b, num_carried = 2 : i64}> : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, index) -> (index, index)
  return
}
"#,
    );
    assert!(
        text.contains("loop.call_loop @b (%arg0, %arg1, %arg2) {num_carried = 2 : i64} :"),
        "{text}"
    );
    assert_eq!(print_parsed(&text), text);
}
