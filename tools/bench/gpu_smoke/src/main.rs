//! `gpu-smoke`: runs the smoke programs' kernels on the GPU (CUDA driver API) and compares
//! them with the loop interpreter (see the library docs).
//!
//! ```text
//! gpu-smoke [--require-gpu] [--random N] [PROGRAM.mlir ...]
//! ```
//!
//! With program files or `--random N` (the random graph generator's programs for seeds
//! `0..N`, with static shapes) it runs those graph programs instead of the built-in ones;
//! kernels with symbolic launch dims or index arguments are listed as not run. Without a GPU it compiles every program, runs the interpreter side, prints
//! `skipped: <why>` and exits 0 (`--require-gpu` makes that exit 2). With one it prints a line
//! per kernel and exits 1 on any mismatch or CUDA error.

use dlc_gpu_smoke::cuda::{Cuda, Unavailable};
use dlc_gpu_smoke::{compare, compile, random_program, sm_for, PROGRAMS};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut require_gpu = false;
    let mut programs: Vec<(String, String)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--require-gpu" {
            require_gpu = true;
            continue;
        }
        if arg == "--random" {
            let Some(n) = args.next().and_then(|n| n.parse::<u64>().ok()) else {
                eprintln!("error: --random takes a number of programs");
                return ExitCode::FAILURE;
            };
            programs.extend((0..n).map(|seed| (format!("random_{seed}"), random_program(seed))));
            continue;
        }
        match std::fs::read_to_string(&arg) {
            Ok(text) => programs.push((arg, text)),
            Err(e) => {
                eprintln!("error: {arg}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if programs.is_empty() {
        programs = PROGRAMS
            .iter()
            .map(|&(name, text)| (name.to_string(), text.to_string()))
            .collect();
    }
    let device = Cuda::open();
    let sm = match &device {
        Ok(cuda) => match cuda.compute_capability() {
            Ok(cc) => sm_for(cc),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
        Err(_) => 80,
    };
    let mut failures = 0;
    let mut ran = 0;
    let mut prepared = 0;
    for (name, text) in &programs {
        let compiled = match compile(name, text, sm) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{name}: FAILED to compile: {e}");
                failures += 1;
                continue;
            }
        };
        prepared += compiled.cases.len();
        for why in &compiled.skipped {
            println!("{why}: not run");
        }
        let Ok(cuda) = &device else {
            continue;
        };
        for case in &compiled.cases {
            let mut got = case.inputs.clone();
            let result = cuda
                .run(&compiled.ptx, &case.kernel, case.grid, case.block, &mut got)
                .and_then(|()| compare(&got, &case.expected));
            ran += 1;
            match result {
                Ok(()) => println!(
                    "{}: ok (grid {:?}, block {:?})",
                    case.label, case.grid, case.block
                ),
                Err(e) => {
                    println!("{}: FAILED: {e}", case.label);
                    failures += 1;
                }
            }
        }
    }
    match device {
        Err(Unavailable(why)) => {
            println!(
                "skipped: {why} ({prepared} kernels of {} programs compiled and ran in the interpreter)",
                programs.len()
            );
            if failures > 0 {
                ExitCode::FAILURE
            } else if require_gpu {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        Ok(_) if failures > 0 => {
            println!("{failures} failures in {ran} kernels on sm_{sm}");
            ExitCode::FAILURE
        }
        Ok(_) => {
            println!("all {ran} kernels match the interpreter on sm_{sm}");
            ExitCode::SUCCESS
        }
    }
}
