//! The random graph generator over 1,000 seeds: every function verifies with the graph
//! dialect registered, round-trips through the text format, runs in the interpreter on random
//! inputs of the shapes the generator chose, and still runs (with the same result shapes)
//! after its composites are decomposed.

use dlc_graph::decompose::decompose_all;
use dlc_graph::generate::{GraphGen, Rng};
use dlc_graph::interp::interpret;
use dlc_ir::{parse_source, print_op, verify, Context, PrintOptions};
use dlc_tensor::{DType, Literal};
use dlc_testkit::{par_cases, report, scaled};

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_graph::dialect());
    ctx
}

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

/// Generated functions in the default tier; seeds `0..scaled(SEEDS)` (`dlc_testkit`).
const SEEDS: u64 = 1000;

#[test]
fn thousand_seeds_verify_round_trip_and_run() {
    let seeds: Vec<u64> = (0..scaled(SEEDS)).collect();
    let outcomes = par_cases(&seeds, |&seed| Ok(check_seed(seed)));
    report("generate", seeds.len());
    let mut ops = 0usize;
    let mut composites = 0usize;
    let mut sized = 0usize;
    let mut failures = Vec::new();
    for (seed, outcome) in seeds.iter().zip(outcomes) {
        match outcome {
            Ok((o, c, r)) => {
                ops += o;
                composites += c;
                sized += r;
            }
            Err(e) => failures.push(format!("seed {seed}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The generator is not degenerate: functions have ops and composites appear.
    let n = seeds.len();
    assert!(ops > 10 * n, "only {ops} ops in {n} functions");
    assert!(
        composites > n / 2,
        "only {composites} composites in {n} functions"
    );
    assert!(
        sized > n / 20,
        "only {sized} reshapes sized by index operands in {n} functions"
    );
}

/// The function of `seed` verifies, round-trips through text, runs, and keeps its result
/// shapes when decomposed; returns its op, composite and sized-reshape counts. Panics on a
/// failure.
fn check_seed(seed: u64) -> (usize, usize, usize) {
    let mut ops = 0usize;
    let mut sized = 0usize;
    let mut ctx = context();
    let g = GraphGen::new(seed).generate(&mut ctx);
    let text = print_op(&ctx, g.module, PrintOptions::default());
    verify(&ctx, g.module).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
    ctx.for_each_op(g.func, &mut |op| {
        ops += 1;
        if ctx.op_name(op) == "graph.reshape" && ctx.operands(op).len() > 1 {
            sized += 1;
        }
    });

    // Text round trip.
    let mut ctx2 = context();
    let module2 = parse_source(&mut ctx2, &text, "generated", 1)
        .unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
    verify(&ctx2, module2).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
    assert_eq!(
        print_op(&ctx2, module2, PrintOptions::default()),
        text,
        "seed {seed}"
    );

    // Interpretation on random inputs.
    let entry = ctx.blocks(ctx.region(g.func, 0))[0];
    let mut rng = Rng::new(seed);
    let inputs: Vec<Literal> = ctx
        .block_args(entry)
        .iter()
        .zip(&g.arg_shapes)
        .map(|(&arg, shape)| {
            let elem = ctx.element_type(ctx.value_type(arg));
            let dtype = DType::from_type(&ctx, elem).expect("generated dtype");
            random_literal(dtype, shape, &mut rng)
        })
        .collect();
    let before =
        interpret(&ctx, g.func, &inputs).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));

    // The same function with its composites decomposed.
    let composites = decompose_all(&mut ctx, g.module);
    let decomposed = print_op(&ctx, g.module, PrintOptions::default());
    verify(&ctx, g.module).unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{decomposed}"));
    let after = interpret(&ctx, g.func, &inputs)
        .unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{decomposed}"));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.shape(), a.shape(), "seed {seed}");
        assert_eq!(b.dtype(), a.dtype(), "seed {seed}");
    }
    (ops, composites, sized)
}

#[test]
fn same_seed_same_function() {
    let text = |seed| {
        let mut ctx = context();
        let g = GraphGen::new(seed).generate(&mut ctx);
        print_op(&ctx, g.module, PrintOptions::default())
    };
    assert_eq!(text(42), text(42));
    assert_ne!(text(42), text(43));
}

#[test]
fn size_is_controllable() {
    let count = |num_ops| {
        let mut ctx = context();
        let mut cfg = GraphGen::new(7);
        cfg.num_ops = num_ops;
        let g = cfg.generate(&mut ctx);
        verify(&ctx, g.func).expect("verifies");
        let mut n = 0;
        ctx.for_each_op(g.func, &mut |_| n += 1);
        n
    };
    assert!(count(4) < count(60));
}

#[test]
fn static_only_has_no_dynamic_dims() {
    for seed in 0..50 {
        let mut ctx = context();
        let mut cfg = GraphGen::new(seed);
        cfg.dynamic = false;
        cfg.composites = false;
        let g = cfg.generate(&mut ctx);
        let text = print_op(&ctx, g.func, PrintOptions::default());
        assert!(!text.contains('?'), "seed {seed}:\n{text}");
    }
}
