//! The ONNX importer through its public API, in one test binary: models it must refuse with a
//! diagnostic (`robustness`), the recurrent layers (`recurrent`) and the quantization operators
//! (`quantization`). The node tests and the real models are run by dlc-driver's
//! onnx_conformance test and dlc-bench. One binary rather than one per file: each costs cargo a
//! build and a link (docs/testing.md).

mod quantization;
mod recurrent;
mod robustness;
