//! Differential tests of the graph passes: every graph example in docs/examples and the random
//! functions of `dlc_graph::generate::GraphGen` (seeds `0..GENERATED`, times `DLC_TEST_SCALE`)
//! are run by the reference interpreter (`dlc_graph::interp`) on random inputs before and after
//! each pipeline, and the results must agree. docs/testing.md states the same policy for other differential tests.
//!
//! # Tolerance
//! Results must have the same count, dtypes and shapes. Values are compared per element:
//! - integers and `i1` exactly;
//! - floats by |after − before| ≤ atol + rtol·max|before|, the maximum over the finite
//!   elements of that result, with (rtol, atol) = (1e-5, 1e-6) for f32, (1e-12, 1e-12) for
//!   f64, (1e-2, 1e-2) for f16 and (6e-2, 6e-2) for bf16 (epsilons 1e-3 and 8e-3: a
//!   decomposition rounds to the format after each primitive, the reference once per
//!   composite). The bound scales with the tensor's largest value, not the element's own,
//!   because a sum of products (matmul, the means of a norm) that cancels to a small element
//!   carries the rounding error of its large terms. The (rtol, atol) used is the loosest of the
//!   result's dtype and every dtype in the function: an f32 result cast from f16 math is only
//!   as precise as f16. NaN matches NaN, ±∞ the same infinity.
//!
//! # Discontinuous ops
//! A last-bit difference becomes a large one after `floor`, `ceil`, `round`, `sign`, `cmp`,
//! `argmax`/`argmin`, `rem`, `pow` (finite for a negative base only at integer exponents), or
//! a cast from a float to an integer. So a generated function in which such an op depends on
//! the result of a composite (the values a pipeline computes differently) has its results
//! compared by count, dtype and shape only, as dialects/graph/tests/library/generate.rs does for all
//! functions; the test checks that at least half of the functions still have their values
//! compared.

#[path = "support/pipeline.rs"]
mod pipeline;

use dlc_func::module_funcs;
use dlc_graph::decompose::discontinuous_after_composite;
use dlc_graph::generate::{GraphGen, Rng};
use dlc_graph::interp::interpret;
use dlc_ir::pass::PassRegistry;
use dlc_ir::symbol::symbol_name;
use dlc_ir::{parse_source, print_op, verify, Context, Op, PrintOptions, Value, DYNAMIC};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_tensor::{DType, Literal};
use dlc_testkit::{par_cases, report, scaled};
use pipeline::{context, registry, repo_root, run};

/// Random functions per pipeline in the default tier; seeds `0..scaled(GENERATED)`
/// (`dlc_testkit`).
const GENERATED: u64 = 250;
/// The size given to every `?` dim of an example's arguments.
const EXAMPLE_DYNAMIC_SIZE: usize = 3;

/// The pipelines under test.
fn pipelines(registry: &PassRegistry) -> Vec<&'static str> {
    let mut pipelines = vec!["decompose"];
    // fuse is written in parallel with decompose; test it once it is registered.
    if registry.contains("fuse") {
        pipelines.extend(["fuse", "decompose,fuse"]);
    }
    pipelines
}

#[test]
fn docs_examples_keep_their_values() {
    let registry = registry();
    let dir = repo_root().join("docs/examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("docs/examples exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    paths.sort();
    // One case per function, its seed its position among all of them.
    let mut funcs = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("readable example");
        // The graph examples; the loop and arith ones are tested elsewhere.
        if !text.contains("graph.") || text.contains("loop.") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let (ctx, module) = parse(&text, &name);
        for func in module_funcs(&ctx, module) {
            let label = format!("{name} @{}", func_name(&ctx, func));
            funcs.push((label, text.clone()));
        }
    }
    // Each function's inputs and reference results, then every pipeline and lowering of every
    // function, all on the pool: one example's many checks would otherwise run on one core.
    let seeded: Vec<(u64, &(String, String))> = (0..).zip(&funcs).collect();
    let references = par_cases(&seeded, |&(seed, (label, text))| {
        let (ctx, module) = parse(text, label);
        let func = module_funcs(&ctx, module)[tested_index(&ctx, module, label)];
        let inputs = example_inputs(&ctx, func, &mut Rng::new(seed));
        let before = interpret(&ctx, func, &inputs).map_err(|d| format!("{label}: {d:?}"))?;
        Ok((inputs, before))
    });
    let references: Vec<_> = references
        .into_iter()
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let pipelines = pipelines(&registry);
    let checks: Vec<(usize, &str)> = (0..funcs.len())
        .flat_map(|f| {
            let steps = pipelines.iter().chain(LOWERINGS).copied();
            steps.map(move |step| (f, step))
        })
        .collect();
    let outcomes = par_cases(&checks, |&(f, step)| {
        let (label, text) = &funcs[f];
        let (inputs, before) = &references[f];
        if LOWERINGS.contains(&step) {
            let after = lowered(&registry, step, text, label, inputs)
                .map_err(|e| format!("{label}: {e}"))?;
            let (ctx, module) = parse(text, label);
            let func = module_funcs(&ctx, module)[tested_index(&ctx, module, label)];
            return compare(before, &after, true, lowered_tolerance(&ctx, func))
                .map_err(|e| format!("{label}: the program lowered by '{step}' differs: {e}"));
        }
        let (mut ctx, module) = parse(text, label);
        run(&registry, &mut ctx, module, step)
            .map_err(|e| format!("{label}: '{step}' failed: {e}"))?;
        let func = module_funcs(&ctx, module)[tested_index(&ctx, module, label)];
        let printed = || print(&ctx, module);
        let after = interpret(&ctx, func, inputs)
            .map_err(|d| format!("{label}: after '{step}': {d:?}\n{}", printed()))?;
        compare(before, &after, true, loosest(&ctx, func))
            .map_err(|e| format!("{label}: '{step}' changed the result: {e}\n{}", printed()))
    });
    let failures: Vec<String> = outcomes.into_iter().filter_map(Result::err).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        funcs.len() >= 5,
        "only {} graph functions in docs/examples",
        funcs.len()
    );
}

#[test]
fn generated_graphs_keep_their_values() {
    let registry = registry();
    let pipelines = pipelines(&registry);
    let seeds: Vec<u64> = (0..scaled(GENERATED)).collect();
    let outcomes = par_cases(&seeds, |&seed| check_generated(&registry, &pipelines, seed));
    report("graph_differential", seeds.len());
    let mut values_compared = 0;
    let mut changed = vec![0u64; pipelines.len()];
    let mut failures = Vec::new();
    for (seed, outcome) in seeds.iter().zip(outcomes) {
        match outcome {
            Ok(generated) => {
                values_compared += generated.values_compared as u64;
                for (n, c) in changed.iter_mut().zip(generated.changed) {
                    *n += c as u64;
                }
            }
            Err(e) => failures.push(format!("seed {seed}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let generated = seeds.len() as u64;
    assert!(
        values_compared >= generated / 2,
        "values compared on only {values_compared} of {generated} functions"
    );
    for (pipeline, n) in pipelines.iter().zip(&changed) {
        assert!(
            *n >= generated / 10,
            "'{pipeline}' changed only {n} of {generated} functions: the generator gives it too \
             little to do"
        );
    }
}

/// What one generated function showed.
struct Generated {
    /// Its values were compared (no discontinuous op after a composite).
    values_compared: bool,
    /// Per pipeline: the pipeline changed the function.
    changed: Vec<bool>,
}

/// The function of `seed` before and after each of `pipelines` and each of [`LOWERINGS`].
fn check_generated(
    registry: &PassRegistry,
    pipelines: &[&str],
    seed: u64,
) -> Result<Generated, String> {
    let mut ctx = context();
    let g = GraphGen::new(seed).generate(&mut ctx);
    let text = print(&ctx, g.module);
    let label = format!("seed {seed}");
    let mut rng = Rng::new(seed ^ 0xD1FF);
    let inputs: Vec<Literal> = args(&ctx, g.func)
        .into_iter()
        .zip(&g.arg_shapes)
        .map(|(dtype, shape)| random_literal(dtype, shape, &mut rng))
        .collect();
    let before = interpret(&ctx, g.func, &inputs).map_err(|d| format!("{d:?}\n{text}"))?;
    let values_compared = !discontinuous_after_composite(&ctx, g.func);
    let mut changed = Vec::new();
    for pipeline in pipelines {
        let (mut ctx, module) = parse(&text, &label);
        run(registry, &mut ctx, module, pipeline)
            .map_err(|e| format!("'{pipeline}' failed: {e}\n{text}"))?;
        let output = print(&ctx, module);
        changed.push(output != text);
        let func = module_funcs(&ctx, module)[0];
        let after = interpret(&ctx, func, &inputs).map_err(|d| {
            format!("after '{pipeline}': {d:?}\n--- before:\n{text}\n--- after:\n{output}")
        })?;
        compare(&before, &after, values_compared, loosest(&ctx, func)).map_err(|e| {
            format!(
                "'{pipeline}' changed the result: {e}\n--- before:\n{text}\n--- after:\n{output}"
            )
        })?;
    }
    for lowering in LOWERINGS {
        let after = lowered(registry, lowering, &text, &label, &inputs)
            .map_err(|e| format!("{e}\n{text}"))?;
        compare(
            &before,
            &after,
            values_compared,
            lowered_tolerance(&ctx, g.func),
        )
        .map_err(|e| format!("the program lowered by '{lowering}' differs: {e}\n{text}"))?;
    }
    Ok(Generated {
        values_compared,
        changed,
    })
}

// ---------------------------------------------------------------------------------------------
// The lowered program.

/// The pipelines whose output the loop interpreter runs: plain lowering; lowering with
/// planned memory (intermediates as views of one arena, where a planning bug that lets two
/// live buffers overlap corrupts the results); and the default CPU and GPU loop pipelines (the
/// GPU kernels run in the interpreter's grid simulation).
const LOWERINGS: &[&str] = &[
    "decompose,fuse,lower",
    "decompose,fuse,lower,plan-memory",
    "decompose,fuse,lower,cpu-default",
    "decompose,fuse,lower{target=gpu},gpu-default",
];

/// Lowers `text` with `lowering`, verifies the result and runs the host function named in
/// `label` (the first function for a generated one) in the loop interpreter.
fn lowered(
    registry: &PassRegistry,
    lowering: &str,
    text: &str,
    label: &str,
    inputs: &[Literal],
) -> Result<Vec<Literal>, String> {
    let (mut ctx, module) = parse(text, label);
    run(registry, &mut ctx, module, lowering).map_err(|e| format!("'{lowering}' failed: {e}"))?;
    let output = print(&ctx, module);
    verify(&ctx, module).map_err(|d| format!("'{lowering}' made invalid IR: {d:?}\n{output}"))?;
    let funcs = module_funcs(&ctx, module);
    let func = match label.rsplit_once('@') {
        Some((_, name)) => funcs.iter().copied().find(|&f| func_name(&ctx, f) == name),
        None => funcs.first().copied(),
    }
    .ok_or("the host function is missing")?;
    let args = inputs
        .iter()
        .map(|t| KernelArg::Buffer(t.clone()))
        .collect();
    let results =
        run_host(&ctx, func, args).map_err(|d| format!("loop interpreter: {d:?}\n{output}"))?;
    results
        .into_iter()
        .map(|r| match r {
            KernelArg::Buffer(b) => Ok(b),
            KernelArg::Index(_) => Err("a host function returned an index".to_string()),
        })
        .collect()
}

/// The comparison floor for a lowered program: the function's own, and at least f32's
/// bound scaled by 4, since kernels accumulate a reduction in its element type, one rounding
/// per step, where the graph interpreter sums in f64 and rounds once.
fn lowered_tolerance(ctx: &Context, func: Op) -> (f64, f64) {
    let (rtol, atol) = loosest(ctx, func);
    (rtol.max(4e-5), atol.max(4e-6))
}

// ---------------------------------------------------------------------------------------------
// Comparison.

/// (rtol, atol) for a float dtype; `None` for integers and `i1`, which must match exactly.
fn tolerance(dtype: DType) -> Option<(f64, f64)> {
    match dtype {
        DType::F32 => Some((1e-5, 1e-6)),
        DType::F64 => Some((1e-12, 1e-12)),
        DType::F16 => Some((1e-2, 1e-2)),
        DType::BF16 => Some((6e-2, 6e-2)),
        _ => None,
    }
}

/// Checks `after` against `before`: count, dtypes and shapes, and the values if `values`.
fn compare(
    before: &[Literal],
    after: &[Literal],
    values: bool,
    floor: (f64, f64),
) -> Result<(), String> {
    if before.len() != after.len() {
        return Err(format!("{} results became {}", before.len(), after.len()));
    }
    for (i, (b, a)) in before.iter().zip(after).enumerate() {
        if b.dtype() != a.dtype() || b.shape() != a.shape() {
            return Err(format!(
                "result {i}: {:?} {:?} became {:?} {:?}",
                b.dtype(),
                b.shape(),
                a.dtype(),
                a.shape()
            ));
        }
        if !values {
            continue;
        }
        match tolerance(b.dtype()) {
            Some((rtol, atol)) => {
                let (rtol, atol) = (rtol.max(floor.0), atol.max(floor.1));
                let want = b.to_f64_vec();
                let scale = want
                    .iter()
                    .filter(|x| x.is_finite())
                    .fold(0.0f64, |m, x| m.max(x.abs()));
                for (j, (x, y)) in want.iter().zip(a.to_f64_vec()).enumerate() {
                    if !close(*x, y, atol + rtol * scale) {
                        return Err(format!(
                            "result {i} ({:?}), element {j}: {x} became {y} (largest |value| \
                             {scale})",
                            b.dtype()
                        ));
                    }
                }
            }
            None => {
                if b.to_i64_vec() != a.to_i64_vec() {
                    return Err(format!("result {i}: integer values differ"));
                }
            }
        }
    }
    Ok(())
}

/// The loosest float tolerance of any value in `func`: an f16 intermediate limits the precision
/// of an f32 result computed from it.
fn loosest(ctx: &Context, func: Op) -> (f64, f64) {
    let mut tol = (0.0f64, 0.0f64);
    let mut widen = |v: Value| {
        let dtype = DType::from_type(ctx, ctx.element_type(ctx.value_type(v)));
        if let Some((rtol, atol)) = dtype.and_then(tolerance) {
            tol = (tol.0.max(rtol), tol.1.max(atol));
        }
    };
    let entry = ctx.blocks(ctx.region(func, 0))[0];
    ctx.block_args(entry).iter().for_each(|&v| widen(v));
    ctx.for_each_op(func, &mut |op| ctx.results(op).for_each(&mut widen));
    tol
}

/// |got − want| ≤ bound; NaN matches NaN and an infinity the same infinity.
fn close(want: f64, got: f64, bound: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return want == got;
    }
    (got - want).abs() <= bound
}

// ---------------------------------------------------------------------------------------------
// Inputs.

/// Random inputs for an example function; `?` dims take [`EXAMPLE_DYNAMIC_SIZE`].
fn example_inputs(ctx: &Context, func: Op, rng: &mut Rng) -> Vec<Literal> {
    let entry = ctx.blocks(ctx.region(func, 0))[0];
    ctx.block_args(entry)
        .iter()
        .zip(args(ctx, func))
        .map(|(&arg, dtype)| {
            let shape: Vec<usize> = ctx
                .shape(ctx.value_type(arg))
                .expect("tensor argument")
                .iter()
                .map(|&d| {
                    if d == DYNAMIC {
                        EXAMPLE_DYNAMIC_SIZE
                    } else {
                        d as usize
                    }
                })
                .collect();
            random_literal(dtype, &shape, rng)
        })
        .collect()
}

/// The dtypes of `func`'s arguments.
fn args(ctx: &Context, func: Op) -> Vec<DType> {
    let entry = ctx.blocks(ctx.region(func, 0))[0];
    ctx.block_args(entry)
        .iter()
        .map(|&arg| {
            DType::from_type(ctx, ctx.element_type(ctx.value_type(arg))).expect("a graph dtype")
        })
        .collect()
}

/// Floats in [-2, 2), integers in [-4, 4], booleans fair.
fn random_literal(dtype: DType, shape: &[usize], rng: &mut Rng) -> Literal {
    let n: usize = shape.iter().product();
    if dtype.is_float() {
        let values: Vec<f64> = (0..n).map(|_| rng.unit() * 4.0 - 2.0).collect();
        Literal::from_f64(dtype, shape, &values)
    } else if dtype.is_bool() {
        let values: Vec<bool> = (0..n).map(|_| rng.chance(0.5)).collect();
        Literal::from_bools(shape, &values)
    } else {
        let values: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
        Literal::from_i64(dtype, shape, &values)
    }
}

// ---------------------------------------------------------------------------------------------
// IR plumbing.

/// Parses and verifies `text`.
fn parse(text: &str, label: &str) -> (Context, Op) {
    let mut ctx = context();
    let module = parse_source(&mut ctx, text, label, 1)
        .unwrap_or_else(|d| panic!("{label}: does not parse: {d:?}\n{text}"));
    verify(&ctx, module).unwrap_or_else(|d| panic!("{label}: invalid: {d:?}\n{text}"));
    (ctx, module)
}

fn print(ctx: &Context, module: Op) -> String {
    print_op(ctx, module, PrintOptions::default())
}

/// The name of function `func` ("" when it has none).
fn func_name(ctx: &Context, func: Op) -> &str {
    symbol_name(ctx, func).unwrap_or_default()
}

/// The index among `module`'s functions of the one `label` names (`file @name`).
fn tested_index(ctx: &Context, module: Op, label: &str) -> usize {
    let name = label.rsplit('@').next().unwrap_or_default();
    module_funcs(ctx, module)
        .iter()
        .position(|&f| func_name(ctx, f) == name)
        .unwrap_or_else(|| panic!("{label}: the function is gone after the pipeline"))
}
