//! Tiered code generation through [`Model::compile`]: a cold tiered compile runs quick code
//! first and swaps in optimized code from the background; once it is done, the kernel cache
//! holds the same objects a compile without tiers stores, and the outputs are those of that
//! compile; a warm start runs optimized code from the first run and has nothing to tier up;
//! runs during the swap compute the right values; the background leaves the cores to the
//! first run, and begins on its own when no run comes; a model dropped before its tier-up is
//! done stops it cleanly.

use dlc_driver::{inputs, KernelCache, Model, ModelOptions};
use std::path::Path;
use std::time::{Duration, Instant};

/// Three distinct kernels: a matmul, a fused elementwise-plus-reduction, a softmax.
const PROGRAM: &str = r#"
func.func @f(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>) -> (tensor<32xf32>, tensor<32x48xf32>) {
  %m = graph.matmul %a, %b : tensor<32x64xf32>, tensor<64x48xf32> -> tensor<32x48xf32>
  %t = graph.tanh %m : tensor<32x48xf32>
  %s = graph.reduce_sum %t {axes = array<i64: 1>} : tensor<32x48xf32> -> tensor<32xf32>
  %p = graph.softmax %m {axis = 1 : i64} : tensor<32x48xf32> -> tensor<32x48xf32>
  return %s, %p : tensor<32xf32>, tensor<32x48xf32>
}
"#;

fn options(cache: &Path, tiered: bool) -> ModelOptions {
    ModelOptions {
        cache: Some(KernelCache::new(cache)),
        tiered,
        ..ModelOptions::default()
    }
}

/// The outputs of one run of `model` on fixed random inputs, as f32s.
fn run(model: &Model) -> Vec<Vec<f32>> {
    let inputs = inputs::random_inputs(model.program().signature(), 3, 1).expect("inputs");
    let refs: Vec<_> = inputs.iter().collect();
    let mut session = model.session();
    let outputs = session.run(&refs).expect("runs");
    (0..outputs.len())
        .map(|i| {
            let bytes = &outputs.get(i).expect("an output").bytes;
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        })
        .collect()
}

/// The largest difference between two runs' outputs.
fn max_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f32::max)
}

/// The cache's kernel objects, by file name, with their bytes.
fn objects(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("cache directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "dlco"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_optimized_tier_is_the_full_compile() {
    let full_dir = tempfile::tempdir().unwrap();
    let full =
        Model::compile(PROGRAM, "tiers.mlir", &options(full_dir.path(), false)).expect("compiles");
    assert_eq!(full.timings.codegen.quick, 0);
    assert!(full.wait_optimized().is_none(), "nothing to tier up");
    let expected = run(&full);

    let dir = tempfile::tempdir().unwrap();
    let tiered =
        Model::compile(PROGRAM, "tiers.mlir", &options(dir.path(), true)).expect("compiles");
    let distinct = tiered.timings.codegen.distinct;
    assert_eq!(
        tiered.timings.codegen.quick, distinct,
        "every kernel starts quick"
    );
    // Quick code computes the same function, up to rounding.
    let first = run(&tiered);
    assert!(
        max_diff(&first, &expected) < 1e-5,
        "{}",
        max_diff(&first, &expected)
    );
    assert!(objects(dir.path()).len() <= distinct);

    let done = tiered.wait_optimized().expect("a tier-up");
    assert_eq!(
        (done.kernels, done.stored),
        (distinct, distinct),
        "{done:?}"
    );
    assert!(done.notes.is_empty(), "{:?}", done.notes);
    assert_eq!(tiered.optimized_kernels(), (distinct, distinct));
    // The same objects as the compile without tiers, so the same outputs, bit for bit.
    assert_eq!(objects(dir.path()), objects(full_dir.path()));
    assert_eq!(run(&tiered), expected);
    // The model entry was written once the tier-up was asked for.
    let models = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "dlcm"))
        .count();
    assert_eq!(models, 1);

    let warm = Model::compile(PROGRAM, "tiers.mlir", &options(dir.path(), true)).expect("warm");
    let stats = warm.timings.codegen.cache.clone().unwrap_or_default();
    assert_eq!((stats.hits, stats.misses), (distinct, 0));
    assert!(warm.timings.passes_cached);
    assert_eq!(
        warm.timings.codegen.quick, 0,
        "a warm start runs no quick code"
    );
    assert_eq!(warm.optimized_kernels(), (distinct, distinct));
    assert!(warm.wait_optimized().is_none());
    assert_eq!(run(&warm), expected);
}

#[test]
fn runs_during_the_swap_are_right() {
    let reference = Model::compile(PROGRAM, "tiers.mlir", &ModelOptions::default())
        .map(|m| run(&m))
        .expect("compiles");
    let dir = tempfile::tempdir().unwrap();
    let model =
        Model::compile(PROGRAM, "tiers.mlir", &options(dir.path(), true)).expect("compiles");
    let (distinct, mut runs) = (model.timings.codegen.distinct, 0);
    while model.optimized_kernels().0 < distinct && runs < 10_000 {
        let out = run(&model);
        assert!(max_diff(&out, &reference) < 1e-5, "run {runs}");
        runs += 1;
    }
    model.wait_optimized().expect("a tier-up");
    assert_eq!(run(&model), reference);
}

#[test]
fn the_tier_up_waits_for_the_first_run() {
    let tiered = ModelOptions {
        tiered: true,
        ..ModelOptions::default()
    };
    let model = Model::compile(PROGRAM, "tiers.mlir", &tiered).expect("compiles");
    let distinct = model.timings.codegen.distinct;
    assert_eq!(model.timings.codegen.quick, distinct);
    // Well inside the grace period, with no run yet: the background has not begun.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(model.optimized_kernels(), (0, distinct));
    // No run comes: it begins after the grace period all the same, without being asked.
    let start = Instant::now();
    while model.optimized_kernels().0 < distinct && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(model.optimized_kernels(), (distinct, distinct));
}

#[test]
fn dropping_a_model_stops_its_tier_up() {
    for _ in 0..3 {
        let model = Model::compile(
            PROGRAM,
            "tiers.mlir",
            &ModelOptions {
                tiered: true,
                ..ModelOptions::default()
            },
        )
        .expect("compiles");
        assert!(model.timings.codegen.quick > 0);
        run(&model);
        drop(model);
    }
}

/// Twelve distinct small kernels: `tanh` over twelve shapes.
fn small_kernels() -> String {
    let shape = |i: usize| format!("tensor<{}x{}xf32>", i + 1, 8 * (i + 1));
    let args: Vec<String> = (0..12).map(|i| format!("%x{i}: {}", shape(i))).collect();
    let types: Vec<String> = (0..12).map(shape).collect();
    let mut text = format!(
        "func.func @f({}) -> ({}) {{\n",
        args.join(", "),
        types.join(", ")
    );
    for (i, ty) in types.iter().enumerate() {
        text += &format!("  %t{i} = graph.tanh %x{i} : {ty}\n");
    }
    let results: Vec<String> = (0..12).map(|i| format!("%t{i}")).collect();
    text += &format!(
        "  return {} : {}\n}}\n",
        results.join(", "),
        types.join(", ")
    );
    text
}

#[test]
fn small_quick_kernels_share_llvm_modules() {
    let program = small_kernels();
    let full_dir = tempfile::tempdir().unwrap();
    let full =
        Model::compile(&program, "small.mlir", &options(full_dir.path(), false)).expect("compiles");
    let distinct = full.timings.codegen.distinct;
    assert_eq!(distinct, 12);
    assert_eq!(
        full.timings.codegen.modules, distinct,
        "one per optimized kernel"
    );

    let dir = tempfile::tempdir().unwrap();
    let tiered =
        Model::compile(&program, "small.mlir", &options(dir.path(), true)).expect("compiles");
    let codegen = &tiered.timings.codegen;
    assert_eq!(codegen.quick, distinct);
    // Tiny kernels: one shared module per thread.
    assert_eq!(codegen.modules, codegen.threads.min(distinct));
    let expected = run(&full);
    assert!(max_diff(&run(&tiered), &expected) < 1e-5);
    // Each kernel is optimized from its own module: the objects of the compile without tiers.
    let done = tiered.wait_optimized().expect("a tier-up");
    assert_eq!(
        (done.kernels, done.stored),
        (distinct, distinct),
        "{done:?}"
    );
    assert_eq!(objects(dir.path()), objects(full_dir.path()));
    assert_eq!(run(&tiered), expected);
}
