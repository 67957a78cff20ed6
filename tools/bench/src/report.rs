//! The benchmark report: a markdown table, the performance bars with pass/fail, and a PNG chart.
//!
//! Measurements (a time per workload and tool, plus dlc's compile time) become [`Row`]s with
//! the derived columns: GB/s and % of the triad ceiling for memory-bound workloads, GFLOP/s and
//! % of numpy for compute-bound ones. The bars of issue 8 are checked against those rows, and
//! the chart plots each tool's speed relative to numpy, with the triad ceiling drawn over the
//! memory-bound groups. Text in the chart uses a font embedded in the crate
//! (`assets/DejaVuSans-subset.ttf`), so it renders the same on a machine without fonts.

use crate::workloads::{Bound, Workload, WorkloadError};
use plotters::prelude::*;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A benchmarked implementation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Tool {
    /// This compiler, with its own code generator (inkwell, LLVM).
    Dlc,
    /// This compiler with the MLIR backend (upstream MLIR's lowering and execution engine).
    DlcMlir,
    /// numpy, with OpenBLAS for matmul.
    Numpy,
    /// onnxruntime's CPU execution provider.
    OnnxRuntime,
}

impl Tool {
    /// Every tool, in table and chart order.
    pub const ALL: [Tool; 4] = [Tool::Dlc, Tool::DlcMlir, Tool::Numpy, Tool::OnnxRuntime];

    /// The tool's name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Dlc => "dlc",
            Tool::DlcMlir => "dlc (MLIR backend)",
            Tool::Numpy => "numpy",
            Tool::OnnxRuntime => "onnxruntime",
        }
    }

    fn color(self) -> RGBColor {
        match self {
            Tool::Dlc => RGBColor(0x1f, 0x77, 0xb4),
            Tool::DlcMlir => RGBColor(0x94, 0x67, 0xbd),
            Tool::Numpy => RGBColor(0xff, 0x7f, 0x0e),
            Tool::OnnxRuntime => RGBColor(0x2c, 0xa0, 0x2c),
        }
    }
}

/// Wall times of the timed runs of one workload by one tool, in milliseconds.
#[derive(Copy, Clone, PartialEq, Debug, Deserialize)]
pub struct Timing {
    /// Median run.
    pub median_ms: f64,
    /// Fastest run.
    pub min_ms: f64,
    /// Slowest run.
    pub max_ms: f64,
}

/// dlc's compile time for one workload.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Compile {
    /// From IR text to callable code, for the whole program.
    pub total_ms: f64,
    /// Kernels the program compiled to.
    pub kernels: usize,
}

impl Compile {
    /// The mean compile time per kernel.
    pub fn per_kernel_ms(&self) -> f64 {
        self.total_ms / self.kernels.max(1) as f64
    }
}

/// One measurement: a workload run by one tool.
#[derive(Copy, Clone, Debug)]
pub struct Measurement {
    /// What ran.
    pub workload: &'static Workload,
    /// Who ran it.
    pub tool: Tool,
    /// How long it took.
    pub timing: Timing,
    /// dlc's compile time; `None` for peers.
    pub compile: Option<Compile>,
}

/// Throughput of a run, in the unit that fits the workload's bound.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum Throughput {
    /// 10⁹ bytes per second (memory-bound workloads).
    GbPerS(f64),
    /// 10⁹ FLOP per second (compute-bound workloads).
    GflopPerS(f64),
}

/// A run's speed as a fraction of its ceiling.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum Relative {
    /// Percent of the triad bandwidth measured in the same run.
    OfTriad(f64),
    /// Percent of numpy's GFLOP/s on the same workload.
    OfNumpy(f64),
}

/// One line of the results table.
#[derive(Clone, Debug)]
pub struct Row {
    /// Workload name.
    pub workload: &'static str,
    /// Tool.
    pub tool: Tool,
    /// Run times.
    pub timing: Timing,
    /// From the median time.
    pub throughput: Throughput,
    /// Against the workload's ceiling; `None` when the ceiling was not measured.
    pub relative: Option<Relative>,
    /// dlc's compile time.
    pub compile: Option<Compile>,
    /// For the chart: numpy's median over this row's median (1.0 for numpy itself).
    pub speedup_vs_numpy: Option<f64>,
    /// For the chart: the speedup over numpy the workload would have at triad bandwidth.
    pub triad_speedup_vs_numpy: Option<f64>,
}

/// Everything a report shows.
#[derive(Clone, Debug)]
pub struct Report {
    /// Heading of the markdown file.
    pub title: String,
    /// Lines shown under the heading: machine, threads, versions, size, date.
    pub notes: Vec<String>,
    /// Triad bandwidth of the same run, GB/s (the ceiling of memory-bound workloads).
    pub triad_gbs: f64,
    /// Results, one per workload and tool.
    pub rows: Vec<Row>,
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Creating a directory or writing the markdown file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// plotters failed to draw or encode the chart.
    #[error("chart {path}: {message}")]
    Chart {
        /// The PNG file.
        path: PathBuf,
        /// plotters' error, rendered.
        message: String,
    },
    /// A workload's size parameters are missing.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
}

/// Turns measurements at `size` into rows, computing throughput against `triad_gbs` (memory-
/// bound workloads) or against the numpy measurement of the same workload (compute-bound).
pub fn rows(
    measurements: &[Measurement],
    size: crate::workloads::Size,
    triad_gbs: f64,
) -> Result<Vec<Row>, WorkloadError> {
    let numpy_ms = |name: &str| {
        measurements
            .iter()
            .find(|m| m.workload.name == name && m.tool == Tool::Numpy)
            .map(|m| m.timing.median_ms)
    };
    let mut out = Vec::with_capacity(measurements.len());
    for m in measurements {
        let w = m.workload;
        let seconds = m.timing.median_ms.max(1e-9) / 1e3;
        let bytes = w.bytes(size)? as f64;
        let numpy = numpy_ms(w.name);
        let (throughput, relative) = match w.bound {
            Bound::Memory => {
                let gbs = bytes / seconds / 1e9;
                let rel = (triad_gbs > 0.0).then(|| Relative::OfTriad(100.0 * gbs / triad_gbs));
                (Throughput::GbPerS(gbs), rel)
            }
            Bound::Compute => {
                let rel = numpy.map(|n| Relative::OfNumpy(100.0 * n / m.timing.median_ms));
                (
                    Throughput::GflopPerS(w.flops(size)? as f64 / seconds / 1e9),
                    rel,
                )
            }
        };
        let triad_ms =
            (w.bound == Bound::Memory && triad_gbs > 0.0).then(|| bytes / (triad_gbs * 1e9) * 1e3);
        out.push(Row {
            workload: w.name,
            tool: m.tool,
            timing: m.timing,
            throughput,
            relative,
            compile: m.compile,
            speedup_vs_numpy: numpy.map(|n| n / m.timing.median_ms.max(1e-9)),
            triad_speedup_vs_numpy: numpy.zip(triad_ms).map(|(n, t)| n / t),
        });
    }
    Ok(out)
}

/// Writes the markdown report to `md_path` and the chart to `png_path` (creating their
/// directories); the markdown links the chart by its path relative to the markdown file's
/// directory when it is below it, else by `png_path` as given.
pub fn write(report: &Report, md_path: &Path, png_path: &Path) -> Result<(), ReportError> {
    for path in [md_path, png_path] {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
    }
    chart(report, png_path)?;
    let link = md_path
        .parent()
        .and_then(|dir| png_path.strip_prefix(dir).ok())
        .unwrap_or(png_path);
    let text = markdown(report, &link.to_string_lossy());
    std::fs::write(md_path, text).map_err(|source| ReportError::Io {
        path: md_path.to_path_buf(),
        source,
    })
}

/// The markdown report: notes, the results table, the bars with pass/fail, the chart link.
pub fn markdown(report: &Report, chart_link: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", report.title);
    for note in &report.notes {
        let _ = writeln!(s, "- {note}");
    }
    let _ = writeln!(
        s,
        "- triad a = b + s·c (same run, 12 bytes/element): {:.1} GB/s\n",
        report.triad_gbs
    );
    s.push_str("## Results\n\n");
    s.push_str(
        "| workload | tool | median ms | min ms | max ms | throughput | of ceiling | compile ms (kernels) |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in &report.rows {
        let throughput = match r.throughput {
            Throughput::GbPerS(g) => format!("{g:.1} GB/s"),
            Throughput::GflopPerS(g) => format!("{g:.1} GFLOP/s"),
        };
        let relative = match r.relative {
            Some(Relative::OfTriad(p)) => format!("{p:.0}% of triad"),
            Some(Relative::OfNumpy(p)) => format!("{p:.0}% of numpy"),
            None => "–".to_string(),
        };
        let compile = r.compile.map_or("–".to_string(), |c| {
            format!("{:.1} ({})", c.total_ms, c.kernels)
        });
        let t = r.timing;
        let _ = writeln!(
            s,
            "| {} | {} | {:.3} | {:.3} | {:.3} | {throughput} | {relative} | {compile} |",
            r.workload,
            r.tool.name(),
            t.median_ms,
            t.min_ms,
            t.max_ms
        );
    }
    s.push_str("\n## Bars\n\n| bar | measured | result |\n|---|---|---|\n");
    for b in bars(&report.rows) {
        let result = match b.pass {
            Some(true) => "pass",
            Some(false) => "**fail**",
            None => "not measured",
        };
        let _ = writeln!(s, "| {} | {} | {result} |", b.bar, b.measured);
    }
    let _ = writeln!(
        s,
        "\n## Chart\n\nSpeed relative to numpy (log scale; higher is faster). Black lines: the \
         speed the workload would have at the triad bandwidth.\n\n![benchmark chart]({chart_link})"
    );
    s
}

/// The bar "`workload`: dlc at least `f`x onnxruntime's speed".
fn ort_ratio(workload: &str, f: f64, dlc: Option<&Row>, ort: Option<&Row>) -> BarCheck {
    let bar = format!("{workload}: dlc ≥ {f}x onnxruntime's speed");
    match (dlc, ort) {
        (Some(d), Some(o)) if d.timing.median_ms > 0.0 => {
            let ratio = o.timing.median_ms / d.timing.median_ms;
            BarCheck {
                bar,
                measured: format!(
                    "{:.2} ms vs {:.2} ms = {ratio:.2}x",
                    d.timing.median_ms, o.timing.median_ms
                ),
                pass: Some(ratio >= f),
            }
        }
        _ => BarCheck {
            bar,
            measured: "–".to_string(),
            pass: None,
        },
    }
}

/// A performance bar checked against the results.
#[derive(Clone, Debug, PartialEq)]
pub struct BarCheck {
    /// What the bar demands.
    pub bar: String,
    /// What was measured.
    pub measured: String,
    /// Whether it holds; `None` when a needed row is missing.
    pub pass: Option<bool>,
}

/// The bars of issues 8 and 17, in order.
#[derive(Copy, Clone, Debug)]
enum Bar {
    /// dlc reaches this fraction of the triad bandwidth.
    TriadFraction(&'static str, f64),
    /// dlc's median beats onnxruntime's.
    FasterThanOrt(&'static str),
    /// dlc reaches this fraction of numpy's GFLOP/s.
    NumpyFraction(&'static str, f64),
    /// dlc's speed is at least this multiple of onnxruntime's (its median time over dlc's).
    OrtRatio(&'static str, f64),
}

const BARS: [Bar; 12] = [
    Bar::TriadFraction("gelu_bias", 0.75),
    Bar::FasterThanOrt("gelu_bias"),
    Bar::TriadFraction("softmax", 0.75),
    Bar::FasterThanOrt("softmax"),
    Bar::TriadFraction("layer_norm", 0.75),
    Bar::FasterThanOrt("layer_norm"),
    Bar::NumpyFraction("matmul", 0.85),
    Bar::OrtRatio("mlp", 0.9),
    Bar::OrtRatio("gpt2_block", 0.8),
    Bar::OrtRatio("conv", 0.6),
    Bar::OrtRatio("softmax", 1.0),
    Bar::OrtRatio("rms_norm", 1.0),
];

/// No workload may run slower than this multiple of onnxruntime's speed.
const MIN_ORT_RATIO: f64 = 0.5;

/// The compile-time bar: at most this many milliseconds per kernel.
const COMPILE_MS_PER_KERNEL: f64 = 30.0;

/// Checks every bar against `rows`: the fixed bars, then compile time per kernel for each
/// dlc row that has one.
pub fn bars(rows: &[Row]) -> Vec<BarCheck> {
    let find = |workload: &str, tool: Tool| {
        rows.iter()
            .find(|r| r.workload == workload && r.tool == tool)
    };
    let missing = |bar: String| BarCheck {
        bar,
        measured: "–".to_string(),
        pass: None,
    };
    let mut out = Vec::new();
    for bar in BARS {
        out.push(match bar {
            Bar::TriadFraction(w, f) => {
                let text = format!("{w}: dlc ≥ {:.0}% of triad bandwidth", f * 100.0);
                match find(w, Tool::Dlc).map(|r| (r.throughput, r.relative)) {
                    Some((Throughput::GbPerS(g), Some(Relative::OfTriad(p)))) => BarCheck {
                        bar: text,
                        measured: format!("{g:.1} GB/s = {p:.0}%"),
                        pass: Some(p >= f * 100.0),
                    },
                    _ => missing(text),
                }
            }
            Bar::FasterThanOrt(w) => {
                let text = format!("{w}: dlc faster than onnxruntime");
                match (find(w, Tool::Dlc), find(w, Tool::OnnxRuntime)) {
                    (Some(d), Some(o)) => BarCheck {
                        bar: text,
                        measured: format!(
                            "{:.2} ms vs {:.2} ms",
                            d.timing.median_ms, o.timing.median_ms
                        ),
                        pass: Some(d.timing.median_ms < o.timing.median_ms),
                    },
                    _ => missing(text),
                }
            }
            Bar::OrtRatio(w, f) => ort_ratio(w, f, find(w, Tool::Dlc), find(w, Tool::OnnxRuntime)),
            Bar::NumpyFraction(w, f) => {
                let text = format!("{w}: dlc ≥ {:.0}% of numpy (OpenBLAS)", f * 100.0);
                match find(w, Tool::Dlc).map(|r| (r.throughput, r.relative)) {
                    Some((Throughput::GflopPerS(g), Some(Relative::OfNumpy(p)))) => BarCheck {
                        bar: text,
                        measured: format!("{g:.1} GFLOP/s = {p:.0}%"),
                        pass: Some(p >= f * 100.0),
                    },
                    _ => missing(text),
                }
            }
        });
    }
    for d in rows.iter().filter(|r| r.tool == Tool::Dlc) {
        let ort = find(d.workload, Tool::OnnxRuntime);
        if ort.is_some() {
            out.push(ort_ratio(d.workload, MIN_ORT_RATIO, Some(d), ort));
        }
    }
    for r in rows.iter().filter(|r| r.tool == Tool::Dlc) {
        if let Some(c) = r.compile {
            out.push(BarCheck {
                bar: format!(
                    "{}: compile ≤ {COMPILE_MS_PER_KERNEL:.0} ms per kernel",
                    r.workload
                ),
                measured: format!(
                    "{:.1} ms / {} kernels = {:.1} ms",
                    c.total_ms,
                    c.kernels,
                    c.per_kernel_ms()
                ),
                pass: Some(c.per_kernel_ms() <= COMPILE_MS_PER_KERNEL),
            });
        }
    }
    out
}

/// The embedded chart font (ASCII and a few symbols of DejaVu Sans; see assets/FONT-LICENSE).
const FONT: &[u8] = include_bytes!("../assets/DejaVuSans-subset.ttf");

/// The family name the chart's text styles ask for.
pub(crate) const FONT_FAMILY: &str = "dlc-bench-sans";

/// Registers the embedded font as [`FONT_FAMILY`], for every chart this crate draws.
pub(crate) fn register_font() -> Result<(), &'static str> {
    plotters::style::register_font(FONT_FAMILY, FontStyle::Normal, FONT)
        .map_err(|_| "the embedded font does not parse")
}

/// Draws the grouped bar chart of speed relative to numpy to `png_path`.
pub fn chart(report: &Report, png_path: &Path) -> Result<(), ReportError> {
    let chart_error = |e: &dyn std::fmt::Display| ReportError::Chart {
        path: png_path.to_path_buf(),
        message: e.to_string(),
    };
    register_font().map_err(|e| chart_error(&e))?;
    let mut workloads: Vec<&'static str> = Vec::new();
    for r in &report.rows {
        if !workloads.contains(&r.workload) {
            workloads.push(r.workload);
        }
    }
    // The log axis spans every plotted value with a margin, rounded out to powers of ten.
    let values = report
        .rows
        .iter()
        .flat_map(|r| [r.speedup_vs_numpy, r.triad_speedup_vs_numpy])
        .flatten()
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = values.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = (
        10f64.powf((lo / 1.5).log10().floor()),
        10f64.powf((hi * 1.5).log10().ceil()),
    );

    let root = BitMapBackend::new(png_path, (1000, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| chart_error(&e))?;
    let groups = workloads.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(&report.title, (FONT_FAMILY, 24))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..groups, (lo..hi).log_scale())
        .map_err(|e| chart_error(&e))?;
    let label_of = |x: &f64| {
        let i = x.floor() as usize;
        // Labels sit at group centres; ticks elsewhere stay blank.
        if (x - i as f64 - 0.5).abs() < 1e-6 {
            workloads.get(i).map_or(String::new(), |w| w.to_string())
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2 * workloads.len() + 1)
        .x_label_formatter(&label_of)
        .y_desc("speed relative to numpy")
        .label_style((FONT_FAMILY, 14))
        .axis_desc_style((FONT_FAMILY, 15))
        .draw()
        .map_err(|e| chart_error(&e))?;

    let width = 0.8 / Tool::ALL.len() as f64;
    for (t, tool) in Tool::ALL.into_iter().enumerate() {
        let bars: Vec<Rectangle<(f64, f64)>> = report
            .rows
            .iter()
            .filter(|r| r.tool == tool)
            .filter_map(|r| {
                let g = workloads.iter().position(|w| *w == r.workload)? as f64;
                let v = r.speedup_vs_numpy.filter(|v| v.is_finite() && *v > 0.0)?;
                let x0 = g + 0.1 + t as f64 * width;
                Some(Rectangle::new(
                    [(x0, lo), (x0 + width * 0.9, v)],
                    tool.color().filled(),
                ))
            })
            .collect();
        chart
            .draw_series(bars)
            .map_err(|e| chart_error(&e))?
            .label(tool.name())
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], tool.color().filled())
            });
    }
    let ceilings: Vec<PathElement<(f64, f64)>> = workloads
        .iter()
        .enumerate()
        .filter_map(|(g, w)| {
            let v = report
                .rows
                .iter()
                .find(|r| r.workload == *w)?
                .triad_speedup_vs_numpy?;
            let g = g as f64;
            Some(PathElement::new(
                vec![(g + 0.05, v), (g + 0.95, v)],
                BLACK.stroke_width(3),
            ))
        })
        .collect();
    chart
        .draw_series(ceilings)
        .map_err(|e| chart_error(&e))?
        .label("triad ceiling")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], BLACK.stroke_width(3)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FONT_FAMILY, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| chart_error(&e))?;
    root.present().map_err(|e| chart_error(&e))
}
