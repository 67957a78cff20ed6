//! Real ONNX models beside onnxruntime: the PaddleOCR classifier, recognizer and detector in the
//! `rapidocr-onnxruntime` wheel, imported with `dlc-onnx`, compiled by dlc's default pipeline
//! and timed, then timed by onnxruntime (`scripts/onnx_real_models.py --bench`) in the same
//! process run, on the same input. The report also gives dlc's largest error against
//! onnxruntime's output, relative to the output's largest magnitude.

use dlc_run::onnx::{compare_expected, import_onnx, read_reference};
use dlc_run::{inputs::npy_inputs, Model, ModelOptions};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// A model of the benchmark: its short name (the file stem the script writes) and input shape.
pub struct OnnxModel {
    pub name: &'static str,
    pub input_shape: &'static [i64],
}

/// The models, in report order.
pub const MODELS: [OnnxModel; 3] = [
    OnnxModel {
        name: "ppocr_cls",
        input_shape: &[1, 3, 48, 192],
    },
    OnnxModel {
        name: "ppocr_rec",
        input_shape: &[1, 3, 48, 320],
    },
    OnnxModel {
        name: "ppocr_det",
        input_shape: &[1, 3, 320, 320],
    },
];

/// One model's row.
#[derive(Clone, Debug)]
pub struct ModelRow {
    pub name: &'static str,
    /// dlc's median, min and max over the timed runs, ms.
    pub dlc_ms: [f64; 3],
    /// onnxruntime's median, min and max, ms.
    pub ort_ms: [f64; 3],
    /// dlc's compile time (import excluded), ms, and kernel count.
    pub compile_ms: f64,
    pub kernels: usize,
    /// max |dlc − onnxruntime| / max |onnxruntime|.
    pub rel_err: f64,
    /// Elements outside numpy's `allclose(rtol = 1e-3, atol = 1e-5)` of onnxruntime's output.
    pub mismatches: usize,
}

/// Writes the models and their reference outputs to `dir` with onnxruntime, times dlc on each,
/// then onnxruntime, `runs` runs each after a warm-up.
pub fn run(dir: &Path, python: &str, runs: usize) -> Result<Vec<ModelRow>, String> {
    script(dir, python, None)?;
    let mut rows = Vec::new();
    for m in &MODELS {
        rows.push(time_dlc(dir, m, runs)?);
    }
    let ort = script(dir, python, Some(runs))?;
    for line in ort.lines() {
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("onnx_real_models.py printed '{line}': {e}"))?;
        let name = v["model"].as_str().unwrap_or_default();
        if let Some(row) = rows.iter_mut().find(|r| r.name == name) {
            let get = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
            row.ort_ms = [get("median_ms"), get("min_ms"), get("max_ms")];
        }
    }
    Ok(rows)
}

/// Runs scripts/onnx_real_models.py (with `--bench runs` when given) and returns its stdout.
fn script(dir: &Path, python: &str, bench: Option<usize>) -> Result<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/onnx_real_models.py");
    let mut cmd = Command::new(python);
    cmd.arg(&script).arg("--out").arg(dir);
    if let Some(runs) = bench {
        cmd.arg("--bench").arg(runs.to_string());
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {python} {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn time_dlc(dir: &Path, m: &OnnxModel, runs: usize) -> Result<ModelRow, String> {
    let file = |suffix: &str| dir.join(format!("{}{suffix}", m.name));
    let given = npy_inputs(&[file(".input_0.npy")])?;
    let options = dlc_onnx::ImportOptions {
        input_shapes: [("x".to_string(), m.input_shape.to_vec())].into(),
        ..Default::default()
    };
    let imported = import_onnx(&file(".onnx"), options, Some(&given))?;
    let model = Model::compile(&imported.text, m.name, &ModelOptions::default())?;
    let refs: Vec<_> = given.iter().collect();
    let mut session = model.session();
    let outputs = session.run(&refs).map_err(|e| e.to_string())?;
    let actual = outputs
        .iter()
        .next()
        .ok_or("the model has no output")?
        .to_host_tensor()
        .map_err(|e| e.to_string())?;
    let expected = read_reference(&file(".output_0.npy"))?;
    let r = compare_expected(&actual, &expected, 1e-3, 1e-5);
    let scale = expected
        .to_f64_vec()
        .iter()
        .fold(0.0f64, |a, x| a.max(x.abs()));
    let mut times = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        session.run(&refs).map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(ModelRow {
        name: m.name,
        dlc_ms: [times[times.len() / 2], times[0], times[times.len() - 1]],
        ort_ms: [f64::NAN; 3],
        compile_ms: model.timings.total().as_secs_f64() * 1e3,
        kernels: model.num_kernels(),
        rel_err: r.max_abs / scale.max(f64::MIN_POSITIVE),
        mismatches: r.mismatches,
    })
}

/// The markdown section of the rows.
pub fn markdown(rows: &[ModelRow], runs: usize) -> String {
    let mut md = String::from("\n## ONNX models (PaddleOCR, rapidocr-onnxruntime 1.4.4)\n\n");
    let _ = writeln!(
        md,
        "`dlc-bench --onnx-models DIR`: each model imported by dlc-onnx and compiled with the \
         default pipeline, then onnxruntime 1.32 (CPU, intra-op threads = cores) on the same \
         input (uniform in [-1, 1), seed 0), {runs} timed runs each after warm-up, in one run. \
         cls at 1x3x48x192, rec at 1x3x48x320, det at 1x3x320x320. The error is max |dlc − onnxruntime| / \
         max |onnxruntime|.\n"
    );
    md += "| model | dlc median ms (min–max) | onnxruntime median ms (min–max) | dlc / onnxruntime | compile ms (kernels) | error |\n";
    md += "|---|---|---|---|---|---|\n";
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {:.3} ({:.3}–{:.3}) | {:.3} ({:.3}–{:.3}) | {:.2}× | {:.0} ({}) | {:.1e} |",
            r.name,
            r.dlc_ms[0],
            r.dlc_ms[1],
            r.dlc_ms[2],
            r.ort_ms[0],
            r.ort_ms[1],
            r.ort_ms[2],
            r.dlc_ms[0] / r.ort_ms[0],
            r.compile_ms,
            r.kernels,
            r.rel_err
        );
    }
    md
}
