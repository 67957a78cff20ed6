//! Compile latency (issue 20): how long dlc takes to turn a program into callable kernels, cold
//! (an empty cache) and warm (the lowered model and every kernel cached), against the configuration dlc had
//! before (LLVM `O3`, one kernel after another, no cache), all in one run on one machine; and
//! the speed of the kernels each LLVM configuration ([`LlvmOpt`]) generates, relative to `O3`.
//!
//! `cargo run --release -p dlc-bench --bin compile-latency -- [--reps 7] [--runs 15]
//! [--rounds 3] [--opts O3,O2,O1,lean] [--md FILE]`
//!
//! Programs: docs/examples/transformer_block.mlir and the dlc-bench workloads at full size.
//! Every figure is a median over `--reps` compilations; the baseline runs on a one-thread pool,
//! the others on the runtime's pool. Kernel speed: each workload is compiled once per
//! configuration, and the configurations' sessions run in turn, `--runs` runs each, for
//! `--rounds` rounds, so machine noise hits them alike; the ratio is of the medians of all
//! runs. The markdown tables go to stdout, and to `--md` when given.

use anyhow::{bail, Context as _};
use clap::Parser;
use dlc_bench::workloads::{self, Size};
use dlc_driver::{KernelCache, LlvmOpt, Model, ModelOptions};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Measures compile latency and the kernel speed of LLVM configurations.
#[derive(Parser)]
struct Cli {
    /// Compilations per figure (the median is reported).
    #[arg(long, default_value_t = 7)]
    reps: usize,
    /// Timed runs per configuration and round in the kernel-speed comparison.
    #[arg(long, default_value_t = 15)]
    runs: usize,
    /// Rounds of the kernel-speed comparison.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// The LLVM configurations compared with O3 (the first one is the reference).
    #[arg(long, value_delimiter = ',', default_value = "O3,O2,O1,lean")]
    opts: Vec<LlvmOpt>,
    /// Comma-separated workloads, or `all`.
    #[arg(long, default_value = "all")]
    workloads: String,
    /// Leave out the cold/warm latency table.
    #[arg(long)]
    skip_latency: bool,
    /// Also write the tables here.
    #[arg(long)]
    md: Option<PathBuf>,
}

/// A program to compile: a name and its IR.
struct Program {
    name: String,
    ir: String,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if cli.reps == 0 || cli.runs == 0 || cli.rounds == 0 || cli.opts.is_empty() {
        bail!("--reps, --runs, --rounds and --opts must be positive");
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let block = root.join("docs/examples/transformer_block.mlir");
    let mut programs = vec![Program {
        name: "transformer_block".into(),
        ir: std::fs::read_to_string(&block).with_context(|| block.display().to_string())?,
    }];
    for w in workloads::select(&cli.workloads)? {
        programs.push(Program {
            name: w.name.into(),
            ir: w.ir(Size::Full)?,
        });
    }
    let mut md = format!(
        "Machine: {}. Command: `compile-latency --reps {} --runs {} --rounds {}`.\n\n",
        dlc_bench::suite::machine(),
        cli.reps,
        cli.runs,
        cli.rounds
    );
    if !cli.skip_latency {
        md += &latency(&programs, cli.reps).map_err(anyhow::Error::msg)?;
    }
    md += &configurations(&programs, &cli).map_err(anyhow::Error::msg)?;
    md += &speed(&programs[1..], &cli).map_err(anyhow::Error::msg)?;
    print!("{md}");
    if let Some(path) = &cli.md {
        std::fs::write(path, &md).with_context(|| path.display().to_string())?;
    }
    Ok(())
}

/// One compilation: the whole compile time, LLVM's part, and the kernel count.
struct Compile {
    total: Duration,
    codegen: Duration,
    kernels: usize,
    /// Kernels compiled (or loaded) once each: those differing only in name share one.
    distinct: usize,
    hits: usize,
    /// The lowered module came from the model cache.
    passes_cached: bool,
}

fn compile(program: &Program, options: &ModelOptions) -> Result<Compile, String> {
    let model = Model::compile(&program.ir, &program.name, options)
        .map_err(|e| format!("{}: {e}", program.name))?;
    let t = &model.timings;
    Ok(Compile {
        total: t.total(),
        codegen: t.codegen.total(),
        kernels: t.codegen.kernels,
        distinct: t.codegen.distinct,
        hits: t.codegen.cache.as_ref().map_or(0, |c| c.hits),
        passes_cached: t.passes_cached,
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The latency table: baseline, cold and warm compile of every program.
fn latency(programs: &[Program], reps: usize) -> Result<String, String> {
    let one_thread = dlc_run_pool(1)?;
    let baseline = ModelOptions {
        opt: LlvmOpt::O3,
        ..ModelOptions::default()
    };
    let mut md = String::from(
        "| program | kernels | before: O3, 1 thread, ms | cold ms | cold / before | warm ms | \
         cold LLVM ms per kernel | warm LLVM ms per kernel |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut per_kernel_cold = Vec::new();
    let mut bars = String::new();
    for p in programs {
        let mut before = Vec::new();
        let (mut cold, mut cold_llvm, mut warm, mut warm_llvm) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut kernels = 0;
        for _ in 0..reps {
            before.push(one_thread.install(|| compile(p, &baseline))?.total);
            let dir = tempdir()?;
            let cached = ModelOptions {
                cache: Some(KernelCache::new(dir.path())),
                ..ModelOptions::default()
            };
            let c = compile(p, &cached)?;
            kernels = c.kernels;
            cold.push(c.total);
            cold_llvm.push(c.codegen);
            let w = compile(p, &cached)?;
            if w.hits != w.distinct || !w.passes_cached {
                return Err(format!(
                    "{}: the warm compile hit {} of {} distinct kernels, and the model cache {}",
                    p.name,
                    w.hits,
                    w.distinct,
                    if w.passes_cached { "hit" } else { "missed" }
                ));
            }
            warm.push(w.total);
            warm_llvm.push(w.codegen);
        }
        let (before, cold, warm) = (median(before), median(cold), median(warm));
        let per = |d: Duration| ms(d) / kernels.max(1) as f64;
        let cold_per = per(median(cold_llvm));
        if p.name == "transformer_block" {
            bars += &bar(
                "transformer block cold ≤ 0.40x before",
                ms(cold) / ms(before),
                0.40,
            );
            bars += &bar("transformer block warm ≤ 25 ms", ms(warm), 25.0);
        } else {
            per_kernel_cold.push(cold_per);
        }
        writeln!(
            md,
            "| {} | {kernels} | {:.1} | {:.1} | {:.2}x | {:.1} | {cold_per:.1} | {:.2} |",
            p.name,
            ms(before),
            ms(cold),
            ms(cold) / ms(before),
            ms(warm),
            per(median(warm_llvm)),
        )
        .map_err(|e| e.to_string())?;
    }
    per_kernel_cold.sort_by(f64::total_cmp);
    if let Some(&m) = per_kernel_cold.get(per_kernel_cold.len() / 2) {
        bars += &bar(
            "median cold LLVM ms per kernel over the workloads ≤ 15",
            m,
            15.0,
        );
    }
    md += "\n";
    md += &bars;
    Ok(md)
}

/// The LLVM-configuration table: LLVM's time for each program on one thread, no cache.
fn configurations(programs: &[Program], cli: &Cli) -> Result<String, String> {
    let one_thread = dlc_run_pool(1)?;
    let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
    let mut md = format!(
        "\nLLVM ms on one thread (lower, optimize, machine code), median of {}:\n\n\
         | configuration | {} | total |\n|---|{}---|\n",
        cli.reps,
        names.join(" | "),
        "---|".repeat(names.len())
    );
    for &opt in &cli.opts {
        let options = ModelOptions {
            opt,
            ..ModelOptions::default()
        };
        let mut cells = Vec::new();
        let mut total = 0.0;
        for p in programs {
            let mut times = Vec::new();
            for _ in 0..cli.reps {
                times.push(one_thread.install(|| compile(p, &options))?.codegen);
            }
            let t = ms(median(times));
            total += t;
            cells.push(format!("{t:.1}"));
        }
        writeln!(md, "| {opt} | {} | {total:.1} |", cells.join(" | "))
            .map_err(|e| e.to_string())?;
    }
    Ok(md)
}

/// The kernel-speed table: each configuration's median run time against the first's.
fn speed(programs: &[Program], cli: &Cli) -> Result<String, String> {
    let mut md = format!(
        "\n| workload | {} |\n|---|{}\n",
        cli.opts
            .iter()
            .map(|o| format!("{o} ms (vs {})", cli.opts[0]))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(cli.opts.len())
    );
    let mut bars = String::new();
    for p in programs {
        let models: Vec<Model> = cli
            .opts
            .iter()
            .map(|&opt| {
                let options = ModelOptions {
                    opt,
                    ..ModelOptions::default()
                };
                Model::compile(&p.ir, &p.name, &options).map_err(|e| format!("{}: {e}", p.name))
            })
            .collect::<Result<_, _>>()?;
        let inputs = dlc_driver::inputs::random_inputs(models[0].program().signature(), 0, 1)?;
        let refs: Vec<_> = inputs.iter().collect();
        let mut sessions: Vec<_> = models.iter().map(|m| m.session()).collect();
        let mut times = vec![Vec::new(); models.len()];
        for s in &mut sessions {
            s.run(&refs).map_err(|e| e.to_string())?;
        }
        for _ in 0..cli.rounds {
            for (s, t) in sessions.iter_mut().zip(&mut times) {
                for _ in 0..cli.runs {
                    let start = Instant::now();
                    s.run(&refs).map_err(|e| e.to_string())?;
                    t.push(start.elapsed());
                }
            }
        }
        let medians: Vec<f64> = times.into_iter().map(|t| ms(median(t))).collect();
        for (opt, m) in cli.opts.iter().zip(&medians).skip(1) {
            let name = format!("{}: {opt} kernels within 3% of {}", p.name, cli.opts[0]);
            bars += &bar(&name, m / medians[0], 1.03);
        }
        let cells: Vec<String> = medians
            .iter()
            .map(|m| format!("{m:.3} ({:.3})", m / medians[0]))
            .collect();
        writeln!(md, "| {} | {} |", p.name, cells.join(" | ")).map_err(|e| e.to_string())?;
    }
    md += "\n";
    md += &bars;
    Ok(md)
}

/// One line of the bar list: the bar, the measured value, and whether it holds.
fn bar(name: &str, value: f64, limit: f64) -> String {
    let verdict = if value <= limit { "pass" } else { "FAIL" };
    format!("- {name}: {value:.3} ({verdict})\n")
}

/// A rayon pool of `threads` threads: compiling inside it compiles on that many threads.
fn dlc_run_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())
}

fn tempdir() -> Result<tempfile::TempDir, String> {
    tempfile::tempdir().map_err(|e| format!("temporary cache directory: {e}"))
}
