//! The pass instrumentations through the public API, on nested modules (the only isolated op
//! the IR core knows): what IR printing writes, the shape of the timing tree, and which pass and
//! module a crash reproducer captures when the same nested pipeline runs on several ops.

use dlc_ir::pass::{
    parse_pipeline, parse_reproducer_configuration, Anchor, CrashReproducer, IrPrintConfig,
    IrPrinting, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassManager, PassRegistry,
    PassRun, ReproducerConfig, Timing, TimingDisplay,
};
use dlc_ir::{parse_source, symbol, Context, Diagnostic};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// `mark{tag=..}`: sets the string attribute `test.tag` on the op.
static MARK: PassInfo = PassInfo {
    argument: "mark",
    summary: "Sets the attribute `tag`.",
    anchor: Anchor::Any,
    options: &[OptionSpec::new(
        "tag",
        OptionKind::Str,
        "x",
        "Value of `tag`",
    )],
    statistics: &[],
    create: |o: &OptionValues| {
        Ok(Box::new(Mark {
            tag: o.str("tag").to_string(),
        }))
    },
};

struct Mark {
    tag: String,
}

impl Pass for Mark {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let value = ctx.string_attr(&self.tag);
        ctx.set_attr(run.op(), "test.tag", value);
        Ok(())
    }
}

/// `fail{on=..}`: fails on the op with that symbol name.
static FAIL: PassInfo = PassInfo {
    argument: "fail",
    summary: "Fails on one symbol.",
    anchor: Anchor::Any,
    options: &[OptionSpec::new(
        "on",
        OptionKind::Str,
        "",
        "Symbol to fail on",
    )],
    statistics: &[],
    create: |o: &OptionValues| {
        Ok(Box::new(Fail {
            on: o.str("on").to_string(),
        }))
    },
};

struct Fail {
    on: String,
}

impl Pass for Fail {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        match symbol::symbol_name(ctx, run.op()) {
            Some(name) if name == self.on => {
                Err(Diagnostic::error(ctx.op_loc(run.op()), "failed as asked"))
            }
            _ => Ok(()),
        }
    }
}

const INPUT: &str = "module {\n  module @a {\n  }\n  module @b {\n  }\n}\n";

fn pipeline(text: &str) -> PassManager {
    let mut registry = PassRegistry::new();
    registry.register(&MARK);
    registry.register(&FAIL);
    let spec = parse_pipeline(text).expect("valid pipeline");
    let mut pm = registry
        .build(&spec, "builtin.module")
        .expect("known passes");
    pm.options.threading = false;
    pm
}

/// A writer whose bytes the test can read afterwards.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn run(pm: &mut PassManager) -> bool {
    let mut ctx = Context::new();
    let module = parse_source(&mut ctx, INPUT, "input.mlir", 1).expect("valid input");
    pm.run(&mut ctx, module)
        .map_err(|f| eprintln!("{:?}", f.diagnostics))
        .is_ok()
}

#[test]
fn ir_printing_dumps_before_and_after_in_mlir_format() {
    let mut pm = pipeline("builtin.module(builtin.module(mark{tag=t}))");
    let out = Captured::default();
    let config = IrPrintConfig {
        before: vec!["mark".into()],
        after_all: true,
        after_change: true,
        ..Default::default()
    };
    pm.add_instrumentation(Box::new(IrPrinting::to_writer(
        config,
        Box::new(out.clone()),
    )));
    assert!(run(&mut pm));
    let text = out.text();
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("// -----//"))
        .collect();
    assert_eq!(
        headers,
        [
            "// -----// IR Dump Before mark (mark) //----- //",
            "// -----// IR Dump After mark (mark) //----- //",
            "// -----// IR Dump Before mark (mark) //----- //",
            "// -----// IR Dump After mark (mark) //----- //",
        ]
    );
    assert!(
        text.contains("module @a attributes {test.tag = \"t\"} {"),
        "{text}"
    );
}

#[test]
fn after_change_skips_passes_that_change_nothing() {
    // The second mark sets the value the first one set.
    let mut pm = pipeline("builtin.module(mark{tag=t},mark{tag=t})");
    let out = Captured::default();
    let config = IrPrintConfig {
        after_all: true,
        after_change: true,
        ..Default::default()
    };
    pm.add_instrumentation(Box::new(IrPrinting::to_writer(
        config,
        Box::new(out.clone()),
    )));
    assert!(run(&mut pm));
    assert_eq!(out.text().matches("IR Dump After mark").count(), 1);
}

#[test]
fn timing_tree_nests_passes_in_their_pipelines() {
    let mut pm = pipeline("builtin.module(builtin.module(mark,mark),mark,builtin.module(mark))");
    let timing = Timing::new();
    pm.add_instrumentation(timing.instrumentation());
    assert!(run(&mut pm));
    assert!(run(&mut pm), "a second run adds to the same timers");
    let report = timing.report(TimingDisplay::Tree);
    let names: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.contains("----Name----"))
        .skip(1)
        .map(|l| l.split_once("%)  ").map_or(l, |(_, name)| name))
        .collect();
    assert_eq!(
        names,
        [
            "'builtin.module' Pipeline",
            "  mark",
            "  mark",
            "mark",
            "'builtin.module' Pipeline",
            "  mark",
            "Rest",
            "Total"
        ],
        "{report}"
    );
    let list = timing.report(TimingDisplay::List);
    assert_eq!(list.matches("%)  mark\n").count(), 1, "{list}");
}

#[test]
fn timing_tree_is_the_same_with_threads() {
    let names = |threading: bool| {
        let mut pm = pipeline("builtin.module(builtin.module(mark,mark),mark)");
        pm.options.threading = threading;
        let timing = Timing::new();
        pm.add_instrumentation(timing.instrumentation());
        assert!(run(&mut pm));
        let report = timing.report(TimingDisplay::Tree);
        let names: Vec<String> = report
            .lines()
            .skip_while(|l| !l.contains("----Name----"))
            .skip(1)
            .map(|l| {
                l.rsplit_once("%)  ")
                    .map_or(l, |(_, name)| name)
                    .to_string()
            })
            .collect();
        (names, report.contains("----User Time----"))
    };
    let (serial, serial_user) = names(false);
    let (threaded, threaded_user) = names(true);
    assert_eq!(serial, threaded);
    assert!(
        !serial_user && threaded_user,
        "user time shows only with threads"
    );
}

/// The configuration line and the module of a reproducer written by `pipeline_text`.
fn reproducer_for(pipeline_text: &str) -> (Vec<String>, String) {
    let path = std::env::temp_dir().join(format!(
        "dlc-repro-{}-{}.mlir",
        std::process::id(),
        pipeline_text.len()
    ));
    let mut pm = pipeline(pipeline_text);
    let reproducer = CrashReproducer::new(ReproducerConfig {
        path: path.clone(),
        pipeline: pm.pipeline_text(),
        flags: vec!["--verify-each=true".into()],
    });
    pm.add_instrumentation(reproducer.instrumentation());
    assert!(!run(&mut pm), "the pipeline fails");
    let note = reproducer.write_for_failed_run().expect("written");
    assert!(note.is_some_and(|n| n.contains("`fail` on 'builtin.module' operation: @b")));
    let text = std::fs::read_to_string(&path).expect("reproducer written");
    let _ = std::fs::remove_file(&path);
    let flags = parse_reproducer_configuration(&text).expect("configuration line");
    (flags, text)
}

#[test]
fn reproducer_runs_the_failing_pass_of_the_second_nested_pipeline() {
    let (flags, text) = reproducer_for(
        "builtin.module(builtin.module(fail{on=z}),mark{tag=m},builtin.module(mark{tag=n},fail{on=b}))",
    );
    assert_eq!(
        flags,
        [
            "--pass-pipeline=builtin.module(builtin.module(fail{on=b}))",
            "--verify-each=true"
        ]
    );
    // The module before the failing pass: both nested pipelines ran on @a, the second one's
    // `mark` already ran on @b.
    assert!(
        text.contains("module @b attributes {test.tag = \"n\"}"),
        "{text}"
    );
    assert!(
        text.contains("module @a attributes {test.tag = \"n\"}"),
        "{text}"
    );
}

#[test]
fn reproducer_finds_the_pass_when_a_pipeline_repeats_on_the_next_op() {
    let (flags, text) = reproducer_for("builtin.module(builtin.module(mark{tag=k},fail{on=b}))");
    assert_eq!(
        flags[0],
        "--pass-pipeline=builtin.module(builtin.module(fail{on=b}))"
    );
    assert!(
        text.contains("module @b attributes {test.tag = \"k\"}"),
        "{text}"
    );
}
