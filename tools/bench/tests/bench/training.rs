//! Issue 38's digits example learns: the MLP and the CNN of [`training`], each trained by one
//! compiled dlc program per step (forward, loss, backward through the `grad` pass, update),
//! reach at least 95% accuracy on the held-out fifth of scikit-learn's digits, and their loss
//! falls. The data comes from `digits.py` (scikit-learn, which scripts/setup.sh installs).

use dlc_bench::training::{self, Digits, Net, TrainOptions};
use std::process::Command;

#[test]
fn digits_classifiers_reach_95_percent() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("digits.py");
    let status = Command::new("python3")
        .arg(&script)
        .arg("--out")
        .arg(dir.path())
        .status()
        .expect("python3 runs");
    assert!(
        status.success(),
        "digits.py failed (is scikit-learn installed?)"
    );
    let data = Digits::load(dir.path()).expect("the digits load");
    for net in [Net::Mlp, Net::Cnn] {
        let options = TrainOptions::for_net(net);
        let trained = training::train(&data, &options).expect("the step compiles and runs");
        let first: f32 = trained.losses[..20].iter().sum::<f32>() / 20.0;
        let n = trained.losses.len();
        let last: f32 = trained.losses[n - 20..].iter().sum::<f32>() / 20.0;
        eprintln!(
            "{}: accuracy {:.2}%, loss {first:.3} -> {last:.3}, {n} steps, median step {:.3} ms, {:.2} s",
            net.name(),
            trained.accuracy * 100.0,
            trained.step_ms,
            trained.total_s
        );
        assert!(
            trained.accuracy >= 0.95,
            "{}: {}",
            net.name(),
            trained.accuracy
        );
        assert!(
            last < first / 10.0,
            "{}: loss {first} -> {last}",
            net.name()
        );
    }
}
