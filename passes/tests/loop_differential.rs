//! The differential test of the loop passes: every pipeline in
//! `dlc_passes::loops::differential_cases()` runs on a corpus of lowered programs, and each
//! program's host functions must compute the same results in the loop interpreter (GPU-bound
//! kernels run in its grid simulation) before and after.
//!
//! The corpus: every graph example in docs/examples and the random graphs of
//! `dlc_graph::generate::GraphGen` (seeds `0..GENERATED`, times `DLC_TEST_SCALE`), each through
//! `decompose,fuse,lower{target=...}` for the case's target, plus the hand-written host
//! programs in passes/tests/loop_corpus/ (kernels the lowering does not produce, for passes
//! that need them). Inputs are random; a `?` dim of an example or corpus program is 3.
//!
//! The GPU cases run every program in the loop interpreter's grid simulation, a thread at a
//! time: the three largest examples ([`GRID_LONG_TIER`]) took 41 of the test's 105 CPU
//! seconds there, as much as every other case and program together, so the GPU corpus holds
//! them only in the long tier (`DLC_TEST_SCALE` of 2 or more). The CPU cases run them in
//! every tier, and the GPU cases keep the other examples (a matmul with odd sizes in
//! convolutions.mlir, the dynamic transformer block, softmax, layer_norm, the MLP) and the
//! random graphs.
//!
//! # Tolerance
//! Integers and `i1` must match exactly. Floats: |after − before| ≤ atol + rtol·max|before|
//! per result, with (rtol, atol) = (1e-4, 1e-5) for f32, (1e-12, 1e-12) for f64, (1e-2, 1e-2)
//! for f16 and (6e-2, 6e-2) for bf16: passes may reassociate a reduction (a block reduction
//! sums in a tree), which changes the last bits. A generated program whose graph has an op
//! that turns last-bit differences into large ones (floor, cmp, argmax, ...) after a reduction
//! is compared by shape and dtype only. NaN matches NaN.
//!
//! Every case must change at least one program of the corpus, so a pass that stops firing
//! fails here instead of passing vacuously.

#[path = "support/pipeline.rs"]
mod pipeline;

use dlc_graph::generate::{GraphGen, Rng};
use dlc_ir::pass::PassRegistry;
use dlc_ir::{parse_source, print_op, verify, Context, Op, PrintOptions, DYNAMIC};
use dlc_loop::host_functions;
use dlc_loop::interp::{run_host, KernelArg};
use dlc_passes::graph::lower::Target;
use dlc_passes::loops::{differential_cases, DifferentialCase};
use dlc_tensor::{DType, Elements, Literal, Scalar};
use dlc_testkit::{par_cases, par_map, report, scale, scaled};
use pipeline::{context, registry, repo_root, run};
use std::path::{Path, PathBuf};

/// Random graphs in the corpus in the default tier; seeds `0..scaled(GENERATED)`
/// (`dlc_testkit`).
const GENERATED: u64 = 30;
/// The size of a `?` dim of an example or corpus program's argument.
const DYNAMIC_SIZE: usize = 3;
/// Examples the GPU cases run only in the long tier (see the module doc).
const GRID_LONG_TIER: &[&str] = &[
    "gelu_linear.mlir",
    "linear_blocked.mlir",
    "transformer_block.mlir",
];

/// Ops after which a last-bit difference may become a large one.
const DISCONTINUOUS: &[&str] = &[
    "graph.floor",
    "graph.ceil",
    "graph.round",
    "graph.sign",
    "graph.cmp",
    "graph.argmax",
    "graph.argmin",
    "graph.rem",
    "graph.pow",
    "graph.cast",
];

/// One lowered program.
#[derive(Clone)]
struct Program {
    label: String,
    text: String,
    /// Concrete argument shapes, when the graph generator chose them.
    shapes: Option<Vec<Vec<usize>>>,
    /// Compare values (false: shapes and dtypes only).
    values: bool,
}

/// A program of the corpus with its runs before any pass: per host function, the random
/// arguments and the results. Every case compares against these, so they are computed once.
struct Reference {
    program: Program,
    runs: Vec<(Vec<KernelArg>, Vec<KernelArg>)>,
}

impl Reference {
    /// Runs the host functions of `program` (the `n`-th of its corpus) on random arguments.
    fn new(program: Program, n: usize) -> Result<Reference, String> {
        let (ctx, module) = parse(&program.text, &program.label)?;
        let mut rng = Rng::new(n as u64 ^ 0x100F);
        let mut runs = Vec::new();
        for f in host_functions(&ctx, module) {
            let args = random_args(&ctx, f, program.shapes.as_deref(), &mut rng)?;
            let before = run_host(&ctx, f, args.clone())
                .map_err(|d| format!("{}: the input program fails: {d:?}", program.label))?;
            runs.push((args, before));
        }
        Ok(Reference { program, runs })
    }
}

#[test]
fn loop_passes_preserve_results() {
    let registry = registry();
    let cases = differential_cases();
    assert!(
        !cases.is_empty(),
        "no loop pass declares a differential case"
    );
    let corpus_cpu = references(corpus(&registry, Target::Cpu));
    let corpus_gpu = references(corpus(&registry, Target::Gpu));
    let corpus_for = |case: &DifferentialCase| match case.target {
        Target::Cpu => &corpus_cpu,
        Target::Gpu => &corpus_gpu,
    };
    let outcomes = par_cases(&cases, |case| check_case(&registry, case, corpus_for(case)));
    let checked: usize = cases.iter().map(|case| corpus_for(case).len()).sum();
    report("loop_differential", checked);
    let failures: Vec<String> = outcomes.into_iter().filter_map(Result::err).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs `case` on every program; the first difference (or a case that changes nothing) is an
/// error.
fn check_case(
    registry: &PassRegistry,
    case: &DifferentialCase,
    corpus: &[Reference],
) -> Result<(), String> {
    let mut changed = 0;
    for Reference { program, runs } in corpus {
        let label = format!("'{}' on {}", case.pipeline, program.label);
        let (mut ctx, module) = parse(&program.text, &program.label)?;
        run(registry, &mut ctx, module, case.pipeline).map_err(|e| format!("{label}: {e}"))?;
        let output = print_op(&ctx, module, PrintOptions::default());
        verify(&ctx, module)
            .map_err(|d| format!("{label}: invalid IR after the pipeline: {d:?}\n{output}"))?;
        if output != program.text {
            changed += 1;
        }
        let hosts_after = host_functions(&ctx, module);
        for (f, (args, want)) in hosts_after.iter().zip(runs) {
            let got = run_host(&ctx, *f, args.clone()).map_err(|d| {
                format!(
                    "{label}: fails after the pipeline: {d:?}\n--- before:\n{}\n--- after:\n{output}",
                    program.text
                )
            })?;
            compare(want, &got, program.values).map_err(|e| {
                format!(
                    "{label}: results differ: {e}\n--- before:\n{}\n--- after:\n{output}",
                    program.text
                )
            })?;
        }
    }
    if changed == 0 {
        return Err(format!(
            "'{}' changed none of the {} corpus programs: add a program it applies to in \
             passes/tests/loop_corpus/",
            case.pipeline,
            corpus.len()
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The corpus.

/// The programs with their reference runs, in order.
fn references(programs: Vec<Program>) -> Vec<Reference> {
    let numbered: Vec<(usize, Program)> = programs.into_iter().enumerate().collect();
    let references = par_map(&numbered, |(n, program)| {
        Reference::new(program.clone(), *n)
    });
    references
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn corpus(registry: &PassRegistry, target: Target) -> Vec<Program> {
    let lowering = match target {
        Target::Cpu => "decompose,fuse,lower{target=cpu}",
        Target::Gpu => "decompose,fuse,lower{target=gpu}",
    };
    let mut programs = Vec::new();
    let root = repo_root();
    for path in mlir_files(&root.join("docs/examples")) {
        let text = std::fs::read_to_string(&path).expect("readable example");
        if !text.contains("graph.") || text.contains("loop.") {
            continue;
        }
        let label = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if target == Target::Gpu && scale() < 2 && GRID_LONG_TIER.contains(&label.as_str()) {
            continue;
        }
        programs.push(Program {
            text: lower(registry, &text, &label, lowering),
            label,
            shapes: None,
            values: true,
        });
    }
    let seeds: Vec<u64> = (0..scaled(GENERATED)).collect();
    programs.extend(par_map(&seeds, |&seed| {
        let mut ctx = context();
        let g = GraphGen::new(seed).generate(&mut ctx);
        let text = print_op(&ctx, g.module, PrintOptions::default());
        let label = format!("seed {seed}");
        let reduces = [
            "graph.reduce",
            "graph.matmul",
            "softmax",
            "norm",
            "graph.linear",
            "sdpa",
            "pool",
            "conv",
        ]
        .iter()
        .any(|n| text.contains(n));
        let values = !(reduces && DISCONTINUOUS.iter().any(|n| text.contains(n)));
        Program {
            text: lower(registry, &text, &label, lowering),
            label,
            shapes: Some(g.arg_shapes),
            values,
        }
    }));
    for path in mlir_files(&root.join("passes/tests/loop_corpus")) {
        let text = std::fs::read_to_string(&path).expect("readable corpus program");
        programs.push(Program {
            label: path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string(),
            text,
            shapes: None,
            values: true,
        });
    }
    programs
}

fn mlir_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
}

/// `text` through `lowering`, printed.
fn lower(registry: &PassRegistry, text: &str, label: &str, lowering: &str) -> String {
    let (mut ctx, module) = parse(text, label).unwrap_or_else(|e| panic!("{e}"));
    run(registry, &mut ctx, module, lowering)
        .unwrap_or_else(|e| panic!("{label}: '{lowering}' failed: {e}"));
    print_op(&ctx, module, PrintOptions::default())
}

// ---------------------------------------------------------------------------------------------
// Inputs and comparison.

/// Random arguments for host function `f`: buffers of its argument types (a `?` dim takes the
/// generator's size when known, else [`DYNAMIC_SIZE`]); floats in [-2, 2), integers in [-4, 4].
fn random_args(
    ctx: &Context,
    f: Op,
    shapes: Option<&[Vec<usize>]>,
    rng: &mut Rng,
) -> Result<Vec<KernelArg>, String> {
    let entry = ctx.blocks(ctx.region(f, 0))[0];
    let mut args = Vec::new();
    for (i, &arg) in ctx.block_args(entry).iter().enumerate() {
        let ty = ctx.value_type(arg);
        let Some((dims, elem, _)) = dlc_loop::buffer_parts(ctx, ty) else {
            args.push(KernelArg::Index(DYNAMIC_SIZE as i64));
            continue;
        };
        let shape: Vec<usize> = match shapes.and_then(|s| s.get(i)) {
            Some(s) => s.clone(),
            None => dims
                .iter()
                .map(|&d| {
                    if d == DYNAMIC {
                        DYNAMIC_SIZE
                    } else {
                        d as usize
                    }
                })
                .collect(),
        };
        let dtype = DType::from_type(ctx, elem).ok_or("an argument of an unsupported dtype")?;
        let n: usize = shape.iter().product();
        let values = (0..n)
            .map(|_| {
                if dtype.is_float() {
                    Scalar::Float(rng.unit() * 4.0 - 2.0)
                } else if dtype.is_bool() {
                    Scalar::Bool(rng.chance(0.5))
                } else {
                    Scalar::Int(rng.range(-4, 4))
                }
            })
            .collect();
        args.push(KernelArg::Buffer(Literal::from_scalars(
            dtype, shape, values,
        )));
    }
    Ok(args)
}

fn tolerance(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::F16 => (1e-2, 1e-2),
        DType::BF16 => (6e-2, 6e-2),
        DType::F64 => (1e-12, 1e-12),
        _ => (1e-4, 1e-5),
    }
}

fn compare(want: &[KernelArg], got: &[KernelArg], values: bool) -> Result<(), String> {
    if want.len() != got.len() {
        return Err(format!("{} results became {}", want.len(), got.len()));
    }
    for (i, pair) in want.iter().zip(got).enumerate() {
        let (w, g) = match pair {
            (KernelArg::Buffer(w), KernelArg::Buffer(g)) => (w, g),
            (KernelArg::Index(a), KernelArg::Index(b)) if a == b => continue,
            _ => return Err(format!("result {i}: {:?} became {:?}", pair.0, pair.1)),
        };
        if w.dtype() != g.dtype() || w.shape() != g.shape() {
            return Err(format!(
                "result {i}: {:?} {:?} became {:?} {:?}",
                w.dtype(),
                w.shape(),
                g.dtype(),
                g.shape()
            ));
        }
        if !values {
            continue;
        }
        if let (Elements::Float(a), Elements::Float(b)) = (w.elements(), g.elements()) {
            let (rtol, atol) = tolerance(w.dtype());
            let scale = a
                .iter()
                .filter(|x| x.is_finite())
                .fold(0.0f64, |m, x| m.max(x.abs()));
            for (j, (x, y)) in a.iter().zip(b).enumerate() {
                let same = if x.is_nan() || y.is_nan() {
                    x.is_nan() && y.is_nan()
                } else if x.is_infinite() || y.is_infinite() {
                    x == y
                } else {
                    (x - y).abs() <= atol + rtol * scale
                };
                if !same {
                    return Err(format!("result {i}, element {j}: {x} became {y}"));
                }
            }
        } else if w != g {
            return Err(format!("result {i}: integer values differ"));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// IR plumbing.

fn parse(text: &str, label: &str) -> Result<(Context, Op), String> {
    let mut ctx = context();
    let module = parse_source(&mut ctx, text, label, 1)
        .map_err(|d| format!("{label}: does not parse: {d:?}\n{text}"))?;
    verify(&ctx, module).map_err(|d| format!("{label}: invalid: {d:?}\n{text}"))?;
    Ok((ctx, module))
}
