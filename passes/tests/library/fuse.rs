//! `fuse` keeps the meaning of random graphs: each GraphGen function (seeds 0..200), as
//! generated and with its composites decomposed, verifies after `fuse` and the interpreter gives
//! the same results before and after (floats within 1e-5 relative; only shapes and dtypes for
//! graphs with floor, round, sign or cmp, whose results jump at a threshold). Also counts the
//! kernels of the transformer block example after `decompose,fuse`, the figure the pass doc
//! states.

use dlc_graph::decompose::decompose_all;
use dlc_graph::generate::{GraphGen, Rng};
use dlc_graph::interp::interpret;
use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, print_op, verify, Context, Op, PrintOptions};
use dlc_tensor::{DType, Literal};

const SEEDS: u64 = 200;

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

fn run(ctx: &mut Context, module: Op, pipeline: &str) {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline(pipeline).expect("a valid pipeline");
    let mut pm = registry
        .build(&spec, "builtin.module")
        .unwrap_or_else(|e| panic!("{}", e.render("--pipeline", pipeline)));
    pm.run(ctx, module)
        .unwrap_or_else(|f| panic!("pass '{}': {:?}", f.pass, f.diagnostics));
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

/// Floats equal within 1e-5 relative (NaN equals NaN, infinities must match); others exactly.
fn close(a: &Literal, b: &Literal) -> Result<(), String> {
    if a.dtype() != b.dtype() || a.shape() != b.shape() {
        return Err(format!(
            "{:?} {:?} vs {:?} {:?}",
            a.dtype(),
            a.shape(),
            b.dtype(),
            b.shape()
        ));
    }
    if !a.dtype().is_float() {
        return (a.to_i64_vec() == b.to_i64_vec())
            .then_some(())
            .ok_or_else(|| "integer results differ".to_string());
    }
    for (i, (x, y)) in a.to_f64_vec().iter().zip(b.to_f64_vec()).enumerate() {
        let same =
            (x.is_nan() && y.is_nan()) || x == &y || (x - y).abs() <= 1e-5 * x.abs().max(y.abs());
        if !same {
            return Err(format!("element {i}: {x} vs {y}"));
        }
    }
    Ok(())
}

/// True if the function holds an op whose result jumps at a threshold.
fn has_discontinuous_op(ctx: &Context, func: Op) -> bool {
    let mut found = false;
    ctx.for_each_op(func, &mut |op| {
        found |= matches!(
            ctx.op_name(op),
            "graph.floor" | "graph.round" | "graph.sign" | "graph.cmp"
        );
    });
    found
}

fn count_ops(ctx: &Context, func: Op, name: &str) -> usize {
    let mut n = 0;
    ctx.for_each_op(func, &mut |op| n += usize::from(ctx.op_name(op) == name));
    n
}

#[test]
fn fuse_preserves_semantics_of_random_graphs() {
    let mut groups = 0;
    for seed in 0..SEEDS {
        for decompose in [false, true] {
            let mut ctx = context();
            let g = GraphGen::new(seed).generate(&mut ctx);
            if decompose {
                decompose_all(&mut ctx, g.module);
            }
            let text = print_op(&ctx, g.module, PrintOptions::default());
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
            let before = interpret(&ctx, g.func, &inputs)
                .unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}"));
            let shapes_only = has_discontinuous_op(&ctx, g.func);

            run(&mut ctx, g.module, "fuse");
            let fused = print_op(&ctx, g.module, PrintOptions::default());
            verify(&ctx, g.module)
                .unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{text}\nfused:\n{fused}"));
            groups += count_ops(&ctx, g.func, "graph.fusion");
            let after = interpret(&ctx, g.func, &inputs)
                .unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{fused}"));
            assert_eq!(before.len(), after.len(), "seed {seed}");
            for (b, a) in before.iter().zip(&after) {
                if shapes_only {
                    assert_eq!(b.shape(), a.shape(), "seed {seed}\n{fused}");
                    assert_eq!(b.dtype(), a.dtype(), "seed {seed}\n{fused}");
                } else if let Err(e) = close(b, a) {
                    panic!("seed {seed} (decomposed: {decompose}): {e}\n{text}\nfused:\n{fused}");
                }
            }

            // The printed result parses back to the same text.
            let mut ctx2 = context();
            let module2 = parse_source(&mut ctx2, &fused, "fused", 1)
                .unwrap_or_else(|d| panic!("seed {seed}: {d:?}\n{fused}"));
            assert_eq!(
                print_op(&ctx2, module2, PrintOptions::default()),
                fused,
                "seed {seed}"
            );
        }
    }
    // The generator gives the pass work.
    assert!(
        groups > 100,
        "only {groups} fusion groups over {SEEDS} seeds"
    );
}

/// The transformer block example: 12 kernels after `decompose,fuse` (the pass doc explains
/// them), with the same results as before fusion.
#[test]
fn transformer_block_kernel_count() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/examples/transformer_block.mlir"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        panic!("{path} is missing");
    };
    let mut ctx = context();
    let module = parse_source(&mut ctx, &text, path, 1).expect("the example parses");
    run(&mut ctx, module, "decompose");
    let func = ctx
        .block_ops(ctx.blocks(ctx.region(module, 0))[0])
        .next()
        .expect("a function");
    let entry = ctx.blocks(ctx.region(func, 0))[0];
    let mut rng = Rng::new(6);
    let inputs: Vec<Literal> = ctx
        .block_args(entry)
        .iter()
        .map(|&arg| {
            let shape: Vec<usize> = dlc_graph::tensor_parts(&ctx, ctx.value_type(arg))
                .expect("a tensor")
                .shape
                .iter()
                .map(|d| if *d < 0 { 2 } else { *d as usize })
                .collect();
            random_literal(DType::F32, &shape, &mut rng)
        })
        .collect();
    let before = interpret(&ctx, func, &inputs).expect("runs");
    run(&mut ctx, module, "fuse");
    verify(&ctx, module).expect("verifies");
    let kernels = ctx
        .block_ops(entry)
        .filter(|op| ctx.op_name(*op).starts_with("graph.") && ctx.op_name(*op) != "graph.constant")
        .count();
    let groups = ctx
        .block_ops(entry)
        .filter(|op| ctx.op_name(*op) == "graph.fusion")
        .count();
    assert_eq!((kernels, groups), (12, 10));
    let after = interpret(&ctx, func, &inputs).expect("runs");
    for (b, a) in before.iter().zip(&after) {
        close(b, a).expect("same results");
    }
}
