//! The real models of [`models::MODELS`] (PaddleOCR from `rapidocr-onnxruntime`; openWakeWord's
//! mel front end and BiLSTM wake-word head, Silero VAD's LSTM (two exports), NudeNet's YOLOv8n
//! detector, RapidOCR's orientation classifier, Magika's CNN and a dynamically quantized T5 encoder from
//! their wheels; docs/onnx.md lists them) run by dlc match onnxruntime on the same inputs, each
//! by its [`models::Check`]: every element within numpy's `allclose(rtol = 1e-3, atol = 1e-4)`
//! and the largest error under 1e-3 of the output's largest magnitude, or, for the quantized
//! model, a signal-to-noise ratio against onnxruntime's outputs. [`models::run`] is the
//! benchmark's own path (import, default pipeline, JIT), here with one timed run.
//! scripts/setup.sh fetches the models.

use dlc_bench::models;
use std::path::Path;

#[test]
fn real_models_match_onnxruntime() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/onnx-models");
    let rows = models::run(&dir, "python3", 1, &models::MODELS)
        .expect("the models import, compile and run");
    assert_eq!(rows.len(), models::MODELS.len());
    for r in &rows {
        eprintln!(
            "{}: max rel err {:.2e}, {} elements outside allclose, SQNR {:.1} dB",
            r.name, r.rel_err, r.mismatches, r.sqnr_db
        );
        if let Err(why) = r.verdict() {
            panic!("{}: differs from onnxruntime: {why}", r.name);
        }
    }
}
