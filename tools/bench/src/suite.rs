//! One benchmark run: the triad ceiling, dlc (through a caller-supplied function), the peers,
//! and the report assembled from all three.
//!
//! The ordering is deliberate: the triad runs first, then every dlc measurement, then the peers,
//! all in one process run, so the ratios in the report compare numbers taken minutes apart on
//! the same noisy machine. dlc's side is a closure so this crate does not depend on the JIT; the
//! benchmark binary passes one that compiles and times a workload.

use crate::peers::{self, PeersError};
use crate::report::{self, Measurement, Report};
use crate::triad::{self, TriadConfig};
use crate::workloads::{Size, Workload, WorkloadError};
use std::path::PathBuf;

/// What to run.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    /// The workloads, in report order.
    pub workloads: Vec<&'static Workload>,
    /// Their size.
    pub size: Size,
    /// Timed runs per tool, after a warm-up.
    pub runs: usize,
    /// The triad's setup (its thread count should match dlc's).
    pub triad: TriadConfig,
    /// Python interpreter with numpy, onnx and onnxruntime.
    pub python: String,
    /// The peers script.
    pub script: PathBuf,
    /// The report's heading.
    pub title: String,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// dlc failed on a workload.
    #[error("dlc on '{workload}': {message}")]
    Dlc {
        /// The workload.
        workload: &'static str,
        /// dlc's error, rendered.
        message: String,
    },
    /// The peers failed.
    #[error(transparent)]
    Peers(#[from] PeersError),
    /// A workload's sizes are missing.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
}

/// dlc's side: compiles and times `workload` at `size` over `runs` timed runs, once per
/// backend; errors rendered.
pub type DlcRunner<'a> =
    dyn FnMut(&'static Workload, Size, usize) -> Result<Vec<Measurement>, String> + 'a;

/// Runs the triad, `dlc` on each workload (when given), then the peers, and returns the report.
/// `dlc(workload, size, runs)` compiles and times one workload and returns its measurements
/// (tools [`report::Tool::Dlc`] and [`report::Tool::DlcMlir`], with their compile times).
pub fn run(
    options: &SuiteOptions,
    mut dlc: Option<&mut DlcRunner<'_>>,
) -> Result<Report, SuiteError> {
    let triad = triad::measure(options.triad);
    let mut measurements = Vec::new();
    if let Some(dlc) = dlc.as_mut() {
        for w in &options.workloads {
            let m = dlc(w, options.size, options.runs).map_err(|e| SuiteError::Dlc {
                workload: w.name,
                message: e,
            })?;
            measurements.extend(m);
        }
    }
    let peer = peers::run(
        &options.python,
        &options.script,
        &options.workloads,
        options.size,
        options.runs,
    )?;
    measurements.extend(peer.measurements());
    // Group rows by workload, tools in their fixed order.
    measurements.sort_by_key(|m| {
        let index = options
            .workloads
            .iter()
            .position(|w| w.name == m.workload.name);
        (index, m.tool)
    });
    let mut notes = vec![
        format!("machine: {}", machine()),
        format!(
            "size: {}; {} timed runs after warm-up; times are medians",
            options.size, options.runs
        ),
        format!(
            "triad: {} f32 elements, {} threads, median of {} runs",
            options.triad.elements, options.triad.threads, options.triad.runs
        ),
    ];
    notes.extend(peer.meta.iter().map(|m| format!("peers {m}")));
    for (w, r) in &peer.workloads {
        notes.push(format!(
            "{}: onnxruntime graph {}, session {:.1} ms, max |numpy − onnxruntime| {:.2e}",
            w.name, r.ort_graph, r.ort_session_ms, r.max_abs_err
        ));
    }
    Ok(Report {
        title: options.title.clone(),
        notes,
        triad_gbs: triad.median_gbs,
        rows: report::rows(&measurements, options.size, triad.median_gbs)?,
    })
}

/// This machine as the report's first line: the CPU model (`lscpu`'s "Model name", from
/// /proc/cpuinfo), its SIMD level and FMA, and the logical CPUs this process may use.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let model = field("model name").unwrap_or_else(|| "unknown CPU".to_string());
    let flags = field("flags").unwrap_or_default();
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    let isa = if has("avx512f") {
        "AVX-512"
    } else if has("avx2") {
        "AVX2"
    } else {
        "SSE"
    };
    let fma = if has("fma") { ", FMA" } else { "" };
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model}, {isa}{fma}, {cpus} logical CPUs")
}
