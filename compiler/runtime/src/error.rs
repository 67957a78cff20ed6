//! The errors a run can hit: bad inputs, failed host arithmetic or allocation, bad launches,
//! files that are not valid `.npy`, and a bad thread-count setting.
//!
//! Compile-time problems (an op the runtime cannot execute, a kernel missing from the table) are
//! [`dlc_ir::Diagnostic`]s at the op instead, since they are problems with the program text.
//! Run-time problems caused by the program carry the op's [`Location`] so a tool can still point
//! at the source line ([`RuntimeError::to_diagnostic`]).

use dlc_ir::{Diagnostic, Location};
use std::path::PathBuf;

/// An error while building tensors, reading files or running a host program.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// The number of inputs differs from the signature's.
    #[error("expected {expected} inputs, got {got}")]
    InputCount { expected: usize, got: usize },
    /// An input has the wrong element type.
    #[error("input {index}: expected {expected}, got {got}")]
    InputDType {
        index: usize,
        expected: &'static str,
        got: &'static str,
    },
    /// An input has the wrong rank.
    #[error("input {index} ('{name}'): expected rank {expected}, got shape {got:?}")]
    InputRank {
        index: usize,
        name: String,
        expected: usize,
        got: Vec<usize>,
    },
    /// An input dim differs from the static size the signature declares.
    #[error("input {index} ('{name}'): dim {dim} is {got} but must be {expected}")]
    InputStaticDim {
        index: usize,
        name: String,
        dim: usize,
        got: usize,
        expected: u64,
    },
    /// An input dim differs from an earlier dim the signature says is the same size.
    #[error(
        "input {index} ('{name}'): dim {dim} is {got} but must equal dim {other_dim} of input {other_index} ({expected})"
    )]
    InputDimMismatch {
        index: usize,
        name: String,
        dim: usize,
        got: usize,
        other_index: usize,
        other_dim: usize,
        expected: usize,
    },
    /// A host op failed at run time (division by zero, negative size, view out of range, a
    /// launch argument that does not fit the kernel, ...).
    #[error("{message}")]
    Op { location: Location, message: String },
    /// Memory for a buffer could not be obtained.
    #[error("cannot allocate {bytes} bytes ({}): not enough memory", human_bytes(*bytes))]
    OutOfMemory { bytes: usize },
    /// Tensor data or a shape that does not fit its dtype.
    #[error("{0}")]
    Tensor(String),
    /// A `.npy` file could not be read or written.
    #[error("{path}: {message}")]
    Npy { path: PathBuf, message: String },
    /// `DLC_NUM_THREADS` is set but is not a positive integer.
    #[error("DLC_NUM_THREADS must be a positive integer, got '{value}'")]
    NumThreads { value: String },
}

impl RuntimeError {
    /// The error as a diagnostic, at the op's location when it has one (else unknown).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let location = match self {
            RuntimeError::Op { location, .. } => *location,
            _ => Location::default(),
        };
        Diagnostic::error(location, self.to_string())
    }
}

/// `bytes` in the largest binary unit that keeps it at least 1: `1.5 GiB`.
fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
