//! The persistent cache of kernels and lowered models through [`Model::compile`], the path
//! `dlc-run` takes: a second compile of a program loads its lowered module and every kernel
//! from the cache and computes the same outputs; a different CPU target or LLVM configuration
//! misses; a corrupted entry of either kind is discarded, rebuilt and reported; compiles racing
//! on one cache directory all succeed; no cache touches no directory; compiling on the pool or
//! on one thread stores byte-identical entries; a model entry whose kernel objects are gone is
//! discarded and rebuilt; two kernels differing only in name compile to
//! one entry and both run it; an ONNX model compiled before loads without being imported, and
//! misses when the value of an input it specialized or the file changes. (The entry format's
//! own checks are unit tests in compiler/codegen/src/cache.rs.)

use dlc_codegen::{EntryKind, Key};
use dlc_driver::{inputs, CpuTarget, KernelCache, LlvmOpt, Model, ModelOptions};
use std::path::{Path, PathBuf};

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

/// What one compile of [`PROGRAM`] did, and its output.
#[derive(Debug)]
struct Run {
    hits: usize,
    misses: usize,
    notes: Vec<String>,
    /// The lowered module came from the model cache.
    passes_cached: bool,
    /// The bytes of the output on fixed random inputs.
    out: Vec<u8>,
}

fn compile_and_run(options: &ModelOptions) -> Run {
    let model = Model::compile(PROGRAM, "cache.mlir", options).expect("compiles");
    let stats = model.timings.codegen.cache.clone().unwrap_or_default();
    let inputs = inputs::random_inputs(model.program().signature(), 7, 1).expect("inputs");
    let refs: Vec<_> = inputs.iter().collect();
    let mut session = model.session();
    let outputs = session.run(&refs).expect("runs");
    Run {
        hits: stats.hits,
        misses: stats.misses,
        notes: stats.notes,
        passes_cached: model.timings.passes_cached,
        out: outputs.get(0).expect("one output").bytes.to_vec(),
    }
}

/// The files in `dir` whose extension is `ext` (every file for `""`), sorted.
fn entries(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| ext.is_empty() || p.extension().is_some_and(|e| e == ext));
    files.sort();
    files
}

#[test]
fn a_second_compile_hits_and_computes_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let cold = compile_and_run(&options(dir.path()));
    assert_eq!(
        (cold.hits, cold.misses, cold.passes_cached),
        (0, 2, false),
        "{cold:?}"
    );
    assert_eq!(entries(dir.path(), "dlco").len(), 2);
    assert_eq!(entries(dir.path(), "dlcm").len(), 1);
    let warm = compile_and_run(&options(dir.path()));
    assert_eq!(
        (warm.hits, warm.misses, warm.passes_cached),
        (2, 0, true),
        "{warm:?}"
    );
    assert_eq!(cold.out, warm.out);
    let uncached = compile_and_run(&ModelOptions::default());
    assert!(!uncached.passes_cached);
    assert_eq!(cold.out, uncached.out);
}

#[test]
fn the_model_entry_holds_the_module_the_pipeline_makes() {
    let dir = tempfile::tempdir().unwrap();
    let cold = Model::compile(PROGRAM, "cache.mlir", &options(dir.path())).unwrap();
    let warm = Model::compile(PROGRAM, "cache.mlir", &options(dir.path())).unwrap();
    assert!(warm.timings.passes_cached);
    // The host function as the pipeline made it, locations included; each kernel as the
    // `loop.compiled_kernel` standing for it, with the kernel's name and signature.
    let print_host = |m: &Model| {
        let options = dlc_ir::PrintOptions {
            debuginfo: true,
            ..Default::default()
        };
        let ctx = &m.lowered_ctx;
        let mut host = Vec::new();
        let mut kernels = Vec::new();
        for op in ctx.block_ops(ctx.blocks(ctx.regions(m.lowered_module)[0])[0]) {
            match dlc_loop::KernelSymbol::of(ctx, op) {
                Some(k) => kernels.push((
                    dlc_ir::symbol::symbol_name(ctx, op).map(str::to_string),
                    k.argument_types(ctx).map(|t| t.len()),
                    ctx.view::<dlc_loop::CompiledKernelOp>(op).is_some(),
                )),
                None => host.push(dlc_ir::print_op(ctx, op, options)),
            }
        }
        (host, kernels)
    };
    let (cold_host, cold_kernels) = print_host(&cold);
    let (warm_host, warm_kernels) = print_host(&warm);
    assert_eq!(cold_host, warm_host, "the same host IR, locations included");
    let names = |ks: &[(Option<String>, Option<usize>, bool)]| {
        ks.iter().map(|k| (k.0.clone(), k.1)).collect::<Vec<_>>()
    };
    assert_eq!(names(&cold_kernels), names(&warm_kernels));
    assert!(
        cold_kernels.iter().all(|k| !k.2),
        "the cold module has the kernels' bodies"
    );
    assert!(
        warm_kernels.iter().all(|k| k.2),
        "the entry holds compiled kernels"
    );
    // Another pipeline, entry or file name is another model.
    let other = ModelOptions {
        pipeline: Some("decompose,lower,cpu-default".into()),
        ..options(dir.path())
    };
    let unfused = Model::compile(PROGRAM, "cache.mlir", &other).unwrap();
    assert!(!unfused.timings.passes_cached);
    let renamed = Model::compile(PROGRAM, "renamed.mlir", &options(dir.path())).unwrap();
    assert!(!renamed.timings.passes_cached);
    assert_eq!(entries(dir.path(), "dlcm").len(), 3);
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
    let run = compile_and_run(&v2);
    assert_eq!(
        (run.hits, run.misses),
        (0, 2),
        "another CPU and feature set"
    );
    assert!(!run.passes_cached, "the schedule is for another CPU");
    let o3 = ModelOptions {
        opt: if LlvmOpt::default() == LlvmOpt::O3 {
            LlvmOpt::O2
        } else {
            LlvmOpt::O3
        },
        ..options(dir.path())
    };
    let run = compile_and_run(&o3);
    assert_eq!((run.hits, run.misses), (0, 2), "another LLVM configuration");
    assert!(
        !run.passes_cached,
        "a model entry names the objects of one LLVM configuration"
    );
    assert_eq!(entries(dir.path(), "dlco").len(), 6);
    assert_eq!(entries(dir.path(), "dlcm").len(), 3);
    let run = compile_and_run(&v2);
    assert_eq!(run.hits, 2, "each configuration keeps its own entries");
    assert!(run.passes_cached);
}

#[test]
fn a_corrupted_entry_is_discarded_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let expected = compile_and_run(&options(dir.path())).out;
    // Without the model entry, whose loading would stop at the first bad object.
    for entry in entries(dir.path(), "dlcm") {
        std::fs::remove_file(entry).unwrap();
    }
    let files = entries(dir.path(), "dlco");
    // One entry truncated, the other with a flipped byte in its object code.
    let truncated = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &truncated[..truncated.len() / 2]).unwrap();
    let mut flipped = std::fs::read(&files[1]).unwrap();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    std::fs::write(&files[1], &flipped).unwrap();
    let run = compile_and_run(&options(dir.path()));
    assert_eq!((run.hits, run.misses), (0, 2));
    assert_eq!(run.notes.len(), 2, "{:?}", run.notes);
    let noted = |what: &str| run.notes.iter().any(|n| n.contains(what));
    assert!(noted("truncated entry"), "{:?}", run.notes);
    assert!(noted("checksum mismatch"), "{:?}", run.notes);
    assert_eq!(run.out, expected);
    let run = compile_and_run(&options(dir.path()));
    assert_eq!(
        (run.hits, run.notes.len()),
        (2, 0),
        "the entries were rewritten"
    );
}

#[test]
fn a_model_entry_whose_objects_are_gone_is_discarded_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let expected = compile_and_run(&options(dir.path())).out;
    let files = entries(dir.path(), "dlco");
    std::fs::remove_file(&files[0]).unwrap();
    let run = compile_and_run(&options(dir.path()));
    assert!(!run.passes_cached, "{run:?}");
    assert_eq!((run.hits, run.misses), (1, 1), "{run:?}");
    assert!(
        run.notes.len() == 1 && run.notes[0].contains("kernels do not load"),
        "{:?}",
        run.notes
    );
    assert_eq!(run.out, expected);
    let run = compile_and_run(&options(dir.path()));
    assert_eq!((run.hits, run.passes_cached, run.notes.len()), (2, true, 0));
    assert_eq!(run.out, expected);
}

#[test]
fn a_bad_model_entry_is_discarded_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let expected = compile_and_run(&options(dir.path())).out;
    let model = entries(dir.path(), "dlcm").pop().expect("a model entry");
    let good = std::fs::read(&model).unwrap();
    // A flipped byte in the module text fails the checksum.
    let mut flipped = good.clone();
    let last = flipped.len() - 2;
    flipped[last] ^= 0x01;
    std::fs::write(&model, &flipped).unwrap();
    let run = compile_and_run(&options(dir.path()));
    assert!(!run.passes_cached);
    assert_eq!(run.hits, 2, "the kernels of the rebuilt module still hit");
    assert!(
        run.notes
            .iter()
            .any(|n| n.contains("corrupted model entry") && n.contains("checksum mismatch")),
        "{:?}",
        run.notes
    );
    assert_eq!(run.out, expected);
    // A valid entry (right key, magic and checksum) whose text is not a module.
    let key = Key(good[8..40].try_into().unwrap());
    let cache = KernelCache::new(dir.path());
    cache
        .put(EntryKind::Model, &key, b"module { bogus")
        .unwrap();
    let run = compile_and_run(&options(dir.path()));
    assert!(!run.passes_cached);
    assert!(
        run.notes.iter().any(|n| n.contains("does not load")),
        "{:?}",
        run.notes
    );
    assert_eq!(run.out, expected);
    let run = compile_and_run(&options(dir.path()));
    assert!(
        run.passes_cached && run.notes.is_empty(),
        "rewritten: {run:?}"
    );
}

#[test]
fn concurrent_compiles_share_one_directory() {
    let dir = tempfile::tempdir().unwrap();
    let expected = compile_and_run(&ModelOptions::default()).out;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| compile_and_run(&options(dir.path()))))
            .collect();
        for h in handles {
            let run = h.join().expect("no panic");
            assert_eq!(run.hits + run.misses, 2);
            assert!(run.notes.is_empty(), "{:?}", run.notes);
            assert_eq!(run.out, expected);
        }
    });
    let names: Vec<String> = entries(dir.path(), "")
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        3,
        "three entries, no temporary files: {names:?}"
    );
    let kernels = names.iter().filter(|n| n.ends_with(".dlco")).count();
    let models = names.iter().filter(|n| n.ends_with(".dlcm")).count();
    assert_eq!((kernels, models), (2, 1), "{names:?}");
}

#[test]
fn no_cache_touches_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("never-created");
    let model = Model::compile(PROGRAM, "cache.mlir", &ModelOptions::default()).unwrap();
    assert!(model.timings.codegen.cache.is_none());
    assert!(!model.timings.passes_cached);
    assert!(!missing.exists());
    // A cache whose directory cannot be created still compiles, and says why it cannot store
    // the model and each kernel.
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let run = compile_and_run(&options(&file.join("sub")));
    assert_eq!((run.hits, run.misses), (0, 2));
    assert!(
        run.notes.iter().all(|n| n.contains("could not store")),
        "{:?}",
        run.notes
    );
    assert_eq!(run.notes.len(), 3, "{:?}", run.notes);
}

#[test]
fn compiling_in_parallel_or_not_gives_the_same_entries() {
    let (pool, one) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    compile_and_run(&options(pool.path()));
    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    single.install(|| compile_and_run(&options(one.path())));
    let read = |dir: &Path| -> Vec<(std::ffi::OsString, Vec<u8>)> {
        entries(dir, "")
            .iter()
            .map(|p| (p.file_name().unwrap().to_owned(), std::fs::read(p).unwrap()))
            .collect()
    };
    let (a, b) = (read(pool.path()), read(one.path()));
    assert_eq!(a.len(), 3);
    assert!(
        a == b,
        "the same keys and byte-identical objects and modules"
    );
}

/// The same computation twice on different arguments: two kernels differing only in name.
const REPEATED: &str = r#"
func.func @f(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %ta = graph.tanh %a : tensor<8x16xf32>
  %sa = graph.reduce_sum %ta {axes = array<i64: 1>} : tensor<8x16xf32> -> tensor<8xf32>
  %tb = graph.tanh %b : tensor<8x16xf32>
  %sb = graph.reduce_sum %tb {axes = array<i64: 1>} : tensor<8x16xf32> -> tensor<8xf32>
  return %sa, %sb : tensor<8xf32>, tensor<8xf32>
}
"#;

#[test]
fn kernels_differing_only_in_name_compile_once() {
    // The default pipeline merges the two kernels into one (`merge-kernels`); without that
    // pass, code generation still compiles the two once, as it keys objects by content.
    let unmerged = format!(
        "decompose,fuse,lower,{}",
        dlc_passes::loops::CPU_DEFAULT
            .strip_prefix("merge-kernels,")
            .expect("cpu-default starts with merge-kernels")
    );
    for (pipeline, kernels) in [(None, 1), (Some(unmerged), 2)] {
        let dir = tempfile::tempdir().unwrap();
        let options = ModelOptions {
            pipeline,
            ..options(dir.path())
        };
        let model = Model::compile(REPEATED, "repeated.mlir", &options).expect("compiles");
        let codegen = &model.timings.codegen;
        assert_eq!((codegen.kernels, codegen.distinct), (kernels, 1));
        let stats = codegen.cache.clone().unwrap_or_default();
        assert_eq!((stats.hits, stats.misses), (0, 1));
        assert_eq!(entries(dir.path(), "dlco").len(), 1);
        // Both launches run the one object, each on its own arguments.
        let a = dlc_runtime::Tensor::from_f32(&[8, 16], &[0.5; 128]).expect("a");
        let b = dlc_runtime::Tensor::from_f32(&[8, 16], &[-1.0; 128]).expect("b");
        let mut session = model.session();
        let outputs = session.run(&[&a, &b]).expect("runs");
        let first = |i: usize| {
            let bytes = &outputs.get(i).expect("two outputs").bytes;
            f32::from_le_bytes(bytes[..4].try_into().expect("four bytes"))
        };
        assert!(
            (first(0) - 16.0 * 0.5f32.tanh()).abs() < 1e-4,
            "{}",
            first(0)
        );
        assert!(
            (first(1) - 16.0 * (-1.0f32).tanh()).abs() < 1e-4,
            "{}",
            first(1)
        );
    }
}

/// Reshape(x: 2x3 f32, s: 2 i64): the shape `s` must be a constant, so the import specializes it.
fn reshape_by_input(then_negate: bool) -> Vec<u8> {
    use dlc_onnx::proto::tensor_shape_proto::{dimension, Dimension};
    use dlc_onnx::proto::*;
    let input = |name: &str, elem: i32, dims: &[i64]| ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: elem,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            value: Some(dimension::Value::DimValue(d)),
                            ..Default::default()
                        })
                        .collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    };
    let node = |op: &str, inputs: &[&str], output: &str| NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        op_type: op.into(),
        ..Default::default()
    };
    let mut nodes = vec![node("Reshape", &["x", "s"], "r")];
    nodes.push(if then_negate {
        node("Neg", &["r"], "y")
    } else {
        node("Identity", &["r"], "y")
    });
    let model = ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 17,
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: "g".into(),
            input: vec![
                input("x", DataType::Float as i32, &[2, 3]),
                input("s", DataType::Int64 as i32, &[2]),
            ],
            output: vec![ValueInfoProto {
                name: "y".into(),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    prost::Message::encode_to_vec(&model)
}

#[test]
fn an_onnx_model_compiled_before_loads_without_being_imported() {
    use dlc_driver::onnx::compile_onnx;
    use dlc_runtime::Tensor;
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("reshape.onnx");
    std::fs::write(&path, reshape_by_input(false)).expect("model written");
    let cache = dir.path().join("cache");
    let x = Tensor::from_f32(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).expect("x");
    let shape = |dims: &[i64]| {
        let t = dlc_tensor::Literal::from_i64(dlc_tensor::DType::I64, &[2], dims);
        Tensor::from_literal(&t).expect("s")
    };
    // (whether the lowered module came from the cache, the notes, the output's shape and bytes)
    let compile = |given: &[Tensor]| {
        let c = compile_onnx(
            &path,
            Default::default(),
            Some(given),
            "m",
            &options(&cache),
        )
        .expect("compiles");
        let args: Vec<&Tensor> = c.arguments.iter().map(|&i| &given[i]).collect();
        let mut session = c.model.session();
        let outputs = session.run(&args).expect("runs");
        let out = outputs.get(0).expect("one output");
        let (shape, bytes) = (out.shape.to_vec(), out.bytes.to_vec());
        let (ctx, func) = c.model.source().expect("the source is made again");
        let arguments = ctx
            .attr(func, "function_type")
            .and_then(|a| ctx.attr_as_type(a))
            .and_then(|t| ctx.function_signature(t))
            .map(|(a, _)| a.len());
        assert_eq!(arguments, Some(1), "the specialized input is no argument");
        let passes_cached = c.model.timings.passes_cached;
        (passes_cached, c.notes, shape, bytes)
    };
    let cold = compile(&[x.clone(), shape(&[3, 2])]);
    assert!(!cold.0);
    assert!(cold.1.iter().any(|n| n.contains("'s'")), "{:?}", cold.1);
    let warm = compile(&[x.clone(), shape(&[3, 2])]);
    assert_eq!(warm, (true, cold.1.clone(), cold.2.clone(), cold.3.clone()));
    // The warm compile did not import the model: its source is made only when asked for.
    let given = [x.clone(), shape(&[3, 2])];
    let c = compile_onnx(
        &path,
        Default::default(),
        Some(&given),
        "m",
        &options(&cache),
    )
    .expect("compiles");
    let moved = dir.path().join("moved.onnx");
    std::fs::rename(&path, &moved).expect("model moved");
    let error = c.model.source().err().expect("no file to import");
    assert!(error.contains("cannot read"), "{error}");
    std::fs::rename(&moved, &path).expect("model moved back");
    // Another value of the specialized input is another model.
    let other = compile(&[x.clone(), shape(&[6, 1])]);
    assert_eq!((other.0, other.2.as_slice()), (false, &[6, 1][..]));
    // So is another file at the same path.
    std::fs::write(&path, reshape_by_input(true)).expect("model rewritten");
    let negated = compile(&[x.clone(), shape(&[3, 2])]);
    assert!(!negated.0);
    assert_ne!(negated.3, cold.3);
}

#[test]
fn an_onnx_model_in_memory_compiles_and_loads_like_a_file() {
    use dlc_driver::onnx::compile_onnx_bytes;
    use dlc_runtime::Tensor;
    let dir = tempfile::tempdir().expect("temporary directory");
    let cache = dir.path().join("cache");
    let bytes = reshape_by_input(false);
    let x = Tensor::from_f32(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).expect("x");
    let s = dlc_tensor::Literal::from_i64(dlc_tensor::DType::I64, &[2], &[3, 2]);
    let given = [x, Tensor::from_literal(&s).expect("s")];
    // (whether the lowered module came from the cache, the names, the output's shape)
    let compile = || {
        let c = compile_onnx_bytes(
            &bytes,
            Default::default(),
            Some(&given),
            "<bytes>",
            &options(&cache),
        )
        .expect("compiles");
        let args: Vec<&Tensor> = c.arguments.iter().map(|&i| &given[i]).collect();
        let mut session = c.model.session();
        let outputs = session.run(&args).expect("runs");
        let shape = outputs.get(0).expect("one output").shape.to_vec();
        // A warm compile did not import the model: its source is imported from the bytes.
        c.model.source().expect("imported from the bytes");
        let names = (c.graph_inputs.clone(), c.graph_outputs.clone());
        (c.model.timings.passes_cached, names, shape)
    };
    let cold = compile();
    let names = (
        vec!["x".to_string(), "s".to_string()],
        vec!["y".to_string()],
    );
    assert_eq!(cold, (false, names.clone(), vec![3, 2]));
    assert_eq!(compile(), (true, names, vec![3, 2]));
    let error = compile_onnx_bytes(
        b"\xff",
        Default::default(),
        None,
        "<bytes>",
        &options(&cache),
    )
    .err()
    .expect("not a model");
    assert!(error.starts_with("<bytes>: error: "), "{error}");
}
