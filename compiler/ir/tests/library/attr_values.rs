//! `define_op!`'s typed attribute accessors (`attributes = [axis: i64, ...]`): each reads its
//! attribute as a Rust value, `None` when it is missing or of another kind.

use dlc_ir::{define_op, parse_source, Context, Dialect, OpView, Traits, Type};

define_op! {
    /// An op with one attribute of each kind the accessors read.
    pub struct KnobsOp = "knobs.op";
    traits = Traits::empty();
    operands = [];
    results = [];
    attributes = [axis: i64, factor: f64, flag: bool, label = "sym_label": String, perm: Vec<i64>, ty: Type, raw];
}

#[test]
fn typed_accessors_decode_their_attributes() {
    let mut ctx = Context::new();
    ctx.register_dialect(Dialect::new("knobs", vec![KnobsOp::def()]));
    let src = r#""knobs.op"() {axis = 2 : i64, factor = 0.5 : f64, flag = true, sym_label = "x", perm = array<i64: 1, 0>, ty = f32, raw = 7 : i32} : () -> ()
"knobs.op"() {axis = 1.5 : f64, flag = 3 : i32} : () -> ()
"#;
    let module = parse_source(&mut ctx, src, "knobs.mlir", 1).expect("parses");
    let ops: Vec<KnobsOp> = ctx
        .blocks(ctx.region(module, 0))
        .iter()
        .flat_map(|&b| ctx.block_ops(b).collect::<Vec<_>>())
        .filter_map(|op| ctx.view::<KnobsOp>(op))
        .collect();
    let [full, wrong] = ops[..] else {
        panic!("two ops, got {}", ops.len())
    };
    assert_eq!(full.axis(&ctx), Some(2));
    assert_eq!(full.factor(&ctx), Some(0.5));
    assert_eq!(full.flag(&ctx), Some(true));
    assert_eq!(full.label(&ctx).as_deref(), Some("x"));
    assert_eq!(full.perm(&ctx), Some(vec![1, 0]));
    assert_eq!(full.ty(&ctx), Some(Type::F32));
    assert!(full
        .raw(&ctx)
        .is_some_and(|a| ctx.attr_as_int(a) == Some(7)));
    // Of another kind, or missing: None, never a panic.
    assert_eq!(wrong.axis(&ctx), None);
    assert_eq!(wrong.flag(&ctx), None);
    assert_eq!(wrong.factor(&ctx), None);
    assert_eq!(KnobsOp::NAME, "knobs.op");
}
