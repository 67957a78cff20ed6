//! The `*-opt` driver, MLIR's `MlirOptMain`: reads IR, verifies it, runs a pass pipeline and
//! prints the result, with mlir-opt's flags and exit codes. `dlc-opt` is [`opt_main`] of
//! [`OptTool::DLC`]; a downstream tool is its dialect and pass registration plus the same call:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     dlc_opt::opt_main(&dlc_opt::OptTool {
//!         name: "my-opt",
//!         dialects: |_ctx| { /* ctx.register_dialect(my_dialect()) */ },
//!         passes: |_registry| { /* my_passes::register(registry) */ },
//!     })
//! }
//! ```
//!
//! Errors are rendered as `file:line:col: error: ...` with the source line and a caret, and make
//! the process exit with 1. Nothing a user writes makes it panic.

mod expected_diagnostics;
mod instrumentation;
mod pipeline_check;
mod test_passes;

use dlc_ir::pass::{parse_pipeline, PassManager, PassRegistry, PipelineFailure};
use dlc_ir::{
    parse_source, print_op_to, verify, Context, Diagnostic, Op, PrintOptions, Severity, SourceMap,
};
use dlc_passes::loops::cpu::target::set_target_cpu;
use instrumentation::Instruments;
use std::io::{Read, Write};
use std::process::ExitCode;

/// An `*-opt` tool: its name and what it registers beyond dlc's dialects and passes.
pub struct OptTool {
    /// The tool's name, in its help and its messages.
    pub name: &'static str,
    /// Registers the tool's own dialects in each context it parses into.
    pub dialects: fn(&mut Context),
    /// Registers the tool's own passes and pipelines.
    pub passes: fn(&mut PassRegistry),
}

impl OptTool {
    /// `dlc-opt`: dlc's dialects and passes, and the passes that exist for its tests.
    pub const DLC: OptTool = OptTool {
        name: "dlc-opt",
        dialects: |_| {},
        passes: test_passes::register,
    };
}

/// Parse, verify and print dlc IR (MLIR syntax).
#[derive(clap::Parser, Debug)]
#[command(name = "dlc-opt", version, about, long_about = None)]
struct Cli {
    /// Input file, or '-' for standard input.
    #[arg(default_value = "-")]
    input: String,

    /// Output file (default: standard output).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,

    /// Split the input on '// -----' lines and process each chunk on its own.
    #[arg(long)]
    split_input_file: bool,

    /// Marker printed between the outputs of split chunks.
    #[arg(long, default_value = "// -----")]
    output_split_marker: String,

    /// Check diagnostics against 'expected-*' annotations in the input instead of reporting them.
    #[arg(long)]
    verify_diagnostics: bool,

    /// Accept operations, types and attributes of unregistered dialects.
    #[arg(long)]
    allow_unregistered_dialect: bool,

    /// Print every operation in the generic form.
    #[arg(long, alias = "mlir-print-op-generic")]
    print_generic: bool,

    /// Print operation locations.
    #[arg(long, alias = "mlir-print-debuginfo")]
    print_debuginfo: bool,

    /// Print locations in place rather than as `#loc` aliases: what dlc-opt always does, so
    /// the flag (MLIR's `-mlir-print-local-scope`) is accepted and changes nothing.
    #[arg(long = "mlir-print-local-scope")]
    _print_local_scope: bool,

    /// Annotate the printed IR with the symbolic shape of every tensor value, as Paddle PIR's
    /// `sym_shape_str` (`"shape[s0, 32]"`), and each function with where its symbols come from
    /// and the runtime constraints between them (`dlc_graph::shapes::annotate`).
    #[arg(long)]
    print_symbolic_shapes: bool,

    /// What to print: the IR ('ir'), each function as a Graphviz graph ('dot'), the program
    /// in upstream MLIR dialects ('mlir': func, scf, memref, vector, gpu, ...), or the kernels
    /// as LLVM IR ('llvm') or PTX assembly ('ptx') for --target.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    emit: Emit,

    /// The machine for --emit=llvm/ptx: 'cpu' (this host), an x86-64 level this host supports
    /// ('x86-64-v3': AVX2 without AVX-512), or 'nvptx64[:sm_NN]' (default sm_80; --emit=ptx
    /// implies nvptx64).
    #[arg(long, value_name = "TARGET")]
    target: Option<dlc_codegen::Target>,

    /// List the registered dialects and exit.
    #[arg(long)]
    show_dialects: bool,

    /// Passes to run, flat: 'cse,canonicalize{max-iterations=4}' (each pass runs on the ops it
    /// anchors on; the nesting is built for you). The nested form is accepted too. A flat
    /// pipeline gains the conversions between IR levels it skips ('decompose' before 'fuse',
    /// 'lower{target=...}' before the first loop pass after a graph pass), with a remark.
    #[arg(long, value_name = "PIPELINE")]
    pipeline: Option<String>,

    /// Run '--pipeline' exactly as written, without the implicit 'decompose' and 'lower'.
    #[arg(long)]
    no_implicit_lowering: bool,

    /// Passes to run, in MLIR's nested form: 'builtin.module(func.func(cse))'.
    #[arg(long, short = 'p', value_name = "PIPELINE")]
    pass_pipeline: Option<String>,

    /// Print the pipeline in its full textual form (every option spelled out) to stderr.
    #[arg(long, alias = "mlir-print-pass-pipeline")]
    dump_pass_pipeline: bool,

    /// List every pass and named pipeline with its summary and options, and exit.
    #[arg(long)]
    list_passes: bool,

    /// Verify the IR after every pass (default true).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    verify_each: bool,

    /// Run nested pipelines on one thread (output is identical either way).
    #[arg(long, alias = "mlir-disable-threading")]
    disable_threading: bool,

    #[command(flatten)]
    instruments: instrumentation::InstrumentationFlags,

    /// Passes given as their own flags (`--cse --canonicalize=max-iterations=4`), in order.
    #[arg(skip)]
    pass_flags: Vec<String>,

    /// The tool's name, for its messages.
    #[arg(skip)]
    tool: &'static str,

    /// The tool's own dialect registration.
    #[arg(skip)]
    dialects: Option<fn(&mut Context)>,
}

/// The output format of `--emit`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Emit {
    /// The IR in MLIR syntax.
    Ir,
    /// The lowered program in upstream MLIR dialects (see `dlc_mlir`), verified by MLIR.
    Mlir,
    /// One Graphviz `digraph` per function (see `dlc_graph::dot`).
    Dot,
    /// The kernels as optimized LLVM IR for --target (see `dlc_codegen`).
    Llvm,
    /// The kernels as PTX assembly for --target (an nvptx64 target).
    Ptx,
}

/// Every pass and named pipeline the tool knows: dlc's and its own.
fn new_registry(tool: &OptTool) -> PassRegistry {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    (tool.passes)(&mut registry);
    registry
}

/// A context with every dialect the tool knows: dlc's and its own.
fn new_context(cli: &Cli, allow_unregistered: bool) -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    if let Some(register) = cli.dialects {
        register(&mut ctx);
    }
    ctx.allow_unregistered = allow_unregistered;
    ctx
}

/// Splits the command line into what clap parses and the passes given as flags.
///
/// mlir-opt's single-dash long options (`-split-input-file`) are accepted as well as `--`: an
/// argument `-name[=value]` whose name is a long option becomes `--name[=value]`. An argument
/// `--name[=options]` whose name is a registered pass or pipeline (and no option of the tool) is
/// taken out as a pass flag, kept in order.
fn split_args(registry: &PassRegistry, argv: Vec<String>) -> (Vec<String>, Vec<String>) {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let longs: Vec<String> = cmd
        .get_arguments()
        .flat_map(|a| {
            a.get_long()
                .into_iter()
                .chain(a.get_all_aliases().unwrap_or_default())
        })
        .map(str::to_string)
        .chain(["help".to_string(), "version".to_string()])
        .collect();
    let mut args = Vec::new();
    let mut passes = Vec::new();
    for (i, a) in argv.into_iter().enumerate() {
        let body = a
            .strip_prefix("--")
            .or_else(|| a.strip_prefix('-'))
            .filter(|_| i > 0 && a.len() > 1);
        let name = body.map(|b| b.split('=').next().unwrap_or(b));
        match (body, name) {
            (Some(b), Some(n)) if longs.iter().any(|l| l == n) => args.push(format!("--{b}")),
            (Some(b), Some(n)) if registry.contains(n) => match b.split_once('=') {
                Some((n, opts)) => passes.push(format!("{n}{{{opts}}}")),
                None => passes.push(n.to_string()),
            },
            _ => args.push(a),
        }
    }
    (args, passes)
}

/// Parses the command line; `Err` is the exit code when clap has already said why. With
/// `last_wins`, a flag given twice takes its last value instead of being an error.
fn parse_cli(
    tool: &OptTool,
    registry: &PassRegistry,
    argv: Vec<String>,
    last_wins: bool,
) -> Result<Cli, ExitCode> {
    use clap::{CommandFactory, FromArgMatches};
    let (args, pass_flags) = split_args(registry, argv);
    let parsed = Cli::command()
        .name(tool.name)
        .bin_name(tool.name)
        .args_override_self(last_wins)
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m));
    match parsed {
        Ok(mut cli) => {
            cli.pass_flags = pass_flags;
            cli.tool = tool.name;
            cli.dialects = Some(tool.dialects);
            Ok(cli)
        }
        Err(e) => {
            let _ = e.print();
            Err(if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

/// Runs `tool` on the process's command line and returns its exit code: 0, or 1 after a
/// reported error (parse, verify, pass failure, bad flags).
pub fn opt_main(tool: &OptTool) -> ExitCode {
    instrumentation::init_logging(tool.name);
    let registry = new_registry(tool);
    let argv: Vec<String> = std::env::args().collect();
    let mut cli = match parse_cli(tool, &registry, argv.clone(), false) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if cli.instruments.run_reproducer {
        // The reproducer's flags go first, so that flags given on the command line win.
        let flags = match instrumentation::reproducer_flags(&cli.input) {
            Ok(flags) => flags,
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "{}: {e:#}", tool.name);
                return ExitCode::from(1);
            }
        };
        let argv = argv[..1]
            .iter()
            .cloned()
            .chain(flags)
            .chain(argv[1..].iter().cloned());
        cli = match parse_cli(tool, &registry, argv.collect(), true) {
            Ok(cli) => cli,
            Err(code) => return code,
        };
    }
    match run(&cli, &registry) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            // A closed stderr (`2>&1 | head`) must not turn a reported failure into a panic.
            let _ = writeln!(std::io::stderr(), "{}: {e:#}", tool.name);
            ExitCode::from(1)
        }
    }
}

/// One `// -----` chunk of the input: its text and the line it starts on.
struct Chunk<'a> {
    text: &'a str,
    first_line: u32,
}

fn split_chunks(text: &str, split: bool) -> Vec<Chunk<'_>> {
    if !split {
        return vec![Chunk {
            text,
            first_line: 1,
        }];
    }
    let mut chunks = Vec::new();
    let (mut start, mut first_line, mut line, mut offset) = (0usize, 1u32, 1u32, 0usize);
    for l in text.split_inclusive('\n') {
        if l.trim_end().starts_with("// -----") {
            chunks.push(Chunk {
                text: &text[start..offset],
                first_line,
            });
            start = offset + l.len();
            first_line = line + 1;
        }
        offset += l.len();
        line += 1;
    }
    chunks.push(Chunk {
        text: &text[start..],
        first_line,
    });
    chunks
}

/// Prints `--list-passes`: each pass with its summary and options, then named pipelines.
fn list_passes(registry: &PassRegistry) -> std::io::Result<()> {
    let mut text = String::from("Passes:\n");
    for p in registry.passes() {
        text += &format!("  --{:<28} {}\n", p.argument, p.summary);
        for o in p.options {
            let opt = format!("{}=<{}>", o.name, o.kind.type_name());
            text += &format!("      {opt:<30} {} (default: {})\n", o.help, o.default);
        }
    }
    text += "Pipelines:\n";
    for p in registry.pipelines() {
        text += &format!("  --{:<28} {} ({})\n", p.name, p.summary, p.pipeline);
    }
    print_listing(&text)
}

/// Writes a listing to stdout. A reader that stops early (`dlc-opt --list-passes | head`)
/// closes the pipe: the rest is dropped quietly, where `println!` would panic.
fn print_listing(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => written,
    }
}

/// The pass manager the command line asks for (`None` when it names no passes), or the
/// rendered error.
fn build_pipeline(cli: &Cli, registry: &PassRegistry) -> Result<Option<PassManager>, String> {
    let named = [
        ("--print-ir-before", &cli.instruments.print_ir_before),
        ("--print-ir-after", &cli.instruments.print_ir_after),
    ];
    for (flag, passes) in named {
        if let Some(unknown) = passes.iter().find(|p| registry.pass(p).is_none()) {
            return Err(format!(
                "{}: error: {flag}: unknown pass '{unknown}' (see --list-passes)\n",
                cli.tool
            ));
        }
    }
    let flat = (!cli.pass_flags.is_empty()).then(|| cli.pass_flags.join(","));
    let given: Vec<(&str, &str)> = [
        ("--pipeline", cli.pipeline.as_deref()),
        ("--pass-pipeline", cli.pass_pipeline.as_deref()),
        ("pass flags", flat.as_deref()),
    ]
    .into_iter()
    .filter_map(|(flag, text)| text.map(|t| (flag, t)))
    .collect();
    let (flag, text) = match given[..] {
        [] => return Ok(None),
        [one] => one,
        _ => {
            let names: Vec<&str> = given.iter().map(|(f, _)| *f).collect();
            return Err(format!(
                "{}: error: give passes in one way only, not with {}\n",
                cli.tool,
                names.join(" and ")
            ));
        }
    };
    let mut spec = parse_pipeline(text).map_err(|e| e.render(flag, text))?;
    if flag == "--pipeline" && !cli.no_implicit_lowering {
        let (converted, inserted) = dlc_passes::levels::with_conversions(&spec);
        if !inserted.is_empty() {
            let added: Vec<String> = inserted
                .iter()
                .map(|i| format!("'{}' before '{}'", i.pass, i.before))
                .collect();
            eprintln!(
                "{}: remark: implicit lowering: inserted {} (--no-implicit-lowering runs \
                 the pipeline as written)",
                cli.tool,
                added.join(" and ")
            );
            spec = converted;
        }
    }
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| e.render(flag, text))?;
    pm.options.verify_each = cli.verify_each;
    pm.options.threading = !cli.disable_threading;
    Ok(Some(pm))
}

/// Runs the tool; `Ok(false)` means a reported failure (exit code 1).
fn run(cli: &Cli, registry: &PassRegistry) -> anyhow::Result<bool> {
    if cli.show_dialects {
        let ctx = new_context(cli, false);
        // Sorted, as mlir-opt lists them.
        let mut names = ctx.dialect_names();
        names.sort_unstable();
        print_listing(&format!("Available Dialects: {}\n", names.join(", ")))?;
        return Ok(true);
    }
    if cli.list_passes {
        list_passes(registry)?;
        return Ok(true);
    }
    // Not locked: IR dumps and logs come from worker threads while the pipeline runs.
    let mut stderr = std::io::stderr();
    let mut instruments = Instruments::new(&cli.instruments);
    let mut pipeline = match build_pipeline(cli, registry) {
        Ok(pm) => pm,
        Err(rendered) => {
            write!(stderr, "{rendered}")?;
            return Ok(false);
        }
    };
    if cli.dump_pass_pipeline {
        let text = pipeline
            .as_ref()
            .map_or("builtin.module()".to_string(), |pm| pm.pipeline_text());
        writeln!(stderr, "Pass Manager with {text}")?;
    }
    let options = PrintOptions {
        generic: cli.print_generic,
        debuginfo: cli.print_debuginfo,
    };
    if let Some(pm) = &mut pipeline {
        let mut replay = vec![format!("--verify-each={}", cli.verify_each)];
        if cli.allow_unregistered_dialect {
            replay.push("--allow-unregistered-dialect".to_string());
        }
        instruments.attach(&cli.instruments, pm, options, replay);
    }
    let (name, text) = read_input(&cli.input)?;
    let mut sources = SourceMap::new();
    sources.add(&name, &text);
    let mut out: Box<dyn Write> = match &cli.output {
        Some(path) if path != "-" => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| anyhow::anyhow!("could not open output file '{path}': {e}"))?,
        )),
        _ => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut printed_any = false;
    let mut ok = true;
    for chunk in split_chunks(&text, cli.split_input_file) {
        let mut ctx = new_context(cli, cli.allow_unregistered_dialect);
        let mut diagnostics: Vec<Diagnostic> = Vec::new();
        let timer = instruments.timing.as_ref().map(|t| t.start("Parser"));
        let parsed = parse_source(&mut ctx, chunk.text, &name, chunk.first_line)
            .and_then(|module| verify(&ctx, module).map(|()| module));
        drop(timer);
        // A named CPU level schedules the kernels for it too (`tile`, `vectorize`).
        if let (Ok(module), Some(dlc_codegen::Target::Cpu(cpu))) = (&parsed, cli.target) {
            if cpu != dlc_codegen::CpuTarget::Host {
                set_target_cpu(&mut ctx, *module, &cpu.to_string()).map_err(anyhow::Error::msg)?;
            }
        }
        if let (Ok(module), Some(pm)) = (&parsed, &pipeline) {
            diagnostics.extend(pipeline_check::lower_missing(
                &pm.pipeline_text(),
                &ctx,
                *module,
            ));
        }
        let module = match parsed {
            Ok(module) => match pipeline
                .as_mut()
                .map(|pm| run_pipeline(cli, pm, &mut ctx, module, &instruments))
            {
                None => Some(module),
                Some(Ok(warnings)) => {
                    diagnostics.extend(warnings);
                    Some(module)
                }
                Some(Err(failure)) => {
                    diagnostics.extend(failure.diagnostics);
                    None
                }
            },
            Err(d) => {
                diagnostics.push(d);
                None
            }
        };
        if let Some(module) = module {
            // As mlir-opt: each chunk's module followed by a blank line, chunks separated by
            // the marker.
            if printed_any {
                writeln!(out, "{}", cli.output_split_marker).map_err(output_error)?;
            }
            printed_any = true;
            let _timer = instruments.timing.as_ref().map(|t| t.start("Output"));
            if cli.print_symbolic_shapes {
                dlc_graph::shapes::annotate(&mut ctx, module);
            }
            match cli.emit {
                Emit::Ir => {
                    print_op_to(&ctx, module, options, &mut out).map_err(output_error)?;
                    write!(out, "\n\n").map_err(output_error)?;
                }
                Emit::Dot => {
                    let dot = dlc_graph::dot::print_dot(&ctx, module);
                    write!(out, "{dot}").map_err(output_error)?;
                }
                Emit::Mlir => {
                    let options = dlc_mlir::ExportOptions::default();
                    match dlc_mlir::emit_mlir(&ctx, module, &options) {
                        Ok(text) => writeln!(out, "{text}").map_err(output_error)?,
                        Err(d) => diagnostics.push(d),
                    }
                }
                Emit::Llvm | Emit::Ptx => match emit_code(&ctx, module, cli.emit, cli.target) {
                    Ok(code) => write!(out, "{code}").map_err(output_error)?,
                    Err(d) => diagnostics.push(d),
                },
            }
        }
        if cli.verify_diagnostics {
            let mut expected =
                match expected_diagnostics::parse_expectations(chunk.text, chunk.first_line) {
                    Ok(e) => e,
                    Err(e) => {
                        writeln!(stderr, "{name}:{}:{}: error: {}", e.line, e.col, e.message)?;
                        ok = false;
                        continue;
                    }
                };
            for failure in
                expected_diagnostics::check(&ctx, &sources, &name, &diagnostics, &mut expected)
            {
                write!(stderr, "{failure}")?;
                ok = false;
            }
        } else {
            for d in &diagnostics {
                write!(stderr, "{}", sources.render(&ctx, d))?;
                ok &= d.severity != Severity::Error;
            }
        }
        // The process is about to exit: returning a large IR's memory piece by piece would
        // only cost time (clang's -disable-free, for the same reason).
        std::mem::forget(ctx);
    }
    let timer = instruments.timing.as_ref().map(|t| t.start("Output"));
    out.flush().map_err(output_error)?;
    drop(timer);
    let flags = &cli.instruments;
    if flags.pass_statistics {
        if let Some(pm) = &pipeline {
            let report = pm.statistics_report_as(flags.statistics_display());
            write!(stderr, "{report}")?;
        }
    }
    if let Some(timing) = &instruments.timing {
        write!(stderr, "{}", timing.report(flags.timing_display()))?;
    }
    Ok(ok)
}

/// Runs `pm` on `module`. With a crash reproducer, a failure or a panic first writes one and
/// says where.
fn run_pipeline(
    cli: &Cli,
    pm: &mut PassManager,
    ctx: &mut Context,
    module: Op,
    instruments: &Instruments,
) -> Result<Vec<Diagnostic>, PipelineFailure> {
    let Some(reproducer) = &instruments.reproducer else {
        return pm.run(ctx, module);
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pm.run(ctx, module)));
    let note = || match reproducer.write_for_failed_run() {
        Ok(note) => note,
        Err(e) => Some(format!("could not write the crash reproducer: {e}")),
    };
    match result {
        Ok(Ok(warnings)) => Ok(warnings),
        Ok(Err(mut failure)) => {
            // As mlir-opt: the note follows the error that stopped the pipeline.
            if let (Some(note), Some(error)) = (note(), failure.diagnostics.pop()) {
                failure
                    .diagnostics
                    .push(error.with_note(ctx.op_loc(module), note));
            }
            Err(failure)
        }
        Err(panic) => {
            if let Some(note) = note() {
                let _ = writeln!(std::io::stderr(), "{}: note: {note}", cli.tool);
            }
            std::panic::resume_unwind(panic)
        }
    }
}

/// Output failures are errors, except a closed pipe (`dlc-opt x | head`), which just ends output.
fn output_error(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    anyhow::anyhow!("could not write output: {e}")
}

fn read_input(path: &str) -> anyhow::Result<(String, String)> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| anyhow::anyhow!("could not read standard input: {e}"))?;
        return Ok(("<stdin>".to_string(), text));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| anyhow::anyhow!("could not open input file '{path}': {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("input file '{path}' is not valid UTF-8"))?;
    Ok((path.to_string(), text))
}

/// The kernels of `module` as LLVM IR or PTX for `target`.
fn emit_code(
    ctx: &Context,
    module: Op,
    emit: Emit,
    target: Option<dlc_codegen::Target>,
) -> Result<String, Diagnostic> {
    use dlc_codegen::Target;
    match (emit, target) {
        (Emit::Ptx, None) => dlc_codegen::emit_ptx(ctx, module, dlc_codegen::DEFAULT_SM),
        (Emit::Ptx, Some(Target::Nvptx { sm })) => dlc_codegen::emit_ptx(ctx, module, sm),
        (Emit::Ptx, Some(Target::Cpu(_))) => Err(Diagnostic::error(
            ctx.op_loc(module),
            "--emit=ptx needs an nvptx64 target (e.g. --target=nvptx64:sm_90)",
        )),
        (_, target) => dlc_codegen::emit_llvm_ir(
            ctx,
            module,
            target.unwrap_or(Target::Cpu(dlc_codegen::CpuTarget::Host)),
        ),
    }
}
