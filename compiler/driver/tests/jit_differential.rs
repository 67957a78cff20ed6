//! The JIT differential test: every graph example in docs/examples (each `func.func` in it) and
//! the random functions of `dlc_graph::generate::GraphGen` (seeds `0..GENERATED`) are compiled
//! by [`Model`] with the default pipeline (`decompose,fuse,lower,cpu-default`) and run on random
//! inputs (a generated function with `?` dims compiled once and run at two sizes: the
//! generator's, then every `?` two larger), and the compiled outputs must agree with
//! - the graph interpreter on the program as written ([`check::reference`]), and
//! - the loop interpreter on the lowered module (the host function the JIT's host program was
//!   built from), so a mismatch points at either the passes or the code generator;
//!
//! and a second run of the same session with poisoned memory ([`Session::set_poison`]) must give
//! the same outputs bit for bit, which proves no kernel reads memory it did not write in the
//! run. This is the acceptance test of the CPU JIT: docs/testing.md states the policy.
//!
//! # Tolerance
//! The one of `dlc-run --check` ([`check::compare`], documented in compiler/driver/src/check.rs):
//! same count, dtypes and shapes; integers and `i1` exactly; floats within
//! `atol + rtol · max|reference|`, with (rtol, atol) the loosest of the output's dtype and every
//! dtype in the function, as docs/testing.md asks (an f32 result cast from f16 math is only as
//! precise as f16; `check::compare` alone uses the output's dtype, which fails such functions
//! on a one-ulp f16 difference).
//!
//! # Discontinuous ops
//! As in passes/tests/graph_differential.rs: a last-bit difference becomes a large one after
//! `floor`, `ceil`, `round`, `sign`, `cmp`, `argmax`/`argmin`, `rem`, `pow` or a float-to-integer
//! cast, so a generated function in which such an op depends on a composite has its results
//! compared by count, dtype and shape only; at least half of the functions must still have their
//! values compared. The examples always have their values compared.
//!
//! # The twin backend
//! Every example, and the first [`TWIN_GENERATED`] generated functions, are compiled a second
//! time with the MLIR backend ([`Backend::Mlir`]: upstream MLIR's lowering, libm's
//! transcendental functions, sequential reductions) and run on the same inputs. The two backends must agree: integers and `i1` exactly, floats within
//! [`TWIN_ULPS`] units in the last place of the output's largest magnitude (normwise, for the
//! same reason as the tolerance above; the ulp is the output dtype's). A disagreement is a bug in
//! one of the two code generators.
//!
//! # The quick tier
//! A cold `dlc-run` runs every kernel first in the quick tier's code (`LlvmOpt::Quick`, its own
//! LLVM pipeline), so the examples are also compiled with it and checked against the
//! interpreters.
//!
//! # Another CPU
//! The JIT tunes the code for the CPU it runs on, so which machine runs the suite would decide
//! which code is checked. The generated functions are therefore also compiled for `x86-64-v3`
//! (AVX2 and FMA without AVX-512, [`CpuTarget`]; the first [`GENERATED_X86_64_V3`] of them) and
//! checked against the interpreters, so the code a Zen 1 machine gets is checked on every
//! machine.
//!
//! Cases run in parallel on one thread per core (`dlc_testkit`); `DLC_TEST_SCALE` multiplies
//! the generated functions. Failures are collected, not raised at once, so one run lists every
//! broken case.

use dlc_driver::{check, inputs, Backend, CpuTarget, LlvmOpt, Model, ModelOptions};
use dlc_func::module_funcs;
use dlc_graph::decompose::discontinuous_after_composite;
use dlc_graph::generate::{GraphGen, Rng};
use dlc_ir::symbol::symbol_name;
use dlc_ir::{parse_source, print_op, verify, Context, Op, PrintOptions};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_runtime::{Session, Tensor};
use dlc_tensor::{DType, Elements, Literal};
use dlc_testkit::{guarded, par_cases, report as report_count, scaled};
use std::path::PathBuf;

/// Random functions compiled and run in the default tier; seeds `0..scaled(GENERATED)`
/// (`dlc_testkit`).
const GENERATED: u64 = 100;
/// Random functions also compiled with the MLIR backend in the default tier; seeds
/// `0..scaled(TWIN_GENERATED)`. A subset of [`GENERATED`]: the MLIR compile was four fifths of
/// the test's time with every generated function twinned (19 of 24 s on 2 cores).
const TWIN_GENERATED: u64 = 40;
/// Random functions also compiled for `x86-64-v3` in the default tier; seeds
/// `0..scaled(GENERATED_X86_64_V3)`. A subset of [`GENERATED`]: the code generator is the same,
/// only the vector width and instruction set differ.
const GENERATED_X86_64_V3: u64 = 40;
/// The size given to every `?` dim of an example's arguments.
const EXAMPLE_DYNAMIC_SIZE: usize = 3;
/// How far the two backends' float outputs may be apart, in ulps of the output's largest
/// magnitude (see the module doc).
const TWIN_ULPS: f64 = 512.0;
/// How many failures the final message spells out in full.
const SHOWN_FAILURES: usize = 10;

#[test]
fn docs_examples_match_the_interpreters() {
    check_docs_examples(LlvmOpt::default(), "jit_differential (examples)");
}

/// The quick tier's code (`LlvmOpt::Quick`: no inliner, `sroa` alone, FastISel), which every
/// cold `dlc-run` runs first, computes what the optimized code does: the examples compiled
/// with it agree with the interpreters too.
#[test]
fn docs_examples_match_the_interpreters_in_the_quick_tier() {
    check_docs_examples(LlvmOpt::Quick, "jit_differential (examples, quick)");
}

/// Compiles every graph function of docs/examples with `opt` and checks it against the
/// interpreters (and, for the default configuration, the MLIR backend).
fn check_docs_examples(opt: LlvmOpt, test: &str) {
    let mut cases = Vec::new();
    let mut failures = Vec::new();
    for (name, text) in graph_examples() {
        match parse(&text, &name) {
            Ok((ctx, module)) => {
                for func in module_funcs(&ctx, module) {
                    cases.push((
                        name.clone(),
                        text.clone(),
                        func_name(&ctx, func).to_string(),
                    ));
                }
            }
            Err(message) => failures.push(Failure::new(&name, message, &text)),
        }
    }
    assert!(
        cases.len() >= 5,
        "only {} graph functions in docs/examples",
        cases.len()
    );
    let seeds: Vec<u64> = (0..cases.len() as u64).collect();
    let outcomes = par_cases(&seeds, |&seed| {
        let (name, text, entry) = &cases[seed as usize];
        let options = ModelOptions {
            entry: Some(entry.clone()),
            opt,
            ..ModelOptions::default()
        };
        let model = Model::compile(text, name, &options)?;
        let inputs =
            inputs::random_inputs(model.program().signature(), seed, EXAMPLE_DYNAMIC_SIZE)?;
        let jit = check_model(&model, &inputs, true)?;
        if opt == LlvmOpt::default() {
            twin(text, name, &options, &inputs, &jit)?;
        }
        Ok(())
    });
    report_count(test, cases.len());
    for ((name, text, entry), outcome) in cases.iter().zip(outcomes) {
        if let Err(message) = outcome {
            failures.push(Failure::new(&format!("{name} @{entry}"), message, text));
        }
    }
    report(&failures, cases.len());
}

#[test]
fn generated_graphs_match_the_interpreters() {
    check_generated_graphs(CpuTarget::Host, GENERATED, "jit_differential (generated)");
}

/// The portability check: the generated functions compiled for `x86-64-v3` (AVX2 and FMA, no
/// AVX-512, 16 vector registers: what a Zen 1 machine runs) agree with the interpreters too,
/// whichever CPU runs the suite.
#[test]
#[cfg(target_arch = "x86_64")]
fn generated_graphs_match_the_interpreters_on_x86_64_v3() {
    check_generated_graphs(
        CpuTarget::X86_64 { level: 3 },
        GENERATED_X86_64_V3,
        "jit_differential (generated, x86-64-v3)",
    );
}

/// The generated functions of seeds `0..scaled(count)` compiled for `cpu`, each checked by
/// [`check_generated`].
fn check_generated_graphs(cpu: CpuTarget, count: u64, test: &str) {
    let seeds: Vec<u64> = (0..scaled(count)).collect();
    let outcomes = par_cases(&seeds, |&seed| {
        let mut ctx = context();
        let g = GraphGen::new(seed).generate(&mut ctx);
        let text = print_op(&ctx, g.module, PrintOptions::default());
        let values = !discontinuous_after_composite(&ctx, g.func);
        let shapes = [g.arg_shapes.clone(), g.grown_shapes.clone()];
        let checked = guarded(|| check_generated(&text, seed, &shapes, values, cpu));
        Ok((values, checked.map_err(|message| (message, text))))
    });
    report_count(test, seeds.len());
    let mut failures = Vec::new();
    let mut values_compared = 0;
    for (seed, outcome) in seeds.iter().zip(outcomes) {
        let label = format!("seed {seed}");
        match outcome {
            Ok((values, checked)) => {
                values_compared += values as u64;
                if let Err((message, text)) = checked {
                    failures.push(Failure::new(&label, message, &text));
                }
            }
            Err(message) => failures.push(Failure::new(&label, message, "")),
        }
    }
    let generated = seeds.len() as u64;
    assert!(
        values_compared >= generated / 2,
        "values compared on only {values_compared} of {generated} functions"
    );
    report(&failures, seeds.len());
}

/// Compiles the generated function `text` (of `seed`) once for `cpu`, runs it on random
/// inputs of each set of argument shapes in `sizes` (the generator's, then every `?` grown)
/// and checks it against the interpreters; and, at the first sizes, for the host CPU, if
/// `values` and for the first [`TWIN_GENERATED`] seeds, against the MLIR backend.
fn check_generated(
    text: &str,
    seed: u64,
    sizes: &[Vec<Vec<usize>>],
    values: bool,
    cpu: CpuTarget,
) -> Result<(), String> {
    let label = format!("seed {seed}");
    let options = ModelOptions {
        cpu,
        ..ModelOptions::default()
    };
    let model = Model::compile(text, &label, &options)?;
    let specs = &model.program().signature().inputs;
    let mut rng = Rng::new(seed ^ 0x1D1F);
    for (run, shapes) in sizes.iter().enumerate() {
        if specs.len() != shapes.len() {
            return Err(format!(
                "the signature has {} inputs, the generator {}",
                specs.len(),
                shapes.len()
            ));
        }
        if run > 0 && shapes == &sizes[0] {
            continue; // no `?` dim: the same sizes again
        }
        let inputs = specs
            .iter()
            .zip(shapes)
            .map(|(spec, shape)| inputs::random_tensor(spec.dtype, shape, &mut rng))
            .collect::<Result<Vec<_>, _>>()?;
        let jit = check_model(&model, &inputs, values)
            .map_err(|e| format!("at argument shapes {shapes:?}: {e}"))?;
        if run == 0 && values && cpu == CpuTarget::Host && seed < scaled(TWIN_GENERATED) {
            twin(text, &label, &options, &inputs, &jit)?;
        }
    }
    Ok(())
}

#[test]
fn wrong_inputs_are_errors() {
    let path = repo_root().join("docs/examples/softmax.mlir");
    let text = std::fs::read_to_string(&path).expect("docs/examples/softmax.mlir is readable");
    let model = Model::compile(&text, "softmax.mlir", &ModelOptions::default())
        .unwrap_or_else(|e| panic!("softmax.mlir does not compile:\n{e}"));
    let mut rng = Rng::new(7);
    let mut tensor = |dtype, shape: &[usize]| {
        inputs::random_tensor(dtype, shape, &mut rng).expect("a small random tensor")
    };
    // The signature is (tensor<?x16xf32>).
    let good = tensor(DType::F32, &[3, 16]);
    let cases = [
        ("wrong rank", vec![tensor(DType::F32, &[48])]),
        ("wrong static dim", vec![tensor(DType::F32, &[3, 8])]),
        ("wrong dtype", vec![tensor(DType::F64, &[3, 16])]),
        ("wrong count", vec![good.clone(), good.clone()]),
    ];
    let mut session = model.session();
    for (case, inputs) in &cases {
        let refs: Vec<&Tensor> = inputs.iter().collect();
        match session.run(&refs) {
            Ok(outputs) => panic!("{case}: the run succeeded with outputs {outputs:?}"),
            Err(e) => {
                let message = e.to_string();
                assert!(
                    message.contains("input"),
                    "{case}: the error does not name the input: {message}"
                );
            }
        }
    }
    // The session is still usable after the rejected runs.
    let outputs = session.run(&[&good]).expect("a valid input runs");
    assert_eq!(outputs.len(), 2);
}

// ---------------------------------------------------------------------------------------------
// One case.

/// Runs `model` on `inputs` and checks it against both interpreters and a poisoned rerun;
/// returns its outputs.
fn check_model(model: &Model, inputs: &[Tensor], values: bool) -> Result<Vec<Literal>, String> {
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let mut session = model.session();
    let first = run(&mut session, &refs).map_err(|e| format!("JIT run: {e}"))?;
    let jit: Vec<Literal> = first.iter().map(Tensor::to_literal).collect();

    let floor = {
        let (ctx, func) = model.source().expect("compiled from source");
        check::loosest(ctx, func)
    };
    let graph = check::reference(model, inputs)?;
    compare(&graph, &jit, values, floor).map_err(|e| format!("JIT vs graph interpreter: {e}"))?;

    let lowered = loop_interpreter(model, inputs)?;
    compare(&lowered, &jit, values, floor).map_err(|e| format!("JIT vs loop interpreter: {e}"))?;

    session.set_poison(true);
    let second = run(&mut session, &refs).map_err(|e| format!("poisoned JIT run: {e}"))?;
    if first.len() != second.len() {
        return Err(format!(
            "{} outputs became {} when memory is poisoned",
            first.len(),
            second.len()
        ));
    }
    match first.iter().zip(&second).position(|(a, b)| a != b) {
        None => Ok(jit),
        Some(i) => Err(format!(
            "output {i} differs bit for bit when memory is poisoned: {:?} became {:?}",
            first[i].to_literal().elements(),
            second[i].to_literal().elements()
        )),
    }
}

/// Compiles `text` with the MLIR backend, runs it on `inputs` and compares with the LLVM
/// backend's outputs `jit` (see the module doc).
fn twin(
    text: &str,
    name: &str,
    options: &ModelOptions,
    inputs: &[Tensor],
    jit: &[Literal],
) -> Result<(), String> {
    let options = ModelOptions {
        backend: Backend::Mlir,
        ..options.clone()
    };
    let model = Model::compile(text, name, &options).map_err(|e| format!("MLIR backend: {e}"))?;
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let mut session = model.session();
    let outputs = run(&mut session, &refs).map_err(|e| format!("MLIR backend run: {e}"))?;
    if outputs.len() != jit.len() {
        return Err(format!(
            "MLIR backend: {} outputs, LLVM backend {}",
            outputs.len(),
            jit.len()
        ));
    }
    for (i, (m, l)) in outputs.iter().map(Tensor::to_literal).zip(jit).enumerate() {
        if m.dtype() != l.dtype() || m.shape() != l.shape() {
            return Err(format!(
                "output {i}: MLIR {:?} {:?}, LLVM {:?} {:?}",
                m.dtype(),
                m.shape(),
                l.dtype(),
                l.shape()
            ));
        }
        let apart = match (m.elements(), l.elements()) {
            (Elements::Float(a), Elements::Float(b)) => normwise_ulps(a, b, m.dtype()),
            _ => {
                if m == *l {
                    0.0
                } else {
                    f64::INFINITY
                }
            }
        };
        if apart > TWIN_ULPS {
            return Err(format!(
                "output {i} ({:?} {:?}): the backends are {apart} ulps apart (bound {TWIN_ULPS})\n\
                 MLIR {:?}\nLLVM {:?}",
                m.dtype(),
                m.shape(),
                m.elements(),
                l.elements()
            ));
        }
    }
    Ok(())
}

/// max |a − b| in ulps of max |b| in `dtype` (NaN must match NaN, infinities must match).
fn normwise_ulps(a: &[f64], b: &[f64], dtype: DType) -> f64 {
    let mantissa = match dtype {
        DType::F16 => 10,
        DType::BF16 => 7,
        DType::F32 => 23,
        _ => 52,
    };
    let scale = b
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let ulp = if scale > 0.0 {
        2f64.powi(scale.log2().floor() as i32 - mantissa)
    } else {
        2f64.powi(-126 - mantissa)
    };
    a.iter().zip(b).fold(0.0, |worst, (&x, &y)| {
        let d = if x.is_nan() && y.is_nan() || x == y {
            0.0
        } else if x.is_finite() && y.is_finite() {
            (x - y).abs() / ulp
        } else {
            f64::INFINITY
        };
        worst.max(d)
    })
}

/// One run of `session`, with the outputs copied out of it.
fn run(session: &mut Session<'_>, inputs: &[&Tensor]) -> Result<Vec<Tensor>, String> {
    let outputs = session.run(inputs).map_err(|e| e.to_string())?;
    outputs
        .iter()
        .map(|view| view.to_tensor().map_err(|e| e.to_string()))
        .collect()
}

/// The loop interpreter on the host function of the lowered module.
fn loop_interpreter(model: &Model, inputs: &[Tensor]) -> Result<Vec<Literal>, String> {
    let ctx = &model.lowered_ctx;
    let host = module_funcs(ctx, model.lowered_module)
        .into_iter()
        .find(|&f| func_name(ctx, f) == model.entry)
        .ok_or_else(|| format!("the lowered module has no host function '{}'", model.entry))?;
    let args = inputs
        .iter()
        .map(|t| KernelArg::Buffer(t.to_literal()))
        .collect();
    run_host(ctx, host, args)
        .map_err(|d| format!("loop interpreter: {}", d.message))?
        .into_iter()
        .map(|r| match r {
            KernelArg::Buffer(b) => Ok(b),
            KernelArg::Index(_) => Err("the host function returned an index".to_string()),
        })
        .collect()
}

/// Count, dtypes and shapes always; the values if `values`, each output within
/// [`check::tolerance`] of its dtype widened to `floor` ([`check::loosest`]).
fn compare(
    reference: &[Literal],
    actual: &[Literal],
    values: bool,
    floor: (f64, f64),
) -> Result<(), String> {
    let reports = check::compare(reference, actual, floor)?;
    if !values {
        return Ok(());
    }
    for (i, (report, (r, a))) in reports.iter().zip(reference.iter().zip(actual)).enumerate() {
        if !report.ok {
            return Err(format!(
                "output {i} ({:?} {:?}): max |error| {:e} (relative {:e}), over the tolerance\n\
                 expected {:?}\n     got {:?}",
                report.dtype,
                report.shape,
                report.max_abs,
                report.max_rel,
                r.elements(),
                a.elements()
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Failures.

/// A case that did not pass.
struct Failure {
    case: String,
    message: String,
    text: String,
}

impl Failure {
    fn new(case: &str, message: String, text: &str) -> Failure {
        Failure {
            case: case.to_string(),
            message,
            text: text.to_string(),
        }
    }
}

/// Fails with the list of failed cases, the first [`SHOWN_FAILURES`] in full.
fn report(failures: &[Failure], cases: usize) {
    if failures.is_empty() {
        return;
    }
    let mut summary = format!("{} of {cases} cases failed:\n", failures.len());
    for f in failures {
        let first_line = f.message.lines().next().unwrap_or_default();
        summary += &format!("  {}: {first_line}\n", f.case);
    }
    for f in failures.iter().take(SHOWN_FAILURES) {
        summary += &format!("\n=== {}: {}\n{}\n", f.case, f.message, f.text);
    }
    panic!("{summary}");
}

// ---------------------------------------------------------------------------------------------
// IR plumbing.

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (file name, text) of the graph examples in docs/examples: the ones with graph ops and no
/// loop ops, in name order.
fn graph_examples() -> Vec<(String, String)> {
    let dir = repo_root().join("docs/examples");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("docs/examples exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable example");
            let name = path.file_name()?.to_string_lossy().to_string();
            (text.contains("graph.") && !text.contains("loop.")).then_some((name, text))
        })
        .collect()
}

/// A context with the dialects of graph programs.
fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

/// Parses and verifies `text`.
fn parse(text: &str, label: &str) -> Result<(Context, Op), String> {
    let mut ctx = context();
    let module = parse_source(&mut ctx, text, label, 1)
        .map_err(|d| format!("does not parse: {}", d.message))?;
    verify(&ctx, module).map_err(|d| format!("invalid: {}", d.message))?;
    Ok((ctx, module))
}

/// The name of function `func` ("" when it has none).
fn func_name(ctx: &Context, func: Op) -> &str {
    symbol_name(ctx, func).unwrap_or_default()
}
