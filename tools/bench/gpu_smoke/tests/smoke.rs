//! The smoke programs compile for both PTX targets and every kernel gets a case the
//! interpreter ran (what `gpu-smoke` compares on a GPU), and the binary skips cleanly here.

use dlc_gpu_smoke::{compare, compile, Program, PROGRAMS};
use std::process::Command;

#[test]
fn every_program_compiles_and_runs_in_the_interpreter() {
    for &(name, text) in PROGRAMS {
        for sm in [80, 90] {
            let compiled =
                compile(&Program::new(name, text), sm).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                compiled.ptx.contains(".entry"),
                "{name}: no kernel in the PTX"
            );
            assert!(
                !compiled.cases.is_empty(),
                "{name}: no kernel case ({:?})",
                compiled.skipped
            );
            for case in &compiled.cases {
                assert!(compare(&case.expected, &case.expected).is_ok());
                assert!(
                    compare(&case.inputs, &case.expected).is_err(),
                    "{}: the kernel changed nothing the comparison could see",
                    case.label
                );
            }
        }
    }
}

#[test]
fn the_binary_runs_or_skips_cleanly() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpu-smoke"))
        .output()
        .expect("gpu-smoke runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "gpu-smoke failed:\n{stdout}");
    assert!(
        stdout.contains("skipped:") || stdout.contains("kernels match the interpreter"),
        "{stdout}"
    );
}

#[test]
fn random_programs_give_every_launch_a_case() {
    // `--random N`: the generator's programs, `?` dims included, run by the interpreter; each
    // launch is a case, with launch dims read from its index arguments where they are symbolic.
    let (mut cases, mut symbolic) = (0, 0);
    for seed in 0..20 {
        let program = Program::random(seed);
        let compiled = compile(&program, 90).unwrap_or_else(|e| panic!("{e}"));
        for why in &compiled.skipped {
            assert!(why.contains("in-place"), "{why}");
        }
        cases += compiled.cases.len();
        symbolic += compiled
            .cases
            .iter()
            .filter(|c| {
                c.inputs
                    .iter()
                    .any(|a| matches!(a, dlc_loop::interp::KernelArg::Index(_)))
            })
            .count();
    }
    assert!(cases > 100, "only {cases} kernel cases");
    assert!(symbolic > 0, "no kernel with a symbolic size among {cases}");
}

#[test]
fn a_launch_counts_its_dynamic_local_buffers() {
    // Seed 399's layer norm keeps two 6x?x8 f64 rows per thread, ? = 7 in this launch: the
    // stack the launcher must add on the GPU (it faulted there with CUDA's default 1 KiB).
    let compiled = compile(&Program::random(399), 90).unwrap_or_else(|e| panic!("{e}"));
    let case = compiled
        .cases
        .iter()
        .find(|c| c.label.ends_with("/graph_11_fusion"))
        .expect("the layer-norm kernel");
    assert_eq!(case.stack_bytes, 2 * 6 * 7 * 8 * 8);
    assert!(compiled.cases.iter().any(|c| c.stack_bytes == 0));
}
