//! dlc-bench's tests, in one test binary (each binary links LLVM and MLIR, about 1.7 s of CPU:
//! docs/testing.md): every workload compiles and checks (`workloads`), the report's tables and
//! bars (`report`), the real ONNX models against their reference outputs (`onnx_models`), and
//! the digits classifiers trained by dlc (`training`).

mod onnx_models;
mod report;
mod training;
mod workloads;
