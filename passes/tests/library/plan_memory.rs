//! `plan-memory` on a whole lowered model: the arena must be smaller than the separate
//! allocations it replaces. That the planned program computes the same values is checked by
//! graph_differential.rs, which runs every example and random graph with planned memory.

use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, verify, Context};
use std::path::Path;

/// Lowers and plans `text`, verifies the result and returns the statistics report.
fn plan(text: &str) -> String {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let module = parse_source(&mut ctx, text, "example.mlir", 1).expect("the example parses");
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline("decompose,fuse,lower,plan-memory").expect("pipeline parses");
    let mut pm = registry
        .build(&spec, "builtin.module")
        .expect("pipeline builds");
    pm.run(&mut ctx, module).expect("the pipeline succeeds");
    verify(&ctx, module).expect("the planned program verifies");
    pm.statistics_report()
}

/// The value of statistic `name` in a report (`(S) 20480 peak-bytes - ...`).
fn stat(report: &str, name: &str) -> u64 {
    report
        .lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("(S) ")?;
            let (n, rest) = rest.split_once(' ')?;
            rest.starts_with(&format!("{name} "))
                .then(|| n.parse().ok())
                .flatten()
        })
        .unwrap_or_else(|| panic!("no statistic '{name}' in\n{report}"))
}

#[test]
fn transformer_block_arena_is_smaller_than_its_buffers() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/transformer_block.mlir");
    let text = std::fs::read_to_string(path).expect("readable example");
    // A batch of 2 instead of `?`, so that every size is static and counted.
    let report = plan(&text.replace("?x", "2x"));
    let peak = stat(&report, "peak-bytes");
    let unplanned = stat(&report, "unplanned-bytes");
    assert!(stat(&report, "buffers-planned") >= 10, "{report}");
    assert!(
        peak > 0 && peak * 2 <= unplanned,
        "the arena ({peak} bytes) should be at most half of the separate buffers \
         ({unplanned} bytes)\n{report}"
    );
}
