//! Runs `peers.py` (numpy and onnxruntime timings) and reads its JSON.
//!
//! The peers are timed by a Python script because that is how their users run them; this
//! module starts it with the same workload list and size as dlc's side, so the benchmark binary
//! gets every peer measurement of one run as [`Measurement`]s next to its own.

use crate::report::{Measurement, Timing, Tool};
use crate::workloads::{Size, Workload};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One workload's peer results, as peers.py prints them.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PeerResult {
    /// numpy's timing.
    pub numpy: Timing,
    /// onnxruntime's timing.
    pub onnxruntime: Timing,
    /// Building the onnxruntime session (graph optimization included), ms.
    pub ort_session_ms: f64,
    /// How the ONNX graph was expressed (fused Gelu or primitive ops).
    pub ort_graph: String,
    /// Largest difference between numpy's and onnxruntime's outputs.
    pub max_abs_err: f64,
}

/// All peer results of one run, by workload name.
#[derive(Clone, Debug)]
pub struct PeerResults {
    /// Results per workload, in the order asked for.
    pub workloads: Vec<(&'static Workload, PeerResult)>,
    /// peers.py's `_meta` entry (threads, versions), as text lines for the report.
    pub meta: Vec<String>,
}

impl PeerResults {
    /// numpy and onnxruntime as report measurements.
    pub fn measurements(&self) -> Vec<Measurement> {
        let mut out = Vec::with_capacity(2 * self.workloads.len());
        for (w, r) in &self.workloads {
            for (tool, timing) in [(Tool::Numpy, r.numpy), (Tool::OnnxRuntime, r.onnxruntime)] {
                out.push(Measurement {
                    workload: w,
                    tool,
                    timing,
                    compile: None,
                });
            }
        }
        out
    }
}

/// Why the peers could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum PeersError {
    /// The interpreter could not be started.
    #[error("could not run {python} {script}: {source}")]
    Spawn {
        /// The interpreter.
        python: String,
        /// The script.
        script: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The script exited with an error.
    #[error("peers.py failed ({status}):\n{stderr}")]
    Failed {
        /// Its exit status.
        status: std::process::ExitStatus,
        /// What it printed on stderr.
        stderr: String,
    },
    /// The output is not the JSON expected.
    #[error("peers.py printed unexpected JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A workload asked for is absent from the output.
    #[error("peers.py printed no result for '{0}'")]
    Missing(&'static str),
}

/// The peers.py next to this crate's sources.
pub fn default_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("peers.py")
}

/// Runs `python script --workloads ... --size ... --runs runs` and parses its output.
pub fn run(
    python: &str,
    script: &Path,
    workloads: &[&'static Workload],
    size: Size,
    runs: usize,
) -> Result<PeerResults, PeersError> {
    let names: Vec<&str> = workloads.iter().map(|w| w.name).collect();
    let output = Command::new(python)
        .arg(script)
        .args(["--workloads", &names.join(",")])
        .args(["--size", size.name()])
        .args(["--runs", &runs.to_string()])
        .output()
        .map_err(|source| PeersError::Spawn {
            python: python.to_string(),
            script: script.to_path_buf(),
            source,
        })?;
    if !output.status.success() {
        return Err(PeersError::Failed {
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    parse(&String::from_utf8_lossy(&output.stdout), workloads)
}

/// Parses peers.py's JSON, keeping the `workloads` asked for, in that order.
pub fn parse(json: &str, workloads: &[&'static Workload]) -> Result<PeerResults, PeersError> {
    let mut all: BTreeMap<String, serde_json::Value> = serde_json::from_str(json)?;
    let meta = match all.remove("_meta") {
        Some(serde_json::Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}: {s}"),
                v => format!("{k}: {v}"),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut out = Vec::with_capacity(workloads.len());
    for w in workloads {
        let value = all.remove(w.name).ok_or(PeersError::Missing(w.name))?;
        out.push((*w, serde_json::from_value(value)?));
    }
    Ok(PeerResults {
        workloads: out,
        meta,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workloads;

    const SAMPLE: &str = r#"{
      "softmax": {"numpy": {"median_ms": 46.0, "min_ms": 45.0, "max_ms": 50.0},
                  "onnxruntime": {"median_ms": 5.5, "min_ms": 5.0, "max_ms": 6.0},
                  "ort_session_ms": 0.4, "ort_graph": "Softmax-13", "max_abs_err": 1e-8},
      "_meta": {"threads": 2}
    }"#;

    #[test]
    fn parses_results_and_meta() {
        let softmax = workloads::find("softmax").expect("exists");
        let r = parse(SAMPLE, &[softmax]).expect("parses");
        assert_eq!(r.workloads.len(), 1);
        assert_eq!(r.workloads[0].1.onnxruntime.median_ms, 5.5);
        assert_eq!(r.meta, vec!["threads: 2".to_string()]);
        let m = r.measurements();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].tool, Tool::Numpy);
    }

    #[test]
    fn missing_workload_is_an_error() {
        let matmul = workloads::find("matmul").expect("exists");
        assert!(matches!(
            parse(SAMPLE, &[matmul]),
            Err(PeersError::Missing("matmul"))
        ));
        assert!(matches!(parse("[1]", &[matmul]), Err(PeersError::Json(_))));
    }
}
