//! dlc-opt's instrumentation flags — IR printing, timing, statistics layout, crash reproducers —
//! and the logging set up from `DLC_LOG`. Each flag has mlir-opt's meaning and also answers to
//! mlir-opt's spelling (`--mlir-print-ir-after-all`).

use dlc_ir::pass::{
    parse_reproducer_configuration, CrashReproducer, IrPrintConfig, IrPrinting, PassManager,
    ReproducerConfig, StatisticsDisplay, Timing, TimingDisplay,
};
use dlc_ir::PrintOptions;
use std::path::PathBuf;

/// How `--timing-display` lays out the report.
#[derive(clap::ValueEnum, Copy, Clone, Debug, Default)]
pub enum TimingLayout {
    /// Every timer once, the same names added up, slowest first.
    List,
    /// Nested as the pipeline is.
    #[default]
    Tree,
}

/// How `--pass-statistics-display` lays out the report.
#[derive(clap::ValueEnum, Copy, Clone, Debug, Default)]
pub enum StatisticsLayout {
    /// Each pass once, counts of its instances added up.
    List,
    /// Nested as the pipeline is.
    #[default]
    Pipeline,
}

/// The instrumentation flags (flattened into dlc-opt's command line).
#[derive(clap::Args, Debug, Default)]
pub struct InstrumentationFlags {
    /// Print the IR before each of these passes (comma-separated arguments).
    #[arg(
        long,
        alias = "mlir-print-ir-before",
        value_name = "PASSES",
        value_delimiter = ','
    )]
    pub print_ir_before: Vec<String>,

    /// Print the IR after each of these passes (comma-separated arguments).
    #[arg(
        long,
        alias = "mlir-print-ir-after",
        value_name = "PASSES",
        value_delimiter = ','
    )]
    pub print_ir_after: Vec<String>,

    /// Print the IR before every pass.
    #[arg(long, alias = "mlir-print-ir-before-all")]
    pub print_ir_before_all: bool,

    /// Print the IR after every pass.
    #[arg(long, alias = "mlir-print-ir-after-all")]
    pub print_ir_after_all: bool,

    /// With --print-ir-after(-all): print only when the pass changed the IR.
    #[arg(long, alias = "mlir-print-ir-after-change")]
    pub print_ir_after_change: bool,

    /// Print the IR after a pass that failed (and not after passes that succeeded).
    #[arg(long, alias = "mlir-print-ir-after-failure")]
    pub print_ir_after_failure: bool,

    /// Print the whole module, not just the op the pass ran on (runs on one thread).
    #[arg(long, alias = "mlir-print-ir-module-scope")]
    pub print_ir_module_scope: bool,

    /// Print the time each pass, pipeline and phase took, to stderr.
    #[arg(long, alias = "mlir-timing")]
    pub timing: bool,

    /// Layout of the --timing report.
    #[arg(long, alias = "mlir-timing-display", value_enum, default_value_t)]
    pub timing_display: TimingLayout,

    /// Print each pass's statistics after the run.
    #[arg(long, alias = "mlir-pass-statistics")]
    pub pass_statistics: bool,

    /// Layout of the --pass-statistics report.
    #[arg(
        long,
        alias = "mlir-pass-statistics-display",
        value_enum,
        default_value_t
    )]
    pub pass_statistics_display: StatisticsLayout,

    /// When the pipeline fails, write the IR the failing pass started from, and the pipeline
    /// that replays the failure, to FILE (runs on one thread).
    #[arg(
        long,
        alias = "mlir-pass-pipeline-crash-reproducer",
        value_name = "FILE"
    )]
    pub crash_reproducer: Option<PathBuf>,

    /// Run the pipeline named in the input's '// configuration:' line (a reproducer).
    #[arg(long)]
    pub run_reproducer: bool,
}

impl InstrumentationFlags {
    fn ir_print_config(&self, print: PrintOptions) -> IrPrintConfig {
        IrPrintConfig {
            before: self.print_ir_before.clone(),
            after: self.print_ir_after.clone(),
            before_all: self.print_ir_before_all,
            after_all: self.print_ir_after_all,
            after_change: self.print_ir_after_change,
            after_failure: self.print_ir_after_failure,
            module_scope: self.print_ir_module_scope,
            print,
        }
    }

    /// The layout of the timing report.
    pub fn timing_display(&self) -> TimingDisplay {
        match self.timing_display {
            TimingLayout::List => TimingDisplay::List,
            TimingLayout::Tree => TimingDisplay::Tree,
        }
    }

    /// The layout of the statistics report.
    pub fn statistics_display(&self) -> StatisticsDisplay {
        match self.pass_statistics_display {
            StatisticsLayout::List => StatisticsDisplay::List,
            StatisticsLayout::Pipeline => StatisticsDisplay::Pipeline,
        }
    }
}

/// The instrumentations attached to a run, kept to report after it.
#[derive(Default)]
pub struct Instruments {
    pub timing: Option<Timing>,
    pub reproducer: Option<CrashReproducer>,
}

impl Instruments {
    /// Starts the timer of the whole run if `--timing` asks for it (before parsing, so that the
    /// report's total covers everything).
    pub fn new(flags: &InstrumentationFlags) -> Self {
        Instruments {
            timing: flags.timing.then(Timing::new),
            reproducer: None,
        }
    }

    /// Adds what `flags` ask for to `pm`. `replay_flags` are the tool flags a reproducer must
    /// repeat besides the pipeline.
    pub fn attach(
        &mut self,
        flags: &InstrumentationFlags,
        pm: &mut PassManager,
        print: PrintOptions,
        replay_flags: Vec<String>,
    ) {
        // Module-scope dumps and reproducers need the whole module at every pass, which a
        // function transformed in a forked context does not have (MLIR requires
        // --mlir-disable-threading for both).
        if flags.print_ir_module_scope || flags.crash_reproducer.is_some() {
            pm.options.threading = false;
        }
        if let Some(timing) = &self.timing {
            pm.add_instrumentation(timing.instrumentation());
        }
        let config = flags.ir_print_config(print);
        if config.is_enabled() {
            pm.add_instrumentation(Box::new(IrPrinting::new(config)));
        }
        if let Some(path) = &flags.crash_reproducer {
            let reproducer = CrashReproducer::new(ReproducerConfig {
                path: path.clone(),
                pipeline: pm.pipeline_text(),
                flags: replay_flags,
            });
            pm.add_instrumentation(reproducer.instrumentation());
            self.reproducer = Some(reproducer);
        }
    }
}

/// The configuration flags of the reproducer `path`, for `--run-reproducer`.
pub fn reproducer_flags(path: &str) -> anyhow::Result<Vec<String>> {
    if path == "-" {
        anyhow::bail!("--run-reproducer needs an input file, not standard input");
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("could not open input file '{path}': {e}"))?;
    parse_reproducer_configuration(&text).ok_or_else(|| {
        anyhow::anyhow!("--run-reproducer: '{path}' has no '// configuration:' line")
    })
}

/// Logs to stderr as `DLC_LOG` asks (`DLC_LOG=debug`, `DLC_LOG=dlc_ir=trace`); off without it.
/// Each pass runs in a `pass{name=...}` span, reported with its time when it closes.
pub fn init_logging(tool: &str) {
    use std::io::IsTerminal;
    let Ok(directives) = std::env::var("DLC_LOG") else {
        return;
    };
    let filter = match tracing_subscriber::EnvFilter::builder().parse(&directives) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{tool}: warning: ignoring DLC_LOG='{directives}': {e}");
            return;
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .init();
}
