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
//! and the thousand of them were most of this test's time. For the same reason ptxas takes the
//! modules of one architecture [`BATCH`] at a time, each module's functions renamed apart
//! ([`rename_functions`]); a batch ptxas rejects is assembled again module by module, so that
//! an error names its module. In the default tier the lit suite's modules are assembled at
//! `-O0`, three times as fast: what ptxas rejects (syntax, types, operands, resource limits) it
//! rejects at every level, and only the examples' spills and the report's figures need its
//! optimizer; examples always, and everything in the long tier or for the report, are assembled
//! at ptxas's default `-O3`. ptxas comes from the `nvidia-cuda-nvcc` wheel (the README's setup
//! installs it); set `PTXAS` to use another one. Code generation may refuse a chunk only with
//! one of the documented limits ([`ACCEPTED_LIMITS`]); any other codegen error fails the test.
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

/// PTX modules per ptxas run.
const BATCH: usize = 16;

/// Runs ptxas for `sm` on the PTX texts `ptxs`, one file each, at `-O3` when `optimize` and
/// `-O0` otherwise; returns whether it succeeded and its `-v` report.
fn run_ptxas(
    ptxas: &Path,
    ptxs: &[&str],
    sm: u32,
    optimize: bool,
) -> Result<(bool, String), String> {
    // Files of their own: batches are assembled in parallel.
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("dlc-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut command = Command::new(ptxas);
    command.arg(format!("-arch=sm_{sm}")).arg("-v");
    command.arg(if optimize { "-O3" } else { "-O0" });
    for (i, ptx) in ptxs.iter().enumerate() {
        let file = dir.join(format!("b{n}_{i}.ptx"));
        std::fs::write(&file, ptx).map_err(|e| e.to_string())?;
        command.arg(file);
    }
    let out = command
        .arg("-o")
        .arg(dir.join(format!("b{n}.cubin")))
        .output()
        .map_err(|e| format!("cannot run ptxas: {e}"))?;
    Ok((
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Assembles one module; returns its functions as ptxas reports them.
fn assemble(ptxas: &Path, module: &Module) -> Result<Vec<FunctionReport>, String> {
    let (ok, report) = run_ptxas(ptxas, &[&module.ptx], module.sm, module.optimize)?;
    if ok {
        Ok(parse_report(&report))
    } else {
        Err(format!(
            "{}: ptxas -arch=sm_{} failed:\n{report}\n{}",
            module.label, module.sm, module.ptx
        ))
    }
}

/// Assembles `batch` (modules of one architecture and level) in one ptxas run, module `i`'s functions
/// renamed with the prefix `m{i}_` and their reports given back under their own names.
fn assemble_batch(ptxas: &Path, batch: &[&Module]) -> Vec<Result<Vec<FunctionReport>, String>> {
    let renamed: Vec<String> = (batch.iter().enumerate())
        .map(|(i, m)| rename_functions(&m.ptx, &format!("m{i}_")))
        .collect();
    let texts: Vec<&str> = renamed.iter().map(String::as_str).collect();
    let Some((sm, optimize)) = batch.first().map(|m| (m.sm, m.optimize)) else {
        return Vec::new();
    };
    match run_ptxas(ptxas, &texts, sm, optimize) {
        Ok((true, report)) => {
            let mut functions: Vec<Vec<FunctionReport>> =
                batch.iter().map(|_| Vec::new()).collect();
            for mut f in parse_report(&report) {
                let owner = (f.name.strip_prefix('m'))
                    .and_then(|rest| rest.split_once('_'))
                    .and_then(|(i, name)| Some((i.parse::<usize>().ok()?, name.to_string())));
                match owner {
                    Some((i, name)) if i < batch.len() => {
                        f.name = name;
                        functions[i].push(f);
                    }
                    _ => {
                        return vec![Err(format!(
                            "ptxas reported an unknown function `{}`",
                            f.name
                        ))]
                    }
                }
            }
            functions.into_iter().map(Ok).collect()
        }
        // One at a time, so that the error names its module.
        Ok((false, _)) => batch.iter().map(|m| assemble(ptxas, m)).collect(),
        Err(e) => vec![Err(e)],
    }
}

/// `ptx` with every function it defines renamed `{prefix}{name}`, and the names derived from
/// a function's (its parameters, `{name}_param_{i}`, and its shared buffers, `{name}_$_...`).
/// An identifier is a whole word not inside a dotted instruction name.
fn rename_functions(ptx: &str, prefix: &str) -> String {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    // `.entry name(`, `.func name(` or `.func (.param .b32 func_retval0) name(`.
    let defined: Vec<&str> = (ptx.lines())
        .filter_map(|l| {
            let rest = l
                .split_once(".entry ")
                .or_else(|| l.split_once(".func "))?
                .1;
            let rest = rest.trim_start();
            let rest = match rest.strip_prefix('(') {
                Some(returns) => returns.split_once(')')?.1.trim_start(),
                None => rest,
            };
            let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
            Some(&rest[..end]).filter(|name| !name.is_empty())
        })
        .collect();
    let mut out = String::with_capacity(ptx.len() + 64);
    let mut rest = ptx;
    while let Some(start) = rest.find(|c: char| is_ident(c) || c == '%' || c == '.') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        // A register (`%r1`) or a directive or dotted suffix (`.entry`, `.f32`) is one token.
        let lead = rest.starts_with(['%', '.']) as usize;
        let end = lead
            + rest[lead..]
                .find(|c: char| !is_ident(c))
                .unwrap_or(rest.len() - lead);
        let token = &rest[..end];
        let mnemonic = rest[end..].starts_with('.');
        let renamed = lead == 0
            && !mnemonic
            && defined.iter().any(|name| {
                token.strip_prefix(name).is_some_and(|tail| {
                    tail.is_empty() || tail.starts_with("_param_") || tail.starts_with("_$_")
                })
            });
        if renamed {
            out.push_str(prefix);
        }
        out.push_str(token);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn every_kernel_assembles_for_sm80_and_sm90() {
    let ptxas = ptxas();
    let corpus: Vec<(usize, String, String)> = (corpus().into_iter().enumerate())
        .map(|(i, (label, text))| (i, label, text))
        .collect();
    let everything = scale() >= 2 || std::env::var_os("DLC_PTX_REPORT").is_some();
    let compiled = par_cases(&corpus, |(i, label, text)| {
        let example = label.starts_with("docs/examples");
        let archs: &[u32] = match (everything || example, i % 2) {
            (true, _) => &[80, 90],
            (false, 0) => &[80],
            (false, _) => &[90],
        };
        Ok(compile_chunk(label, text, archs, everything || example))
    });
    let mut failures = Vec::new();
    let mut modules = Vec::new();
    for chunk in compiled {
        match chunk {
            Ok((m, f)) => {
                modules.extend(m);
                failures.extend(f);
            }
            Err(e) => failures.push(e),
        }
    }
    let batches: Vec<Vec<&Module>> = [(80, true), (80, false), (90, true), (90, false)]
        .iter()
        .flat_map(|&(sm, optimize)| {
            let alike: Vec<&Module> = (modules.iter())
                .filter(|m| (m.sm, m.optimize) == (sm, optimize))
                .collect();
            alike
                .chunks(BATCH)
                .map(<[&Module]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect();
    let assembled = par_cases(&batches, |batch| Ok(assemble_batch(&ptxas, batch)));
    let mut count = 0;
    let mut report = String::from(
        "| kernel | pipeline | sm | registers | spill stores | spill loads | shared bytes | stack bytes |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (batch, outcome) in batches.iter().zip(assembled) {
        let outcomes = match outcome {
            Ok(o) => o,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        for (module, functions) in batch.iter().zip(outcomes) {
            let functions = match functions {
                Ok(f) => f,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            count += 1;
            let example = module.label.starts_with("docs/examples") && module.how == "gpu-default";
            for f in functions.iter().filter(|f| example && f.spill_stores > 0) {
                failures.push(format!(
                    "{}: kernel `{}` spills on sm_{} ({} bytes stored, {} loaded)",
                    module.label, f.name, module.sm, f.spill_stores, f.spill_loads
                ));
            }
            report += &register_rows(&module.label, module.how, module.sm, &functions);
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
    assert!(count >= 40, "only {count} PTX modules assembled");
}

/// One PTX module of the corpus.
struct Module {
    /// The chunk and the variant: "test/x.mlir#2 (gpu-default)".
    label: String,
    /// The variant: "as written", "gpu-default" or the headline pipeline.
    how: &'static str,
    sm: u32,
    /// Assembled at ptxas's `-O3` rather than `-O0`.
    optimize: bool,
    ptx: String,
}

/// Compiles the chunk `text` (as written for loop kernels, after `gpu-default`, and through the
/// whole GPU pipeline for graph programs) to a PTX module for each of `archs` (sm_80, sm_90),
/// to be assembled optimized when `optimize`; returns the modules and the codegen failures.
fn compile_chunk(
    label: &str,
    text: &str,
    archs: &[u32],
    optimize: bool,
) -> (Vec<Module>, Vec<String>) {
    let mut modules = Vec::new();
    let mut failures = Vec::new();
    let mut ctx = context();
    let Ok(module) = parse_source(&mut ctx, text, label, 1) else {
        return (modules, failures);
    };
    if verify(&ctx, module).is_err() {
        return (modules, failures);
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
                failures.push(format!("{label} ({HEADLINE}): {e}"))
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
            match dlc_codegen::emit_ptx(&ctx, module, sm) {
                Ok(ptx) => modules.push(Module {
                    label: label.clone(),
                    how,
                    sm,
                    optimize,
                    ptx,
                }),
                Err(d) => {
                    if !ACCEPTED_LIMITS.iter().any(|l| d.message.contains(l)) {
                        failures.push(format!("{label}: codegen: {}", d.message));
                    }
                    break;
                }
            }
        }
    }
    (modules, failures)
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

#[test]
fn renames_functions_apart() {
    let ptx = "// .globl\tadd\n.visible .entry add(\n\t.param .u64 add_param_0\n)\n{\n\
               \t.shared .align 4 .b8 add_$_shared0[16];\n\tld.param.b64 %rd1, [add_param_0];\n\
               \tadd.s64 %rd2, %rd1, 1;\n\tcall.uni (retval0), add_helper, (param0);\n\tret;\n}\n\
               .func (.param .b32 func_retval0) add_helper(\n\t.param .b32 add_helper_param_0\n)\n{\n\tret;\n}\n";
    let renamed = rename_functions(ptx, "m3_");
    assert_eq!(
        renamed,
        "// .globl\tm3_add\n.visible .entry m3_add(\n\t.param .u64 m3_add_param_0\n)\n{\n\
         \t.shared .align 4 .b8 m3_add_$_shared0[16];\n\tld.param.b64 %rd1, [m3_add_param_0];\n\
         \tadd.s64 %rd2, %rd1, 1;\n\tcall.uni (retval0), m3_add_helper, (param0);\n\tret;\n}\n\
         .func (.param .b32 func_retval0) m3_add_helper(\n\t.param .b32 m3_add_helper_param_0\n)\n{\n\tret;\n}\n"
    );
}
