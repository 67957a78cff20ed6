//! The configuration line of a crash reproducer (`dlc_ir::pass::CrashReproducer`): the pipeline
//! is quoted for a shell when written, and `parse_reproducer_configuration` reads the same flags
//! back, option values with spaces and single quotes included.

use dlc_ir::pass::{
    parse_pipeline, parse_reproducer_configuration, Anchor, CrashReproducer, OptionKind,
    OptionSpec, Pass, PassInfo, PassRegistry, PassRun, ReproducerConfig, REPRODUCER_CONFIGURATION,
};
use dlc_ir::{parse_source, Context, Diagnostic};

/// `canonicalize{max-iterations=.. x=..}`: fails on every op, so that a reproducer is written.
static FAILING: PassInfo = PassInfo {
    argument: "canonicalize",
    summary: "Fails on every op.",
    anchor: Anchor::Any,
    options: &[
        OptionSpec::new("max-iterations", OptionKind::Int, "10", "Ignored"),
        OptionSpec::new("x", OptionKind::Str, "", "Ignored"),
    ],
    statistics: &[],
    create: |_| Ok(Box::new(Failing)),
};

struct Failing;

impl Pass for Failing {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        Err(Diagnostic::error(ctx.op_loc(run.op()), "failed as asked"))
    }
}

#[test]
fn configuration_round_trips_through_quoting() {
    let pipeline = "builtin.module(builtin.module(canonicalize{max-iterations=1 x='a'}))";
    let mut registry = PassRegistry::new();
    registry.register(&FAILING);
    let spec = parse_pipeline(pipeline).expect("valid pipeline");
    let mut pm = registry
        .build(&spec, "builtin.module")
        .expect("known passes");
    pm.options.threading = false;
    let path = std::env::temp_dir().join(format!("dlc-repro-quoting-{}.mlir", std::process::id()));
    let reproducer = CrashReproducer::new(ReproducerConfig {
        path: path.clone(),
        pipeline: pipeline.to_string(),
        flags: vec!["--verify-each=true".into()],
    });
    pm.add_instrumentation(reproducer.instrumentation());
    let mut ctx = Context::new();
    let input = "module {\n  module @a {\n  }\n}\n";
    let module = parse_source(&mut ctx, input, "input.mlir", 1).expect("valid input");
    assert!(pm.run(&mut ctx, module).is_err(), "the pass fails");
    reproducer.write_for_failed_run().expect("written");
    let line = std::fs::read_to_string(&path).expect("reproducer written");
    let _ = std::fs::remove_file(&path);
    // Single-quoted for a shell, the pipeline's own quotes written as '\''.
    let quoted = r"'builtin.module(builtin.module(canonicalize{max-iterations=1 x='\''a'\''}))'";
    assert!(
        line.contains(&format!(
            "{REPRODUCER_CONFIGURATION} --pass-pipeline={quoted} --verify-each=true\n"
        )),
        "{line}"
    );
    assert_eq!(
        parse_reproducer_configuration(&line),
        Some(vec![
            format!("--pass-pipeline={pipeline}"),
            "--verify-each=true".to_string()
        ])
    );
    assert_eq!(parse_reproducer_configuration("module {}"), None);
}
