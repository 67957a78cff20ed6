//! The smoke programs compile for both PTX targets and every kernel gets a case the
//! interpreter ran (what `gpu-smoke` compares on a GPU), and the binary skips cleanly here.

use dlc_gpu_smoke::{compare, compile, random_program, PROGRAMS};
use std::process::Command;

#[test]
fn every_program_compiles_and_runs_in_the_interpreter() {
    for &(name, text) in PROGRAMS {
        for sm in [80, 90] {
            let compiled = compile(name, text, sm).unwrap_or_else(|e| panic!("{name}: {e}"));
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
fn random_programs_have_static_launches() {
    // `--random N`: the generator's programs with static shapes, so every kernel has constant
    // launch dims (one without any runs as a single thread); only a kernel whose random index
    // data is out of range is left out (the interpreter refuses it).
    let mut cases = 0;
    for seed in 0..20 {
        let name = format!("random_{seed}");
        let compiled = compile(&name, &random_program(seed), 90).unwrap_or_else(|e| panic!("{e}"));
        cases += compiled.cases.len();
        for why in &compiled.skipped {
            assert!(why.contains("out-of-bounds"), "{why}");
        }
    }
    assert!(cases > 100, "only {cases} kernel cases");
}
