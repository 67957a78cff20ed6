//! Passes and the pass manager.
//!
//! A pass is a value implementing [`Pass`], described by a static [`PassInfo`]: the argument
//! users type (`cse`), a one-line summary, the op it anchors on, typed options and statistics.
//! A [`PassRegistry`] maps arguments to infos and holds named pipelines. Pipelines are written as
//! text — flat (`cse,canonicalize{max-iterations=4}`) or in MLIR's nested grammar
//! (`builtin.module(func.func(cse))`) — parsed into a [`PipelineSpec`] and built into a
//! [`PassManager`], which runs the passes in order, nests them on the ops they anchor on, verifies
//! after each pass, and reports to [`PassInstrumentation`]s: IR printing, timing and crash
//! reproducers are in `instrument.rs`.

mod analysis;
mod definition;
mod instrument;
mod manager;
mod options;
mod pipeline;
mod registry;
mod statistics;

pub use analysis::{Analysis, AnalysisManager};
pub use definition::{Anchor, Pass, PassInfo, PassRun};
pub use instrument::{
    parse_reproducer_configuration, CrashReproducer, IrPrintConfig, IrPrinting, ReproducerConfig,
    TimerGuard, Timing, TimingDisplay, REPRODUCER_CONFIGURATION,
};
pub use manager::{PassInstrumentation, PassManager, PassManagerOptions, PipelineFailure};
pub use options::{NestedPipeline, OptionKind, OptionSpec, OptionValue, OptionValues};
pub use pipeline::{parse_pipeline, PipelineElement, PipelineError, PipelineSpec};
pub use registry::{NamedPipeline, PassRegistry};
pub use statistics::StatisticsDisplay;
