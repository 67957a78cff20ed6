//! The pass registry's hint for an unknown pass (`dlc_ir::pass::PassRegistry`): the closest
//! registered name within a small edit distance, or no hint at all.

use dlc_ir::pass::{parse_pipeline, Anchor, OptionValues, Pass, PassInfo, PassRegistry, PassRun};
use dlc_ir::{Context, Diagnostic};

/// A pass that changes nothing, registered under the names below.
struct Nothing;

impl Pass for Nothing {
    fn run(&self, _: &mut Context, _: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        Ok(())
    }
}

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(Nothing))
}

static CANONICALIZE: PassInfo = PassInfo {
    argument: "canonicalize",
    summary: "Does nothing.",
    anchor: Anchor::Any,
    options: &[],
    statistics: &[],
    create,
};

static CSE: PassInfo = PassInfo {
    argument: "cse",
    summary: "Does nothing.",
    anchor: Anchor::Any,
    options: &[],
    statistics: &[],
    create,
};

/// The error of building the pipeline `name` with a registry of `canonicalize` and `cse`.
fn unknown(name: &str) -> String {
    let mut registry = PassRegistry::new();
    registry.register(&CANONICALIZE);
    registry.register(&CSE);
    let spec = parse_pipeline(name).expect("valid pipeline");
    match registry.build(&spec, "builtin.module") {
        Ok(_) => panic!("'{name}' is not registered"),
        Err(e) => e.message,
    }
}

#[test]
fn suggests_close_names() {
    assert_eq!(
        unknown("canonicalise"),
        "unknown pass or pipeline 'canonicalise' (did you mean 'canonicalize'?)"
    );
    assert_eq!(unknown("xyz"), "unknown pass or pipeline 'xyz'");
}
