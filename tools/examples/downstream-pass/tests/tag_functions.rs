//! `tag-functions` run through the registry API, as a downstream tool runs it, and through the
//! `downstream-opt` binary; and what `verify-each` does with a pass that breaks the IR.

use dlc_func::FuncOp;
use dlc_ir::pass::{parse_pipeline, Anchor, OptionValues, Pass, PassInfo, PassRegistry, PassRun};
use dlc_ir::{parse_source, print_op, Context, Diagnostic};

const INPUT: &str = "\
func.func @f(%a: i32) -> i32 {
  return %a : i32
}
func.func private @g()
";

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

fn registry() -> PassRegistry {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    downstream_pass::register(&mut registry);
    registry
}

#[test]
fn tags_every_function_and_counts_them() {
    let registry = registry();
    let spec = parse_pipeline("strip-debuginfo,tag-functions").expect("valid pipeline");
    let mut pm = registry
        .build(&spec, "builtin.module")
        .expect("known passes");
    assert_eq!(
        pm.pipeline_text(),
        "builtin.module(strip-debuginfo,func.func(tag-functions))"
    );
    let mut ctx = context();
    let module = parse_source(&mut ctx, INPUT, "input.mlir", 1).expect("valid input");
    pm.run(&mut ctx, module).expect("the pipeline succeeds");
    let printed = print_op(&ctx, module, Default::default());
    assert!(
        printed.contains("func.func @f(%arg0: i32) -> i32 attributes {tagged} {"),
        "{printed}"
    );
    assert!(
        printed.contains("func.func private @g() attributes {tagged}"),
        "{printed}"
    );
    assert!(
        pm.statistics_report()
            .contains("(S) 2 tagged - Number of functions tagged"),
        "{}",
        pm.statistics_report()
    );
}

#[test]
fn is_listed_with_dlc_passes() {
    let registry = registry();
    let info = registry.pass("tag-functions").expect("registered");
    assert_eq!(info.anchor, Anchor::op::<FuncOp>());
    assert!(registry.pass("strip-debuginfo").is_some());
}

#[test]
fn downstream_opt_runs_it() {
    let dir = std::env::temp_dir().join(format!("downstream-opt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("input.mlir");
    std::fs::write(&input, INPUT).expect("write input");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_downstream-opt"))
        .arg(&input)
        .arg("--pass-pipeline=builtin.module(func.func(tag-functions))")
        .output()
        .expect("downstream-opt runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.matches("attributes {tagged}").count(), 2, "{stdout}");
}

/// Erases the terminator of a function: valid Rust, invalid IR.
static BREAK_TERMINATOR: PassInfo = PassInfo {
    argument: "break-terminator",
    summary: "Erases the terminator of every function's entry block.",
    anchor: Anchor::op::<FuncOp>(),
    options: &[],
    statistics: &[],
    create: |_: &OptionValues| Ok(Box::new(BreakTerminator)),
};

struct BreakTerminator;

impl Pass for BreakTerminator {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let body = ctx.regions(run.op())[0];
        let entry = ctx.blocks(body)[0];
        if let Some(last) = ctx.last_op(entry) {
            ctx.erase_op(last);
        }
        Ok(())
    }
}

#[test]
fn verify_each_catches_a_pass_that_breaks_the_ir() {
    let mut registry = registry();
    registry.register(&BREAK_TERMINATOR);
    let spec = parse_pipeline("break-terminator").expect("valid pipeline");
    let input = "func.func @f(%a: i32) -> i32 {\n  return %a : i32\n}\n";

    let mut pm = registry.build(&spec, "builtin.module").expect("known pass");
    let mut ctx = context();
    let module = parse_source(&mut ctx, input, "input.mlir", 1).expect("valid input");
    let failure = pm
        .run(&mut ctx, module)
        .expect_err("verify-each is on by default");
    assert_eq!(failure.pass, "break-terminator");
    let error = failure.diagnostics.last().expect("an error");
    assert!(
        error.notes.iter().any(|n| n
            .message
            .contains("the IR is invalid after pass 'break-terminator'")),
        "{error:?}"
    );

    let mut pm = registry.build(&spec, "builtin.module").expect("known pass");
    pm.options.verify_each = false;
    let mut ctx = context();
    let module = parse_source(&mut ctx, input, "input.mlir", 1).expect("valid input");
    pm.run(&mut ctx, module)
        .expect("without verify-each the broken IR goes through");
    assert!(dlc_ir::verify(&ctx, module).is_err());
}
