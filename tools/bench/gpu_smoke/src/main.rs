//! `gpu-smoke`: runs the smoke programs' kernels on the GPU (CUDA driver API) and compares
//! them with the loop interpreter (see the library docs).
//!
//! ```text
//! gpu-smoke [--require-gpu]
//! ```
//!
//! Without a GPU it compiles every program, runs the interpreter side, prints
//! `skipped: <why>` and exits 0 (`--require-gpu` makes that exit 2). With one it prints a line
//! per kernel and exits 1 on any mismatch or CUDA error.

use dlc_gpu_smoke::cuda::{Cuda, Unavailable};
use dlc_gpu_smoke::{compare, compile, sm_for, PROGRAMS};
use std::process::ExitCode;

fn main() -> ExitCode {
    let require_gpu = std::env::args().any(|a| a == "--require-gpu");
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
    for &(name, text) in PROGRAMS {
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
                PROGRAMS.len()
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
