//! The PaddleOCR models of `rapidocr-onnxruntime` (cls at 1x3x48x192, rec at 1x3x48x320, det at
//! 1x3x320x320, which needs Resize and ConvTranspose) run by
//! dlc match onnxruntime on the same input: every element within numpy's
//! `allclose(rtol = 1e-3, atol = 1e-5)`, and the largest error under 1e-3 of the output's
//! largest magnitude. [`models::run`] is the benchmark's own path (import, default pipeline,
//! JIT), here with one timed run.

use dlc_bench::models;
use std::path::Path;

#[test]
fn paddleocr_models_match_onnxruntime() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/onnx-models");
    let rows = models::run(&dir, "python3", 1).expect("the models import, compile and run");
    assert_eq!(rows.len(), models::MODELS.len());
    for r in &rows {
        eprintln!(
            "{}: max rel err {:.2e}, {} elements outside allclose",
            r.name, r.rel_err, r.mismatches
        );
        assert_eq!(
            r.mismatches, 0,
            "{}: elements differ from onnxruntime",
            r.name
        );
        assert!(r.rel_err < 1e-3, "{}: relative error {}", r.name, r.rel_err);
    }
}
