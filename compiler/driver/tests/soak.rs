//! The soak test: the transformer block example, compiled once, runs `1,000 × DLC_TEST_SCALE`
//! times in one process (10,000 in the long tier, `DLC_TEST_SCALE=10`), and the process's
//! resident memory must stay flat: after a warm-up of a tenth of the runs, RSS may grow by at
//! most 5%. A leak per run (a buffer, a tensor, a JIT allocation) shows up here long before a
//! user's serving loop runs out of memory. Linux only (RSS comes from `/proc/self/statm`).

#![cfg(target_os = "linux")]

use dlc_driver::{inputs, Model, ModelOptions};
use dlc_runtime::Tensor;
use dlc_testkit::{report, scaled};
use std::path::PathBuf;

/// Runs in the default tier.
const RUNS: u64 = 1000;
/// The allowed RSS growth after warm-up.
const GROWTH: f64 = 0.05;

/// Resident set size in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm is readable");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("statm's second field is the resident page count");
    pages * 4096
}

#[test]
fn transformer_block_memory_stays_flat() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/examples/transformer_block.mlir");
    let text = std::fs::read_to_string(&path).expect("the transformer block example is readable");
    let model = Model::compile(&text, "transformer_block.mlir", &ModelOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let runs = scaled(RUNS);
    let warm_up = runs / 10;
    let mut session = model.session();
    let mut baseline = 0;
    for run in 0..runs {
        // New input tensors every run, as a serving loop would get them.
        let inputs: Vec<Tensor> =
            inputs::random_inputs(model.program().signature(), run, 4).expect("random inputs");
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let outputs = session.run(&refs).expect("a run of the example");
        assert!(!outputs.is_empty());
        if run + 1 == warm_up {
            baseline = rss();
        }
    }
    let end = rss();
    report("soak (transformer block runs)", runs as usize);
    assert!(
        end as f64 <= baseline as f64 * (1.0 + GROWTH),
        "RSS grew from {baseline} bytes after {warm_up} runs to {end} bytes after {runs} runs \
         (more than {}%)",
        GROWTH * 100.0
    );
    let line =
        format!("soak: RSS {baseline} bytes after {warm_up} runs, {end} bytes after {runs} runs\n");
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}
