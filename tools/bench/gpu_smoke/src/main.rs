//! `gpu-smoke`: runs the smoke programs' kernels on the GPU (CUDA driver API) and compares
//! them with the loop interpreter (see the library docs).
//!
//! ```text
//! gpu-smoke [--require-gpu] [--random N] [--seeds A,B,...] [PROGRAM.mlir ...]
//! ```
//!
//! With program files, `--random N` (the random graph generator's programs for seeds `0..N`)
//! or `--seeds` (the generator's programs for those seeds) it runs those graph programs
//! instead of the built-in ones (a `?` dim of a file's argument is 3); in-place launches are
//! listed as not run. Without a GPU it compiles every program, runs the interpreter side,
//! prints `skipped: <why>` and exits 0 (`--require-gpu` makes that exit 2). With one it
//! prints a line per kernel and exits 1 on any mismatch or CUDA error; after an error that
//! leaves the CUDA context unusable (an illegal address) it stops there.

use dlc_gpu_smoke::cuda::{Cuda, Unavailable};
use dlc_gpu_smoke::{compare, compile, sm_for, Program, PROGRAMS};
use std::process::ExitCode;

/// `CUDA_ERROR_ILLEGAL_ADDRESS`: the context cannot run anything after it.
const CUDA_ERROR_ILLEGAL_ADDRESS: i32 = 700;

/// CUDA's default stack for a thread, in bytes.
const DEFAULT_STACK_BYTES: u64 = 1024;

fn main() -> ExitCode {
    let mut require_gpu = false;
    let mut programs: Vec<Program> = Vec::new();
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
            programs.extend((0..n).map(Program::random));
            continue;
        }
        if arg == "--seeds" {
            let seeds: Option<Vec<u64>> = args
                .next()
                .and_then(|list| list.split(',').map(|s| s.trim().parse().ok()).collect());
            let Some(seeds) = seeds else {
                eprintln!("error: --seeds takes a comma-separated list of seeds");
                return ExitCode::FAILURE;
            };
            programs.extend(seeds.into_iter().map(Program::random));
            continue;
        }
        match std::fs::read_to_string(&arg) {
            Ok(text) => programs.push(Program::new(arg, text)),
            Err(e) => {
                eprintln!("error: {arg}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if programs.is_empty() {
        programs = PROGRAMS
            .iter()
            .map(|&(name, text)| Program::new(name, text))
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
    let mut stack = DEFAULT_STACK_BYTES;
    'programs: for program in &programs {
        let compiled = match compile(program, sm) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{}: FAILED to compile: {e}", program.name);
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
            // The default stack plus the kernel's dynamically sized local buffers.
            let want = DEFAULT_STACK_BYTES + case.stack_bytes;
            let sized = if want == stack {
                Ok(())
            } else {
                stack = want;
                cuda.set_stack_bytes(want)
            };
            let result = sized
                .and_then(|()| {
                    cuda.run(&compiled.ptx, &case.kernel, case.grid, case.block, &mut got)
                })
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
                    if e.contains(&format!("CUDA error {CUDA_ERROR_ILLEGAL_ADDRESS}:")) {
                        println!("the CUDA context is lost after an illegal address: stopping");
                        break 'programs;
                    }
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
