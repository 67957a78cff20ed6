//! Every example program exported to MLIR, verified, and lowered by `mlir-opt-22`.
//!
//! The corpus is `docs/examples/*.mlir`: graph programs after `decompose,fuse,lower,cpu-default`
//! (CPU) and `decompose,fuse,lower{target=gpu},gpu-default` (GPU), loop programs as written (and
//! after `gpu-default` when that pipeline accepts them). Each export must pass MLIR's verifier
//! (inside `to_mlir`) and lower with mlir-opt: CPU modules through [`CPU_LOWERING`] to the LLVM
//! dialect and on through `mlir-translate-22 --mlir-to-llvmir`, GPU modules through
//! [`GPU_LOWERING`] to PTX text. A nonzero exit fails the test.

use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, verify, Context, Op};
use dlc_mlir::{emit_mlir, mlir_context, to_mlir, ExportOptions};
use dlc_testkit::par_cases;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The CPU lowering: everything to the LLVM dialect; math ops LLVM has no intrinsic for
/// (`erf`, `tanh`, ...) become libm calls.
const CPU_LOWERING: &[&str] = &[
    "--convert-vector-to-scf",
    "--convert-scf-to-cf",
    "--convert-math-to-llvm",
    "--convert-math-to-libm",
    "--convert-to-llvm",
    "--reconcile-unrealized-casts",
];

/// The GPU lowering: MLIR's NVVM pipeline for sm_80 (dynamic-size local buffers need PTX 7.3
/// and sm_52), serialising the kernels to PTX text (`isa`), which needs no CUDA toolkit.
const GPU_LOWERING: &[&str] =
    &["--gpu-lower-to-nvvm-pipeline=cubin-chip=sm_80 cubin-features=+ptx80 cubin-format=isa"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

fn run_pipeline(ctx: &mut Context, module: Op, pipeline: &str) -> Result<(), String> {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline(pipeline).map_err(|e| e.render("--pipeline", pipeline))?;
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| e.render("--pipeline", pipeline))?;
    pm.run(ctx, module)
        .map(|_| ())
        .map_err(|f| format!("{:?}", f.diagnostics))
}

/// `(label, text)` of every docs/examples program.
fn examples() -> Vec<(String, String)> {
    let dir = repo_root().join("docs/examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("docs/examples exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable example");
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            (name.unwrap_or_default(), text)
        })
        .collect()
}

/// Each example as `(label, ctx, module)` after the pipelines that apply to it.
fn lowered_examples() -> Vec<(String, Context, Op)> {
    let mut out = Vec::new();
    for (name, text) in examples() {
        if !text.contains("loop.kernel") && !text.contains("graph.") {
            continue;
        }
        let pipelines: &[&str] = if text.contains("graph.") {
            &[
                "decompose,fuse,lower,cpu-default",
                "decompose,fuse,lower{target=gpu},gpu-default",
            ]
        } else {
            &["", "gpu-default"]
        };
        for pipeline in pipelines {
            let mut ctx = context();
            let module = parse_source(&mut ctx, &text, &name, 1).expect("example parses");
            verify(&ctx, module).expect("example verifies");
            if !pipeline.is_empty() {
                if let Err(e) = run_pipeline(&mut ctx, module, pipeline) {
                    assert!(
                        !text.contains("graph."),
                        "{name}: pipeline {pipeline} failed: {e}"
                    );
                    continue;
                }
            }
            let how = if pipeline.is_empty() {
                "as written"
            } else {
                pipeline
            };
            out.push((format!("{name} ({how})"), ctx, module));
        }
    }
    out
}

/// Runs `tool args` on `input`; its stdout, or an error with its stderr.
fn run_tool(tool: &str, args: &[&str], input: &str, label: &str) -> Result<String, String> {
    // One file per call, straight in the temp folder: a folder shared by the cases running in
    // parallel could be removed by one case between another's creating it and writing to it.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let file = std::env::temp_dir().join(format!(
        "dlc-mlir-{}-{}-{}.mlir",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed),
        label.replace(|c: char| !c.is_alphanumeric(), "_")
    ));
    std::fs::write(&file, input).map_err(|e| e.to_string())?;
    let out = Command::new(tool)
        .args(args)
        .arg(&file)
        .output()
        .map_err(|e| format!("cannot run {tool}: {e}"));
    // The input was only for the tool; a failure prints it below.
    let _ = std::fs::remove_file(&file);
    let out = out?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{label}: {tool} {} failed:\n{}\n--- input ---\n{input}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn every_example_exports_verifies_and_lowers() {
    let options = ExportOptions { slot_entries: true };
    let mut failures = Vec::new();
    let (mut cpu, mut gpu) = (0, 0);
    for (label, ctx, module) in lowered_examples() {
        let text = match emit_mlir(&ctx, module, &options) {
            Ok(t) => t,
            Err(d) => {
                failures.push(format!("{label}: export: {}", d.message));
                continue;
            }
        };
        let result = if text.contains("gpu.module") {
            gpu += 1;
            run_tool("mlir-opt-22", GPU_LOWERING, &text, &label).map(|_| ())
        } else {
            cpu += 1;
            run_tool("mlir-opt-22", CPU_LOWERING, &text, &label).and_then(|llvm| {
                run_tool("mlir-translate-22", &["--mlir-to-llvmir"], &llvm, &label).map(|_| ())
            })
        };
        if let Err(e) = result {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(cpu >= 7 && gpu >= 6, "only {cpu} CPU and {gpu} GPU modules");
}

#[test]
fn export_builds_into_a_given_context() {
    let mlir = mlir_context();
    let mut ctx = context();
    let text = std::fs::read_to_string(repo_root().join("docs/examples/loop_broadcast_add.mlir"))
        .expect("example exists");
    let module = parse_source(&mut ctx, &text, "broadcast_add", 1).expect("parses");
    let exported = to_mlir(&ctx, module, &mlir, &ExportOptions::default()).expect("exports");
    let printed = exported.as_operation().to_string();
    assert!(printed.contains("func.func @broadcast_add(%arg0: memref<?x?xf32>"));
    assert!(printed.contains("scf.parallel"));
    assert!(!printed.contains("_slots"));
}

#[test]
fn graph_ops_are_refused_with_a_location() {
    let mut ctx = context();
    let text = std::fs::read_to_string(repo_root().join("docs/examples/softmax.mlir"))
        .expect("example exists");
    let module = parse_source(&mut ctx, &text, "softmax.mlir", 1).expect("parses");
    let err = emit_mlir(&ctx, module, &ExportOptions::default()).expect_err("graph ops refused");
    assert!(
        err.message.contains("no MLIR counterpart"),
        "{}",
        err.message
    );
}

/// `(label, text)` of every `// -----` chunk of the lit suite that holds loop kernels.
fn lit_kernels() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![repo_root().join("test")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "mlir") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut chunks = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable file");
        let name = path
            .strip_prefix(repo_root())
            .unwrap_or(&path)
            .display()
            .to_string();
        for (i, chunk) in text.split("\n// -----").enumerate() {
            if chunk.contains("loop.kernel") && !chunk.contains("expected-error") {
                chunks.push((format!("{name}#{i}"), chunk.to_string()));
            }
        }
    }
    chunks
}

/// Export refusals that are documented limits (docs/mlir-interop.md), not bugs.
const ACCEPTED_LIMITS: &[&str] = &[
    "a shared buffer needs static dims",
    "has no MLIR counterpart",
    "integer division of vectors is not supported",
    "has no body to export",
    "nested modules are not exported",
];

#[test]
fn every_lit_kernel_exports_and_lowers() {
    let options = ExportOptions { slot_entries: true };
    // Each kernel is exported and lowered by its own mlir-opt process: on the pool.
    let outcomes = par_cases(&lit_kernels(), |(label, text)| {
        let mut ctx = context();
        let Ok(module) = parse_source(&mut ctx, text, label, 1) else {
            return Ok(false);
        };
        if verify(&ctx, module).is_err() {
            return Ok(false);
        }
        let text = match emit_mlir(&ctx, module, &options) {
            Ok(t) => t,
            Err(d) if ACCEPTED_LIMITS.iter().any(|l| d.message.contains(l)) => return Ok(false),
            Err(d) => return Err(format!("{label}: export: {}", d.message)),
        };
        let lowering = if text.contains("gpu.module") {
            GPU_LOWERING
        } else {
            CPU_LOWERING
        };
        run_tool("mlir-opt-22", lowering, &text, label).map(|_| true)
    });
    let mut failures = Vec::new();
    let mut lowered = 0;
    for outcome in outcomes {
        match outcome {
            Ok(done) => lowered += usize::from(done),
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(lowered >= 100, "only {lowered} modules lowered");
}
