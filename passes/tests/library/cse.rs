//! CSE cases the lit tests cannot reach: they need registered ops with regions or several
//! results, which no dlc dialect defines yet, so this file registers a small `test` dialect.

use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{
    parse_source, print_op, verify, Arity, Context, Dialect, OpDef, PrintOptions, Traits,
};

/// A `test` dialect with the shapes of op CSE treats specially.
fn test_dialect() -> Dialect {
    let op = |name: &'static str, traits: Traits, regions: u32| {
        let mut def = OpDef::new(name);
        def.traits = traits;
        def.regions = Arity::Exact(regions);
        def
    };
    Dialect::new(
        "test",
        vec![
            // A region that sees the values around it (like scf.if).
            op("test.scope", Traits::NO_TERMINATOR, 1),
            // A region that does not (like func.func).
            op(
                "test.isolated",
                Traits::NO_TERMINATOR | Traits::ISOLATED_FROM_ABOVE,
                1,
            ),
            // A region with no dominance between its ops.
            op(
                "test.graph",
                Traits::NO_TERMINATOR | Traits::GRAPH_REGION,
                1,
            ),
            // A pure op with a region.
            op("test.pure_region", Traits::NO_TERMINATOR | Traits::PURE, 1),
            // A pure op with two results.
            op("test.divmod", Traits::PURE, 0),
            // An op with side effects, to keep values alive.
            op("test.use", Traits::empty(), 0),
        ],
    )
}

/// Runs `cse` on `input` and returns the printed result and the statistics report.
fn cse(input: &str) -> (String, String) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx.register_dialect(test_dialect());
    let module = parse_source(&mut ctx, input, "test.mlir", 1).expect("input parses");
    verify(&ctx, module).expect("input verifies");
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline("cse").expect("pipeline parses");
    let mut pm = registry
        .build(&spec, "builtin.module")
        .expect("pipeline builds");
    pm.run(&mut ctx, module).expect("cse succeeds");
    let output = print_op(&ctx, module, PrintOptions::default());
    (output, pm.statistics_report())
}

/// The body of the first function in `printed`, one trimmed line per op.
fn body(printed: &str) -> Vec<String> {
    printed
        .lines()
        .skip_while(|l| !l.contains("func.func"))
        .skip(1)
        .map(|l| l.trim().to_string())
        .take_while(|l| l != "}")
        .collect()
}

#[test]
fn nested_region_reuses_enclosing_value() {
    let (out, stats) = cse(r#"
        func.func @f(%a: i32) -> i32 {
          %0 = arith.addi %a, %a : i32
          "test.scope"() ({
            %1 = arith.addi %a, %a : i32
            "test.use"(%1) : (i32) -> ()
          }) : () -> ()
          return %0 : i32
        }"#);
    assert_eq!(
        body(&out),
        [
            "%0 = arith.addi %arg0, %arg0 : i32",
            "\"test.scope\"() ({",
            "\"test.use\"(%0) : (i32) -> ()",
            "}) : () -> ()",
            "return %0 : i32",
        ]
    );
    assert!(stats.contains("(S) 1 num-cse"), "{stats}");
}

#[test]
fn isolated_region_starts_empty() {
    let (out, _) = cse(r#"
        func.func @f() -> i32 {
          %0 = arith.constant 1 : i32
          "test.isolated"() ({
            %1 = arith.constant 1 : i32
            %2 = arith.constant 1 : i32
            "test.use"(%1, %2) : (i32, i32) -> ()
          }) : () -> ()
          return %0 : i32
        }"#);
    // The inner constants merge with each other, not with the outer one.
    assert_eq!(
        body(&out),
        [
            "%c1_i32 = arith.constant 1 : i32",
            "\"test.isolated\"() ({",
            "%c1_i32_0 = arith.constant 1 : i32",
            "\"test.use\"(%c1_i32_0, %c1_i32_0) : (i32, i32) -> ()",
            "}) : () -> ()",
            "return %c1_i32 : i32",
        ]
    );
}

#[test]
fn graph_region_is_left_alone() {
    let (out, stats) = cse(r#"
        func.func @f(%a: i32) {
          "test.graph"() ({
            %0 = arith.addi %a, %a : i32
            %1 = arith.addi %a, %a : i32
            "test.use"(%0, %1) : (i32, i32) -> ()
          }) : () -> ()
          return
        }"#);
    assert!(out.contains("\"test.use\"(%0, %1)"), "{out}");
    assert!(stats.contains("(S) 0 num-cse"), "{stats}");
}

#[test]
fn pure_op_with_results_merges_all_results() {
    let (out, _) = cse(r#"
        func.func @f(%a: i32, %b: i32) {
          %0:2 = "test.divmod"(%a, %b) : (i32, i32) -> (i32, i32)
          %1:2 = "test.divmod"(%a, %b) : (i32, i32) -> (i32, i32)
          %2:2 = "test.divmod"(%b, %a) : (i32, i32) -> (i32, i32)
          "test.use"(%0#0, %0#1, %1#0, %1#1, %2#0) : (i32, i32, i32, i32, i32) -> ()
          return
        }"#);
    // divmod is not commutative: the swapped call stays.
    assert_eq!(
        body(&out),
        [
            "%0:2 = \"test.divmod\"(%arg0, %arg1) : (i32, i32) -> (i32, i32)",
            "%1:2 = \"test.divmod\"(%arg1, %arg0) : (i32, i32) -> (i32, i32)",
            "\"test.use\"(%0#0, %0#1, %0#0, %0#1, %1#0) : (i32, i32, i32, i32, i32) -> ()",
            "return",
        ]
    );
}

#[test]
fn ops_with_regions_are_not_merged() {
    let (out, stats) = cse(r#"
        func.func @f(%a: i32) {
          "test.pure_region"() ({
            "test.use"(%a) : (i32) -> ()
          }) : () -> ()
          "test.pure_region"() ({
            "test.use"(%a) : (i32) -> ()
          }) : () -> ()
          return
        }"#);
    assert_eq!(out.matches("test.pure_region").count(), 2, "{out}");
    assert!(stats.contains("(S) 0 num-cse"), "{stats}");
}

#[test]
fn unknown_location_takes_the_merged_ops() {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let input = r#"
        func.func @f(%a: i32) -> (i32, i32) {
          %0 = arith.addi %a, %a : i32 loc(unknown)
          %1 = arith.addi %a, %a : i32 loc("model.py":3:7)
          return %0, %1 : i32, i32
        }"#;
    let module = parse_source(&mut ctx, input, "test.mlir", 1).expect("input parses");
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline("cse").expect("pipeline parses");
    let mut pm = registry
        .build(&spec, "builtin.module")
        .expect("pipeline builds");
    pm.run(&mut ctx, module).expect("cse succeeds");
    let out = print_op(
        &ctx,
        module,
        PrintOptions {
            debuginfo: true,
            ..PrintOptions::default()
        },
    );
    assert!(
        out.contains("arith.addi %arg0, %arg0 : i32 loc(\"model.py\":3:7)"),
        "{out}"
    );
}
