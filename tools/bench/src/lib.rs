//! dlc's benchmark harness, minus the dlc side: the workloads, the peers, the ceiling, the report.
//!
//! Issue 8 compares dlc with numpy and onnxruntime on six workloads (three memory-bound: gelu
//! with a bias, softmax, layer_norm; three compute-bound: matmul, attention, an MLP) against a
//! triad-bandwidth ceiling measured in the same run. This crate holds everything but running
//! dlc itself: [`workloads`] gives each program's IR at a full or smoke size with its byte and
//! FLOP counts, [`peers`] runs `peers.py` and reads its timings, [`triad`] measures the
//! bandwidth ceiling, and [`report`] writes the markdown table, the bars and the chart. [`suite`] runs them in order; the benchmark binary only adds the function timing dlc
//! ([`suite::DlcRunner`]). [`training`] trains a digits classifier with dlc for issue 38.

pub mod models;
pub mod peers;
pub mod report;
pub mod suite;
pub mod training;
pub mod triad;
pub mod workloads;
