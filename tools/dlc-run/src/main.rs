//! `dlc-run`: compile a model for this CPU and run it.
//!
//! ```text
//! dlc-run model.mlir|model.onnx [--inputs a.npy,b.npy | --random --seed N] [--outputs DIR]
//!                    [--check] [--expected r0.npy,r1.pb] [--bench N] [--pipeline ...]
//!                    [--dim NAME=SIZE] [--input-shape NAME=1x3x48x192] [--keep-dynamic]
//!                    [--print-kernels]
//! ```
//! An ONNX model run on given inputs is compiled for their shapes unless `--keep-dynamic`.
//! Errors (parse, verify, unsupported ops, wrong input shapes) are printed as diagnostics and
//! exit with code 1; a `--check` or `--expected` outside the tolerance exits with 1 too.

use anyhow::{bail, Context as _, Result};
use clap::Parser;
use dlc_driver::check::{compare, loosest, reference};
use dlc_driver::inputs::{npy_inputs, random_inputs};
use dlc_driver::onnx::{compare_expected, compile_onnx, read_reference};
use dlc_driver::{Backend, CpuTarget, KernelCache, LlvmOpt, Model, ModelOptions, TierUpStats};
use dlc_runtime::{write_npy, Tensor};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// `println!` that ends the program quietly (status 0) when stdout is closed, as in
/// `dlc-run ... | head`, and returns other write errors from the enclosing function.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            return Err(anyhow::Error::new(e).context("cannot write to stdout"));
        }
    }};
}

#[derive(Parser, Debug)]
#[command(
    name = "dlc-run",
    version,
    about = "Compile a dlc model for this CPU and run it"
)]
struct Cli {
    /// The model: a graph-level or loop-level .mlir file ('-' for stdin), or an .onnx model.
    input: String,
    /// Input tensors as .npy files, one per argument, comma-separated.
    #[arg(long, value_delimiter = ',', conflicts_with = "random")]
    inputs: Vec<PathBuf>,
    /// Random inputs (the default when --inputs is not given).
    #[arg(long)]
    random: bool,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The size of every dynamic (`?`) dim of random inputs.
    #[arg(long, default_value_t = 16)]
    dynamic_size: usize,
    /// Write each output to DIR/out<i>.npy.
    #[arg(long, value_name = "DIR")]
    outputs: Option<PathBuf>,
    /// Compare with the reference interpreter; print max abs/rel error per output.
    #[arg(long)]
    check: bool,
    /// Reference outputs (.npy, or .pb TensorProtos), one per output, comma-separated: each
    /// output must satisfy |out − ref| ≤ atol + rtol·|ref| (integers exactly).
    #[arg(long, value_delimiter = ',', value_name = "FILES")]
    expected: Vec<PathBuf>,
    /// Relative tolerance of --expected.
    #[arg(long, default_value_t = 1e-3)]
    rtol: f64,
    /// Absolute tolerance of --expected.
    #[arg(long, default_value_t = 1e-5)]
    atol: f64,
    /// ONNX: the size of a named dim (dim_param), e.g. --dim batch=1 (repeatable).
    #[arg(long, value_name = "NAME=SIZE", value_parser = dlc_onnx::parse_dim_arg)]
    dim: Vec<(String, i64)>,
    /// ONNX: the shape of a graph input, e.g. --input-shape x=1x3x48x192 (repeatable).
    #[arg(long, value_name = "NAME=SHAPE", value_parser = dlc_onnx::parse_shape_arg)]
    input_shape: Vec<(String, Vec<i64>)>,
    /// ONNX with --inputs: compile for every size of the model's dynamic dims rather than for
    /// the given inputs' shapes (by default a dim the model leaves dynamic takes the size of
    /// the given input, as --input-shape would set it: static shapes compile to fewer, faster
    /// kernels, and another shape is another entry of the model cache).
    #[arg(long)]
    keep_dynamic: bool,
    /// Time N runs (after one warm-up) and print median/min/max and throughput.
    #[arg(long, value_name = "N")]
    bench: Option<usize>,
    /// With --bench: also time each kernel launch and print the kernels by total time.
    #[arg(long, requires = "bench")]
    profile: bool,
    /// The pass pipeline (default: decompose,fuse,lower,cpu-default for graph programs,
    /// cpu-default for loop-level ones).
    #[arg(long)]
    pipeline: Option<String>,
    /// The code generator: 'llvm' (dlc's own, through inkwell) or 'mlir' (upstream MLIR's
    /// lowering and execution engine).
    #[arg(long, value_enum, default_value_t = BackendArg::Llvm)]
    backend: BackendArg,
    /// The CPU the kernels are compiled for: 'host', or an x86-64 level this CPU supports
    /// ('x86-64', 'x86-64-v2', 'x86-64-v3' for AVX2 without AVX-512, 'x86-64-v4'), to run the
    /// code another machine of the same family gets.
    #[arg(long, default_value_t = CpuTarget::Host)]
    cpu: CpuTarget,
    /// Run the pass pipeline and compile every kernel, neither reading nor writing the cache of
    /// kernels and lowered models (also DLC_CACHE=0). The cache lives in DLC_CACHE_DIR
    /// (default ~/.cache/dlc), capped at DLC_CACHE_MAX_MB.
    #[arg(long)]
    no_cache: bool,
    /// LLVM's optimization for the LLVM backend: 'lean' (the passes dlc's kernels need), 'O1',
    /// 'O2', 'O3', or 'quick' (the first tier's: no tiers then).
    #[arg(long, default_value_t = LlvmOpt::default())]
    llvm_opt: LlvmOpt,
    /// Compile every kernel the cache lacks with --llvm-opt before the first run. By default
    /// such kernels are compiled quick ('quick': few IR passes, LLVM's fast instruction
    /// selector) so that the first result comes sooner, and with --llvm-opt in the background;
    /// each kernel switches to its optimized code when that is ready, and only optimized code
    /// is cached. --bench waits for the optimized code before timing.
    #[arg(long)]
    no_tiers: bool,
    /// The function to run (default: the first func.func).
    #[arg(long)]
    entry: Option<String>,
    /// Print the lowered module (kernels and host function) before running.
    #[arg(long)]
    print_kernels: bool,
}

/// `--backend`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum BackendArg {
    Llvm,
    Mlir,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            let text = format!("{e:#}");
            eprint!("{text}");
            if !text.ends_with('\n') {
                eprintln!();
            }
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<bool> {
    let process_start = Instant::now();
    let given = if cli.inputs.is_empty() {
        None
    } else {
        Some(npy_inputs(&cli.inputs).map_err(anyhow::Error::msg)?)
    };
    let cache = if cli.no_cache {
        None
    } else {
        KernelCache::from_env().map_err(anyhow::Error::msg)?
    };
    let options = ModelOptions {
        pipeline: cli.pipeline.clone(),
        entry: cli.entry.clone(),
        backend: match cli.backend {
            BackendArg::Llvm => Backend::Llvm,
            BackendArg::Mlir => Backend::Mlir,
        },
        cpu: cli.cpu,
        opt: cli.llvm_opt,
        cache,
        tiered: !cli.no_tiers && cli.llvm_opt != LlvmOpt::Quick,
    };
    let (name, text) = if cli.input.ends_with(".onnx") {
        (cli.input.clone(), None)
    } else {
        if !cli.dim.is_empty() || !cli.input_shape.is_empty() || cli.keep_dynamic {
            bail!("--dim, --input-shape and --keep-dynamic apply to ONNX models only");
        }
        let (name, text) = read_input(&cli.input)?;
        (name, Some(text))
    };
    let progress = spinner(&format!("compiling {name}"));
    // An ONNX model stays in memory from the import to the compile (or is not imported at
    // all when the model cache holds it); an .mlir is text.
    let (compiled, text, given) = if let Some(text) = text {
        (Model::compile(&text, &name, &options), text, given)
    } else {
        let import = dlc_onnx::ImportOptions {
            dims: cli.dim.iter().cloned().collect(),
            input_shapes: cli.input_shape.iter().cloned().collect(),
            given_shapes: match &given {
                Some(given) if !cli.keep_dynamic => given
                    .iter()
                    .map(|t| t.shape().iter().map(|&d| d as i64).collect())
                    .collect(),
                _ => Vec::new(),
            },
            ..Default::default()
        };
        match compile_onnx(
            cli.input.as_ref(),
            import,
            given.as_deref(),
            &name,
            &options,
        ) {
            Ok(c) => {
                for note in &c.notes {
                    out!("note: {note}");
                }
                // The given inputs follow the graph's inputs; the function's arguments may
                // be fewer (specialized inputs) or in another order.
                let given = given.map(|g| {
                    c.arguments
                        .iter()
                        .filter_map(|i| g.get(*i).cloned())
                        .collect::<Vec<_>>()
                });
                (Ok(c.model), String::new(), given)
            }
            Err(e) => (Err(e), String::new(), None),
        }
    };
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    let model = compiled.map_err(anyhow::Error::msg)?;
    let t = &model.timings;
    let c = &t.codegen;
    let backend = match model.backend {
        Backend::Llvm => format!(
            "LLVM {}: lower {}, optimize {}, machine code {} on {} threads, load {}",
            ms(c.total()),
            ms(c.lower),
            ms(c.optimize),
            ms(c.codegen),
            c.threads,
            ms(c.load)
        ),
        Backend::Mlir => format!(
            "MLIR {}: lower {}, optimize {}, machine code {}",
            ms(c.total()),
            ms(c.lower),
            ms(c.optimize),
            ms(c.codegen)
        ),
    };
    let cache = c.cache.as_ref().map_or(String::new(), |s| {
        format!("; cache: {} hits, {} misses", s.hits, s.misses)
    });
    // Launches of the entry function; its calls (`If`, `Loop`) launch more at run time.
    let calls = model.program().callee_names().count();
    let calls = match calls {
        0 => String::new(),
        n => format!(" and calls of {n} host functions"),
    };
    let import = match t.import {
        d if d.is_zero() => String::new(),
        d => format!("import {}, ", ms(d)),
    };
    // Kernels that differ only in name compile once.
    let distinct = match c.distinct {
        d if d > 0 && d < model.num_kernels() => format!("{d} distinct, "),
        _ => String::new(),
    };
    out!(
        "{name}: {} kernels ({distinct}{} launches{calls}), compiled in {} ({import}parse {}, passes {}{}, {backend}{cache})",
        model.num_kernels(),
        model.program().num_launches(),
        ms(t.total()),
        ms(t.parse),
        ms(t.passes),
        if t.passes_cached { " (cached)" } else { "" },
    );
    if c.quick > 0 {
        out!(
            "{name}: {} kernels compiled quick ({} LLVM modules), their optimized code ({}) follows in the background",
            c.quick,
            c.modules,
            cli.llvm_opt
        );
    }
    for note in c.cache.iter().flat_map(|s| &s.notes) {
        eprintln!("warning: kernel cache: {note}");
    }
    if cli.print_kernels {
        let options = dlc_ir::PrintOptions::default();
        out!(
            "{}",
            dlc_ir::print_op(&model.lowered_ctx, model.lowered_module, options)
        );
    }
    let inputs: Vec<Tensor> = match given {
        Some(given) => given,
        None => random_inputs(
            &model.program().signature().clone(),
            cli.seed,
            cli.dynamic_size,
        )
        .map_err(anyhow::Error::msg)?,
    };
    let input_refs: Vec<&Tensor> = inputs.iter().collect();
    let mut session = model.session();
    let mut ok = true;
    let outputs: Vec<Tensor> = {
        let out = session
            .run(&input_refs)
            .map_err(|e| render_runtime(&model, &name, &text, &e))?;
        out.iter()
            .map(|v| v.to_tensor())
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!("{e}"))?
    };
    let (optimized, distinct) = model.optimized_kernels();
    out!(
        "first result {} after start ({optimized} of {distinct} kernels optimized)",
        ms(process_start.elapsed())
    );
    for (i, o) in outputs.iter().enumerate() {
        out!("output {i}: {} {:?}", o.dtype(), o.shape());
    }
    if let Some(dir) = &cli.outputs {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create '{}'", dir.display()))?;
        for (i, o) in outputs.iter().enumerate() {
            write_npy(&dir.join(format!("out{i}.npy")), o).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
    }
    if cli.check {
        let expected = reference(&model, &inputs).map_err(anyhow::Error::msg)?;
        let actual: Vec<_> = outputs.iter().map(Tensor::to_literal).collect();
        let (source_ctx, source_func) = model.source().map_err(anyhow::Error::msg)?;
        let floor = loosest(source_ctx, source_func);
        let reports = compare(&expected, &actual, floor).map_err(anyhow::Error::msg)?;
        for (i, r) in reports.iter().enumerate() {
            out!(
                "check output {i}: max abs err {:.3e}, max rel err {:.3e} (to max |reference|): {}",
                r.max_abs,
                r.max_rel,
                if r.ok { "ok" } else { "MISMATCH" }
            );
            ok &= r.ok;
        }
    }
    if !cli.expected.is_empty() {
        ok &= check_expected(&cli, &outputs)?;
    }
    if let Some(runs) = cli.bench {
        if runs == 0 {
            bail!("--bench needs at least one run");
        }
        if let Some(t) = model.wait_optimized() {
            print_tier_up(&t)?;
        }
        let mut times = Vec::with_capacity(runs);
        session
            .run(&input_refs)
            .map_err(|e| render_runtime(&model, &name, &text, &e))?;
        session.set_profile(cli.profile);
        for _ in 0..runs {
            let start = Instant::now();
            session
                .run(&input_refs)
                .map_err(|e| render_runtime(&model, &name, &text, &e))?;
            times.push(start.elapsed());
        }
        times.sort();
        let median = times[times.len() / 2];
        let bytes: usize = inputs.iter().map(|t| t.bytes().len()).sum::<usize>()
            + outputs.iter().map(|t| t.bytes().len()).sum::<usize>();
        let flops = dlc_driver::check::matmul_flops(&model);
        let mut line = format!(
            "bench: {runs} runs, median {}, min {}, max {}, {:.2} GB/s (inputs + outputs)",
            ms(median),
            ms(times[0]),
            ms(times[times.len() - 1]),
            bytes as f64 / median.as_secs_f64() / 1e9
        );
        if flops > 0 {
            line += &format!(
                ", {:.1} GFLOP/s (matmuls)",
                flops as f64 / median.as_secs_f64() / 1e9
            );
        }
        let (optimized, distinct) = model.optimized_kernels();
        out!("{line}; {optimized} of {distinct} kernels optimized");
        print_profile(&session.kernel_times(), runs)?;
    }
    // Only optimized code is cached: the background finishes before the process ends (--bench
    // waited for it already).
    if cli.bench.is_none() && options.cache.is_some() {
        if let Some(t) = model.wait_optimized() {
            print_tier_up(&t)?;
        }
    }
    Ok(ok)
}

/// What the background did for a tiered compilation.
fn print_tier_up(t: &TierUpStats) -> Result<()> {
    if t.kernels > 0 {
        let (kernels, llvm, done) = (t.kernels, ms(t.compile), ms(t.wall));
        out!("tier-up: {kernels} kernels optimized in the background ({llvm} of LLVM), done {done} after compiling began");
    }
    for note in &t.notes {
        eprintln!("warning: tier-up: {note}");
    }
    Ok(())
}

/// `--profile`: each launch site's time per run, longest first, with its share of the total.
fn print_profile(times: &[dlc_runtime::KernelTime], runs: usize) -> Result<()> {
    let total: f64 = times.iter().map(|k| k.total.as_secs_f64()).sum();
    let mut order: Vec<&dlc_runtime::KernelTime> = times.iter().collect();
    order.sort_by_key(|k| std::cmp::Reverse(k.total));
    for k in order {
        let per_run = k.total.as_secs_f64() / runs as f64;
        out!(
            "profile: {:>9.3} ms {:>5.1}%  @{}",
            per_run * 1e3,
            100.0 * k.total.as_secs_f64() / total.max(f64::MIN_POSITIVE),
            k.name
        );
    }
    Ok(())
}

/// `--expected`: each output against its reference file.
fn check_expected(cli: &Cli, outputs: &[Tensor]) -> Result<bool> {
    if cli.expected.len() != outputs.len() {
        bail!(
            "--expected names {} files for {} outputs",
            cli.expected.len(),
            outputs.len()
        );
    }
    let mut ok = true;
    for (i, (path, out)) in cli.expected.iter().zip(outputs).enumerate() {
        let reference = read_reference(path).map_err(anyhow::Error::msg)?;
        let r = compare_expected(&out.to_literal(), &reference, cli.rtol, cli.atol);
        let verdict = match &r.problem {
            None => "ok".to_string(),
            Some(p) => format!("MISMATCH ({} elements; {p})", r.mismatches),
        };
        out!(
            "expected output {i} ({}): max abs err {:.3e} (rtol {}, atol {}): {verdict}",
            path.display(),
            r.max_abs,
            cli.rtol,
            cli.atol
        );
        ok &= r.problem.is_none();
    }
    Ok(ok)
}

fn render_runtime(
    model: &Model,
    name: &str,
    text: &str,
    e: &dlc_runtime::RuntimeError,
) -> anyhow::Error {
    if !matches!(e, dlc_runtime::RuntimeError::Op { .. }) {
        return anyhow::anyhow!("{name}: error: {e}");
    }
    let mut sources = dlc_ir::SourceMap::new();
    sources.add(name, text);
    anyhow::anyhow!("{}", sources.render(&model.lowered_ctx, &e.to_diagnostic()))
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn spinner(message: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(100));
    Some(bar)
}

fn read_input(path: &str) -> Result<(String, String)> {
    if path == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("cannot read stdin")?;
        return Ok(("<stdin>".to_string(), text));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read '{path}'"))?;
    Ok((path.to_string(), text))
}
