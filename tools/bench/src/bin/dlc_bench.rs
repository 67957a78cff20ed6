//! The benchmark: the triad ceiling, then each workload compiled and run by dlc (through
//! `dlc_driver::Model`, the path `dlc-run` takes), then by numpy and onnxruntime, all in one run;
//! writes the markdown report and the PNG chart.
//!
//! `cargo run --release -p dlc-bench --bin dlc-bench -- --md docs/benchmarks.md
//! --png docs/img/benchmarks.png [--size full|smoke] [--workloads a,b] [--runs 10] [--peers-only]
//! [--onnx-models DIR] [--dynamic-shapes DIR] [--training DIR]`

use anyhow::{bail, Context as _};
use clap::Parser;
use dlc_bench::suite::{self, SuiteOptions};
use dlc_bench::workloads::{self, Size};
use dlc_bench::{models, peers, report, triad};
use std::path::PathBuf;

/// Times numpy and onnxruntime on the benchmark workloads and writes the report.
#[derive(Parser)]
struct Cli {
    /// Comma-separated workload names, or `all`.
    #[arg(long, default_value = "all")]
    workloads: String,
    /// `full` or `smoke`.
    #[arg(long, default_value = "full")]
    size: String,
    /// Timed runs per tool (and of the triad).
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// Threads of the triad (the peers use 2).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Python interpreter with numpy, onnx and onnxruntime.
    #[arg(long, default_value = "python3")]
    python: String,
    /// Markdown output.
    #[arg(long)]
    md: PathBuf,
    /// PNG chart output.
    #[arg(long)]
    png: PathBuf,
    /// Leave dlc out (a check of the harness and the peers alone).
    #[arg(long)]
    peers_only: bool,
    /// Also time the real ONNX models (`models::MODELS`) and the bars' generated models
    /// (`models::BAR_MODELS`) against onnxruntime, with the models and their inputs written to
    /// DIR (needs the wheels scripts/setup.sh fetches).
    #[arg(long, value_name = "DIR")]
    onnx_models: Option<PathBuf>,
    /// Also run issue 34's dynamic shapes (`models::DYNAMIC`): the PaddleOCR recognizer and
    /// detector compiled once without input shapes and run at several sizes, beside a build
    /// pinned to each size and onnxruntime, with the models and their inputs written to DIR
    /// (needs the rapidocr wheel scripts/setup.sh installs).
    #[arg(long, value_name = "DIR")]
    dynamic_shapes: Option<PathBuf>,
    /// Also train issue 38's digits classifiers with dlc and PyTorch eager (`training`), the
    /// data written to DIR by `digits.py` (needs scikit-learn and torch), and draw the loss
    /// curves to docs/img/digits_loss.png.
    #[arg(long, value_name = "DIR")]
    training: Option<PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let size = match cli.size.as_str() {
        "full" => Size::Full,
        "smoke" => Size::Smoke,
        other => bail!("--size must be full or smoke, not '{other}'"),
    };
    let options = SuiteOptions {
        workloads: workloads::select(&cli.workloads)?,
        size,
        runs: cli.runs,
        triad: triad::TriadConfig {
            threads: cli.threads,
            runs: cli.runs,
            ..Default::default()
        },
        python: cli.python.clone(),
        script: peers::default_script(),
        title: if cli.peers_only {
            "dlc benchmarks: peers only"
        } else {
            "dlc benchmarks"
        }
        .to_string(),
    };
    let mut dlc = dlc_runner;
    let runner: Option<&mut suite::DlcRunner> = if cli.peers_only { None } else { Some(&mut dlc) };
    let report = suite::run(&options, runner).context("benchmark run")?;
    report::write(&report, &cli.md, &cli.png)?;
    if let Some(dir) = &cli.onnx_models {
        let all: Vec<_> = models::MODELS
            .into_iter()
            .chain(models::BAR_MODELS)
            .collect();
        let rows = models::run(dir, &cli.python, cli.runs, &all)
            .map_err(anyhow::Error::msg)
            .context("ONNX models")?;
        let mut section = models::markdown(&rows, cli.runs);
        section += &models::bars_markdown(&rows, has_vnni());
        append(&cli.md, &section)?;
    }
    if let Some(dir) = &cli.dynamic_shapes {
        let rows = models::run_dynamic(dir, &cli.python, cli.runs)
            .map_err(anyhow::Error::msg)
            .context("dynamic shapes")?;
        append(&cli.md, &models::dynamic_markdown(&rows, cli.runs))?;
    }
    if let Some(dir) = &cli.training {
        let png = cli.png.with_file_name("digits_loss.png");
        let section = dlc_bench::training::compare(&cli.python, dir, &png)
            .map_err(anyhow::Error::msg)
            .context("training")?;
        append(&cli.md, &section)?;
    }
    println!("{}", cli.md.display());
    Ok(())
}

/// Prints `section` and appends it to the markdown report at `md`.
fn append(md: &std::path::Path, section: &str) -> anyhow::Result<()> {
    print!("{section}");
    let mut text =
        std::fs::read_to_string(md).with_context(|| format!("cannot read {}", md.display()))?;
    text += section;
    std::fs::write(md, text).with_context(|| format!("cannot write {}", md.display()))
}

/// Whether the host has AVX-512 VNNI or AVX-VNNI (the int8 bars presume one).
fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vnni")
            || std::arch::is_x86_feature_detected!("avxvnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Compiles `workload` with dlc's default CPU pipeline, once per backend, and times `runs` runs
/// of each after a warm-up.
fn dlc_runner(
    workload: &'static workloads::Workload,
    size: Size,
    runs: usize,
) -> Result<Vec<report::Measurement>, String> {
    let ir = workload.ir(size).map_err(|e| e.to_string())?;
    [
        (dlc_driver::Backend::Llvm, report::Tool::Dlc),
        (dlc_driver::Backend::Mlir, report::Tool::DlcMlir),
    ]
    .into_iter()
    .map(|(backend, tool)| measure(workload, &ir, backend, tool, runs))
    .collect()
}

/// Compiles `ir` with `backend` and times `runs` runs after a warm-up.
fn measure(
    workload: &'static workloads::Workload,
    ir: &str,
    backend: dlc_driver::Backend,
    tool: report::Tool,
    runs: usize,
) -> Result<report::Measurement, String> {
    let options = dlc_driver::ModelOptions {
        backend,
        ..dlc_driver::ModelOptions::default()
    };
    let model = dlc_driver::Model::compile(ir, workload.name, &options)?;
    let inputs = dlc_driver::inputs::random_inputs(model.program().signature(), 0, 1)?;
    let refs: Vec<_> = inputs.iter().collect();
    let mut session = model.session();
    session.run(&refs).map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let start = std::time::Instant::now();
        session.run(&refs).map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(report::Measurement {
        workload,
        tool,
        timing: report::Timing {
            median_ms: times[times.len() / 2],
            min_ms: times[0],
            max_ms: times[times.len() - 1],
        },
        compile: Some(report::Compile {
            total_ms: model.timings.total().as_secs_f64() * 1e3,
            kernels: model.num_kernels(),
        }),
    })
}
