//! Every kernel in the repository through the NVPTX backend and NVIDIA's assembler.
//!
//! The corpus is every `.mlir` file under `test/` and `docs/examples/`, split at `// -----`
//! like lit's `--split-input-file`. A chunk that parses and verifies is compiled to PTX:
//! - graph programs after `decompose,fuse,lower{target=gpu},gpu-default`, and after the
//!   README's first command, `fuse,simplify,gpu-map` with the `decompose` and `lower` dlc-opt
//!   inserts (it must run on every docs/examples program);
//! - loop-level modules with kernels as written, and again after `gpu-default` when that
//!   pipeline accepts them.
//!
//! Each PTX module must assemble with `ptxas -arch=sm_80` and `-arch=sm_90`: a ptxas error
//! fails the test. The docs/examples chunks are assembled for both architectures in every run;
//! the lit suite's chunks, most of the corpus, for one each in the default tier (sm_80 and
//! sm_90 alternating along the corpus, so each architecture sees half of it), for both with
//! `DLC_TEST_SCALE` ≥ 2 or `DLC_PTX_REPORT`: a ptxas run costs about 30 ms whatever the kernel,
//! and the thousand of them were most of this test's time. ptxas comes from the `nvidia-cuda-nvcc` wheel (the README's setup installs
//! it); set `PTXAS` to use another one. Code generation may refuse a chunk only with one of the
//! documented limits ([`ACCEPTED_LIMITS`]); any other codegen error fails the test.
//!
//! Chunks are compiled and assembled in parallel, one thread per core (`dlc_testkit`).
//!
//! `ptxas -v` is read for every kernel: a spill in a kernel of docs/examples after
//! `gpu-default` fails the test. With `DLC_PTX_REPORT=<file>`, the registers, spills, shared
//! and stack bytes of every kernel (examples and lit suite, every variant, both architectures)
//! are written there as a markdown table (docs/ptxas-report.md is that file; docs/benchmarks.md
//! sums it up).

use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, verify, Context, Op};
use dlc_testkit::{par_cases, scale};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Codegen errors that are documented limits, not bugs.
const ACCEPTED_LIMITS: &[&str] = &[
    "a shared buffer needs static dims",
    "integer division of vectors is not supported",
    "CUDA blocks have at most",
    "with rounding mode",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

/// The ptxas binary: `$PTXAS`, or the one in the nvidia-cuda-nvcc wheel.
fn ptxas() -> PathBuf {
    if let Some(p) = std::env::var_os("PTXAS") {
        return PathBuf::from(p);
    }
    let out = Command::new("python3")
        .args(["-c", "import nvidia; print(list(nvidia.__path__)[0])"])
        .output()
        .expect("python3 runs");
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let path = Path::new(&root).join("cu13/bin/ptxas");
    assert!(
        out.status.success() && path.exists(),
        "ptxas not found: run `pip install nvidia-cuda-nvcc` (scripts/test.sh does) or set PTXAS"
    );
    path
}

/// The pipeline of the README's first command.
const HEADLINE: &str = "fuse,simplify,gpu-map";

/// Runs `pipeline` on `module`, with the conversions between IR levels dlc-opt inserts into a
/// flat `--pipeline` (`dlc_passes::levels`).
fn run_pipeline(ctx: &mut Context, module: Op, pipeline: &str) -> Result<(), String> {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline(pipeline).map_err(|e| e.render("--pipeline", pipeline))?;
    let (spec, _) = dlc_passes::levels::with_conversions(&spec);
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| e.render("--pipeline", pipeline))?;
    pm.run(ctx, module)
        .map(|_| ())
        .map_err(|f| format!("{:?}", f.diagnostics))
}

fn corpus() -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![repo_root().join("test"), repo_root().join("docs/examples")];
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
            if chunk.contains("loop.kernel") || chunk.contains("graph.") {
                chunks.push((format!("{name}#{i}"), chunk.to_string()));
            }
        }
    }
    chunks
}

/// Assembles `ptx` for `sm`; returns ptxas's `-v` report.
fn assemble(ptxas: &Path, ptx: &str, sm: u32, label: &str) -> Result<String, String> {
    // One file per call: kernels are assembled in parallel.
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dlc-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(format!("k{n}.ptx"));
    std::fs::write(&file, ptx).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .arg(format!("-arch=sm_{sm}"))
        .arg("-v")
        .arg(&file)
        .arg("-o")
        .arg(dir.join(format!("k{n}.cubin")))
        .output()
        .map_err(|e| format!("cannot run ptxas: {e}"))?;
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok(report)
    } else {
        Err(format!(
            "{label}: ptxas -arch=sm_{sm} failed:\n{report}\n{ptx}"
        ))
    }
}

#[test]
fn every_kernel_assembles_for_sm80_and_sm90() {
    let ptxas = ptxas();
    let corpus: Vec<(usize, String, String)> = (corpus().into_iter().enumerate())
        .map(|(i, (label, text))| (i, label, text))
        .collect();
    let every_arch = scale() >= 2 || std::env::var_os("DLC_PTX_REPORT").is_some();
    let outcomes = par_cases(&corpus, |(i, label, text)| {
        let archs: &[u32] = match (every_arch || label.starts_with("docs/examples"), i % 2) {
            (true, _) => &[80, 90],
            (false, 0) => &[80],
            (false, _) => &[90],
        };
        Ok(assemble_chunk(&ptxas, label, text, archs))
    });
    let mut failures = Vec::new();
    let mut assembled = 0;
    let mut report = String::from(
        "| kernel | pipeline | sm | registers | spill stores | spill loads | shared bytes | stack bytes |\n|---|---|---|---|---|---|---|---|\n",
    );
    for outcome in outcomes {
        match outcome {
            Ok(chunk) => {
                failures.extend(chunk.failures);
                assembled += chunk.assembled;
                report += &chunk.rows;
            }
            Err(e) => failures.push(e),
        }
    }
    if let Some(path) = std::env::var_os("DLC_PTX_REPORT") {
        std::fs::write(path, &report).expect("writable report");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(assembled >= 40, "only {assembled} PTX modules assembled");
}

/// What one corpus chunk gave.
struct Assembled {
    failures: Vec<String>,
    /// PTX modules assembled.
    assembled: usize,
    /// `ptxas -v` report rows, one per kernel, variant and architecture.
    rows: String,
}

/// Compiles the chunk `text` (as written for loop kernels, after `gpu-default`, and through the
/// whole GPU pipeline for graph programs) to PTX for each of `archs` (sm_80, sm_90) and
/// assembles each.
fn assemble_chunk(ptxas: &Path, label: &str, text: &str, archs: &[u32]) -> Assembled {
    let mut out = Assembled {
        failures: Vec::new(),
        assembled: 0,
        rows: String::new(),
    };
    let mut ctx = context();
    let Ok(module) = parse_source(&mut ctx, text, label, 1) else {
        return out;
    };
    if verify(&ctx, module).is_err() {
        return out;
    }
    let graph = text.contains("graph.");
    let mut variants = Vec::new();
    if graph {
        // The headline command, `dlc-opt --pipeline=fuse,simplify,gpu-map` (the decompose and
        // lower it needs are inserted): it must give kernels ptxas accepts.
        let mut headline = context();
        let headline_module = parse_source(&mut headline, text, label, 1).expect("parsed once");
        match run_pipeline(&mut headline, headline_module, HEADLINE) {
            Ok(()) => variants.push((HEADLINE, headline, headline_module)),
            Err(e) if label.starts_with("docs/examples") => {
                out.failures.push(format!("{label} ({HEADLINE}): {e}"))
            }
            Err(_) => {}
        }
        if run_pipeline(
            &mut ctx,
            module,
            "decompose,fuse,lower{target=gpu},gpu-default",
        )
        .is_ok()
        {
            variants.push(("gpu-default", ctx, module));
        }
    } else {
        let mut mapped = context();
        let mapped_module = parse_source(&mut mapped, text, label, 1).expect("parsed once");
        variants.push(("as written", ctx, module));
        if run_pipeline(&mut mapped, mapped_module, "gpu-default").is_ok() {
            variants.push(("gpu-default", mapped, mapped_module));
        }
    }
    for (how, ctx, module) in variants {
        let label = format!("{label} ({how})");
        for &sm in archs {
            let ptx = match dlc_codegen::emit_ptx(&ctx, module, sm) {
                Ok(p) => p,
                Err(d) => {
                    if !ACCEPTED_LIMITS.iter().any(|l| d.message.contains(l)) {
                        out.failures
                            .push(format!("{label}: codegen: {}", d.message));
                    }
                    break;
                }
            };
            match assemble(ptxas, &ptx, sm, &label) {
                Ok(v) => {
                    out.assembled += 1;
                    let functions = parse_report(&v);
                    let example = label.starts_with("docs/examples") && how == "gpu-default";
                    for f in functions.iter().filter(|f| example && f.spill_stores > 0) {
                        out.failures.push(format!(
                            "{label}: kernel `{}` spills on sm_{sm} ({} bytes stored, {} loaded)",
                            f.name, f.spill_stores, f.spill_loads
                        ));
                    }
                    out.rows += &register_rows(&label, how, sm, &functions);
                }
                Err(e) => out.failures.push(e),
            }
        }
    }
    out
}

/// What `ptxas -v` reports for one function.
struct FunctionReport {
    name: String,
    registers: u64,
    spill_stores: u64,
    spill_loads: u64,
    stack_bytes: u64,
    shared_bytes: u64,
}

/// The number before `unit` in `line` (`"128 bytes stack frame"` -> 128 for `"bytes stack"`).
fn number_before(line: &str, unit: &str) -> u64 {
    line.split(unit)
        .next()
        .filter(|before| before.len() < line.len())
        .and_then(|before| before.split([' ', ',']).rfind(|w| !w.is_empty()))
        .and_then(|w| w.parse().ok())
        .unwrap_or(0)
}

/// The functions of a `ptxas -v` report, in order.
fn parse_report(report: &str) -> Vec<FunctionReport> {
    let mut functions = Vec::new();
    let mut current: Option<FunctionReport> = None;
    for line in report.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(FunctionReport {
                name: rest.trim().to_string(),
                registers: 0,
                spill_stores: 0,
                spill_loads: 0,
                stack_bytes: 0,
                shared_bytes: 0,
            });
        } else if let Some(f) = current.as_mut().filter(|_| line.contains("spill stores")) {
            f.stack_bytes = number_before(line, "bytes stack frame");
            f.spill_stores = number_before(line, "bytes spill stores");
            f.spill_loads = number_before(line, "bytes spill loads");
        } else if line.contains("Used ") && line.contains("registers") {
            if let Some(mut f) = current.take() {
                f.registers = number_before(line, "registers");
                f.shared_bytes = number_before(line, "bytes smem");
                functions.push(f);
            }
        }
    }
    functions
}

/// Table rows for the functions of a `ptxas -v` report.
fn register_rows(label: &str, how: &str, sm: u32, functions: &[FunctionReport]) -> String {
    let file = label.split(" (").next().unwrap_or(label);
    functions
        .iter()
        .map(|f| {
            format!(
                "| {file} `{}` | {how} | sm_{sm} | {} | {} | {} | {} | {} |\n",
                f.name, f.registers, f.spill_stores, f.spill_loads, f.shared_bytes, f.stack_bytes
            )
        })
        .collect()
}

#[test]
fn reads_ptxas_reports() {
    let report = "ptxas info    : Function properties for k\n    \
                  128 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
                  ptxas info    : Used 21 registers, used 1 barriers, 256 bytes smem, 440 bytes cmem[0]\n";
    let f = &parse_report(report)[0];
    assert_eq!(f.name, "k");
    assert_eq!(
        (
            f.registers,
            f.spill_stores,
            f.spill_loads,
            f.shared_bytes,
            f.stack_bytes
        ),
        (21, 8, 4, 256, 128)
    );
}
