//! The Rust construction API: built ops verify, print like parsed ones, and carry the same
//! default attributes; malformed ops print and fold without panicking.

use crate::common;

use common::{body_ops, context, custom, generic, parse};
use dlc_arith::{
    build_binary, build_cast, build_cmpf, build_cmpi, build_constant, build_index_constant,
    build_negf, build_select, constant_result_name, set_fastmath_flags, set_overflow_flags,
    splat_attr, AddFOp, AddIOp, CmpFPredicate, CmpIOp, CmpIPredicate, ExtSIOp, FastMathFlags,
    IndexCastOp, MulIOp, OverflowFlags,
};
use dlc_ir::{Context, DenseValue, InsertPoint, Location, Op, OpSpec, Type, Value};

/// A module holding `"test.region"` whose entry block has arguments of `types`, plus the block.
fn scaffold(ctx: &mut Context, types: &str) -> (Op, dlc_ir::Block) {
    let module = parse(
        ctx,
        &format!(
            "\"test.region\"() ({{\n^bb0({types}):\n  \"test.end\"() : () -> ()\n}}) : () -> ()\n"
        ),
    );
    let region_op = body_ops(ctx, module)[0];
    let block = ctx.blocks(ctx.region(region_op, 0))[0];
    (module, block)
}

#[test]
fn built_ops_print_like_parsed_ones() {
    let mut ctx = context();
    let (module, block) = scaffold(&mut ctx, "%a: i32, %x: f32, %c: i1");
    let args: Vec<Value> = ctx.block_args(block).to_vec();
    let (a, x, c) = (args[0], args[1], args[2]);
    let end = ctx.last_op(block).expect("terminator");
    let at = InsertPoint::Before(end);
    let loc = Location::Unknown;

    let seven = build_index_constant(&mut ctx, at, 7, loc);
    let forty_two = ctx.integer_attr(42, Type::I32);
    let k = build_constant(&mut ctx, at, forty_two, Type::I32, loc);
    let k = ctx.result(k, 0);
    let add = build_binary::<AddIOp>(&mut ctx, at, a, k, loc);
    let sum = ctx.result(add, 0);
    let mul = build_binary::<MulIOp>(&mut ctx, at, sum, a, loc);
    set_overflow_flags(&mut ctx, mul, OverflowFlags::NSW | OverflowFlags::NUW);
    let addf = build_binary::<AddFOp>(&mut ctx, at, x, x, loc);
    set_fastmath_flags(&mut ctx, addf, FastMathFlags::NNAN | FastMathFlags::NINF);
    let neg = build_negf(&mut ctx, at, x, loc);
    let lt = build_cmpi(&mut ctx, at, CmpIPredicate::Slt, a, k, loc);
    let olt = build_cmpf(&mut ctx, at, CmpFPredicate::Olt, x, x, loc);
    let pick = build_select(&mut ctx, at, c, a, k, loc);
    let picked = ctx.result(pick, 0);
    let idx = build_cast::<IndexCastOp>(&mut ctx, at, picked, Type::INDEX, loc);
    let wide = build_cast::<ExtSIOp>(&mut ctx, at, a, Type::I64, loc);
    let _ = (seven, neg, olt, idx, wide);
    dlc_ir::verify(&ctx, module).expect("built IR verifies");

    let text = custom(&ctx, module);
    assert_eq!(
        text,
        r#"module {
  "test.region"() ({
  ^bb0(%arg0: i32, %arg1: f32, %arg2: i1):
    %c7 = arith.constant 7 : index
    %c42_i32 = arith.constant 42 : i32
    %0 = arith.addi %arg0, %c42_i32 : i32
    %1 = arith.muli %0, %arg0 overflow<nsw, nuw> : i32
    %2 = arith.addf %arg1, %arg1 fastmath<nnan,ninf> : f32
    %3 = arith.negf %arg1 : f32
    %4 = arith.cmpi slt, %arg0, %c42_i32 : i32
    %5 = arith.cmpf olt, %arg1, %arg1 : f32
    %6 = arith.select %arg2, %arg0, %c42_i32 : i32
    %7 = arith.index_cast %6 : i32 to index
    %8 = arith.extsi %arg0 : i32 to i64
    "test.end"() : () -> ()
  }) : () -> ()
}"#
    );
    // Parsing the text gives the same attributes, defaults included.
    let mut ctx2 = context();
    let reparsed = parse(&mut ctx2, &text);
    assert_eq!(generic(&ctx2, reparsed), generic(&ctx, module));
    assert!(generic(&ctx, module)
        .contains(r#""arith.addi"(%arg0, %1) <{overflowFlags = #arith.overflow<none>}>"#));

    let cmp = ctx.view::<CmpIOp>(lt).expect("a cmpi");
    assert_eq!(cmp.cmp_predicate(&ctx), Some(CmpIPredicate::Slt));
    assert_eq!(
        dlc_arith::overflow_flags(&ctx, mul),
        OverflowFlags::NSW | OverflowFlags::NUW
    );
    assert_eq!(dlc_arith::overflow_flags(&ctx, add), OverflowFlags::empty());
    assert_eq!(
        dlc_arith::fastmath_flags(&ctx, addf),
        FastMathFlags::NNAN | FastMathFlags::NINF
    );
}

#[test]
fn cmp_results_take_the_operand_shape() {
    let mut ctx = context();
    let (module, block) = scaffold(&mut ctx, "%v: vector<4xf32>, %t: tensor<?xi32>");
    let (v, t) = (ctx.block_args(block)[0], ctx.block_args(block)[1]);
    let at = InsertPoint::Before(ctx.last_op(block).expect("terminator"));
    let fv = build_cmpf(&mut ctx, at, CmpFPredicate::Uno, v, v, Location::Unknown);
    let it = build_cmpi(&mut ctx, at, CmpIPredicate::Ne, t, t, Location::Unknown);
    dlc_ir::verify(&ctx, module).expect("verifies");
    let text = custom(&ctx, module);
    assert!(
        text.contains("arith.cmpf uno, %arg0, %arg0 : vector<4xf32>"),
        "{text}"
    );
    let vi1 = ctx.vector_type(&[4], Type::I1);
    assert_eq!(ctx.value_type(ctx.result(fv, 0)), vi1);
    let ti1 = ctx.tensor_type(&[dlc_ir::DYNAMIC], Type::I1);
    assert_eq!(ctx.value_type(ctx.result(it, 0)), ti1);
}

#[test]
fn splat_attr_builds_scalars_and_splats() {
    let mut ctx = context();
    let v4 = ctx.vector_type(&[4], Type::I8);
    let dyn_t = ctx.tensor_type(&[dlc_ir::DYNAMIC], Type::F32);
    let printer = |ctx: &Context, a| dlc_ir::Printer::new(ctx).attr_to_string(a);
    let a = splat_attr(&mut ctx, Type::I32, DenseValue::Int(-5)).expect("scalar");
    assert_eq!(printer(&ctx, a), "-5 : i32");
    let a = splat_attr(&mut ctx, v4, DenseValue::Int(255)).expect("splat");
    assert_eq!(printer(&ctx, a), "dense<-1> : vector<4xi8>");
    let a = splat_attr(&mut ctx, Type::F16, DenseValue::Float(0.5)).expect("float");
    assert_eq!(printer(&ctx, a), "5.000000e-01 : f16");
    assert_eq!(splat_attr(&mut ctx, dyn_t, DenseValue::Float(0.0)), None);
    assert_eq!(splat_attr(&mut ctx, Type::F32, DenseValue::Int(1)), None);
}

#[test]
fn constant_result_names_follow_mlir_opt() {
    let mut ctx = context();
    let module = parse(
        &mut ctx,
        "%0 = arith.constant 42 : i32\n%1 = arith.constant -1 : i64\n%2 = arith.constant 7 : index\n%3 = arith.constant true\n%4 = arith.constant false\n%5 = arith.constant 1.5 : f32\n%6 = arith.constant dense<1> : vector<2xi32>\n%7 = arith.addi %0, %0 : i32\n",
    );
    let names: Vec<Option<String>> = body_ops(&ctx, module)
        .into_iter()
        .map(|op| constant_result_name(&ctx, op))
        .collect();
    let want = ["c42_i32", "c-1_i64", "c7", "true", "false", "cst", "cst"];
    for (got, want) in names.iter().zip(want) {
        assert_eq!(got.as_deref(), Some(want));
    }
    assert_eq!(names[7], None);
}

#[test]
fn malformed_ops_print_and_fold_without_panicking() {
    // Unverified IR reaches the printer (diagnostic notes quote ops) and may reach folders.
    let mut ctx = context();
    let src = r#"%a = "test.val"() : () -> i32
%0 = "arith.addi"(%a) : (i32) -> i32
%1 = "arith.cmpi"(%a, %a) <{predicate = 42 : i64}> : (i32, i32) -> i1
%2 = "arith.constant"() : () -> i32
"arith.select"() : () -> ()
%3 = "arith.addi"(%a, %a) <{overflowFlags = 3 : i32}> : (i32, i32) -> i32
%4 = "arith.trunci"(%a, %a) : (i32, i32) -> i8
%5 = "arith.negf"(%a) : (i32) -> f32
"#;
    let module = dlc_ir::parse_source(&mut ctx, src, "m.mlir", 1).expect("parses");
    assert!(dlc_ir::verify(&ctx, module).is_err());
    let text = custom(&ctx, module);
    assert!(
        text.contains("%2 = arith.cmpi <<invalid predicate>>, %0, %0 {predicate = 42 : i64} : i32"),
        "{text}"
    );
    assert!(
        text.contains("%4 = arith.addi %0, %0 {overflowFlags = 3 : i32} : i32"),
        "{text}"
    );
    // Ops whose operand/result counts do not match their definition print generically.
    assert!(text.contains("\"arith.select\"() : () -> ()"), "{text}");
    for op in body_ops(&ctx, module) {
        let _ = ctx.fold(op);
    }
    // A spec built by hand with no operands at all.
    let spec = OpSpec::new(&mut ctx, "arith.muli", Location::Unknown).results(&[Type::I32]);
    let op = ctx.create_op(spec);
    assert!(ctx.fold(op).is_none());
}
