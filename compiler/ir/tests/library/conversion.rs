//! Dialect conversion (`dlc_ir::rewrite::apply_conversion`): every illegal op is lowered, the
//! first op left illegal is reported, and a target's op entries override its dialect entries.

use dlc_ir::rewrite::{
    apply_conversion, ConversionTarget, Legality, PatternSet, RewritePattern, Rewriter,
    TypeConverter,
};
use dlc_ir::{Block, Context, InsertPoint, Location, Op, OpSpec, Type, Value};

/// `toy.X` (on i32) → `lo.X` (on i64): same operands and attributes, converted types.
struct Lower(&'static str, &'static str);

impl RewritePattern for Lower {
    fn name(&self) -> &str {
        self.0
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.0)
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let operands: Vec<Value> = ctx.operands(op).to_vec();
        let attrs = ctx.attrs(op).to_vec();
        let loc = ctx.op_loc(op);
        let types = ctx.result_types(op);
        let Some(types) = types
            .iter()
            .map(|t| rw.convert_type(*t))
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        let mut spec = OpSpec::new(rw.ctx_mut(), self.1, loc)
            .operands(&operands)
            .results(&types);
        spec.attrs = attrs;
        rw.replace_op_with_new(op, spec);
        true
    }
}

/// `t.root` holding a chain of `ops` on an i32 argument, ending in `t.use`.
fn setup(ops: &[&str]) -> (Context, Op, Block) {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let (region, block) = ctx.create_region_with_block(&[Type::I32]);
    let spec = OpSpec::new(&mut ctx, "t.root", Location::Unknown).region(region);
    let root = ctx.create_op(spec);
    let mut last = ctx.block_args(block)[0];
    for name in ops {
        let spec = OpSpec::new(&mut ctx, name, Location::Unknown)
            .operands(&[last])
            .results(&[Type::I32]);
        let op = ctx.build(InsertPoint::End(block), spec);
        last = ctx.result(op, 0);
    }
    let spec = OpSpec::new(&mut ctx, "t.use", Location::Unknown).operands(&[last]);
    ctx.build(InsertPoint::End(block), spec);
    (ctx, root, block)
}

fn toy_lowering() -> (ConversionTarget, PatternSet, TypeConverter) {
    let mut target = ConversionTarget::new();
    target.add_illegal_dialect("toy");
    target.add_legal_dialect("lo");
    target.add_dynamically_legal_op("t.use", |ctx, op| {
        ctx.operands(op)
            .iter()
            .all(|v| ctx.value_type(*v) == Type::I64)
    });
    let mut patterns = PatternSet::new();
    patterns.add(Lower("toy.neg", "lo.neg"));
    patterns.add(Lower("toy.add", "lo.add"));
    let mut converter = TypeConverter::new();
    converter.add_rule(|_, t| Some(t));
    converter.add_rule(|_, t| (t == Type::I32).then_some(Type::I64));
    (target, patterns, converter)
}

fn names(ctx: &Context, block: Block) -> Vec<String> {
    ctx.block_ops(block)
        .map(|o| ctx.op_name(o).to_string())
        .collect()
}

#[test]
fn lowers_every_illegal_op() {
    let (mut ctx, root, block) = setup(&["toy.neg", "t.other", "toy.add"]);
    let (target, patterns, converter) = toy_lowering();
    // Block arguments are converted by the pass, not the driver.
    assert_eq!(converter.convert_block_args(&mut ctx, block), Ok(()));
    let result = apply_conversion(&mut ctx, root, &target, &patterns, &converter);
    // Two ops rewritten: toy.neg and toy.add.
    assert_eq!(result.map_err(|d| d.message), Ok(2));
    assert_eq!(names(&ctx, block), ["lo.neg", "t.other", "lo.add", "t.use"]);
    let add = ctx.block_ops(block).nth(2).expect("lo.add");
    assert_eq!(ctx.value_type(ctx.result(add, 0)), Type::I64);
}

#[test]
fn reports_the_first_op_left_illegal() {
    let (mut ctx, root, _) = setup(&["toy.neg", "toy.mul", "toy.add"]);
    let (target, patterns, converter) = toy_lowering();
    let err = apply_conversion(&mut ctx, root, &target, &patterns, &converter)
        .expect_err("toy.mul has no pattern");
    assert_eq!(
        err.message,
        "failed to legalize operation 'toy.mul' that was explicitly marked illegal"
    );

    // Without toy ops, only the dynamic rule rejects `t.use`, still on i32.
    let (mut ctx, root, _) = setup(&["t.other"]);
    let err = apply_conversion(&mut ctx, root, &target, &patterns, &converter)
        .expect_err("t.use takes an i32");
    assert_eq!(err.message, "failed to legalize operation 't.use'");
}

#[test]
fn op_entries_override_dialect_entries() {
    let (ctx, _, block) = setup(&["toy.neg", "toy.keep"]);
    let mut target = ConversionTarget::new();
    target.add_illegal_dialect("toy");
    target.add_legal_op("toy.keep");
    let legality: Vec<_> = ctx
        .block_ops(block)
        .map(|o| target.legality(&ctx, o))
        .collect();
    assert_eq!(
        legality,
        [Legality::Illegal, Legality::Legal, Legality::Unknown]
    );
}
