//! The persistent kernel cache through [`Model::compile`], the path `dlc-run` takes: a second
//! compile of a program loads every kernel from the cache and computes the same outputs; a
//! different CPU target or LLVM configuration misses; a corrupted entry is discarded, rebuilt
//! and reported; compiles racing on one cache directory all succeed; no cache touches no
//! directory; compiling on the pool or on one thread stores byte-identical objects. (The entry format's own checks are unit tests in compiler/codegen/src/cache.rs.)

use dlc_run::{inputs, CpuTarget, KernelCache, LlvmOpt, Model, ModelOptions};
use std::path::Path;

/// Two kernels: a matmul and a fused elementwise-plus-reduction.
const PROGRAM: &str = r#"
func.func @f(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8xf32> {
  %m = graph.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  %t = graph.tanh %m : tensor<8x4xf32>
  %s = graph.reduce_sum %t {axes = array<i64: 1>} : tensor<8x4xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
"#;

fn options(cache: &Path) -> ModelOptions {
    ModelOptions {
        cache: Some(KernelCache::new(cache)),
        ..ModelOptions::default()
    }
}

/// Compiles [`PROGRAM`]; returns (hits, misses, notes) and the bytes of its output on fixed
/// random inputs.
fn compile_and_run(options: &ModelOptions) -> ((usize, usize, Vec<String>), Vec<u8>) {
    let model = Model::compile(PROGRAM, "cache.mlir", options).expect("compiles");
    let stats = model.timings.codegen.cache.clone().unwrap_or_default();
    let inputs = inputs::random_inputs(model.program().signature(), 7, 1).expect("inputs");
    let refs: Vec<_> = inputs.iter().collect();
    let mut session = model.session();
    let outputs = session.run(&refs).expect("runs");
    let bytes = outputs.get(0).expect("one output").bytes.to_vec();
    ((stats.hits, stats.misses, stats.notes), bytes)
}

fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn a_second_compile_hits_and_computes_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (cold, out_cold) = compile_and_run(&options(dir.path()));
    assert_eq!((cold.0, cold.1), (0, 2), "{cold:?}");
    assert_eq!(entries(dir.path()).len(), 2);
    let (warm, out_warm) = compile_and_run(&options(dir.path()));
    assert_eq!((warm.0, warm.1), (2, 0), "{warm:?}");
    assert_eq!(out_cold, out_warm);
    let (_, uncached) = compile_and_run(&ModelOptions::default());
    assert_eq!(out_cold, uncached);
}

#[test]
fn another_target_or_llvm_configuration_misses() {
    let dir = tempfile::tempdir().unwrap();
    compile_and_run(&options(dir.path()));
    // x86-64-v2 (SSE4.2): every x86-64 machine this suite runs on has it.
    let v2 = ModelOptions {
        cpu: CpuTarget::X86_64 { level: 2 },
        ..options(dir.path())
    };
    let ((hits, misses, _), _) = compile_and_run(&v2);
    assert_eq!((hits, misses), (0, 2), "another CPU and feature set");
    let o3 = ModelOptions {
        opt: if LlvmOpt::default() == LlvmOpt::O3 {
            LlvmOpt::O2
        } else {
            LlvmOpt::O3
        },
        ..options(dir.path())
    };
    let ((hits, misses, _), _) = compile_and_run(&o3);
    assert_eq!((hits, misses), (0, 2), "another LLVM configuration");
    assert_eq!(entries(dir.path()).len(), 6);
    let ((hits, _, _), _) = compile_and_run(&v2);
    assert_eq!(hits, 2, "each configuration keeps its own entries");
}

#[test]
fn a_corrupted_entry_is_discarded_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let (_, expected) = compile_and_run(&options(dir.path()));
    let files = entries(dir.path());
    // One entry truncated, the other with a flipped byte in its object code.
    let truncated = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &truncated[..truncated.len() / 2]).unwrap();
    let mut flipped = std::fs::read(&files[1]).unwrap();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    std::fs::write(&files[1], &flipped).unwrap();
    let ((hits, misses, notes), out) = compile_and_run(&options(dir.path()));
    assert_eq!((hits, misses), (0, 2));
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes.iter().any(|n| n.contains("truncated entry")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("checksum mismatch")),
        "{notes:?}"
    );
    assert_eq!(out, expected);
    let ((hits, _, notes), _) = compile_and_run(&options(dir.path()));
    assert_eq!((hits, notes.len()), (2, 0), "the entries were rewritten");
}

#[test]
fn concurrent_compiles_share_one_directory() {
    let dir = tempfile::tempdir().unwrap();
    let (_, expected) = compile_and_run(&ModelOptions::default());
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| compile_and_run(&options(dir.path()))))
            .collect();
        for h in handles {
            let ((hits, misses, notes), out) = h.join().expect("no panic");
            assert_eq!(hits + misses, 2);
            assert!(notes.is_empty(), "{notes:?}");
            assert_eq!(out, expected);
        }
    });
    let names: Vec<String> = entries(dir.path())
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "two entries, no temporary files: {names:?}");
    assert!(names.iter().all(|n| n.ends_with(".dlco")), "{names:?}");
}

#[test]
fn no_cache_touches_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("never-created");
    let model = Model::compile(PROGRAM, "cache.mlir", &ModelOptions::default()).unwrap();
    assert!(model.timings.codegen.cache.is_none());
    assert!(!missing.exists());
    // A cache whose directory cannot be created still compiles, and says why it cannot store.
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let ((hits, misses, notes), _) = compile_and_run(&options(&file.join("sub")));
    assert_eq!((hits, misses), (0, 2));
    assert!(
        notes.iter().all(|n| n.contains("could not store")),
        "{notes:?}"
    );
    assert_eq!(notes.len(), 2, "{notes:?}");
}

#[test]
fn compiling_in_parallel_or_not_gives_the_same_objects() {
    let (pool, one) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    compile_and_run(&options(pool.path()));
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    single.install(|| compile_and_run(&options(one.path())));
    let read = |dir: &Path| -> Vec<(std::ffi::OsString, Vec<u8>)> {
        entries(dir)
            .iter()
            .map(|p| (p.file_name().unwrap().to_owned(), std::fs::read(p).unwrap()))
            .collect()
    };
    let (a, b) = (read(pool.path()), read(one.path()));
    assert_eq!(a.len(), 2);
    assert!(a == b, "the same keys and byte-identical objects");
}
