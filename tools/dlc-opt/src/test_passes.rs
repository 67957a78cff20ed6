//! Passes that exist to test the pass manager through dlc-opt, as mlir-opt's `test-*` passes do:
//! one that fails, for `--print-ir-after-failure` and crash reproducers, one that leaves the IR
//! invalid, for `--verify-each`, and a named pipeline. They are registered by dlc-opt only, not
//! by `dlc-passes`.

use dlc_func::FuncOp;
use dlc_ir::pass::{
    Anchor, NamedPipeline, OptionSpec, OptionValues, Pass, PassInfo, PassRegistry, PassRun,
};
use dlc_ir::{Context, Diagnostic};

/// Registers the test passes and pipeline.
pub fn register(registry: &mut PassRegistry) {
    registry.register(&FAILURE);
    registry.register(&INVALID_IR);
    registry.register_pipeline(NamedPipeline {
        name: "test-cleanup-pipeline",
        summary: "Test pipeline: a named pipeline expands in place",
        pipeline: "cse,func.func(canonicalize{max-iterations=2}),symbol-dce",
    });
}

/// `test-pass-failure`: fails on every op it runs on (unless `fail=false`).
static FAILURE: PassInfo = PassInfo {
    argument: "test-pass-failure",
    summary: "Test pass that fails on every op it runs on.",
    anchor: Anchor::Any,
    options: &[OptionSpec::bool(
        "fail",
        true,
        "Fail; with false the pass succeeds and changes nothing",
    )],
    statistics: &[],
    create: |options: &OptionValues| {
        Ok(Box::new(Failure {
            fail: options.bool("fail"),
        }))
    },
};

struct Failure {
    fail: bool,
}

impl Pass for Failure {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        if !self.fail {
            run.preserve_all();
            return Ok(());
        }
        Err(Diagnostic::error(
            ctx.op_loc(run.op()),
            "test-pass-failure failed, as it always does",
        ))
    }
}

/// `test-invalid-ir`: erases the terminators of a function's blocks.
static INVALID_IR: PassInfo = PassInfo {
    argument: "test-invalid-ir",
    summary: "Test pass that leaves a function invalid: it erases the terminators of its blocks.",
    anchor: Anchor::op::<FuncOp>(),
    options: &[],
    statistics: &[],
    create: |_: &OptionValues| Ok(Box::new(InvalidIr)),
};

struct InvalidIr;

impl Pass for InvalidIr {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let blocks: Vec<_> = ctx
            .regions(run.op())
            .iter()
            .flat_map(|r| ctx.blocks(*r).to_vec())
            .collect();
        for block in blocks {
            if let Some(last) = ctx.last_op(block) {
                ctx.erase_op(last);
            }
        }
        Ok(())
    }
}
