//! The report writer on fake measurements: the markdown has every row and bar, and the chart
//! is a non-empty PNG.

use dlc_bench::report::{self, Compile, Measurement, Report, Timing, Tool};
use dlc_bench::workloads::{self, Size, WORKLOADS};

fn timing(ms: f64) -> Timing {
    Timing {
        median_ms: ms,
        min_ms: ms * 0.9,
        max_ms: ms * 1.2,
    }
}

fn fake_report() -> Report {
    let mut measurements = Vec::new();
    for (i, w) in WORKLOADS.iter().enumerate() {
        let base = 10.0 + i as f64;
        for (tool, ms) in [
            (Tool::Dlc, base / 2.0),
            (Tool::Numpy, base * 5.0),
            (Tool::OnnxRuntime, base),
        ] {
            measurements.push(Measurement {
                workload: w,
                tool,
                timing: timing(ms),
                compile: (tool == Tool::Dlc).then_some(Compile {
                    total_ms: 12.0,
                    kernels: 2,
                }),
            });
        }
    }
    let triad_gbs = 31.0;
    Report {
        title: "dlc benchmarks (fake data)".to_string(),
        notes: vec!["2 threads".to_string()],
        triad_gbs,
        rows: report::rows(&measurements, Size::Full, triad_gbs).expect("sizes exist"),
    }
}

#[test]
fn writes_markdown_and_png() {
    let dir = tempfile::tempdir().expect("temp dir");
    let md = dir.path().join("docs/benchmarks.md");
    let png = dir.path().join("docs/img/benchmarks.png");
    let report = fake_report();
    report::write(&report, &md, &png).expect("writes");
    let text = std::fs::read_to_string(&md).expect("markdown exists");
    for w in workloads::names() {
        assert!(text.contains(&format!("| {w} | dlc |")), "{text}");
    }
    assert!(
        text.contains("![benchmark chart](img/benchmarks.png)"),
        "{text}"
    );
    assert!(
        text.contains("| gelu_bias: dlc faster than onnxruntime | 5.00 ms vs 10.00 ms | pass |"),
        "{text}"
    );
    assert!(
        text.contains("compile ≤ 30 ms per kernel | 12.0 ms / 2 kernels = 6.0 ms | pass |"),
        "{text}"
    );
    // Issue 17's ratios to onnxruntime: a named bar, and the floor for every workload.
    let conv = WORKLOADS
        .iter()
        .position(|w| w.name == "conv")
        .expect("conv") as f64;
    assert!(
        text.contains(&format!(
            "| conv: dlc ≥ 0.6x onnxruntime's speed | {:.2} ms vs {:.2} ms = 2.00x | pass |",
            (10.0 + conv) / 2.0,
            10.0 + conv
        )),
        "{text}"
    );
    assert!(
        text.contains("| matmul: dlc ≥ 0.5x onnxruntime's speed |"),
        "{text}"
    );
    let bytes = std::fs::read(&png).expect("png exists");
    assert!(
        bytes.len() > 1000 && bytes.starts_with(b"\x89PNG"),
        "{} bytes",
        bytes.len()
    );
}

#[test]
fn derived_columns() {
    let report = fake_report();
    let row = |w: &str, t: Tool| {
        report
            .rows
            .iter()
            .find(|r| r.workload == w && r.tool == t)
            .expect("row")
    };
    // softmax: 128 MiB in 5.5 ms.
    let dlc = row("softmax", Tool::Dlc);
    let gbs = 2.0 * 64.0 * 1024.0 * 1024.0 / 5.5e-3 / 1e9;
    assert!(matches!(dlc.throughput, report::Throughput::GbPerS(g) if (g - gbs).abs() < 1e-9));
    assert!(
        matches!(dlc.relative, Some(report::Relative::OfTriad(p)) if (p - 100.0 * gbs / 31.0).abs() < 1e-9)
    );
    assert_eq!(dlc.speedup_vs_numpy, Some(10.0));
    // matmul: dlc twice as fast as... numpy is 10x slower, so 1000% of numpy.
    let mm = row("matmul", Tool::Dlc);
    assert!(matches!(mm.relative, Some(report::Relative::OfNumpy(p)) if (p - 1000.0).abs() < 1e-9));
    assert_eq!(mm.triad_speedup_vs_numpy, None);
    let bars = report::bars(&report.rows);
    assert!(bars.iter().all(|b| b.pass.is_some()));
}
