//! Structural equivalence (`dlc_ir::equivalence`): what counts (operand order, attributes,
//! types, block structure and successors) and what does not (value names, locations, the
//! ignored attributes of the top op), and that equivalent ops hash alike.

use dlc_ir::equivalence::{equivalent, structural_hash};
use dlc_ir::{parse_source, Context, Op};

/// The ops at the top of the module parsed from `src` (generic form, unregistered ops).
fn top_ops(ctx: &mut Context, src: &str) -> Vec<Op> {
    ctx.allow_unregistered = true;
    let module = parse_source(ctx, src, "test.mlir", 1).expect("parses");
    let body = ctx.blocks(ctx.regions(module)[0])[0];
    ctx.block_ops(body).collect()
}

/// Whether the first two top-level ops of `src` are equivalent, ignoring `sym_name`, and
/// hash alike when they are.
fn first_two_equivalent(src: &str) -> bool {
    let mut ctx = Context::new();
    let ops = top_ops(&mut ctx, src);
    let name = ctx.ident("sym_name");
    let same = equivalent(&ctx, ops[0], ops[1], &[name]);
    assert_eq!(same, equivalent(&ctx, ops[1], ops[0], &[name]));
    if same {
        assert_eq!(
            structural_hash(&ctx, ops[0], &[name]),
            structural_hash(&ctx, ops[1], &[name])
        );
    }
    same
}

#[test]
fn names_and_locations_do_not_count() {
    assert!(first_two_equivalent(
        r#"
        "t.fn"() ({
        ^bb0(%a: i32, %b: i32):
          %s = "t.add"(%a, %b) : (i32, i32) -> i32 loc("x.mlir":1:1)
          "t.ret"(%s) : (i32) -> ()
        }) {sym_name = "f"} : () -> ()
        "t.fn"() ({
        ^bb0(%x: i32, %y: i32):
          %0 = "t.add"(%x, %y) : (i32, i32) -> i32 loc("y.mlir":7:3)
          "t.ret"(%0) : (i32) -> ()
        }) {sym_name = "g"} : () -> ()
        "#
    ));
}

#[test]
fn operand_order_attributes_and_types_count() {
    let pair = |second: &str| {
        format!(
            r#"
            "t.fn"() ({{
            ^bb0(%a: i32, %b: i32):
              %s = "t.sub"(%a, %b) {{k = 1 : i32}} : (i32, i32) -> i32
              "t.ret"(%s) : (i32) -> ()
            }}) {{sym_name = "f"}} : () -> ()
            "t.fn"() ({{
            ^bb0(%a: i32, %b: i32):
              {second}
              "t.ret"(%s) : (i32) -> ()
            }}) {{sym_name = "g"}} : () -> ()
            "#
        )
    };
    let same = r#"%s = "t.sub"(%a, %b) {k = 1 : i32} : (i32, i32) -> i32"#;
    assert!(first_two_equivalent(&pair(same)));
    for differs in [
        r#"%s = "t.sub"(%b, %a) {k = 1 : i32} : (i32, i32) -> i32"#,
        r#"%s = "t.sub"(%a, %b) {k = 2 : i32} : (i32, i32) -> i32"#,
        r#"%s = "t.sub"(%a, %b) : (i32, i32) -> i32"#,
        r#"%s = "t.add"(%a, %b) {k = 1 : i32} : (i32, i32) -> i32"#,
        r#"%s = "t.sub"(%a, %a) {k = 1 : i32} : (i32, i32) -> i32"#,
    ] {
        assert!(!first_two_equivalent(&pair(differs)), "{differs}");
    }
}

#[test]
fn ignored_attributes_only_at_the_top() {
    // `sym_name` differs on nested ops: that counts.
    assert!(!first_two_equivalent(
        r#"
        "t.table"() ({
          "t.fn"() {sym_name = "a"} : () -> ()
        }) {sym_name = "f"} : () -> ()
        "t.table"() ({
          "t.fn"() {sym_name = "b"} : () -> ()
        }) {sym_name = "g"} : () -> ()
        "#
    ));
}

#[test]
fn block_structure_and_successors_count() {
    let blocks = |target: &str| {
        format!(
            r#"
            "t.fn"() ({{
            ^bb0(%c: i1):
              "t.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
            ^bb1:
              "t.ret"() : () -> ()
            ^bb2:
              "t.ret"() : () -> ()
            }}) {{sym_name = "f"}} : () -> ()
            "t.fn"() ({{
            ^bb0(%c: i1):
              "t.cond_br"(%c)[{target}] : (i1) -> ()
            ^bb1:
              "t.ret"() : () -> ()
            ^bb2:
              "t.ret"() : () -> ()
            }}) {{sym_name = "g"}} : () -> ()
            "#
        )
    };
    assert!(first_two_equivalent(&blocks("^bb1, ^bb2")));
    assert!(!first_two_equivalent(&blocks("^bb2, ^bb1")));
}

#[test]
fn values_from_outside_correspond_only_to_themselves() {
    let mut ctx = Context::new();
    let ops = top_ops(
        &mut ctx,
        r#"
        %x = "t.def"() : () -> i32
        %y = "t.def"() : () -> i32
        "t.use"(%x) : (i32) -> ()
        "t.use"(%x) : (i32) -> ()
        "t.use"(%y) : (i32) -> ()
        "#,
    );
    assert!(equivalent(&ctx, ops[0], ops[1], &[]));
    assert!(equivalent(&ctx, ops[2], ops[3], &[]));
    assert!(!equivalent(&ctx, ops[2], ops[4], &[]));
    assert_eq!(
        structural_hash(&ctx, ops[2], &[]),
        structural_hash(&ctx, ops[3], &[])
    );
}
